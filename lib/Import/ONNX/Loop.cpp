// Imports ONNX Loop as a kiln.loop whose region is the imported body.
//
// The trip count and condition are often computed from graph inputs or
// shapes, so they are not constants yet at import; kiln-unroll-loops (run by
// kiln-simplify-graph) unrolls the loop once they fold, and the CPU evaluator
// runs a loop that is still there. Steps:
//   1. check the inputs: M and cond (either may be empty), then the initial
//      values of the N loop-carried dependencies;
//   2. create a block with arguments (iteration number: tensor<i64>,
//      condition: tensor<i1>, one per carried value with its initial type)
//      and import the body into it; names of the enclosing graph resolve to
//      outer values, which the region reads directly;
//   3. yield the body's outputs: the next condition, N carried values and K
//      scan outputs; the op's results are the final carried values and the K
//      scan outputs stacked along a new axis 0 (its length unknown until the
//      loop is unrolled).
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

llvm::Error importLoop(NodeImporter &node) {
  llvm::Expected<const onnx::GraphProto *> body = node.getGraph("body");
  if (!body)
    return body.takeError();
  size_t inputCount = node.getNode().input_size();
  if (inputCount < 2)
    return node.error("Loop takes the inputs M and cond (either may be "
                      "empty), got " +
                      llvm::Twine(inputCount) + " inputs");
  size_t carriedCount = inputCount - 2;
  if ((*body)->input_size() != int64_t(2 + carriedCount))
    return node.error("the body has " + llvm::Twine((*body)->input_size()) +
                      " inputs, expected " + llvm::Twine(2 + carriedCount) +
                      " (iteration number, condition, carried values)");
  if ((*body)->output_size() < int64_t(1 + carriedCount))
    return node.error("the body has " + llvm::Twine((*body)->output_size()) +
                      " outputs, fewer than its condition and " +
                      llvm::Twine(carriedCount) + " carried values");
  size_t resultCount = (*body)->output_size() - 1;
  if (node.getOutputCount() > resultCount)
    return node.error("the node has " + llvm::Twine(node.getOutputCount()) +
                      " outputs, the body produces " +
                      llvm::Twine(resultCount));

  Value tripCount = node.getInput(0), condition = node.getInput(1);
  llvm::SmallVector<Value> initialValues;
  for (size_t index = 2; index < inputCount; ++index) {
    Value value = node.getInput(index);
    if (!value)
      return node.error("loop-carried input " + llvm::Twine(index) +
                        " is empty; only tensors are supported");
    if (!isa<RankedTensorType>(value.getType()))
      return node.error("loop-carried input " + llvm::Twine(index) +
                        " has an unknown rank");
    initialValues.push_back(value);
  }

  OpBuilder &builder = node.getBuilder();
  OperationState state(node.getLoc(), LoopOp::getOperationName());
  LoopOp::build(builder, state, TypeRange(), tripCount, condition,
                initialValues);
  llvm::SmallVector<Type> argumentTypes = {
      RankedTensorType::get({}, builder.getI64Type()),
      RankedTensorType::get({}, builder.getI1Type())};
  for (Value value : initialValues)
    argumentTypes.push_back(value.getType());
  Block *block = new Block();
  state.regions.front()->push_back(block);
  for (Type type : argumentTypes)
    block->addArgument(type, node.getLoc());

  llvm::SmallVector<Value> yielded;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(block);
    llvm::SmallVector<Value> arguments(block->getArguments());
    llvm::Expected<llvm::SmallVector<Value>> results =
        node.importSubgraph(**body, "body", arguments);
    if (!results)
      return results.takeError();
    yielded = std::move(*results);
    builder.setInsertionPointToEnd(block);
    builder.create<YieldOp>(node.getLoc(), yielded);
  }

  // Carried results keep the initial type; scan outputs gain a leading
  // dynamic dim.
  llvm::SmallVector<Type> resultTypes(argumentTypes.begin() + 2,
                                      argumentTypes.end());
  for (size_t index = 1 + carriedCount; index < yielded.size(); ++index) {
    auto type = dyn_cast<RankedTensorType>(yielded[index].getType());
    if (!type)
      return node.error("scan output " + llvm::Twine(index - 1 - carriedCount) +
                        " has an unknown rank");
    llvm::SmallVector<int64_t> shape = {ShapedType::kDynamic};
    llvm::append_range(shape, type.getShape());
    resultTypes.push_back(RankedTensorType::get(shape, type.getElementType()));
  }
  state.addTypes(resultTypes);
  llvm::Expected<Operation *> loop = node.createOperation(state);
  if (!loop)
    return loop.takeError();
  for (size_t index = 0; index < node.getOutputCount(); ++index)
    node.setOutput(index, (*loop)->getResult(index));
  return llvm::Error::success();
}

} // namespace

void populateLoopImporters(OpImporterRegistry &registry) {
  registry.add("Loop", importLoop);
}

} // namespace kiln::onnx_import
