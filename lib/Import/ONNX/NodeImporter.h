// The per-node view that op import functions work with (inputs, attributes,
// outputs, op creation) and the registry from ONNX op type to import function.
#ifndef KILN_LIB_IMPORT_ONNX_NODEIMPORTER_H
#define KILN_LIB_IMPORT_ONNX_NODEIMPORTER_H

#include "TensorImporter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include "onnx/onnx_pb.h"

#include <optional>
#include <string>

namespace kiln::onnx_import {

/// Imports a GRAPH attribute inline at the current insertion point: its inputs
/// are bound to the given values, names of enclosing scopes resolve to their
/// values, and its outputs are returned. |scope| extends the node's name in
/// the locations of the subgraph's nodes.
using SubgraphImportFunction =
    llvm::function_ref<llvm::Expected<llvm::SmallVector<mlir::Value>>(
        const onnx::GraphProto &graph, llvm::StringRef scope,
        llvm::ArrayRef<mlir::Value> inputs)>;

/// Everything an import function may read or produce for one ONNX node. Input
/// values are resolved before the function runs; it must set every output
/// that the rest of the graph uses.
class NodeImporter {
public:
  NodeImporter(const onnx::NodeProto &node, int64_t opset,
               llvm::ArrayRef<mlir::Value> inputs,
               llvm::ArrayRef<bool> outputIsUsed, mlir::OpBuilder &builder,
               mlir::Location loc, TensorImporter &tensors,
               std::string &diagnostics)
      : node(node), opsetVersion(opset), inputs(inputs),
        outputIsUsed(outputIsUsed), outputs(node.output_size()),
        builder(builder), location(loc), tensors(tensors),
        diagnostics(diagnostics) {}

  const onnx::NodeProto &getNode() const { return node; }
  int64_t getOpset() const { return opsetVersion; }
  mlir::Location getLoc() const { return location; }
  mlir::OpBuilder &getBuilder() { return builder; }
  mlir::MLIRContext *getContext() { return builder.getContext(); }

  //===--- Inputs ---------------------------------------------------------===//

  /// Checks that between |min| and |max| inputs are given (trailing empty
  /// names do not count).
  llvm::Error checkInputCount(size_t min, size_t max) const;
  /// Number of inputs, not counting trailing empty names.
  size_t getInputCount() const;
  /// Input |index|, or a null value when it is absent (an empty name).
  mlir::Value getInput(size_t index) const {
    return index < inputs.size() ? inputs[index] : mlir::Value();
  }
  /// The element type of input |index|.
  mlir::Type getInputElementType(size_t index) const;

  //===--- Attributes -----------------------------------------------------===//

  const onnx::AttributeProto *findAttribute(llvm::StringRef name) const;
  bool hasAttribute(llvm::StringRef name) const {
    return findAttribute(name) != nullptr;
  }
  /// An INT attribute, or |defaultValue| when absent (an error when absent
  /// and there is no default).
  llvm::Expected<int64_t>
  getInt(llvm::StringRef name,
         std::optional<int64_t> defaultValue = std::nullopt) const;
  llvm::Expected<float> getFloat(llvm::StringRef name,
                                 float defaultValue) const;
  /// An INTS attribute, or std::nullopt when absent.
  llvm::Expected<std::optional<llvm::SmallVector<int64_t>>>
  getInts(llvm::StringRef name) const;
  /// A FLOATS attribute (required).
  llvm::Expected<llvm::SmallVector<float>>
  getFloats(llvm::StringRef name) const;
  /// A TENSOR attribute (required).
  llvm::Expected<const onnx::TensorProto *>
  getTensor(llvm::StringRef name) const;
  /// The kind of attribute |name| ("INT", "TENSOR", ...) for messages.
  std::string getAttributeKindName(llvm::StringRef name) const;
  /// A GRAPH attribute (required): If's branches, Loop's and Scan's body.
  llvm::Expected<const onnx::GraphProto *> getGraph(llvm::StringRef name) const;
  /// An INT attribute that is an axis of a rank-|rank| tensor, normalised to
  /// [0, rank).
  llvm::Expected<int64_t> getAxis(llvm::StringRef name, int64_t defaultValue,
                                  int64_t rank) const;

  //===--- Outputs --------------------------------------------------------===//

  size_t getOutputCount() const { return outputs.size(); }
  /// Whether output |index| is named and read by a later node or the graph.
  bool isOutputUsed(size_t index) const {
    return index < outputIsUsed.size() && outputIsUsed[index];
  }
  void setOutput(size_t index, mlir::Value value) { outputs[index] = value; }
  mlir::Value getOutput(size_t index) const { return outputs[index]; }
  /// Sets output 0 from a created op, or passes its error on.
  llvm::Error setResult(llvm::Expected<mlir::Value> value) {
    if (!value)
      return value.takeError();
    outputs[0] = *value;
    return llvm::Error::success();
  }

  //===--- Subgraphs ----------------------------------------------------===//

  void setSubgraphImporter(SubgraphImportFunction function) {
    subgraphImporter = function;
  }
  /// Imports |graph| (a GRAPH attribute of this node) inline; see
  /// SubgraphImportFunction.
  llvm::Expected<llvm::SmallVector<mlir::Value>>
  importSubgraph(const onnx::GraphProto &graph, llvm::StringRef scope,
                 llvm::ArrayRef<mlir::Value> inputs) {
    if (!subgraphImporter)
      return error("subgraphs cannot be imported here");
    return subgraphImporter(graph, scope, inputs);
  }

  //===--- Creating ops ---------------------------------------------------===//

  /// A 1-D integer `kiln.constant` of |elementType| (i64 when null).
  mlir::Value createIntegerConstant(llvm::ArrayRef<int64_t> values,
                                    mlir::Type elementType = {});
  /// A `kiln.constant` holding |tensor|.
  llvm::Expected<mlir::Value> createConstant(const onnx::TensorProto &tensor);

  /// Creates a single-result op through its ODS builder, inferring its result
  /// type first: an inference or verifier failure becomes an error instead of
  /// the builder's fatal error. |args| are the builder's arguments after the
  /// result types.
  template <typename OpTy, typename... Args>
  llvm::Expected<mlir::Value> create(Args &&...args) {
    mlir::OperationState state(location, OpTy::getOperationName());
    mlir::Type placeholder = builder.getNoneType();
    OpTy::build(builder, state, mlir::TypeRange(placeholder),
                std::forward<Args>(args)...);
    state.types.clear();
    if (mlir::failed(OpTy::inferReturnTypes(
            getContext(), location, state.operands,
            state.attributes.getDictionary(getContext()),
            state.getRawProperties(), state.regions, state.types)))
      return takeDiagnosticError("type inference failed");
    return finishCreate(state);
  }

  /// Creates the op of |state| (result types set) and verifies it; for ops
  /// with regions or several results, which create<> does not build.
  llvm::Expected<mlir::Operation *>
  createOperation(mlir::OperationState &state);

  /// An error with |message|; the graph importer prefixes the node.
  llvm::Error error(const llvm::Twine &message) const {
    return llvm::createStringError(message.str());
  }

private:
  /// Creates the op of |state| and verifies it.
  llvm::Expected<mlir::Value> finishCreate(mlir::OperationState &state);
  /// An error holding the captured diagnostics, or |fallback| if none.
  llvm::Error takeDiagnosticError(llvm::StringRef fallback);

  const onnx::NodeProto &node;
  int64_t opsetVersion;
  llvm::ArrayRef<mlir::Value> inputs;
  llvm::ArrayRef<bool> outputIsUsed;
  llvm::SmallVector<mlir::Value> outputs;
  mlir::OpBuilder &builder;
  mlir::Location location;
  TensorImporter &tensors;
  std::string &diagnostics;
  SubgraphImportFunction subgraphImporter;
};

/// Imports one node; returns an error for anything the model got wrong.
using OpImportFunction = llvm::Error (*)(NodeImporter &);

/// Maps ONNX op types of the default domain to their import functions.
class OpImporterRegistry {
public:
  void add(llvm::StringRef opType, OpImportFunction function) {
    functions[opType] = function;
  }
  OpImportFunction lookup(llvm::StringRef opType) const {
    return functions.lookup(opType);
  }

private:
  llvm::StringMap<OpImportFunction> functions;
};

/// One per op family; each file registers the op types it imports.
void populateElementwiseImporters(OpImporterRegistry &registry);
void populateReductionImporters(OpImporterRegistry &registry);
void populateContractionImporters(OpImporterRegistry &registry);
void populateShapeImporters(OpImporterRegistry &registry);
void populateMiscImporters(OpImporterRegistry &registry);
void populateMovementImporters(OpImporterRegistry &registry);
void populateMovementIndexImporters(OpImporterRegistry &registry);
void populateMathImporters(OpImporterRegistry &registry);
void populateConvImporters(OpImporterRegistry &registry);
void populateQuantizationImporters(OpImporterRegistry &registry);
void populateNormalizationImporters(OpImporterRegistry &registry);
void populateRecurrentImporters(OpImporterRegistry &registry);
void populateControlFlowImporters(OpImporterRegistry &registry);
void populateLoopImporters(OpImporterRegistry &registry);

/// The registry with every family above.
const OpImporterRegistry &getDefaultOpImporterRegistry();

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_NODEIMPORTER_H
