// kiln-fold-batch-norm: an inference BatchNormalization of a convolution's
// output, with constant statistics and parameters, folds into the
// convolution's weights and bias:
//
//   factor = scale / sqrt(variance + epsilon)              [K]
//   w'     = w * reshape(factor, [K, 1, ..., 1])
//   b'     = (b - mean) * factor + bias                    (b = 0 without one)
//   batch_norm(conv(x, w, b)) = conv(x, w', b')
//
// The new weights are expressions of constants: constant folding evaluates
// the small ones at compile time and kiln-outline-init moves the large ones
// (w') into the init program that runs at load. The convolution must have
// the batch norm as its only user and f32/f16/bf16 constant operands.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/BatchNormFactor.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNFOLDBATCHNORM
#include "kiln/Transforms/Passes.h.inc"

namespace {

bool isConstant(Value value) {
  return value && value.getDefiningOp<ConstantOp>();
}

LogicalResult foldInto(BatchNormOp norm, OpBuilder &builder) {
  auto conv = norm.getInput().getDefiningOp<ConvOp>();
  if (!conv || conv.isChannelsLast() || !conv->hasOneUse() ||
      !isConstant(conv.getWeight()) ||
      (conv.getBias() && !isConstant(conv.getBias())) ||
      !isConstant(norm.getScale()) || !isConstant(norm.getBias()) ||
      !isConstant(norm.getMean()) || !isConstant(norm.getVariance()))
    return failure();
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  auto channelType = dyn_cast<RankedTensorType>(norm.getScale().getType());
  if (!weightType || !weightType.hasStaticShape() || !channelType ||
      channelType.getRank() != 1 ||
      channelType.getDimSize(0) != weightType.getDimSize(0) ||
      weightType.getElementType() != channelType.getElementType() ||
      !isa<FloatType>(weightType.getElementType()))
    return failure();
  for (Value channel : {norm.getBias(), norm.getMean(), norm.getVariance()})
    if (channel.getType() != channelType)
      return failure();

  Location loc = builder.getFusedLoc({conv.getLoc(), norm.getLoc()});
  builder.setInsertionPoint(conv);
  Type element = channelType.getElementType();
  Value factor = buildBatchNormFactor(builder, loc, norm);
  SmallVector<int64_t> broadcastShape(weightType.getRank(), 1);
  broadcastShape[0] = weightType.getDimSize(0);
  auto shapeType = RankedTensorType::get(
      {int64_t(broadcastShape.size())}, builder.getI64Type());
  Value shape = builder.create<ConstantOp>(
      loc, DenseElementsAttr::get(shapeType, ArrayRef(broadcastShape)));
  Value column = builder.create<ReshapeOp>(
      loc, RankedTensorType::get(broadcastShape, element), factor, shape,
      builder.getBoolAttr(false));
  Value weight =
      builder.create<MulOp>(loc, weightType, conv.getWeight(), column);
  Value centred = conv.getBias()
                      ? Value(builder.create<SubOp>(loc, channelType,
                                                    conv.getBias(),
                                                    norm.getMean()))
                      : Value(builder.create<NegOp>(loc, channelType,
                                                    norm.getMean()));
  Value scaled = builder.create<MulOp>(loc, channelType, centred, factor);
  Value bias = builder.create<AddOp>(loc, channelType, scaled, norm.getBias());

  conv.getWeightMutable().assign(weight);
  if (conv.getBias())
    conv.getBiasMutable().assign(bias);
  else
    conv.getBiasMutable().append(bias);
  conv->setLoc(loc);
  norm.getResult().replaceAllUsesWith(conv.getResult());
  norm.erase();
  return success();
}

struct FoldBatchNormPass : impl::KilnFoldBatchNormBase<FoldBatchNormPass> {
  void runOnOperation() override {
    OpBuilder builder(&getContext());
    SmallVector<BatchNormOp> norms;
    getOperation().walk([&](BatchNormOp norm) { norms.push_back(norm); });
    for (BatchNormOp norm : norms)
      (void)foldInto(norm, builder);
  }
};

} // namespace
} // namespace kiln
