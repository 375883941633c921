// kiln-patch-convolutions: a convolution whose windows tile its input
// without overlap (kernel = stride, no padding or dilation: a vision
// transformer's patch embedding, Swin's and ConvNeXt's stems) becomes one
// GEMM over the patches.
//
// Such a convolution reads every input pixel once, so it is a matrix
// product: each output pixel is the dot product of one patch (C x kh x kw
// values) with each filter. cuDNN runs it as an implicit GEMM whose K is the
// input's C per filter tap, and with the 3 channels of an image that K
// fills no tensor-core tile: ViT-B/16's 16 x 16 patch embedding at batch 8
// took 90 us on the H200 (20 TFLOP/s). As a GEMM, K is C x kh x kw (768).
//
// Algorithm, for each such 2-D kiln.conv (NCHW, group 1, kh x kw > 1, H and
// W multiples of the kernel, static shapes, input channels not a multiple of
// 8 (the ones cuDNN cannot feed its tensor cores; with 8 or more it keeps
// them), weight computed from constants):
//   patches = transpose(reshape(x, [N, C, H/kh, kh, W/kw, kw]),
//                       [0, 2, 4, 1, 3, 5])           // [N, H', W', C, kh, kw]
//   rows    = reshape(patches, [N, H', W', C*kh*kw])
//   y       = matmul(rows, transpose(reshape(w, [M, C*kh*kw]), [1, 0]))
//             (+ bias: a row added to the matmul, a GEMM's bias epilogue)
//   result  = transpose(y, [0, 3, 1, 2])               // [N, M, H', W']
// The weight's reshape and transpose are a weight transform (folded, or part
// of the init program); the transposes meet the graph's own and compose.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/OpBuilders.h"
#include "kiln/Transforms/ConstantFolding.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNPATCHCONVOLUTIONS
#include "kiln/Transforms/Passes.h.inc"

namespace {

/// The static NCHW 2-D convolution |conv| when its windows tile the input
/// without overlap and it is worth a GEMM (see the file comment).
bool isPatchConvolution(ConvOp conv) {
  auto input = dyn_cast<RankedTensorType>(conv.getInput().getType());
  auto weight = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  auto output = dyn_cast<RankedTensorType>(conv.getType());
  if (!input || !weight || !output || !input.hasStaticShape() ||
      !weight.hasStaticShape() || !output.hasStaticShape() ||
      input.getRank() != 4 || conv.isChannelsLast() || conv.getGroup() != 1 ||
      !isa<FloatType>(input.getElementType()))
    return false;
  int64_t channels = input.getDimSize(1);
  int64_t kh = weight.getDimSize(2), kw = weight.getDimSize(3);
  auto strides = conv.getStrides(), dilations = conv.getDilations();
  if (kh * kw <= 1 || strides.size() != 2 || strides[0] != kh ||
      strides[1] != kw || llvm::any_of(conv.getPads(), [](int64_t p) {
        return p != 0;
      }) || llvm::any_of(dilations, [](int64_t d) { return d != 1; }))
    return false;
  if (input.getDimSize(2) % kh != 0 || input.getDimSize(3) % kw != 0)
    return false;
  return channels % 8 != 0 && isWeightExpression(conv.getWeight()) &&
         (!conv.getBias() || isWeightExpression(conv.getBias()));
}

void rewrite(ConvOp conv) {
  OpBuilder builder(conv);
  Location loc = conv.getLoc();
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  auto output = cast<RankedTensorType>(conv.getType());
  int64_t n = input.getDimSize(0), c = input.getDimSize(1);
  int64_t kh = weight.getDimSize(2), kw = weight.getDimSize(3);
  int64_t m = weight.getDimSize(0);
  int64_t h = output.getDimSize(2), w = output.getDimSize(3);
  int64_t k = c * kh * kw;

  Value split =
      createReshape(builder, loc, conv.getInput(), {n, c, h, kh, w, kw});
  Value patches = createTranspose(builder, loc, split, {0, 2, 4, 1, 3, 5});
  Value rows = createReshape(builder, loc, patches, {n, h, w, k});
  Value filters = createTranspose(
      builder, loc, createReshape(builder, loc, conv.getWeight(), {m, k}),
      {1, 0});
  auto productType =
      RankedTensorType::get({n, h, w, m}, output.getElementType());
  Value product = builder.create<MatMulOp>(loc, productType, rows, filters);
  if (Value bias = conv.getBias())
    product = builder.create<AddOp>(loc, productType, product, bias);
  Value result = createTranspose(builder, loc, product, {0, 3, 1, 2});
  conv.getResult().replaceAllUsesWith(result);
  conv.erase();
}

struct PatchConvolutionsPass
    : impl::KilnPatchConvolutionsBase<PatchConvolutionsPass> {
  void runOnOperation() override {
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp conv) {
      if (isPatchConvolution(conv))
        convs.push_back(conv);
    });
    for (ConvOp conv : convs)
      rewrite(conv);
  }
};

} // namespace
} // namespace kiln
