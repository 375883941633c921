// kiln-unroll-loops: replaces a kiln.loop by copies of its body once its
// trip count and every iteration's condition are compile-time constants.
//
// Algorithm, per outermost loop:
//   1. evaluate the trip count and the initial condition (through any chain
//      of evaluable ops on constants); give up if either is unknown;
//   2. for i = 0, 1, ... while i < trip count and the condition holds: clone
//      the body before the loop with the iteration number a constant i, the
//      condition true and the carried values of the previous iteration, then
//      evaluate the cloned condition; give up (erasing the clones) if it is
//      unknown, i.e. depends on data;
//   3. replace the loop's carried results by the last carried values and each
//      scan output by the iterations' values unsqueezed and concatenated
//      along axis 0.
// Nested loops are cloned as they are and unrolled in a later round of
// kiln-simplify-graph, once the outer iteration number is a constant.
#include "kiln/Transforms/LoopUnrolling.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/TypeRefinement.h"

#include "kiln/Evaluator/Interpreter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include <map>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNUNROLLLOOPS
#include "kiln/Transforms/Passes.h.inc"

namespace {
/// Largest intermediate (in elements) evaluated to decide a trip count or a
/// condition.
constexpr int64_t kMaxEvaluatedElements = 1 << 16;

/// Evaluates values whose inputs are all constants, remembering results.
class ConstantEvaluator {
public:
  /// The value of |value|, or std::nullopt when it depends on anything that
  /// is not a constant (or is too large to evaluate here).
  std::optional<eval::Tensor> evaluate(Value value, int depth = 0) {
    auto known = cache.find(value);
    if (known != cache.end())
      return known->second;
    auto result = dyn_cast<OpResult>(value);
    if (!result || depth > 64)
      return std::nullopt;
    Operation *op = result.getOwner();
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      llvm::Expected<eval::Tensor> tensor =
          eval::tensorFromAttr(constant.getValue());
      if (!tensor) {
        llvm::consumeError(tensor.takeError());
        return std::nullopt;
      }
      return cache[value] = std::move(*tensor);
    }
    if (op->getNumRegions() != 0 || !eval::canEvaluate(op))
      return std::nullopt;
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type);
          !tensor || (tensor.hasStaticShape() &&
                      tensor.getNumElements() > kMaxEvaluatedElements))
        return std::nullopt;
    std::vector<eval::Tensor> operands;
    for (Value operand : op->getOperands()) {
      std::optional<eval::Tensor> tensor = evaluate(operand, depth + 1);
      if (!tensor || tensor->numElements() > kMaxEvaluatedElements)
        return std::nullopt;
      operands.push_back(std::move(*tensor));
    }
    llvm::Expected<std::vector<eval::Tensor>> results =
        eval::evaluateOp(op, operands);
    if (!results) {
      llvm::consumeError(results.takeError());
      return std::nullopt;
    }
    for (auto [opResult, tensor] : llvm::zip(op->getResults(), *results))
      cache[opResult] = std::move(tensor);
    return cache[value];
  }

  /// The single element of |value| as an integer, when it is constant.
  std::optional<int64_t> evaluateScalar(Value value) {
    std::optional<eval::Tensor> tensor = evaluate(value);
    if (!tensor || tensor->numElements() != 1)
      return std::nullopt;
    return tensor->getInt(0);
  }

private:
  llvm::DenseMap<Value, eval::Tensor> cache;
};

Value createScalarConstant(OpBuilder &builder, Location loc, Type element,
                           int64_t value) {
  auto type = RankedTensorType::get({}, element);
  Attribute attribute = element.isInteger(1)
                            ? DenseElementsAttr::get(type, value != 0)
                            : DenseElementsAttr::get(type, value);
  return builder.create<ConstantOp>(loc, cast<ElementsAttr>(attribute));
}

/// |values| unsqueezed at axis 0 and concatenated; with none, an empty
/// constant stacking the static |type|.
Value stack(OpBuilder &builder, Location loc, llvm::ArrayRef<Value> values,
            RankedTensorType type) {
  if (values.empty()) {
    SmallVector<int64_t> shape = {0};
    llvm::append_range(shape, type.getShape());
    auto empty = RankedTensorType::get(shape, type.getElementType());
    return builder.create<ConstantOp>(
        loc, cast<ElementsAttr>(
                 DenseElementsAttr::get(empty, llvm::ArrayRef<Attribute>())));
  }
  Value axes = builder.create<ConstantOp>(
      loc, cast<ElementsAttr>(DenseElementsAttr::get(
               RankedTensorType::get({1}, builder.getI64Type()),
               llvm::ArrayRef<int64_t>{0})));
  SmallVector<Value> expanded;
  for (Value value : values)
    expanded.push_back(builder.create<UnsqueezeOp>(loc, value, axes));
  if (expanded.size() == 1)
    return expanded.front();
  return builder.create<ConcatOp>(loc, ValueRange(expanded),
                                  builder.getI64IntegerAttr(0));
}

/// Unrolls |loop| (see the file comment); on failure the IR is unchanged.
LogicalResult unrollLoop(LoopOp loop) {
  ConstantEvaluator evaluator;
  int64_t tripCount = kMaxUnrolledIterations + 1;
  if (Value operand = loop.getTripCount()) {
    std::optional<int64_t> value = evaluator.evaluateScalar(operand);
    if (!value || *value > kMaxUnrolledIterations)
      return failure();
    tripCount = *value;
  }
  bool condition = true;
  if (Value operand = loop.getCondition()) {
    std::optional<int64_t> value = evaluator.evaluateScalar(operand);
    if (!value)
      return failure();
    condition = *value != 0;
  }

  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  Block &body = loop.getBody().front();
  YieldOp yield = loop.getYield();
  unsigned carriedCount = loop.getNumCarried();
  unsigned scanCount = loop.getNumResults() - carriedCount;
  // Everything created, so a loop that cannot be unrolled is left as it was.
  SmallVector<Operation *> created;
  auto rollBack = [&] {
    for (Operation *op : llvm::reverse(created))
      op->erase();
    return failure();
  };
  SmallVector<Value> carried(loop.getInitialValues());
  std::vector<SmallVector<Value>> scans(scanCount);
  Value trueValue;
  for (int64_t iteration = 0; iteration < tripCount && condition; ++iteration) {
    if (iteration == kMaxUnrolledIterations)
      return rollBack();
    IRMapping mapping;
    Value number =
        createScalarConstant(builder, loc, builder.getI64Type(), iteration);
    created.push_back(number.getDefiningOp());
    if (!trueValue) {
      trueValue = createScalarConstant(builder, loc, builder.getI1Type(), 1);
      created.push_back(trueValue.getDefiningOp());
    }
    mapping.map(body.getArgument(0), number);
    mapping.map(body.getArgument(1), trueValue);
    for (auto [index, value] : llvm::enumerate(carried))
      mapping.map(body.getArgument(2 + index), value);
    for (Operation &op : body.without_terminator())
      created.push_back(builder.clone(op, mapping));

    std::optional<int64_t> next = evaluator.evaluateScalar(
        mapping.lookupOrDefault(yield.getValues().front()));
    if (!next)
      return rollBack();
    condition = *next != 0;
    ValueRange yielded = yield.getValues().drop_front();
    for (unsigned index = 0; index < carriedCount; ++index)
      carried[index] = mapping.lookupOrDefault(yielded[index]);
    for (unsigned index = 0; index < scanCount; ++index)
      scans[index].push_back(
          mapping.lookupOrDefault(yielded[carriedCount + index]));
  }
  // Without iterations, a scan output needs a static element shape.
  auto elementType = [&](unsigned index) {
    return cast<RankedTensorType>(
        yield.getValues()[1 + carriedCount + index].getType());
  };
  for (unsigned index = 0; index < scanCount; ++index)
    if (scans[index].empty() && !elementType(index).hasStaticShape())
      return rollBack();

  SmallVector<Value> replacements(carried);
  for (unsigned index = 0; index < scanCount; ++index)
    replacements.push_back(
        stack(builder, loc, scans[index], elementType(index)));
  loop->replaceAllUsesWith(replacements);
  loop->erase();
  return success();
}

} // namespace

/// The graph inputs (their `kiln.name`) whose values |value| is computed
/// from, in argument order (not those it reads only the shapes of).
static llvm::SmallVector<StringRef> findInputs(Value value) {
  std::map<unsigned, StringRef> names;
  llvm::SmallVector<Value> worklist = {value};
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    if (!seen.insert(current).second)
      continue;
    if (auto argument = dyn_cast<BlockArgument>(current)) {
      auto function =
          dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
      if (!function)
        continue;
      if (auto name = function.getArgAttrOfType<StringAttr>(
              argument.getArgNumber(), "kiln.name"))
        names[argument.getArgNumber()] = name.getValue();
      continue;
    }
    Operation *op = current.getDefiningOp();
    // A shape or size reads no data: its input needs --input-shape only.
    if (isa<ShapeOp, SizeOp>(op))
      continue;
    llvm::append_range(worklist, op->getOperands());
    op->walk([&](Operation *nested) {
      llvm::append_range(worklist, nested->getOperands());
    });
  }
  return llvm::to_vector(llvm::make_second_range(names));
}

/// "bind input 'm' with --bind-input m=FILE.pb" (or the inputs it is
/// computed from), or a hint about shapes when no graph input is involved.
std::string describeHowToMakeConstant(Value value) {
  llvm::SmallVector<StringRef> inputs = findInputs(value);
  if (inputs.empty())
    return "it depends on dynamic shapes; pass --input-shape";
  if (inputs.size() == 1)
    return "bind input '" + inputs.front().str() + "' with --bind-input " +
           inputs.front().str() + "=FILE.pb";
  std::string names;
  for (StringRef name : inputs)
    names += (names.empty() ? "'" : ", '") + name.str() + "'";
  return "it is computed from inputs " + names +
         ", which must be compile-time constants";
}
bool unrollConstantLoops(func::FuncOp function) {
  SmallVector<LoopOp> loops;
  function.walk([&](LoopOp loop) {
    if (!loop->getParentOfType<LoopOp>())
      loops.push_back(loop);
  });
  bool changed = false;
  for (LoopOp loop : loops)
    changed |= succeeded(unrollLoop(loop));
  return changed;
}

std::string describeLoopBlocker(LoopOp loop) {
  ConstantEvaluator evaluator;
  if (Value tripCount = loop.getTripCount()) {
    std::optional<int64_t> value = evaluator.evaluateScalar(tripCount);
    if (!value)
      return "Loop trip count is not known at compile time; " +
             describeHowToMakeConstant(tripCount);
    if (*value > kMaxUnrolledIterations)
      return "Loop trip count " + std::to_string(*value) +
             " is more than the " + std::to_string(kMaxUnrolledIterations) +
             " iterations kiln unrolls";
  }
  if (Value condition = loop.getCondition())
    if (!evaluator.evaluateScalar(condition))
      return "Loop condition is not known at compile time; " +
             describeHowToMakeConstant(condition);
  if (loop->getParentOfType<LoopOp>())
    return std::string("Loop nested in a loop that cannot be unrolled");
  return "Loop condition computed by the body depends on data (or it "
         "runs more than " +
         std::to_string(kMaxUnrolledIterations) +
         " iterations); kiln unrolls loops and cannot run one on the GPU";
}

namespace {
struct UnrollLoopsPass : impl::KilnUnrollLoopsBase<UnrollLoopsPass> {
  void runOnOperation() override {
    if (!unrollConstantLoops(getOperation()))
      return markAllAnalysesPreserved();
    bool changed = false;
    if (failed(refineFunctionTypes(getOperation(), changed)))
      signalPassFailure();
  }
};
} // namespace
} // namespace kiln
