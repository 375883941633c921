// Attribute access, constant creation and checked op creation for the op
// import functions.
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Regex.h"

#include <cstring>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

using AttributeKind = onnx::AttributeProto::AttributeType;

/// The attribute's kind; models written before `type` existed leave it unset,
/// so it is then deduced from the field that holds a value.
AttributeKind getKind(const onnx::AttributeProto &attribute) {
  if (attribute.type() != onnx::AttributeProto::UNDEFINED)
    return attribute.type();
  if (attribute.has_i())
    return onnx::AttributeProto::INT;
  if (attribute.has_f())
    return onnx::AttributeProto::FLOAT;
  if (attribute.has_s())
    return onnx::AttributeProto::STRING;
  if (attribute.has_t())
    return onnx::AttributeProto::TENSOR;
  if (attribute.has_sparse_tensor())
    return onnx::AttributeProto::SPARSE_TENSOR;
  if (attribute.has_g())
    return onnx::AttributeProto::GRAPH;
  if (attribute.ints_size())
    return onnx::AttributeProto::INTS;
  if (attribute.floats_size())
    return onnx::AttributeProto::FLOATS;
  if (attribute.strings_size())
    return onnx::AttributeProto::STRINGS;
  return onnx::AttributeProto::UNDEFINED;
}

std::string getKindName(AttributeKind kind) {
  std::string name = onnx::AttributeProto::AttributeType_Name(kind);
  return name.empty() ? "kind " + std::to_string(int(kind)) : name;
}

} // namespace

llvm::Error NodeImporter::checkInputCount(size_t min, size_t max) const {
  size_t count = getInputCount();
  if (count < min || count > max) {
    std::string expected =
        min == max        ? std::to_string(min)
        : max == SIZE_MAX ? "at least " + std::to_string(min)
                          : std::to_string(min) + " to " + std::to_string(max);
    return error("expected " + expected + " inputs, got " +
                 std::to_string(count));
  }
  for (size_t i = 0; i < min; ++i)
    if (!getInput(i))
      return error("input " + std::to_string(i) + " is required but empty");
  return llvm::Error::success();
}

size_t NodeImporter::getInputCount() const {
  size_t count = node.input_size();
  while (count > 0 && node.input(count - 1).empty())
    --count;
  return count;
}

Type NodeImporter::getInputElementType(size_t index) const {
  return getElementTypeOrSelf(getInput(index).getType());
}

const onnx::AttributeProto *
NodeImporter::findAttribute(llvm::StringRef name) const {
  for (const onnx::AttributeProto &attribute : node.attribute())
    if (attribute.name() == name)
      return &attribute;
  return nullptr;
}

llvm::Expected<int64_t>
NodeImporter::getInt(llvm::StringRef name,
                     std::optional<int64_t> defaultValue) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute) {
    if (defaultValue)
      return *defaultValue;
    return error("missing required attribute '" + name + "'");
  }
  if (getKind(*attribute) != onnx::AttributeProto::INT)
    return error("attribute '" + name + "' must be INT, got " +
                 getKindName(getKind(*attribute)));
  return attribute->i();
}

llvm::Expected<float> NodeImporter::getFloat(llvm::StringRef name,
                                             float defaultValue) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return defaultValue;
  if (getKind(*attribute) != onnx::AttributeProto::FLOAT)
    return error("attribute '" + name + "' must be FLOAT, got " +
                 getKindName(getKind(*attribute)));
  return attribute->f();
}

llvm::Expected<std::optional<llvm::SmallVector<int64_t>>>
NodeImporter::getInts(llvm::StringRef name) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return std::nullopt;
  AttributeKind kind = getKind(*attribute);
  // An attribute with an empty list has no field set to deduce INTS from.
  if (kind != onnx::AttributeProto::INTS &&
      kind != onnx::AttributeProto::UNDEFINED)
    return error("attribute '" + name + "' must be INTS, got " +
                 getKindName(kind));
  return llvm::SmallVector<int64_t>(attribute->ints().begin(),
                                    attribute->ints().end());
}

llvm::Expected<llvm::SmallVector<float>>
NodeImporter::getFloats(llvm::StringRef name) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return error("missing required attribute '" + name + "'");
  AttributeKind kind = getKind(*attribute);
  if (kind != onnx::AttributeProto::FLOATS &&
      kind != onnx::AttributeProto::UNDEFINED)
    return error("attribute '" + name + "' must be FLOATS, got " +
                 getKindName(kind));
  return llvm::SmallVector<float>(attribute->floats().begin(),
                                  attribute->floats().end());
}

llvm::Expected<const onnx::TensorProto *>
NodeImporter::getTensor(llvm::StringRef name) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return error("missing required attribute '" + name + "'");
  AttributeKind kind = getKind(*attribute);
  if (kind != onnx::AttributeProto::TENSOR)
    return error("attribute '" + name + "' must be TENSOR, got " +
                 getKindName(kind));
  return &attribute->t();
}

std::string NodeImporter::getAttributeKindName(llvm::StringRef name) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  return attribute ? getKindName(getKind(*attribute)) : "absent";
}

llvm::Expected<int64_t> NodeImporter::getAxis(llvm::StringRef name,
                                              int64_t defaultValue,
                                              int64_t rank) const {
  llvm::Expected<int64_t> axis = getInt(name, defaultValue);
  if (!axis)
    return axis.takeError();
  std::optional<int64_t> normalized = normalizeAxis(*axis, rank);
  if (!normalized)
    return error("attribute '" + name + "' = " + std::to_string(*axis) +
                 " is out of range for rank " + std::to_string(rank));
  return *normalized;
}

Value NodeImporter::createIntegerConstant(llvm::ArrayRef<int64_t> values,
                                          Type elementType) {
  if (!elementType)
    elementType = builder.getIntegerType(64);
  auto type = RankedTensorType::get({int64_t(values.size())}, elementType);
  llvm::SmallVector<APInt> elements;
  for (int64_t value : values)
    elements.push_back(APInt(elementType.getIntOrFloatBitWidth(), value,
                             /*isSigned=*/true));
  auto value = DenseElementsAttr::get(type, elements);
  return builder.create<ConstantOp>(location, cast<ElementsAttr>(value));
}

llvm::Expected<Value>
NodeImporter::createConstant(const onnx::TensorProto &tensor) {
  // Both arms StringRefs: a string and "" would make a temporary std::string.
  llvm::StringRef name =
      node.output_size() ? llvm::StringRef(node.output(0)) : llvm::StringRef();
  llvm::Expected<ElementsAttr> value =
      tensors.convert(tensor, "tensor '" + name.str() + "'", name);
  if (!value)
    return value.takeError();
  return builder.create<ConstantOp>(location, *value).getResult();
}

namespace {
/// An element type as ONNX names it: float32, int64, bool, ...
std::string onnxElementName(Type element) {
  if (element.isF16())
    return "float16";
  if (element.isBF16())
    return "bfloat16";
  if (element.isF32())
    return "float32";
  if (element.isF64())
    return "double";
  if (auto integer = dyn_cast<IntegerType>(element)) {
    if (integer.getWidth() == 1)
      return "bool";
    return (integer.isUnsigned() ? "uint" : "int") +
           std::to_string(integer.getWidth());
  }
  std::string text;
  llvm::raw_string_ostream(text) << element;
  return text;
}

/// A tensor type as ONNX users write it: float32[2x?], int64[] (scalar).
std::string onnxTypeName(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return onnxElementName(type);
  std::string text = onnxElementName(tensor.getElementType());
  if (!tensor.hasRank())
    return text + "[unranked]";
  text += "[";
  for (auto [i, dim] : llvm::enumerate(tensor.getShape()))
    text += (i ? "x" : "") + (ShapedType::isDynamic(dim) ? std::string("?")
                                                         : std::to_string(dim));
  return text + "]";
}

/// ODS's constraint text in ONNX's words: "tensor of 64-bit signless
/// integer values" -> "int64".
std::string onnxConstraint(llvm::StringRef constraint) {
  static const std::pair<const char *, const char *> kWords[] = {
      {"tensor of ", ""},
      {"ranked tensor of ", ""},
      {" values", ""},
      {"64-bit signless integer", "int64"},
      {"32-bit signless integer", "int32"},
      {"16-bit signless integer", "int16"},
      {"8-bit signless integer", "int8"},
      {"1-bit signless integer", "bool"},
      {"64-bit unsigned integer", "uint64"},
      {"32-bit unsigned integer", "uint32"},
      {"16-bit unsigned integer", "uint16"},
      {"8-bit unsigned integer", "uint8"},
      {"16-bit float", "float16"},
      {"32-bit float", "float32"},
      {"64-bit float", "double"},
      {"bfloat16 type", "bfloat16"},
      {"floating-point", "float"},
      {"signless integer", "integer"},
      {"signless-integer-like", "integer"}};
  std::string text = constraint.str();
  for (auto [from, to] : kWords)
    for (size_t at; (at = text.find(from)) != std::string::npos;)
      text.replace(at, std::strlen(from), to);
  return text;
}
/// |message| from |op|'s verifier in ONNX terms where a model can cause it:
/// a type constraint names the node's input (one of |inputs|, named by
/// |node|) and uses ONNX type names.
std::string describeVerifierError(Operation *op, llvm::StringRef message,
                                  const onnx::NodeProto &node,
                                  llvm::ArrayRef<Value> inputs) {
  // ODS's type constraints: "'kiln.pad' op operand #1 must be tensor of
  // 64-bit signless integer values, but got 'tensor<2xi32>'".
  static const llvm::Regex kTypeConstraint(
      "'[a-z_.]+' op (operand|result) #([0-9]+) must be (.*), but got '(.*)'");
  llvm::SmallVector<llvm::StringRef, 5> match;
  if (!kTypeConstraint.match(message, &match))
    return message.str();
  unsigned number = 0;
  match[2].getAsInteger(10, number);
  bool isOperand = match[1] == "operand";
  std::string what;
  Type type;
  if (isOperand && number < op->getNumOperands()) {
    Value operand = op->getOperand(number);
    type = operand.getType();
    for (auto [index, input] : llvm::enumerate(inputs))
      if (input == operand) {
        what =
            "input " + std::to_string(index) + " ('" + node.input(index) + "')";
        break;
      }
    if (what.empty())
      what = "a value computed from its inputs";
  } else if (!isOperand && number < op->getNumResults()) {
    type = op->getResult(number).getType();
    what = "output " + std::to_string(number);
  } else {
    return message.str();
  }
  return what + " is " + onnxTypeName(type) + ", but " + node.op_type() +
         " needs " + onnxConstraint(match[3]) + " there";
}
} // namespace

llvm::Expected<Operation *>
NodeImporter::createOperation(OperationState &state) {
  Operation *op = builder.create(state);
  if (failed(mlir::verify(op))) {
    std::string message = describeVerifierError(op, diagnostics, node, inputs);
    diagnostics.clear();
    op->erase();
    return error(message.empty() ? "the created op does not verify" : message);
  }
  // Every size later stages compute from these types must fit int64.
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    if (std::optional<std::string> problem =
            findTensorSizeProblem(result.getType())) {
      op->erase();
      return error("output " + llvm::Twine(index) + ": " + *problem);
    }
  return op;
}

llvm::Expected<Value> NodeImporter::finishCreate(OperationState &state) {
  llvm::Expected<Operation *> op = createOperation(state);
  if (!op)
    return op.takeError();
  return (*op)->getResult(0);
}

llvm::Expected<const onnx::GraphProto *>
NodeImporter::getGraph(llvm::StringRef name) const {
  const onnx::AttributeProto *attribute = findAttribute(name);
  if (!attribute)
    return error("missing required attribute '" + name + "'");
  if (!attribute->has_g())
    return error("attribute '" + name + "' must be GRAPH, got " +
                 getAttributeKindName(name));
  return &attribute->g();
}

llvm::Error NodeImporter::takeDiagnosticError(llvm::StringRef fallback) {
  std::string message = diagnostics.empty() ? fallback.str() : diagnostics;
  diagnostics.clear();
  return error(message);
}

const OpImporterRegistry &getDefaultOpImporterRegistry() {
  static const OpImporterRegistry registry = [] {
    OpImporterRegistry all;
    populateElementwiseImporters(all);
    populateReductionImporters(all);
    populateContractionImporters(all);
    populateShapeImporters(all);
    populateMiscImporters(all);
    populateMovementImporters(all);
    populateMovementIndexImporters(all);
    populateMathImporters(all);
    populateConvImporters(all);
    populateQuantizationImporters(all);
    populateNormalizationImporters(all);
    populateRecurrentImporters(all);
    populateControlFlowImporters(all);
    populateLoopImporters(all);
    return all;
  }();
  return registry;
}

} // namespace kiln::onnx_import
