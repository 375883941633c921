// Reading ONNX provenance out of kiln locations. The importer gives each op
// `loc(fused<"OpType">["node_name"])`; fusion fuses the locations of a
// kernel's ops, so a kernel's location lists every ONNX node it covers.
#ifndef KILN_DIALECT_KILN_IR_LOCATIONS_H
#define KILN_DIALECT_KILN_IR_LOCATIONS_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace kiln {

struct OnnxNode {
  std::string name;
  std::string opType; // Empty when unknown.
};

/// Every ONNX node named inside |location|, in order, without repeats.
llvm::SmallVector<OnnxNode> collectOnnxNodes(mlir::Location location);

/// A readable description: "node 'Gather_3' (Gather)", "nodes 'a' (Add),
/// 'b' (Relu)", a file name, or "unknown location".
std::string describeLocation(mlir::Location location);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_LOCATIONS_H
