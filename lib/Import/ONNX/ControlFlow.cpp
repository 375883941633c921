// Imports ONNX If and Scan without runtime control flow. (Loop, which keeps
// its body as a kiln.loop region until it can be unrolled, is in Loop.cpp.)
//
//   If:   a constant cond imports only the taken branch. Otherwise both
//         branches are imported; when they give every output one type, each
//         output becomes where(cond, then, else), which is exact because
//         ONNX subgraphs have no side effects. Branches of different shapes
//         stay the regions of a kiln.if, which kiln-inline-constant-ifs
//         replaces by the taken branch once cond folds (a comparison of
//         shapes, as exporters write for `if q_len != k_len`), and
//         kiln-require-static reports when it does not (cond depends on
//         data).
//   Scan: unrolled over the static scan length. Per iteration t:
//         1. slice every scan input at t (or length-1-t when reversed) along
//            its axis and squeeze that axis;
//         2. import the body with the current states and those slices;
//         3. carry its state outputs into iteration t+1 and keep its scan
//            outputs, which are unsqueezed and concatenated along their
//            output axis at the end (in reverse order when reversed).
//         Opset 8 Scan has a leading batch axis: each batch entry is scanned
//         on its own and the results are stacked back along axis 0.
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/ControlFlowUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Transforms/LoopUnrolling.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

std::string describe(Type type) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << type;
  return text;
}

/// Imports |branch| into a new block of |region| ending in a kiln.yield of
/// its outputs; returns those outputs.
llvm::Expected<llvm::SmallVector<Value>>
importBranch(NodeImporter &node, const onnx::GraphProto &branch,
             llvm::StringRef scope, Region &region) {
  Block *block = new Block();
  region.push_back(block);
  OpBuilder &builder = node.getBuilder();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  llvm::Expected<llvm::SmallVector<Value>> results =
      node.importSubgraph(branch, scope, {});
  if (!results)
    return results.takeError();
  builder.setInsertionPointToEnd(block);
  builder.create<YieldOp>(node.getLoc(), *results);
  return results;
}

/// If -> the taken branch when cond is a constant; else where(cond, then,
/// else) per output when the branches' types agree; else a kiln.if holding
/// both branches, for the graph pipeline to inline once cond folds.
llvm::Error importIf(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  llvm::Expected<const onnx::GraphProto *> thenBranch =
      node.getGraph("then_branch");
  if (!thenBranch)
    return thenBranch.takeError();
  llvm::Expected<const onnx::GraphProto *> elseBranch =
      node.getGraph("else_branch");
  if (!elseBranch)
    return elseBranch.takeError();
  for (const onnx::GraphProto *branch : {*thenBranch, *elseBranch})
    if (branch->output_size() != int64_t(node.getOutputCount()))
      return node.error("branch '" + branch->name() + "' has " +
                        llvm::Twine(branch->output_size()) +
                        " outputs, the node " +
                        llvm::Twine(node.getOutputCount()));

  Value condition = node.getInput(0);
  if (std::optional<bool> taken = getConstantIfCondition(condition)) {
    llvm::Expected<llvm::SmallVector<Value>> results = node.importSubgraph(
        *taken ? **thenBranch : **elseBranch, *taken ? "then" : "else", {});
    if (!results)
      return results.takeError();
    for (auto [index, value] : llvm::enumerate(*results))
      node.setOutput(index, value);
    return llvm::Error::success();
  }

  // Both branches go into the regions of a kiln.if first; the op is kept
  // only when their types differ.
  if (auto tensor = dyn_cast<TensorType>(condition.getType());
      !tensor || !tensor.getElementType().isInteger(1))
    return node.error("cond must be a bool tensor, got " +
                      describe(condition.getType()));
  // A one-element cond of any rank becomes a scalar, so that it broadcasts
  // in a where without changing the branch shapes.
  auto conditionType = dyn_cast<RankedTensorType>(condition.getType());
  if (!conditionType || conditionType.getRank() != 0) {
    llvm::Expected<Value> scalar = node.create<ReshapeOp>(
        condition, node.createIntegerConstant({}), /*allowzero=*/false);
    if (!scalar)
      return scalar.takeError();
    condition = *scalar;
  }
  OpBuilder &builder = node.getBuilder();
  OperationState state(node.getLoc(), IfOp::getOperationName());
  state.addOperands(condition);
  Region *thenRegion = state.addRegion();
  Region *elseRegion = state.addRegion();
  llvm::Expected<llvm::SmallVector<Value>> thenResults =
      importBranch(node, **thenBranch, "then", *thenRegion);
  if (!thenResults)
    return thenResults.takeError();
  llvm::Expected<llvm::SmallVector<Value>> elseResults =
      importBranch(node, **elseBranch, "else", *elseRegion);
  if (!elseResults)
    return elseResults.takeError();

  bool sameTypes = true;
  for (auto [index, thenValue, elseValue] :
       llvm::enumerate(*thenResults, *elseResults)) {
    auto thenType = dyn_cast<TensorType>(thenValue.getType());
    auto elseType = dyn_cast<TensorType>(elseValue.getType());
    if (!thenType || !elseType)
      return node.error("the branches give output " + llvm::Twine(index) +
                        " as " + describe(thenValue.getType()) + " and " +
                        describe(elseValue.getType()) +
                        "; only tensors are "
                        "supported");
    if (thenType.getElementType() != elseType.getElementType())
      return node.error("the branches give output " + llvm::Twine(index) +
                        " different element types: " + describe(thenType) +
                        " and " + describe(elseType));
    sameTypes &= thenType == elseType;
  }

  if (!sameTypes) {
    for (auto [thenValue, elseValue] : llvm::zip(*thenResults, *elseResults))
      state.addTypes(
          IfOp::joinBranchTypes(thenValue.getType(), elseValue.getType()));
    llvm::Expected<Operation *> ifOp = node.createOperation(state);
    if (!ifOp)
      return ifOp.takeError();
    for (size_t index = 0; index < node.getOutputCount(); ++index)
      node.setOutput(index, (*ifOp)->getResult(index));
    return llvm::Error::success();
  }

  // Equal types: both branches run and each output becomes where(cond,
  // then, else), exact because ONNX subgraphs have no side effects. The
  // branches' ops move out of the regions, before the node's next op.
  Block *insertionBlock = builder.getInsertionBlock();
  for (Region *region : {thenRegion, elseRegion}) {
    Block &block = region->front();
    block.getTerminator()->erase();
    insertionBlock->getOperations().splice(builder.getInsertionPoint(),
                                           block.getOperations());
  }
  for (auto [index, thenValue, elseValue] :
       llvm::enumerate(*thenResults, *elseResults)) {
    if (thenValue == elseValue) {
      node.setOutput(index, thenValue);
      continue;
    }
    llvm::Expected<Value> selected =
        node.create<WhereOp>(condition, thenValue, elseValue);
    if (!selected)
      return selected.takeError();
    node.setOutput(index, *selected);
  }
  return llvm::Error::success();
}

/// Where each scan input is read and each scan output written.
struct ScanLayout {
  llvm::SmallVector<int64_t> inputAxes;
  llvm::SmallVector<bool> inputReversed;
  /// Unnormalised: negative axes count from the end of the stacked output.
  llvm::SmallVector<int64_t> outputAxes;
  llvm::SmallVector<bool> outputReversed;
};

/// Builds the ops of the unrolled scan; the first error wins.
class ScanUnroller {
public:
  ScanUnroller(NodeImporter &node, const onnx::GraphProto &body)
      : node(node), body(body) {}

  llvm::Expected<Value> slice(Value data, int64_t axis, int64_t index) {
    llvm::Expected<Value> sliced = node.create<SliceOp>(
        data, node.createIntegerConstant({index}),
        node.createIntegerConstant({index + 1}),
        node.createIntegerConstant({axis}), node.createIntegerConstant({1}));
    if (!sliced)
      return sliced.takeError();
    return node.create<SqueezeOp>(*sliced, node.createIntegerConstant({axis}));
  }

  /// |values| each unsqueezed at |axis| and concatenated along it.
  llvm::Expected<Value> stack(llvm::ArrayRef<Value> values, int64_t axis) {
    llvm::SmallVector<Value> expanded;
    for (Value value : values) {
      llvm::Expected<Value> unsqueezed =
          node.create<UnsqueezeOp>(value, node.createIntegerConstant({axis}));
      if (!unsqueezed)
        return unsqueezed.takeError();
      expanded.push_back(*unsqueezed);
    }
    if (expanded.size() == 1)
      return expanded.front();
    return node.create<ConcatOp>(ValueRange(expanded),
                                 node.getBuilder().getI64IntegerAttr(axis));
  }

  /// Runs the body over |scanInputs|; returns the final states followed by
  /// the stacked scan outputs. |scope| names this unrolling in locations.
  llvm::Expected<llvm::SmallVector<Value>>
  unroll(llvm::ArrayRef<Value> initialStates, llvm::ArrayRef<Value> scanInputs,
         const ScanLayout &layout, llvm::StringRef scope) {
    size_t stateCount = initialStates.size();
    if (body.output_size() < int64_t(stateCount))
      return node.error("the body has " + llvm::Twine(body.output_size()) +
                        " outputs, fewer than its " + llvm::Twine(stateCount) +
                        " states");
    size_t scanOutputCount = body.output_size() - stateCount;
    if (layout.outputAxes.size() != scanOutputCount ||
        layout.outputReversed.size() != scanOutputCount)
      return node.error("scan_output_axes and scan_output_directions must "
                        "have one entry per scan output (" +
                        llvm::Twine(scanOutputCount) + ")");

    int64_t length = -1;
    for (auto [index, input] : llvm::enumerate(scanInputs)) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      int64_t axis = layout.inputAxes[index];
      if (!type || axis >= type.getRank() || type.isDynamicDim(axis))
        return node.error("the scan length (dimension " + llvm::Twine(axis) +
                          " of scan input " + llvm::Twine(index) +
                          ") must be static to unroll the scan");
      if (length >= 0 && type.getDimSize(axis) != length)
        return node.error("the scan inputs have different lengths, " +
                          llvm::Twine(length) + " and " +
                          llvm::Twine(type.getDimSize(axis)));
      length = type.getDimSize(axis);
    }
    if (length <= 0)
      return node.error("a scan of length " + llvm::Twine(length) +
                        " is not supported");
    if (length > kMaxUnrolledIterations)
      return node.error(
          "a scan of length " + llvm::Twine(length) + " is longer than the " +
          llvm::Twine(kMaxUnrolledIterations) + " iterations kiln unrolls");

    llvm::SmallVector<Value> states(initialStates);
    std::vector<llvm::SmallVector<Value>> scanOutputs(scanOutputCount);
    for (int64_t step = 0; step < length; ++step) {
      llvm::SmallVector<Value> bodyInputs(states);
      for (auto [index, input] : llvm::enumerate(scanInputs)) {
        int64_t position =
            layout.inputReversed[index] ? length - 1 - step : step;
        llvm::Expected<Value> sliced =
            slice(input, layout.inputAxes[index], position);
        if (!sliced)
          return sliced.takeError();
        bodyInputs.push_back(*sliced);
      }
      llvm::Expected<llvm::SmallVector<Value>> results = node.importSubgraph(
          body, (scope + "iteration" + llvm::Twine(step)).str(), bodyInputs);
      if (!results)
        return results.takeError();
      for (size_t index = 0; index < stateCount; ++index)
        states[index] = (*results)[index];
      for (size_t index = 0; index < scanOutputCount; ++index)
        scanOutputs[index].push_back((*results)[stateCount + index]);
    }

    llvm::SmallVector<Value> results(states);
    for (size_t index = 0; index < scanOutputCount; ++index) {
      llvm::SmallVector<Value> &values = scanOutputs[index];
      auto type = dyn_cast<RankedTensorType>(values.front().getType());
      if (!type)
        return node.error("scan output " + llvm::Twine(index) +
                          " has an unknown rank");
      std::optional<int64_t> axis =
          normalizeAxis(layout.outputAxes[index], type.getRank() + 1);
      if (!axis)
        return node.error(
            "scan_output_axes entry " + llvm::Twine(layout.outputAxes[index]) +
            " is out of range for rank " + llvm::Twine(type.getRank() + 1));
      if (layout.outputReversed[index])
        std::reverse(values.begin(), values.end());
      llvm::Expected<Value> stacked = stack(values, *axis);
      if (!stacked)
        return stacked.takeError();
      results.push_back(*stacked);
    }
    return results;
  }

private:
  NodeImporter &node;
  const onnx::GraphProto &body;
};

/// An INTS attribute of |count| entries, or |count| copies of |fallback|.
llvm::Expected<llvm::SmallVector<int64_t>> getPerInput(NodeImporter &node,
                                                       llvm::StringRef name,
                                                       size_t count,
                                                       int64_t fallback) {
  llvm::Expected<std::optional<llvm::SmallVector<int64_t>>> values =
      node.getInts(name);
  if (!values)
    return values.takeError();
  if (!*values)
    return llvm::SmallVector<int64_t>(count, fallback);
  if ((*values)->size() != count)
    return node.error("attribute '" + name + "' has " +
                      llvm::Twine((*values)->size()) + " entries, expected " +
                      llvm::Twine(count));
  return **values;
}

llvm::Error importScan(NodeImporter &node) {
  llvm::Expected<const onnx::GraphProto *> body = node.getGraph("body");
  if (!body)
    return body.takeError();
  llvm::Expected<int64_t> scanInputCount = node.getInt("num_scan_inputs");
  if (!scanInputCount)
    return scanInputCount.takeError();
  bool hasBatch = node.getOpset() < 9;
  size_t firstState = hasBatch ? 1 : 0;
  size_t inputCount = node.getNode().input_size();
  if (*scanInputCount < 1 || firstState + *scanInputCount > inputCount)
    return node.error("num_scan_inputs = " + llvm::Twine(*scanInputCount) +
                      " does not fit the " +
                      llvm::Twine(inputCount - firstState) + " inputs");
  if (hasBatch && node.getInput(0))
    return node.error("sequence_lens is not supported; only an absent one "
                      "(every sequence has the full length)");
  size_t stateCount = inputCount - firstState - *scanInputCount;
  llvm::SmallVector<Value> states, scanInputs;
  for (size_t index = firstState; index < inputCount; ++index) {
    Value input = node.getInput(index);
    if (!input)
      return node.error("input " + llvm::Twine(index) +
                        " is required but empty");
    (index < firstState + stateCount ? states : scanInputs).push_back(input);
  }
  size_t scanOutputCount = node.getOutputCount() - stateCount;
  if (node.getOutputCount() < stateCount)
    return node.error("the node has fewer outputs than states");

  ScanLayout layout;
  llvm::Expected<llvm::SmallVector<int64_t>> inputDirections =
      getPerInput(node, hasBatch ? "directions" : "scan_input_directions",
                  scanInputs.size(), 0);
  if (!inputDirections)
    return inputDirections.takeError();
  for (int64_t direction : *inputDirections)
    layout.inputReversed.push_back(direction != 0);
  ScanUnroller unroller(node, **body);

  if (hasBatch) {
    // Every input has a leading batch axis; each entry is scanned on its own.
    layout.inputAxes.assign(scanInputs.size(), 0);
    layout.outputAxes.assign(scanOutputCount, 0);
    layout.outputReversed.assign(scanOutputCount, false);
    auto type = dyn_cast<RankedTensorType>(scanInputs.front().getType());
    if (!type || type.getRank() < 2 || type.isDynamicDim(0))
      return node.error("the batch size (dimension 0 of the first scan "
                        "input) must be static to unroll the scan");
    std::vector<llvm::SmallVector<Value>> perBatch(node.getOutputCount());
    for (int64_t batch = 0; batch < type.getDimSize(0); ++batch) {
      llvm::SmallVector<Value> batchStates, batchInputs;
      for (auto [values, selected] :
           {std::make_pair(&states, &batchStates),
            std::make_pair(&scanInputs, &batchInputs)})
        for (Value value : *values) {
          llvm::Expected<Value> entry = unroller.slice(value, 0, batch);
          if (!entry)
            return entry.takeError();
          selected->push_back(*entry);
        }
      llvm::Expected<llvm::SmallVector<Value>> results =
          unroller.unroll(batchStates, batchInputs, layout,
                          ("batch" + llvm::Twine(batch) + "/").str());
      if (!results)
        return results.takeError();
      for (auto [index, value] : llvm::enumerate(*results))
        perBatch[index].push_back(value);
    }
    for (auto [index, values] : llvm::enumerate(perBatch)) {
      llvm::Expected<Value> stacked = unroller.stack(values, 0);
      if (!stacked)
        return stacked.takeError();
      node.setOutput(index, *stacked);
    }
    return llvm::Error::success();
  }

  llvm::Expected<llvm::SmallVector<int64_t>> inputAxes =
      getPerInput(node, "scan_input_axes", scanInputs.size(), 0);
  if (!inputAxes)
    return inputAxes.takeError();
  for (auto [index, axis] : llvm::enumerate(*inputAxes)) {
    auto type = dyn_cast<RankedTensorType>(scanInputs[index].getType());
    std::optional<int64_t> normalized =
        type ? normalizeAxis(axis, type.getRank()) : std::nullopt;
    if (!normalized)
      return node.error("scan_input_axes entry " + llvm::Twine(axis) +
                        " is out of range for scan input " +
                        llvm::Twine(index));
    layout.inputAxes.push_back(*normalized);
  }
  llvm::Expected<llvm::SmallVector<int64_t>> outputAxes =
      getPerInput(node, "scan_output_axes", scanOutputCount, 0);
  if (!outputAxes)
    return outputAxes.takeError();
  layout.outputAxes = *outputAxes;
  llvm::Expected<llvm::SmallVector<int64_t>> outputDirections =
      getPerInput(node, "scan_output_directions", scanOutputCount, 0);
  if (!outputDirections)
    return outputDirections.takeError();
  for (int64_t direction : *outputDirections)
    layout.outputReversed.push_back(direction != 0);

  llvm::Expected<llvm::SmallVector<Value>> results =
      unroller.unroll(states, scanInputs, layout, "");
  if (!results)
    return results.takeError();
  for (auto [index, value] : llvm::enumerate(*results))
    node.setOutput(index, value);
  return llvm::Error::success();
}

} // namespace

void populateControlFlowImporters(OpImporterRegistry &registry) {
  registry.add("If", importIf);
  registry.add("Scan", importScan);
}

} // namespace kiln::onnx_import
