// IR/opset version checks and the ONNX-schema check of node attributes.
#include "ModelChecks.h"

#include "onnx/defs/schema.h"

#include <string>

namespace kiln::onnx_import {

namespace {
bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}
} // namespace

llvm::Error checkModelVersions(const onnx::ModelProto &model) {
  if (!model.has_ir_version())
    return llvm::createStringError("the model has no ir_version");
  if (model.ir_version() < 1 || model.ir_version() > kMaxIrVersion)
    return llvm::createStringError(
        "ir_version " + std::to_string(model.ir_version()) +
        " is not an ONNX IR version kiln reads (1 to " +
        std::to_string(kMaxIrVersion) + ")");
  for (const onnx::OperatorSetIdProto &entry : model.opset_import()) {
    std::string domain =
        isDefaultDomain(entry.domain()) ? "ai.onnx" : entry.domain();
    if (entry.version() < 1)
      return llvm::createStringError(
          "opset " + std::to_string(entry.version()) + " of domain '" + domain +
          "' is not a valid opset version");
    if (isDefaultDomain(entry.domain()) && entry.version() > kMaxDefaultOpset)
      return llvm::createStringError(
          "opset " + std::to_string(entry.version()) +
          " of domain 'ai.onnx' is newer than kiln knows (up to " +
          std::to_string(kMaxDefaultOpset) + ")");
  }
  return llvm::Error::success();
}

llvm::Error checkNodeAttributes(const onnx::NodeProto &node, int64_t opset) {
  if (!isDefaultDomain(node.domain()))
    return llvm::Error::success();
  const auto &versions =
      onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(
          onnx::ONNX_DOMAIN);
  if (opset > versions.second)
    return llvm::Error::success(); // Newer than the library's schemas.
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      node.op_type(), static_cast<int>(opset), onnx::ONNX_DOMAIN);
  if (!schema)
    return llvm::Error::success();
  const auto &defined = schema->attributes();
  for (const onnx::AttributeProto &attribute : node.attribute()) {
    if (defined.count(attribute.name()))
      continue;
    std::string known;
    for (const auto &[name, unused] : defined)
      known += (known.empty() ? "" : ", ") + name;
    return llvm::createStringError(
        "unknown attribute '" + attribute.name() + "': " + node.op_type() +
        " at opset " + std::to_string(opset) +
        (known.empty() ? std::string(" has no attributes")
                       : " has only " + known));
  }
  return llvm::Error::success();
}

} // namespace kiln::onnx_import
