// The per-channel factor of an inference batch norm (BatchNormFactor.h).
#include "kiln/Transforms/BatchNormFactor.h"

using namespace mlir;

namespace kiln {

Value buildBatchNormFactor(OpBuilder &builder, Location loc,
                           BatchNormOp norm) {
  auto channelType = cast<RankedTensorType>(norm.getScale().getType());
  Type element = channelType.getElementType();
  Value epsilon = builder.create<ConstantOp>(
      loc, DenseElementsAttr::get(
               RankedTensorType::get({}, element),
               builder.getFloatAttr(element,
                                    norm.getEpsilon().convertToDouble())));
  Value shifted =
      builder.create<AddOp>(loc, channelType, norm.getVariance(), epsilon);
  Value deviation = builder.create<SqrtOp>(loc, channelType, shifted);
  return builder.create<DivOp>(loc, channelType, norm.getScale(), deviation);
}

} // namespace kiln
