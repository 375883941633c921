// Conv descriptors of `library` kernels: a 2-D NCHW or NHWC kiln.conv
// (groups, symmetric pads, strides, dilations, optional bias), with the
// relu(+ residual) epilogue the kernel records (LibraryEpilogue.h), as one
// cuDNN call.
#include "PackageInternal.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Dialect/Kiln/KernelKinds/LibraryEpilogue.h"

using namespace mlir;

namespace kiln::package {

using namespace kiln::artifact;

bool yieldsConvolution(KernelOp kernel) {
  return isa_and_nonnull<ConvOp>(getKernelAnchor(kernel));
}

LogicalResult describeConv(KernelOp kernel, BodyBufferFn bufferOf,
                           ConvT &conv) {
  // The verifier has checked the library contract: one conv, and the
  // epilogue the kernel records.
  std::string why;
  FailureOr<LibraryEpilogueOps> ops = traceLibraryEpilogue(kernel, &why);
  if (failed(ops))
    return kernel.emitError("packager: library kernel '")
           << kernel.getSymName() << "': " << why;
  auto op = dyn_cast<ConvOp>(ops->anchor);
  if (!op)
    return kernel.emitError("packager: library kernel '")
           << kernel.getSymName() << "' calls no kiln.conv";
  LibraryEpilogueAttr epilogue = getLibraryEpilogue(kernel);
  // With a run-time batch (issue 18) the dims are those at the ranges'
  // maximum and n_expr gives N per shape.
  FailureOr<std::optional<LibraryExtent>> extent = getLibraryExtent(kernel);
  if (failed(extent))
    return failure();
  auto input = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto weight = dyn_cast<RankedTensorType>(op.getWeight().getType());
  auto output = dyn_cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> pads = op.getPads(), strides = op.getStrides(),
                    dilations = op.getDilations();
  auto batchOnly = [&](RankedTensorType type) {
    for (int64_t d = 1; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        return false;
    return type.hasStaticShape() || *extent;
  };
  if (!input || !weight || !output || input.getRank() != 4 ||
      weight.getRank() != 4 || output.getRank() != 4 || !batchOnly(input) ||
      !weight.hasStaticShape() || !batchOnly(output) || pads.size() != 4 ||
      strides.size() != 2 || dilations.size() != 2)
    return kernel.emitError("packager: kernel '")
           << kernel.getSymName()
           << "': the library call runs 2-D convolutions whose only "
              "run-time extent is the batch";
  if (pads[0] != pads[2] || pads[1] != pads[3])
    return kernel.emitError("packager: kernel '")
           << kernel.getSymName() << "': asymmetric pads [" << pads[0] << ", "
           << pads[1] << ", " << pads[2] << ", " << pads[3]
           << "] cannot be expressed by cuDNN";

  FailureOr<uint32_t> x = bufferOf(op.getInput());
  FailureOr<uint32_t> w = bufferOf(op.getWeight());
  if (failed(x) || failed(w))
    return failure();
  conv.x = *x;
  conv.w = *w;
  if (Value bias = op.getBias()) {
    FailureOr<uint32_t> buffer = bufferOf(bias);
    if (failed(buffer))
      return failure();
    conv.bias = *buffer;
  }
  if (epilogue.getActivation() == LibraryActivation::Relu)
    conv.activation = ConvActivation_Relu;
  if (epilogue.getAddend() == LibraryAddend::Residual) {
    FailureOr<uint32_t> residual = bufferOf(ops->addend);
    if (failed(residual))
      return failure();
    conv.residual = *residual;
  }
  // Dims in NCHW order: NHWC keeps channels in dim 3 of x, w and out.
  bool channelsLast = op.isChannelsLast();
  int64_t channelDim = channelsLast ? 3 : 1, spatialDim = channelsLast ? 1 : 2;
  conv.layout = channelsLast ? ConvLayout_NHWC : ConvLayout_NCHW;
  SmallVector<int64_t> inputShape(input.getShape()),
      outputShape(output.getShape());
  if (*extent) {
    inputShape = (*extent)->shapeOf(input);
    outputShape = (*extent)->shapeOf(output);
    conv.n_expr = (*extent)->extent.str();
  }
  conv.n = inputShape[0];
  conv.c = inputShape[channelDim];
  conv.h = inputShape[spatialDim];
  conv.width = inputShape[spatialDim + 1];
  conv.k = weight.getDimSize(0);
  conv.r = weight.getDimSize(spatialDim);
  conv.s = weight.getDimSize(spatialDim + 1);
  conv.pad_h = pads[0];
  conv.pad_w = pads[1];
  conv.stride_h = strides[0];
  conv.stride_w = strides[1];
  conv.dilation_h = dilations[0];
  conv.dilation_w = dilations[1];
  conv.groups = op.getGroup();
  conv.out_h = outputShape[spatialDim];
  conv.out_w = outputShape[spatialDim + 1];
  auto module = kernel->getParentOfType<ModuleOp>();
  auto precision =
      module ? module->getAttrOfType<StringAttr>(kPrecisionAttr) : nullptr;
  conv.allow_tf32 = precision && precision.getValue() == "tf32";
  return success();
}

} // namespace kiln::package
