// Imports ONNX's matrix products: MatMul and Gemm.
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

namespace kiln::onnx_import {
namespace {

llvm::Error importMatMul(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  return node.setResult(
      node.create<MatMulOp>(node.getInput(0), node.getInput(1)));
}

/// Gemm: C is optional from opset 11 (absent means no bias); the opset < 7
/// `broadcast` attribute is implied by NumPy broadcasting of C.
llvm::Error importGemm(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 3))
    return error;
  llvm::Expected<float> alpha = node.getFloat("alpha", 1.0f);
  if (!alpha)
    return alpha.takeError();
  llvm::Expected<float> beta = node.getFloat("beta", 1.0f);
  if (!beta)
    return beta.takeError();
  llvm::Expected<int64_t> transA = node.getInt("transA", 0);
  if (!transA)
    return transA.takeError();
  llvm::Expected<int64_t> transB = node.getInt("transB", 0);
  if (!transB)
    return transB.takeError();
  mlir::OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<GemmOp>(
      node.getInput(0), node.getInput(1), node.getInput(2),
      b.getF32FloatAttr(*alpha), b.getF32FloatAttr(*beta),
      b.getBoolAttr(*transA != 0), b.getBoolAttr(*transB != 0)));
}

} // namespace

void populateContractionImporters(OpImporterRegistry &registry) {
  registry.add("MatMul", importMatMul);
  registry.add("Gemm", importGemm);
}

} // namespace kiln::onnx_import
