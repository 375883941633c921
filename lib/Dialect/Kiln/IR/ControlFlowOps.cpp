// Verifiers and helpers of kiln.loop and kiln.if.
#include "kiln/Dialect/Kiln/IR/ControlFlowUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace kiln;

namespace {
/// True when |type| is a rank-0 tensor of |element|.
bool isScalarOf(Type type, Type element) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 && tensor.getElementType() == element;
}

/// True when |type| is ranked with every dim 1 (ONNX allows M and cond as
/// rank-0 or one-element tensors).
bool holdsOneElement(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         llvm::all_of(tensor.getShape(), [](int64_t dim) { return dim == 1; });
}

bool isSingleBool(Type type) {
  return holdsOneElement(type) &&
         cast<RankedTensorType>(type).getElementType().isInteger(1);
}
} // namespace

YieldOp LoopOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult LoopOp::verify() {
  if (Value tripCount = getTripCount())
    if (!holdsOneElement(tripCount.getType()))
      return emitOpError("trip_count must hold one element, got ")
             << tripCount.getType();
  if (Value condition = getCondition())
    if (!isSingleBool(condition.getType()))
      return emitOpError("cond must hold one element, got ")
             << condition.getType();

  Block &body = getBody().front();
  unsigned carried = getNumCarried();
  if (body.getNumArguments() != 2 + carried)
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments, expected " << 2 + carried
           << " (iteration number, condition, carried values)";
  Builder builder(getContext());
  if (!isScalarOf(body.getArgument(0).getType(), builder.getI64Type()) ||
      !isScalarOf(body.getArgument(1).getType(), builder.getI1Type()))
    return emitOpError("body arguments 0 and 1 must be tensor<i64> and "
                       "tensor<i1>");
  for (auto [argument, initial] :
       llvm::zip(body.getArguments().drop_front(2), getInitialValues()))
    if (!areCompatibleTensorTypes(argument.getType(), initial.getType()))
      return emitOpError("carried body argument of type ")
             << argument.getType() << " does not fit its initial value "
             << initial.getType();

  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with kiln.yield");
  if (yield.getValues().size() != 1 + getResults().size())
    return emitOpError("yields ")
           << yield.getValues().size() << " values, expected "
           << 1 + getResults().size() << " (condition, then one per result)";
  if (getResults().size() < carried)
    return emitOpError("has fewer results than carried values");
  if (!isSingleBool(yield.getValues().front().getType()))
    return emitOpError("the body's condition must hold one i1, got ")
           << yield.getValues().front().getType();
  ValueRange yielded = yield.getValues().drop_front();
  for (unsigned index = 0; index < carried; ++index) {
    Type argumentType = body.getArgument(2 + index).getType();
    if (!areCompatibleTensorTypes(yielded[index].getType(), argumentType) ||
        !areCompatibleTensorTypes(getResult(index).getType(), argumentType))
      return emitOpError("carried value ")
             << index << " changes type: " << argumentType << " in, "
             << yielded[index].getType() << " yielded, "
             << getResult(index).getType() << " result";
  }
  for (unsigned index = carried; index < getResults().size(); ++index) {
    auto element = dyn_cast<RankedTensorType>(yielded[index].getType());
    auto stacked = dyn_cast<RankedTensorType>(getResult(index).getType());
    if (!element || !stacked || stacked.getRank() != element.getRank() + 1 ||
        !areCompatibleTensorTypes(
            RankedTensorType::get(stacked.getShape().drop_front(),
                                  stacked.getElementType()),
            element))
      return emitOpError("scan output ")
             << index - carried << " of type " << getResult(index).getType()
             << " does not stack the yielded " << yielded[index].getType();
  }
  return success();
}

YieldOp IfOp::getBranchYield(bool taken) {
  Region &branch = taken ? getThenBranch() : getElseBranch();
  return cast<YieldOp>(branch.front().getTerminator());
}

Type IfOp::joinBranchTypes(Type thenType, Type elseType) {
  if (thenType == elseType)
    return thenType;
  auto thenTensor = cast<TensorType>(thenType);
  auto elseTensor = cast<TensorType>(elseType);
  Type element = thenTensor.getElementType();
  if (!thenTensor.hasRank() || !elseTensor.hasRank() ||
      thenTensor.getRank() != elseTensor.getRank())
    return UnrankedTensorType::get(element);
  SmallVector<int64_t> shape;
  for (auto [thenDim, elseDim] :
       llvm::zip(thenTensor.getShape(), elseTensor.getShape()))
    shape.push_back(thenDim == elseDim ? thenDim : ShapedType::kDynamic);
  return RankedTensorType::get(shape, element);
}

std::optional<bool> kiln::getConstantIfCondition(Value condition) {
  auto constant = condition.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!elements || elements.getNumElements() != 1 ||
      !elements.getElementType().isInteger(1))
    return std::nullopt;
  return *elements.getValues<bool>().begin();
}

LogicalResult IfOp::verify() {
  if (!isSingleBool(getCondition().getType()))
    return emitOpError("condition must hold one element, got ")
           << getCondition().getType();
  for (bool taken : {true, false}) {
    Region &branch = taken ? getThenBranch() : getElseBranch();
    StringRef name = taken ? "then" : "else";
    Block &block = branch.front();
    if (block.getNumArguments() != 0)
      return emitOpError("the ") << name << " branch takes no arguments";
    auto yield = dyn_cast<YieldOp>(block.getTerminator());
    if (!yield)
      return emitOpError("the ") << name << " branch must end with kiln.yield";
    if (yield.getValues().size() != getNumResults())
      return emitOpError("the ")
             << name << " branch yields " << yield.getValues().size()
             << " values, expected " << getNumResults();
    for (auto [index, value, result] :
         llvm::enumerate(yield.getValues(), getResults()))
      if (!areCompatibleTensorTypes(value.getType(), result.getType()))
        return emitOpError("the ")
               << name << " branch yields " << value.getType() << " for result "
               << index << " of type " << result.getType();
  }
  return success();
}
