// Import of plain unary and broadcasting binary ONNX ops, shared by the
// elementwise and math families.
#ifndef KILN_LIB_IMPORT_ONNX_ELEMENTWISEIMPORT_H
#define KILN_LIB_IMPORT_ONNX_ELEMENTWISEIMPORT_H

#include "NodeImporter.h"

namespace kiln::onnx_import {

/// Unary ops; opsets < 6 carry a `consumed_inputs` attribute that is ignored.
template <typename OpTy> llvm::Error importUnary(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  return node.setResult(node.create<OpTy>(node.getInput(0)));
}

/// Before opset 7, binary ops broadcast only with `broadcast = 1`, aligning
/// the right operand at `axis`; without `axis` that matches NumPy's rules,
/// which every later opset uses.
inline llvm::Error checkLegacyBroadcast(NodeImporter &node) {
  if (node.getOpset() >= 7 || !node.hasAttribute("axis"))
    return llvm::Error::success();
  return node.error("legacy broadcasting with an 'axis' attribute "
                    "(opset < 7) is not supported");
}

/// Binary ops with NumPy broadcasting.
template <typename OpTy> llvm::Error importBinary(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  if (llvm::Error error = checkLegacyBroadcast(node))
    return error;
  return node.setResult(node.create<OpTy>(node.getInput(0), node.getInput(1)));
}

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_ELEMENTWISEIMPORT_H
