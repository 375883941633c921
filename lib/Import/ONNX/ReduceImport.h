// The operands every ONNX reduction shares, read once for ReduceSum/Mean/Max
// and the reductions built from ReduceSum (ReduceL1, ReduceL2, ...).
#ifndef KILN_LIB_IMPORT_ONNX_REDUCEIMPORT_H
#define KILN_LIB_IMPORT_ONNX_REDUCEIMPORT_H

#include "NodeImporter.h"

namespace kiln::onnx_import {

/// `axes` (null: all axes), `keepdims` and `noop_with_empty_axes` as the kiln
/// reduction ops take them.
struct ReduceOperands {
  mlir::Value axes;
  mlir::BoolAttr keepDims, noopWithEmptyAxes;
};

/// Reads them for |node|: from |axesInputOpset| on, `axes` is the optional
/// second input and `noop_with_empty_axes` an attribute; before, `axes` is an
/// attribute (becoming a constant operand; absent or empty means all axes).
llvm::Expected<ReduceOperands> readReduceOperands(NodeImporter &node,
                                                  int64_t axesInputOpset);

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_REDUCEIMPORT_H
