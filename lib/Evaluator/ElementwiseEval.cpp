// Evaluation of kiln's elementwise ops (unary, binary, comparisons, Where,
// Pow, Cast) through the scalar-semantics table, with NumPy broadcasting.
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Evaluator/ScalarSemantics.h"

namespace kiln::eval {
namespace {

std::optional<DType> resultDTypeOf(mlir::Operation *op) {
  auto type = mlir::dyn_cast<mlir::ShapedType>(op->getResult(0).getType());
  return type ? dtypeFromMlir(type.getElementType()) : std::nullopt;
}

std::string elementPosition(llvm::ArrayRef<int64_t> shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (int64_t dim = static_cast<int64_t>(shape.size()) - 1; dim >= 0; --dim) {
    if (shape[dim] == 0)
      continue;
    index[dim] = flat % shape[dim];
    flat /= shape[dim];
  }
  return formatShape(index);
}

/// Applies a table row to broadcast operands.
llvm::Expected<Tensor> applyTableRow(mlir::Operation *op,
                                     const ElementwiseSemantics &row,
                                     llvm::ArrayRef<Tensor> operands,
                                     DType valueType, DType resultType) {
  std::vector<llvm::ArrayRef<int64_t>> shapes;
  for (const Tensor &operand : operands)
    shapes.push_back(operand.shape());
  llvm::Expected<std::vector<int64_t>> shape =
      broadcastRuntimeShapes(op, shapes);
  if (!shape)
    return shape.takeError();
  llvm::Expected<Tensor> result = makeTensor(op, resultType, *shape);
  if (!result)
    return result.takeError();

  BroadcastIterator it(*shape, shapes);
  const size_t arity = operands.size();
  if (isFloat(valueType)) {
    // The op's attribute parameters (Elu's alpha...) follow the operands.
    llvm::SmallVector<double, 2> parameters = getElementwiseParameters(op);
    double args[5];
    if (arity + parameters.size() > 5)
      return opError(op, "has too many operands and parameters");
    llvm::copy(parameters, args + arity);
    for (int64_t i = 0; i < result->numElements(); ++i, it.next()) {
      for (size_t k = 0; k < arity; ++k)
        args[k] = operands[k].getDouble(it.operandIndex(k));
      result->setDouble(i, row.cpuFloat(args));
    }
    return result;
  }
  int64_t args[3];
  for (int64_t i = 0; i < result->numElements(); ++i, it.next()) {
    for (size_t k = 0; k < arity; ++k)
      args[k] = operands[k].ints()[it.operandIndex(k)];
    std::optional<int64_t> value = row.cpuInt(args, valueType);
    if (!value)
      return opError(op, std::string("integer division by zero at element ") +
                             elementPosition(*shape, i));
    result->setInt(i, *value);
  }
  return result;
}

/// ONNX Cast of one tensor to |to|.
Tensor castTensor(const Tensor &input, DType to) {
  Tensor result(
      to, std::vector<int64_t>(input.shape().begin(), input.shape().end()));
  DType from = input.dtype();
  for (int64_t i = 0; i < input.numElements(); ++i) {
    if (isFloat(from)) {
      double value = input.floats()[i];
      if (isFloat(to))
        result.floats()[i] = roundToFloatDType(value, to);
      else
        result.ints()[i] = castFloatToInt(value, to);
    } else {
      int64_t value = input.ints()[i];
      if (isFloat(to))
        result.floats()[i] = castIntToFloat(value, from, to);
      else
        result.ints()[i] = wrapToIntDType(value, to);
    }
  }
  return result;
}

/// Pow: the result has the base's dtype; the exponent's may differ.
llvm::Expected<Tensor> evaluatePow(mlir::Operation *op, const Tensor &base,
                                   const Tensor &exponent) {
  std::vector<llvm::ArrayRef<int64_t>> shapes = {base.shape(),
                                                 exponent.shape()};
  llvm::Expected<std::vector<int64_t>> shape =
      broadcastRuntimeShapes(op, shapes);
  if (!shape)
    return shape.takeError();
  llvm::Expected<Tensor> result = makeTensor(op, base.dtype(), *shape);
  if (!result)
    return result.takeError();
  const ElementwiseSemantics &row =
      getElementwiseSemantics(ElementwiseKind::Pow);
  BroadcastIterator it(*shape, shapes);
  for (int64_t i = 0; i < result->numElements(); ++i, it.next()) {
    int64_t b = it.operandIndex(0), e = it.operandIndex(1);
    if (base.isFloat()) {
      double args[2] = {base.floats()[b], exponent.getDouble(e)};
      result->setDouble(i, row.cpuFloat(args));
    } else if (exponent.isFloat()) {
      double args[2] = {base.getDouble(b), exponent.floats()[e]};
      result->ints()[i] = castFloatToInt(row.cpuFloat(args), base.dtype());
    } else {
      int64_t args[2] = {base.ints()[b], exponent.ints()[e]};
      result->setInt(i, *row.cpuInt(args, base.dtype()));
    }
  }
  return result;
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateElementwise(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  std::optional<ElementwiseKind> kind = getElementwiseKind(op);
  if (!kind)
    return opError(op, "is not an elementwise op");
  const ElementwiseSemantics &row = getElementwiseSemantics(*kind);
  if (operands.size() != row.arity)
    return opError(op, "expects " + std::to_string(row.arity) +
                           " operands, got " + std::to_string(operands.size()));

  if (*kind == ElementwiseKind::Cast) {
    std::optional<DType> to = dtypeFromMlir(mlir::cast<CastOp>(op).getTo());
    if (!to)
      return opError(op, "unsupported target element type");
    std::vector<Tensor> results;
    results.push_back(castTensor(operands[0], *to));
    return results;
  }
  if (*kind == ElementwiseKind::Pow) {
    llvm::Expected<Tensor> result = evaluatePow(op, operands[0], operands[1]);
    if (!result)
      return result.takeError();
    std::vector<Tensor> results;
    results.push_back(std::move(*result));
    return results;
  }

  // Where reads its values from operands 1 and 2; operand 0 is the condition.
  size_t firstValue = row.result == ResultElement::SameAsValues ? 1 : 0;
  if (firstValue == 1 && operands[0].dtype() != DType::Bool)
    return opError(op, "condition must be bool, got " + operands[0].describe());
  DType valueType = operands[firstValue].dtype();
  for (size_t k = firstValue + 1; k < operands.size(); ++k)
    if (operands[k].dtype() != valueType)
      return opError(op, "operands have different element types: " +
                             operands[firstValue].describe() + " and " +
                             operands[k].describe());
  if (isFloat(valueType) ? !row.cpuFloat : !row.cpuInt)
    return opError(op, std::string("is not defined on ") +
                           dtypeName(valueType) + " operands");
  if (row.kind == ElementwiseKind::Not && valueType != DType::Bool)
    return opError(op, "expects bool operands, got " + operands[0].describe());

  DType resultType =
      row.result == ResultElement::Bool ? DType::Bool : valueType;
  if (std::optional<DType> declared = resultDTypeOf(op);
      declared && *declared != resultType)
    return opError(op, std::string("computes ") + dtypeName(resultType) +
                           " but the result type is " + dtypeName(*declared));
  llvm::Expected<Tensor> result =
      applyTableRow(op, row, operands, valueType, resultType);
  return singleResult(std::move(result));
}

} // namespace kiln::eval
