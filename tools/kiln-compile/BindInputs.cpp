// kiln-compile --bind-input: the table of shape-like operand positions of kiln
// ops, and the rewrite that turns a graph input feeding only such positions
// into a constant.
#include "BindInputs.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Evaluator/Tensor.h"
#include "kiln/Evaluator/TensorIO.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace kiln {
namespace {

/// The shape positions of each kiln op, as ODS operand indices in the op's
/// (newest-opset, ONNX input order) operand list. KEEP IN SYNC with the
/// dialect: an op that takes a shape, axes, sizes, counts or coordinates as an
/// operand belongs here. Ops missing from the table have no shape positions,
/// so --bind-input rejects inputs that feed them. Every `reduce_*` op has its
/// axes at 1 (see shapeOperandGroups).
const llvm::StringMap<std::vector<unsigned>> &shapeOperandTable() {
  static const llvm::StringMap<std::vector<unsigned>> table = {
      {"reshape", {1}},           // shape
      {"expand", {1}},            // shape
      {"slice", {1, 2, 3, 4}},    // starts, ends, axes, steps
      {"unsqueeze", {1}},         // axes
      {"squeeze", {1}},           // axes
      {"tile", {1}},              // repeats
      {"pad", {1, 3}},            // pads, axes (constant_value is data)
      {"resize", {1, 2, 3}},      // roi, scales, sizes (sampling coordinates)
      {"upsample", {1}},          // scales
      {"top_k", {1}},             // k
      {"topk", {1}},              // k
      {"range", {0, 1, 2}},       // start, limit, delta
      {"constant_of_shape", {0}}, // shape
      {"one_hot", {1}},           // depth
      {"onehot", {1}},            // depth
      {"split", {1}},             // split
      {"trilu", {1}},             // k (the diagonal, an index like Slice's)
      {"cumsum", {1}},            // axis
      {"center_crop_pad", {1}},   // shape
      {"col2im", {1, 2}},         // image_shape, block_shape
      {"loop", {0, 1}},           // trip count, initial condition
  };
  return table;
}

/// The ODS operand groups of |op| that are shape positions.
const std::vector<unsigned> *shapeOperandGroups(Operation *op) {
  static const std::vector<unsigned> reductionAxes = {1};
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("kiln."))
    return nullptr;
  if (name.starts_with("reduce_"))
    return &reductionAxes;
  auto found = shapeOperandTable().find(name);
  return found == shapeOperandTable().end() ? nullptr : &found->second;
}

/// The ODS operand group that operand |operandIndex| belongs to: through
/// `operandSegmentSizes` when the op has several optional or variadic
/// operands, else the index itself.
unsigned operandGroup(Operation *op, unsigned operandIndex) {
  std::optional<Attribute> segments =
      op->getInherentAttr("operandSegmentSizes");
  auto sizes = segments ? dyn_cast_or_null<DenseI32ArrayAttr>(*segments)
                        : DenseI32ArrayAttr();
  if (!sizes)
    return operandIndex;
  unsigned start = 0;
  for (auto [group, size] : llvm::enumerate(sizes.asArrayRef())) {
    if (operandIndex < start + static_cast<unsigned>(size))
      return group;
    start += size;
  }
  return operandIndex;
}

int findInput(func::FuncOp function, StringRef name) {
  for (unsigned i = 0; i < function.getNumArguments(); ++i) {
    auto inputName = function.getArgAttrOfType<StringAttr>(i, "kiln.name");
    if (inputName && inputName.getValue() == name)
      return static_cast<int>(i);
  }
  return -1;
}

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

bool isShapeOperand(Operation *op, unsigned operandIndex) {
  const std::vector<unsigned> *groups = shapeOperandGroups(op);
  if (!groups)
    return false;
  return llvm::is_contained(*groups, operandGroup(op, operandIndex));
}

bool feedsOnlyShapes(Value value) {
  if (value.use_empty())
    return false;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    // cast(x) and identity(x) pass the value on unchanged in meaning.
    if (isa<CastOp, IdentityOp>(user)) {
      if (!feedsOnlyShapes(user->getResult(0)))
        return false;
      continue;
    }
    if (!isShapeOperand(user, use.getOperandNumber()))
      return false;
  }
  return true;
}

std::vector<std::string> listShapeInputs(func::FuncOp function) {
  std::vector<std::string> names;
  for (unsigned i = 0; i < function.getNumArguments(); ++i) {
    auto name = function.getArgAttrOfType<StringAttr>(i, "kiln.name");
    if (name && feedsOnlyShapes(function.getArgument(i)))
      names.push_back(name.getValue().str());
  }
  return names;
}

llvm::Error bindInputs(func::FuncOp function,
                       const std::vector<InputBinding> &bindings) {
  llvm::StringSet<> seen;
  for (const InputBinding &binding : bindings) {
    if (!seen.insert(binding.name).second)
      return makeError("--bind-input names input '" + binding.name + "' twice");
    int index = findInput(function, binding.name);
    if (index < 0)
      return makeError("--bind-input: the model has no input '" + binding.name +
                       "'");
    BlockArgument argument = function.getArgument(index);
    if (!feedsOnlyShapes(argument))
      return makeError("input '" + binding.name +
                       "' feeds data, not a shape: it stays a runtime input");

    llvm::Expected<eval::NamedTensor> file = eval::readTensorFile(binding.path);
    if (!file)
      return makeError("--bind-input " + binding.name + ": " +
                       llvm::toString(file.takeError()));
    const eval::Tensor &tensor = file->tensor;
    auto argumentType = dyn_cast<TensorType>(argument.getType());
    if (!argumentType)
      return makeError("--bind-input " + binding.name + ": not a tensor input");
    std::optional<eval::DType> expected =
        eval::dtypeFromMlir(argumentType.getElementType());
    if (!expected || *expected != tensor.dtype())
      return makeError(llvm::formatv(
          "--bind-input {0}: the file holds {1}, the input is {2}",
          binding.name, tensor.describe(),
          expected ? eval::dtypeName(*expected) : "another type"));
    auto valueType =
        RankedTensorType::get(tensor.shape(), argumentType.getElementType());
    if (failed(verifyCompatibleShape(argumentType, valueType)))
      return makeError(llvm::formatv(
          "--bind-input {0}: the file holds {1}, which does not fit the "
          "input's shape",
          binding.name, tensor.describe()));

    OpBuilder builder(function.getBody());
    auto constant = builder.create<ConstantOp>(
        argument.getLoc(), eval::tensorToAttr(tensor, valueType));
    argument.replaceAllUsesWith(constant.getResult());
    function.eraseArgument(index);
  }
  return llvm::Error::success();
}

} // namespace kiln
