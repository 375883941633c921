# torchvision's ResNet-50 through kiln (fp16) on the GPU, compared with torch's fp32 outputs.
import sys

import kiln
import torch
import torchvision
torch.manual_seed(0)
model = torchvision.models.resnet50().eval()
x = torch.randn(8, 3, 224, 224)
artifact = kiln.compile(model, example_inputs=(x,), precision="fp16")  # kept in $KILN_CACHE_DIR if set
if not torch.cuda.is_available():
    sys.exit(f"compiled {artifact}; no CUDA device here to run it")
session = kiln.load(artifact).session()
y = session.run({"input_0": x.cuda()}, as_torch=True)["output_0"]  # on torch's current stream
with torch.no_grad():
    reference = model.cuda()(x.cuda())
error = ((y - reference).norm() / reference.norm()).item()
print(f"ResNet-50 fp16 on {torch.cuda.get_device_name()}: rel-L2 {error:.2e} against torch fp32")
sys.exit(0 if error <= 1e-2 else 1)
