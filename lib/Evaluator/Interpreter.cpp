// evaluateOp (dispatch to the op families, result checks) and
// interpretFunction (runs a func.func on host tensors).
#include "kiln/Evaluator/Interpreter.h"

#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Evaluator/ScalarSemantics.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::eval {
namespace {

std::string typeToString(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// True when |tensor| fits |type|: same dtype, same rank, equal static dims.
bool fitsType(const Tensor &tensor, mlir::Type type) {
  auto shaped = mlir::dyn_cast<mlir::ShapedType>(type);
  if (!shaped || dtypeFromMlir(shaped.getElementType()) != tensor.dtype())
    return false;
  if (!shaped.hasRank())
    return true;
  if (shaped.getRank() != tensor.rank())
    return false;
  for (int64_t dim = 0; dim < tensor.rank(); ++dim)
    if (!shaped.isDynamicDim(dim) &&
        shaped.getDimSize(dim) != tensor.shape()[dim])
      return false;
  return true;
}

/// Constant-like ops from any dialect (kiln.constant has its own family).
llvm::Expected<std::vector<Tensor>>
evaluateForeignConstant(mlir::Operation *op, llvm::ArrayRef<Tensor>) {
  mlir::Attribute value;
  if (!mlir::matchPattern(op->getResult(0), mlir::m_Constant(&value)))
    return opError(op, "does not fold to a constant");
  auto elements = mlir::dyn_cast<mlir::ElementsAttr>(value);
  if (!elements)
    return opError(op, "is not a tensor constant");
  llvm::Expected<Tensor> tensor = tensorFromAttr(elements);
  if (!tensor)
    return opError(op, llvm::toString(tensor.takeError()));
  std::vector<Tensor> results;
  results.push_back(std::move(*tensor));
  return results;
}

} // namespace

FamilyEvaluator getFamilyEvaluator(mlir::Operation *op) {
  if (getElementwiseKind(op))
    return evaluateElementwise;
  return llvm::TypeSwitch<mlir::Operation *, FamilyEvaluator>(op)
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, SoftmaxOp>(
          [](auto) { return evaluateReduction; })
      .Case<ReduceMinOp, ReduceProdOp, ReduceLogSumExpOp>(
          [](auto) { return evaluateReduction; })
      .Case<ArgMaxOp, ArgMinOp, LogSoftmaxOp, HardmaxOp, CumSumOp, LayerNormOp,
            InstanceNormOp, BatchNormOp, LRNOp, NLLLossOp>(
          [](auto) { return evaluateNormalization; })
      .Case<MatMulOp, GemmOp>([](auto) { return evaluateContraction; })
      .Case<ConvOp, ConvTransposeOp, MaxPoolOp, MaxPoolIndicesOp,
            AveragePoolOp>([](auto) { return evaluateConvolution; })
      .Case<QuantizeLinearOp, DequantizeLinearOp>(
          [](auto) { return evaluateQuantization; })
      .Case<ReshapeOp, UnsqueezeOp, SqueezeOp, FlattenOp, ExpandOp, ShapeOp,
            ConstantOp>([](auto) { return evaluateShapeOp; })
      .Case<TransposeOp, ConcatOp, SliceOp, GatherOp>(
          [](auto) { return evaluateDataMovement; })
      .Case<RangeOp, ConstantOfShapeOp, EyeLikeOp, SizeOp, OneHotOp, PadOp,
            TileOp, TriluOp, DepthToSpaceOp, SpaceToDepthOp, ReverseSequenceOp,
            GatherElementsOp, GatherNDOp, ScatterElementsOp, ScatterNDOp,
            TopKOp, ResizeOp, EinsumOp>(
          [](auto) { return evaluateMovement; })
      .Case<EmptyOp>([](auto) -> FamilyEvaluator {
        return [](mlir::Operation *op,
                  llvm::ArrayRef<Tensor>) -> llvm::Expected<std::vector<Tensor>> {
          auto type = mlir::cast<mlir::RankedTensorType>(op->getResult(0).getType());
          std::optional<DType> dtype = dtypeFromMlir(type.getElementType());
          if (!dtype)
            return opError(op, "has an unsupported element type");
          std::vector<Tensor> results;
          results.emplace_back(*dtype, std::vector<int64_t>(type.getShape()));
          return results;
        };
      })
      .Default([](mlir::Operation *other) -> FamilyEvaluator {
        if (other->hasTrait<mlir::OpTrait::ConstantLike>() &&
            other->getNumResults() == 1)
          return evaluateForeignConstant;
        return nullptr;
      });
}

bool canEvaluate(mlir::Operation *op) {
  return getFamilyEvaluator(op) != nullptr;
}

llvm::Expected<std::vector<Tensor>>
evaluateOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  FamilyEvaluator family = getFamilyEvaluator(op);
  if (!family)
    return opError(op, "is not supported by the CPU evaluator");
  llvm::Expected<std::vector<Tensor>> results = family(op, operands);
  if (!results)
    return results.takeError();
  if (results->size() != op->getNumResults())
    return opError(op, "produced " + std::to_string(results->size()) +
                           " results for " +
                           std::to_string(op->getNumResults()));
  for (auto [tensor, result] : llvm::zip(*results, op->getResults()))
    if (!fitsType(tensor, result.getType()))
      return opError(op, "computed " + tensor.describe() +
                             " but the result type is " +
                             typeToString(result.getType()));
  return results;
}

/// Runs the ops of |body| given its argument values and returns the operands
/// of its terminator (func.return or kiln.yield).
llvm::Expected<std::vector<Tensor>>
runBlock(mlir::Block &body, llvm::DenseMap<mlir::Value, Tensor> values) {
  // The last op that reads each value, so tensors can be released (or moved
  // into their final reader instead of copied).
  llvm::DenseMap<mlir::Value, mlir::Operation *> lastReader;
  for (mlir::Operation &op : body)
    for (mlir::Value operand : op.getOperands())
      lastReader[operand] = &op;

  for (mlir::Operation &op : body) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>()) {
      if (!mlir::isa<mlir::func::ReturnOp, YieldOp>(op))
        return opError(&op, "is not a func.return or kiln.yield terminator");
      std::vector<Tensor> outputs;
      for (mlir::Value operand : op.getOperands()) {
        auto it = values.find(operand);
        if (it == values.end())
          return opError(&op, "returns a value that was not computed");
        outputs.push_back(it->second);
      }
      return outputs;
    }
    if (auto kernel = mlir::dyn_cast<KernelOp>(op)) {
      // A kernel computes its body on its inputs and outputs; the results
      // are what it yields.
      llvm::DenseMap<mlir::Value, Tensor> arguments;
      mlir::Block &kernelBody = kernel.getBody().front();
      for (auto [argument, operand] :
           llvm::zip(kernelBody.getArguments(), kernel.getOperands())) {
        auto it = values.find(operand);
        if (it == values.end())
          return opError(&op, "reads an operand that was not computed");
        arguments[argument] = it->second;
      }
      llvm::Expected<std::vector<Tensor>> results =
          runBlock(kernelBody, std::move(arguments));
      if (!results)
        return results.takeError();
      for (auto [result, tensor] : llvm::zip(op.getResults(), *results))
        values[result] = std::move(tensor);
      continue;
    }
    if (op.getNumRegions() != 0)
      return opError(&op, "has regions, which the CPU evaluator cannot run");

    std::vector<Tensor> operands;
    operands.reserve(op.getNumOperands());
    for (auto [index, operand] : llvm::enumerate(op.getOperands())) {
      auto it = values.find(operand);
      if (it == values.end())
        return opError(&op, "reads operand " + std::to_string(index) +
                                " that was not computed");
      bool readAgainHere =
          llvm::is_contained(op.getOperands().drop_front(index + 1), operand);
      if (lastReader[operand] == &op && !readAgainHere) {
        operands.push_back(std::move(it->second));
        values.erase(it);
      } else {
        operands.push_back(it->second);
      }
    }
    llvm::Expected<std::vector<Tensor>> results = evaluateOp(&op, operands);
    if (!results)
      return results.takeError();
    for (auto [result, tensor] : llvm::zip(op.getResults(), *results))
      values[result] = std::move(tensor);
  }
  return llvm::createStringError("block does not end in a terminator");
}


llvm::Expected<std::vector<Tensor>>
interpretFunction(mlir::func::FuncOp function, llvm::ArrayRef<Tensor> inputs) {
  std::string name = "@" + function.getSymName().str();
  if (function.isExternal())
    return llvm::createStringError("function " + name + " has no body");
  if (!llvm::hasSingleElement(function.getBody()))
    return llvm::createStringError("function " + name +
                                   " has more than one block");
  mlir::Block &body = function.front();
  if (inputs.size() != body.getNumArguments())
    return llvm::createStringError("function " + name + " takes " +
                                   std::to_string(body.getNumArguments()) +
                                   " inputs, got " +
                                   std::to_string(inputs.size()));

  llvm::DenseMap<mlir::Value, Tensor> values;
  for (auto [index, argument] : llvm::enumerate(body.getArguments())) {
    const Tensor &input = inputs[index];
    if (!fitsType(input, argument.getType())) {
      std::string label = "argument " + std::to_string(index);
      if (auto inputName =
              function.getArgAttrOfType<mlir::StringAttr>(index, "kiln.name"))
        label = "input '" + inputName.getValue().str() + "' (" + label + ")";
      return llvm::createStringError(label + " of " + name + " expects " +
                                     typeToString(argument.getType()) +
                                     ", got " + input.describe());
    }
    values[argument] = input;
  }

  return runBlock(body, std::move(values));
}

} // namespace kiln::eval
