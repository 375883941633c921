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

/// An error naming |op| unless each of |results| fits its result's type.
llvm::Error checkResultTypes(mlir::Operation *op,
                             llvm::ArrayRef<Tensor> results) {
  for (auto [tensor, result] : llvm::zip(results, op->getResults()))
    if (!fitsType(tensor, result.getType()))
      return opError(op, "computed " + tensor.describe() +
                             " but the result type is " +
                             typeToString(result.getType()));
  return llvm::Error::success();
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
      .Case<AttentionOp>([](auto) { return evaluateAttention; })
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
  if (llvm::Error error = checkResultTypes(op, *results))
    return std::move(error);
  return results;
}

llvm::Expected<std::vector<Tensor>>
runBlock(mlir::Block &body, llvm::DenseMap<mlir::Value, Tensor> values);

namespace {
/// Iterations after which a loop without a trip count is reported as not
/// terminating.
constexpr int64_t kMaxLoopIterations = int64_t(1) << 24;

/// |values| (one per iteration, of one shape) stacked along a new axis 0;
/// with no iteration, an empty tensor of the static |type|.
llvm::Expected<Tensor> stackIterations(LoopOp loop, unsigned index,
                                       llvm::ArrayRef<Tensor> values,
                                       mlir::RankedTensorType type) {
  if (values.empty()) {
    std::optional<DType> dtype = dtypeFromMlir(type.getElementType());
    if (!dtype || !type.hasStaticShape())
      return opError(loop, "ran no iteration, so the shape of scan output " +
                               std::to_string(index) + " (" +
                               typeToString(type) + ") is unknown");
    return Tensor(*dtype, std::vector<int64_t>(type.getShape()));
  }
  std::vector<int64_t> shape = {int64_t(values.size())};
  llvm::append_range(shape, values.front().shape());
  Tensor stacked(values.front().dtype(), shape);
  int64_t offset = 0;
  for (const Tensor &value : values) {
    if (value.shape() != values.front().shape())
      return opError(loop, "scan output " + std::to_string(index) +
                               " changes shape across iterations: " +
                               values.front().describe() + " and " +
                               value.describe());
    for (int64_t element = 0; element < value.numElements(); ++element)
      if (value.isFloat())
        stacked.floats()[offset + element] = value.floats()[element];
      else
        stacked.ints()[offset + element] = value.ints()[element];
    offset += value.numElements();
  }
  return stacked;
}

/// The values of the enclosing scope that |region| of |op| reads, from
/// |values|.
llvm::Expected<llvm::DenseMap<mlir::Value, Tensor>>
captureEnclosingValues(mlir::Operation *op, mlir::Region &region,
                       const llvm::DenseMap<mlir::Value, Tensor> &values) {
  llvm::DenseMap<mlir::Value, Tensor> captured;
  mlir::WalkResult walk = region.walk([&](mlir::Operation *nested) {
    for (mlir::Value operand : nested->getOperands())
      if (!region.isAncestor(operand.getParentRegion())) {
        auto it = values.find(operand);
        if (it == values.end())
          return mlir::WalkResult::interrupt();
        captured[operand] = it->second;
      }
    return mlir::WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return opError(op, "reads an enclosing value that was not computed");
  return captured;
}

/// Runs a kiln.if: the branch its condition takes.
llvm::Expected<std::vector<Tensor>>
runIf(IfOp ifOp, const llvm::DenseMap<mlir::Value, Tensor> &values) {
  auto condition = values.find(ifOp.getCondition());
  if (condition == values.end() || condition->second.numElements() != 1)
    return opError(ifOp, "needs a one-element condition");
  mlir::Region &branch = condition->second.getInt(0) != 0
                             ? ifOp.getThenBranch()
                             : ifOp.getElseBranch();
  llvm::Expected<llvm::DenseMap<mlir::Value, Tensor>> captured =
      captureEnclosingValues(ifOp, branch, values);
  if (!captured)
    return captured.takeError();
  llvm::Expected<std::vector<Tensor>> results =
      runBlock(branch.front(), std::move(*captured));
  if (!results)
    return results.takeError();
  if (llvm::Error error = checkResultTypes(ifOp, *results))
    return std::move(error);
  return results;
}

/// Runs a kiln.loop: the body once per iteration while i < trip_count and
/// the condition holds, reading enclosing values from |values|.
llvm::Expected<std::vector<Tensor>>
runLoop(LoopOp loop, const llvm::DenseMap<mlir::Value, Tensor> &values) {
  auto read = [&](mlir::Value value) -> const Tensor * {
    auto it = values.find(value);
    return it == values.end() ? nullptr : &it->second;
  };
  int64_t tripCount = kMaxLoopIterations;
  bool bounded = false;
  if (mlir::Value operand = loop.getTripCount()) {
    const Tensor *tensor = read(operand);
    if (!tensor || tensor->numElements() != 1)
      return opError(loop, "needs a one-element trip count");
    tripCount = tensor->getInt(0);
    bounded = true;
  }
  bool condition = true;
  if (mlir::Value operand = loop.getCondition()) {
    const Tensor *tensor = read(operand);
    if (!tensor || tensor->numElements() != 1)
      return opError(loop, "needs a one-element condition");
    condition = tensor->getInt(0) != 0;
  }
  std::vector<Tensor> carried;
  for (mlir::Value operand : loop.getInitialValues()) {
    const Tensor *tensor = read(operand);
    if (!tensor)
      return opError(loop, "reads an initial value that was not computed");
    carried.push_back(*tensor);
  }
  llvm::Expected<llvm::DenseMap<mlir::Value, Tensor>> captured =
      captureEnclosingValues(loop, loop.getBody(), values);
  if (!captured)
    return captured.takeError();

  mlir::Block &body = loop.getBody().front();
  unsigned carriedCount = loop.getNumCarried();
  unsigned scanCount = loop.getNumResults() - carriedCount;
  std::vector<std::vector<Tensor>> scans(scanCount);
  int64_t iteration = 0;
  for (; iteration < tripCount && condition; ++iteration) {
    llvm::DenseMap<mlir::Value, Tensor> arguments = *captured;
    arguments[body.getArgument(0)] =
        Tensor::fromInts(DType::I64, {}, {iteration});
    arguments[body.getArgument(1)] =
        Tensor::fromInts(DType::Bool, {}, {int64_t(condition)});
    for (auto [index, value] : llvm::enumerate(carried))
      arguments[body.getArgument(2 + index)] = std::move(value);
    llvm::Expected<std::vector<Tensor>> outputs =
        runBlock(body, std::move(arguments));
    if (!outputs)
      return outputs.takeError();
    if ((*outputs)[0].numElements() != 1)
      return opError(loop,
                     "the body's condition has " + (*outputs)[0].describe());
    condition = (*outputs)[0].getInt(0) != 0;
    for (unsigned index = 0; index < carriedCount; ++index) {
      Tensor &value = (*outputs)[1 + index];
      if (!fitsType(value, body.getArgument(2 + index).getType()))
        return opError(
            loop, "carried value " + std::to_string(index) + " changed to " +
                      value.describe() + "; it must keep its type " +
                      typeToString(body.getArgument(2 + index).getType()));
      carried[index] = std::move(value);
    }
    for (unsigned index = 0; index < scanCount; ++index)
      scans[index].push_back(std::move((*outputs)[1 + carriedCount + index]));
  }
  if (!bounded && condition)
    return opError(loop, "did not stop after " +
                             std::to_string(kMaxLoopIterations) +
                             " iterations");
  std::vector<Tensor> results = std::move(carried);
  for (unsigned index = 0; index < scanCount; ++index) {
    llvm::Expected<Tensor> stacked =
        stackIterations(loop, index, scans[index],
                        mlir::cast<mlir::RankedTensorType>(
                            loop.getResult(carriedCount + index).getType()));
    if (!stacked)
      return stacked.takeError();
    results.push_back(std::move(*stacked));
  }
  if (llvm::Error error = checkResultTypes(loop, results))
    return std::move(error);
  return results;
}
} // namespace

/// Runs the ops of |body| given its argument values and returns the operands
/// of its terminator (func.return or kiln.yield).
llvm::Expected<std::vector<Tensor>>
runBlock(mlir::Block &body, llvm::DenseMap<mlir::Value, Tensor> values) {
  // The last op that reads each value, so tensors can be released (or moved
  // into their final reader instead of copied); a value read inside an op's
  // region (a loop body reading the enclosing scope) counts as read by it.
  llvm::DenseMap<mlir::Value, mlir::Operation *> lastReader;
  for (mlir::Operation &op : body)
    op.walk([&](mlir::Operation *nested) {
      for (mlir::Value operand : nested->getOperands())
        lastReader[operand] = &op;
    });

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
    if (mlir::isa<KernelOp>(op)) {
      std::vector<Tensor> operands;
      for (mlir::Value operand : op.getOperands()) {
        auto it = values.find(operand);
        if (it == values.end())
          return opError(&op, "reads an operand that was not computed");
        operands.push_back(it->second);
      }
      llvm::Expected<std::vector<Tensor>> results =
          evaluateKernel(&op, operands);
      if (!results)
        return results.takeError();
      for (auto [result, tensor] : llvm::zip(op.getResults(), *results))
        values[result] = std::move(tensor);
      continue;
    }
    if (mlir::isa<LoopOp, IfOp>(op)) {
      llvm::Expected<std::vector<Tensor>> results =
          mlir::isa<LoopOp>(op) ? runLoop(mlir::cast<LoopOp>(op), values)
                                : runIf(mlir::cast<IfOp>(op), values);
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
evaluateKernel(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  auto kernel = mlir::dyn_cast<KernelOp>(op);
  if (!kernel)
    return opError(op, "is not a kiln.kernel");
  mlir::Block &body = kernel.getBody().front();
  if (operands.size() != body.getNumArguments())
    return opError(op, "takes " + std::to_string(body.getNumArguments()) +
                           " operands, got " + std::to_string(operands.size()));
  // A kernel computes its body on its inputs and outputs; the results are
  // what it yields.
  llvm::DenseMap<mlir::Value, Tensor> arguments;
  for (auto [argument, operand] : llvm::zip(body.getArguments(), operands)) {
    if (!fitsType(operand, argument.getType()))
      return opError(op, "operand " + std::to_string(argument.getArgNumber()) +
                             " expects " + typeToString(argument.getType()) +
                             ", got " + operand.describe());
    arguments[argument] = operand;
  }
  llvm::Expected<std::vector<Tensor>> results =
      runBlock(body, std::move(arguments));
  if (!results)
    return results.takeError();
  if (llvm::Error error = checkResultTypes(op, *results))
    return std::move(error);
  return results;
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
