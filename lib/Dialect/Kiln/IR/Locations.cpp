// ONNX provenance from kiln locations, for error messages and kernel maps.
#include "kiln/Dialect/Kiln/IR/Locations.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kiln {

namespace {
void collect(Location location, StringRef opType,
             SmallVectorImpl<OnnxNode> &nodes) {
  if (auto fused = dyn_cast<FusedLoc>(location)) {
    StringRef innerType = opType;
    if (auto metadata = dyn_cast_or_null<StringAttr>(fused.getMetadata()))
      innerType = metadata.getValue();
    for (Location inner : fused.getLocations())
      collect(inner, innerType, nodes);
    return;
  }
  if (auto name = dyn_cast<NameLoc>(location)) {
    StringRef text = name.getName().getValue();
    if (llvm::none_of(nodes, [&](const OnnxNode &n) { return n.name == text; }))
      nodes.push_back({text.str(), opType.str()});
    return;
  }
  if (auto callSite = dyn_cast<CallSiteLoc>(location))
    collect(callSite.getCallee(), opType, nodes);
}
} // namespace

SmallVector<OnnxNode> collectOnnxNodes(Location location) {
  SmallVector<OnnxNode> nodes;
  collect(location, "", nodes);
  return nodes;
}

std::string describeLocation(Location location) {
  SmallVector<OnnxNode> nodes = collectOnnxNodes(location);
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!nodes.empty()) {
    os << (nodes.size() == 1 ? "node " : "nodes ");
    for (auto [i, node] : llvm::enumerate(nodes)) {
      if (i)
        os << ", ";
      os << "'" << node.name << "'";
      if (!node.opType.empty())
        os << " (" << node.opType << ")";
    }
    return text;
  }
  FileLineColLoc file;
  location->walk([&](Location inner) {
    if (auto candidate = dyn_cast<FileLineColLoc>(inner)) {
      file = candidate;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (file) {
    os << file.getFilename().getValue();
    if (file.getLine() != 0)
      os << ":" << file.getLine() << ":" << file.getColumn();
    return text;
  }
  return "unknown location";
}

} // namespace kiln
