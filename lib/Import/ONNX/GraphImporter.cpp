// Walks an ONNX graph: inputs become arguments, initializers constants, each
// node goes through its registered import function, outputs are returned.
#include "GraphImporter.h"

#include "ModelChecks.h"
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

bool isDefaultDomain(llvm::StringRef domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// Adds every name that |graph| and its nested subgraphs read to |usedNames|,
/// so that an outer node output read only inside a subgraph counts as used.
void collectUsedNames(const onnx::GraphProto &graph,
                      llvm::StringSet<> &usedNames) {
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input())
      usedNames.insert(input);
    for (const onnx::AttributeProto &attribute : node.attribute()) {
      if (attribute.has_g())
        collectUsedNames(attribute.g(), usedNames);
      for (const onnx::GraphProto &subgraph : attribute.graphs())
        collectUsedNames(subgraph, usedNames);
    }
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    usedNames.insert(output.name());
}

class GraphImporter {
public:
  GraphImporter(const onnx::ModelProto &model, llvm::StringRef sourceName,
                llvm::StringRef modelDirectory, MLIRContext &context,
                const ImportOptions &options)
      : model(model), graph(model.graph()), sourceName(sourceName),
        context(context), options(options),
        tensors(context, modelDirectory.str(), options.inlineElementLimit),
        builder(&context) {}

  llvm::Expected<OwningOpRef<ModuleOp>> run();

private:
  /// The type of a graph input or output; |dimNames| gets one name per dim.
  llvm::Expected<Type>
  convertValueType(const onnx::ValueInfoProto &info,
                   llvm::SmallVectorImpl<Attribute> &dimNames);
  llvm::Error createFunction();
  /// The value called |name|: an argument, a node output or an initializer
  /// (made a constant on first use).
  llvm::Expected<Value> lookupValue(llvm::StringRef name);
  llvm::Error importNode(const onnx::NodeProto &node, size_t index);
  /// Imports |subgraph| inline for the node called |nodeName|; see
  /// SubgraphImportFunction. The enclosing scope is restored afterwards.
  llvm::Expected<llvm::SmallVector<Value>>
  importSubgraph(const onnx::GraphProto &subgraph, llvm::StringRef nodeName,
                 llvm::StringRef scope, llvm::ArrayRef<Value> inputs);
  llvm::Error createReturn();

  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  llvm::StringRef sourceName;
  MLIRContext &context;
  const ImportOptions &options;
  TensorImporter tensors;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
  /// The last initializer constant; later ones go after it.
  Operation *lastConstant = nullptr;

  llvm::StringMap<Value> values;
  llvm::StringMap<const onnx::TensorProto *> initializers;
  /// Node index that produces each name, for the "not sorted" error.
  llvm::StringMap<size_t> producers;
  llvm::StringSet<> usedNames;
  int64_t defaultOpset = -1;
  /// Prefixes node names inside a subgraph: "outer/scope/".
  std::string namePrefix;
  /// Where nodes are imported: the function body, or the block that was the
  /// insertion point when a subgraph import began (a kiln.loop body).
  Block *currentBlock = nullptr;
  /// Diagnostics captured while creating ops, consumed by NodeImporter.
  std::string diagnostics;
};

llvm::Expected<Type>
GraphImporter::convertValueType(const onnx::ValueInfoProto &info,
                                llvm::SmallVectorImpl<Attribute> &dimNames) {
  if (!info.type().has_tensor_type())
    return llvm::createStringError("'" + info.name() +
                                   "' is not a tensor; only tensors are "
                                   "supported");
  const onnx::TypeProto::Tensor &tensorType = info.type().tensor_type();
  llvm::Expected<Type> element =
      convertElementType(context, tensorType.elem_type());
  if (!element)
    return llvm::createStringError("'" + info.name() + "' has an " +
                                   llvm::toString(element.takeError()));
  if (!tensorType.has_shape())
    return UnrankedTensorType::get(*element);
  llvm::SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim :
       tensorType.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      dimNames.push_back(builder.getStringAttr(""));
    } else {
      shape.push_back(ShapedType::kDynamic);
      dimNames.push_back(
          builder.getStringAttr(dim.has_dim_param() ? dim.dim_param() : ""));
    }
  }
  return RankedTensorType::get(shape, *element);
}

llvm::Error GraphImporter::createFunction() {
  llvm::SmallVector<Type> argumentTypes;
  llvm::SmallVector<DictionaryAttr> argumentAttributes;
  llvm::SmallVector<const onnx::ValueInfoProto *> arguments;
  llvm::StringSet<> inputNames;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue; // An initializer listed as an input (IR version < 4).
    if (!inputNames.insert(input.name()).second)
      return llvm::createStringError("graph input '" + input.name() +
                                     "' is declared twice; input names must "
                                     "be unique");
    llvm::SmallVector<Attribute> dimNames;
    llvm::Expected<Type> type = convertValueType(input, dimNames);
    if (!type)
      return llvm::createStringError("graph input " +
                                     llvm::toString(type.takeError()));
    if (std::optional<std::string> problem = findTensorSizeProblem(*type))
      return llvm::createStringError("graph input '" + input.name() +
                                     "': " + *problem);
    argumentTypes.push_back(*type);
    argumentAttributes.push_back(builder.getDictionaryAttr(
        {builder.getNamedAttr("kiln.name", builder.getStringAttr(input.name())),
         builder.getNamedAttr("kiln.dim_names",
                              builder.getArrayAttr(dimNames))}));
    arguments.push_back(&input);
  }
  builder.setInsertionPointToEnd(module->getBody());
  function =
      builder.create<func::FuncOp>(module->getLoc(), options.functionName,
                                   builder.getFunctionType(argumentTypes, {}));
  function.setAllArgAttrs(argumentAttributes);
  llvm::SmallVector<Location> argumentLocations;
  for (const onnx::ValueInfoProto *input : arguments)
    argumentLocations.push_back(
        NameLoc::get(builder.getStringAttr(input->name())));
  Block *body = builder.createBlock(&function.getBody(), {}, argumentTypes,
                                    argumentLocations);
  for (auto [input, argument] : llvm::zip(arguments, body->getArguments()))
    values[input->name()] = argument;
  return llvm::Error::success();
}

llvm::Expected<Value> GraphImporter::lookupValue(llvm::StringRef name) {
  if (Value value = values.lookup(name))
    return value;
  if (const onnx::TensorProto *tensor = initializers.lookup(name)) {
    llvm::Expected<ElementsAttr> attribute =
        tensors.convert(*tensor, ("initializer '" + name + "'").str());
    if (!attribute)
      return attribute.takeError();
    OpBuilder::InsertionGuard guard(builder);
    if (lastConstant)
      builder.setInsertionPointAfter(lastConstant);
    else
      builder.setInsertionPointToStart(&function.getBody().front());
    auto constant = builder.create<ConstantOp>(
        NameLoc::get(builder.getStringAttr(name)), *attribute);
    lastConstant = constant;
    values[name] = constant;
    return constant.getResult();
  }
  auto producer = producers.find(name);
  if (producer != producers.end())
    return llvm::createStringError(
        "input '" + name + "' is used before node " +
        llvm::Twine(producer->second) +
        " produces it (the graph is not topologically sorted)");
  return llvm::createStringError(
      "input '" + name +
      "' is not produced by any node, graph input or initializer");
}

llvm::Error GraphImporter::importNode(const onnx::NodeProto &node,
                                      size_t index) {
  std::string name =
      namePrefix + (node.name().empty()
                        ? node.op_type() + "_" + std::to_string(index)
                        : node.name());
  bool defaultDomain = isDefaultDomain(node.domain());
  int64_t opset = defaultOpset;
  if (!defaultDomain) {
    opset = 0;
    for (const onnx::OperatorSetIdProto &entry : model.opset_import())
      if (entry.domain() == node.domain())
        opset = entry.version();
  }
  std::string prefix = "node '" + name + "' (" + node.op_type() + ", domain '" +
                       (defaultDomain ? "ai.onnx" : node.domain()) +
                       "', opset " + std::to_string(opset) + "): ";
  auto fail = [&](llvm::Error error) {
    return llvm::createStringError(prefix + llvm::toString(std::move(error)));
  };

  static const OpImporterRegistry &registry = getDefaultOpImporterRegistry();
  OpImportFunction importFunction =
      defaultDomain ? registry.lookup(node.op_type()) : nullptr;
  if (!importFunction)
    return llvm::createStringError(prefix + "unsupported op");
  if (defaultDomain && defaultOpset < 0)
    return llvm::createStringError(
        prefix + "the model imports no opset for domain 'ai.onnx'");
  if (llvm::Error error = checkNodeAttributes(node, opset))
    return fail(std::move(error));

  llvm::SmallVector<Value> inputs;
  for (const std::string &inputName : node.input()) {
    if (inputName.empty()) {
      inputs.push_back(Value());
      continue;
    }
    llvm::Expected<Value> value = lookupValue(inputName);
    if (!value)
      return fail(value.takeError());
    inputs.push_back(*value);
  }
  llvm::SmallVector<bool> outputIsUsed;
  for (const std::string &outputName : node.output())
    outputIsUsed.push_back(!outputName.empty() &&
                           usedNames.contains(outputName));

  Location loc =
      FusedLoc::get(&context, {NameLoc::get(builder.getStringAttr(name))},
                    builder.getStringAttr(node.op_type()));
  builder.setInsertionPointToEnd(currentBlock ? currentBlock
                                              : &function.getBody().front());
  NodeImporter importer(node, opset, inputs, outputIsUsed, builder, loc,
                        tensors, diagnostics);
  auto subgraphImporter = [&](const onnx::GraphProto &subgraph,
                              llvm::StringRef scope, ArrayRef<Value> values) {
    return importSubgraph(subgraph, name, scope, values);
  };
  importer.setSubgraphImporter(subgraphImporter);
  if (llvm::Error error = importFunction(importer))
    return fail(std::move(error));
  for (auto [outputIndex, outputName] : llvm::enumerate(node.output())) {
    if (outputName.empty())
      continue;
    if (Value value = importer.getOutput(outputIndex))
      values[outputName] = value;
    else if (outputIsUsed[outputIndex])
      return llvm::createStringError(prefix + "output " +
                                     llvm::Twine(outputIndex) + " ('" +
                                     outputName + "') is not supported");
  }
  return llvm::Error::success();
}

llvm::Expected<llvm::SmallVector<Value>>
GraphImporter::importSubgraph(const onnx::GraphProto &subgraph,
                              llvm::StringRef nodeName, llvm::StringRef scope,
                              ArrayRef<Value> inputs) {
  if (subgraph.input_size() != int64_t(inputs.size()))
    return llvm::createStringError("subgraph '" + subgraph.name() + "' has " +
                                   llvm::Twine(subgraph.input_size()) +
                                   " inputs, expected " +
                                   llvm::Twine(inputs.size()));
  if (subgraph.sparse_initializer_size())
    return llvm::createStringError(
        "sparse initializer '" +
        subgraph.sparse_initializer(0).values().name() + "' is not supported");
  // The subgraph's names shadow the enclosing ones until it is imported.
  auto savedValues = values;
  auto savedInitializers = initializers;
  auto savedProducers = producers;
  std::string savedPrefix = namePrefix;
  Block *savedBlock = currentBlock;
  auto restoreScope = llvm::make_scope_exit([&] {
    values = std::move(savedValues);
    initializers = std::move(savedInitializers);
    producers = std::move(savedProducers);
    namePrefix = std::move(savedPrefix);
    currentBlock = savedBlock;
  });
  currentBlock = builder.getInsertionBlock();
  for (const onnx::TensorProto &tensor : subgraph.initializer()) {
    initializers[tensor.name()] = &tensor;
    values.erase(tensor.name());
  }
  for (auto [input, value] : llvm::zip(subgraph.input(), inputs)) {
    values[input.name()] = value;
    initializers.erase(input.name());
  }
  for (auto [index, node] : llvm::enumerate(subgraph.node()))
    for (const std::string &output : node.output())
      producers[output] = index;
  namePrefix = (nodeName + "/" + (scope.empty() ? "" : scope + "/")).str();
  for (auto [index, node] : llvm::enumerate(subgraph.node()))
    if (llvm::Error error = importNode(node, index))
      return std::move(error);
  llvm::SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : subgraph.output()) {
    llvm::Expected<Value> value = lookupValue(output.name());
    if (!value)
      return llvm::createStringError("subgraph output '" + output.name() +
                                     "': " + llvm::toString(value.takeError()));
    results.push_back(*value);
  }
  return results;
}

llvm::Error GraphImporter::createReturn() {
  llvm::SmallVector<Value> results;
  llvm::SmallVector<Attribute> outputNames;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    llvm::Expected<Value> value = lookupValue(output.name());
    if (!value)
      return llvm::createStringError("graph output '" + output.name() +
                                     "': " + llvm::toString(value.takeError()));
    results.push_back(*value);
    outputNames.push_back(builder.getStringAttr(output.name()));
  }
  builder.setInsertionPointToEnd(&function.getBody().front());
  builder.create<func::ReturnOp>(function.getLoc(), results);
  function.setFunctionType(builder.getFunctionType(
      function.getArgumentTypes(), ValueRange(results).getTypes()));
  function->setAttr("kiln.output_names", builder.getArrayAttr(outputNames));
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>> GraphImporter::run() {
  ScopedDiagnosticHandler captureDiagnostics(&context, [&](Diagnostic &diag) {
    if (!diagnostics.empty())
      diagnostics += "; ";
    diagnostics += diag.str();
    return success();
  });
  context.getOrLoadDialect<KilnDialect>();
  context.getOrLoadDialect<func::FuncDialect>();

  if (llvm::Error error = checkModelVersions(model))
    return std::move(error);
  if (graph.output_size() == 0)
    return llvm::createStringError(
        "the graph has no outputs, so there is nothing to compute");
  for (const onnx::OperatorSetIdProto &entry : model.opset_import())
    if (isDefaultDomain(entry.domain()))
      defaultOpset = entry.version();
  for (const onnx::TensorProto &tensor : graph.initializer())
    initializers[tensor.name()] = &tensor;
  if (graph.sparse_initializer_size())
    return llvm::createStringError("sparse initializer '" +
                                   graph.sparse_initializer(0).values().name() +
                                   "' is not supported");
  collectUsedNames(graph, usedNames);
  for (auto [index, node] : llvm::enumerate(graph.node()))
    for (const std::string &output : node.output())
      producers.try_emplace(output, index);

  module = ModuleOp::create(FileLineColLoc::get(
      builder.getStringAttr(sourceName), /*line=*/0, /*column=*/0));
  if (llvm::Error error = createFunction())
    return std::move(error);
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (llvm::Error error = importNode(node, index))
      return std::move(error);
  if (llvm::Error error = createReturn())
    return std::move(error);
  if (DictionaryAttr origins = tensors.getExternalOrigins(); !origins.empty())
    (*module)->setAttr(kExternalDataAttr, origins);
  diagnostics.clear();
  if (failed(mlir::verify(*module)))
    return llvm::createStringError("the imported module does not verify: " +
                                   diagnostics);
  return std::move(module);
}

} // namespace

llvm::Expected<OwningOpRef<ModuleOp>>
importModel(const onnx::ModelProto &model, llvm::StringRef sourceName,
            llvm::StringRef modelDirectory, MLIRContext &context,
            const ImportOptions &options) {
  GraphImporter importer(model, sourceName, modelDirectory, context, options);
  return importer.run();
}

} // namespace kiln::onnx_import
