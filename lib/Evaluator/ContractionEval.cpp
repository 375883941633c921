// Evaluation of MatMul (NumPy batched semantics) and Gemm; float products
// accumulate in double and round once to the dtype.
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Evaluator/ScalarSemantics.h"

#include "llvm/ADT/TypeSwitch.h"

namespace kiln::eval {
namespace {

/// C[m, n] = sum_k A[m, k] * B[k, n] for one pair of row-major matrices at
/// element offsets |aOffset| / |bOffset|, with A[m, k] at
/// aOffset + m * aRowStride + k * aColStride (likewise B).
struct MatrixView {
  const Tensor *tensor;
  int64_t offset, rowStride, colStride;
  int64_t at(int64_t row, int64_t col) const {
    return offset + row * rowStride + col * colStride;
  }
};

double dotDouble(const MatrixView &a, const MatrixView &b, int64_t m, int64_t n,
                 int64_t k) {
  double sum = 0.0;
  for (int64_t i = 0; i < k; ++i)
    sum += a.tensor->getDouble(a.at(m, i)) * b.tensor->getDouble(b.at(i, n));
  return sum;
}

int64_t dotWrapping(const MatrixView &a, const MatrixView &b, int64_t m,
                    int64_t n, int64_t k) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < k; ++i)
    sum += uint64_t(a.tensor->ints()[a.at(m, i)]) *
           uint64_t(b.tensor->ints()[b.at(i, n)]);
  return static_cast<int64_t>(sum);
}

llvm::Expected<Tensor> matmul(mlir::Operation *op, const Tensor &lhs,
                              const Tensor &rhs) {
  if (lhs.dtype() != rhs.dtype())
    return opError(op, "operands have different element types: " +
                           lhs.describe() + " and " + rhs.describe());
  if (lhs.rank() == 0 || rhs.rank() == 0)
    return opError(op, "operands must have rank >= 1, got " + lhs.describe() +
                           " and " + rhs.describe());
  // NumPy promotion of 1-D operands: [k] -> [1, k] (lhs), [k] -> [k, 1] (rhs).
  std::vector<int64_t> a(lhs.shape().begin(), lhs.shape().end());
  std::vector<int64_t> b(rhs.shape().begin(), rhs.shape().end());
  if (lhs.rank() == 1)
    a.insert(a.begin(), 1);
  if (rhs.rank() == 1)
    b.push_back(1);
  int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  if (b[b.size() - 2] != k)
    return opError(op, "contraction dimensions differ: " + lhs.describe() +
                           " times " + rhs.describe());
  llvm::ArrayRef<int64_t> aBatch(a.data(), a.size() - 2);
  llvm::ArrayRef<int64_t> bBatch(b.data(), b.size() - 2);
  std::vector<llvm::ArrayRef<int64_t>> batchShapes = {aBatch, bBatch};
  llvm::Expected<std::vector<int64_t>> batch =
      broadcastRuntimeShapes(op, batchShapes);
  if (!batch)
    return batch.takeError();

  std::vector<int64_t> shape = *batch;
  if (lhs.rank() != 1)
    shape.push_back(m);
  if (rhs.rank() != 1)
    shape.push_back(n);
  llvm::Expected<Tensor> result = makeTensor(op, lhs.dtype(), shape);
  if (!result)
    return result.takeError();

  int64_t batchCount = 1;
  for (int64_t dim : *batch)
    batchCount *= dim;
  BroadcastIterator it(*batch, batchShapes);
  int64_t out = 0;
  for (int64_t batchIndex = 0; batchIndex < batchCount;
       ++batchIndex, it.next()) {
    MatrixView av{&lhs, it.operandIndex(0) * m * k, k, 1};
    MatrixView bv{&rhs, it.operandIndex(1) * k * n, n, 1};
    for (int64_t row = 0; row < m; ++row)
      for (int64_t col = 0; col < n; ++col, ++out) {
        if (lhs.isFloat())
          result->setDouble(out, dotDouble(av, bv, row, col, k));
        else
          result->setInt(out, dotWrapping(av, bv, row, col, k));
      }
  }
  return result;
}

double attrOr(mlir::FloatAttr attr, double fallback) {
  return attr ? attr.getValueAsDouble() : fallback;
}

llvm::Expected<Tensor> gemm(GemmOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &a = operands[0], &b = operands[1];
  if (a.rank() != 2 || b.rank() != 2)
    return opError(op, "expects 2-D a and b, got " + a.describe() + " and " +
                           b.describe());
  if (a.dtype() != b.dtype() ||
      (operands.size() > 2 && operands[2].dtype() != a.dtype()))
    return opError(op, "operands have different element types");
  bool transA = op.getTransA(), transB = op.getTransB();
  int64_t m = a.shape()[transA ? 1 : 0], k = a.shape()[transA ? 0 : 1];
  int64_t bk = b.shape()[transB ? 1 : 0], n = b.shape()[transB ? 0 : 1];
  if (k != bk)
    return opError(op, "contraction dimensions differ: " + a.describe() +
                           (transA ? " (transposed)" : "") + " times " +
                           b.describe() + (transB ? " (transposed)" : ""));
  llvm::Expected<Tensor> result = makeTensor(op, a.dtype(), {m, n});
  if (!result)
    return result.takeError();

  const Tensor *c = operands.size() > 2 ? &operands[2] : nullptr;
  std::vector<int64_t> resultShape = {m, n};
  std::vector<llvm::ArrayRef<int64_t>> cShapes;
  if (c) {
    std::vector<llvm::ArrayRef<int64_t>> both = {resultShape, c->shape()};
    llvm::Expected<std::vector<int64_t>> shape =
        broadcastRuntimeShapes(op, both);
    if (!shape)
      return shape.takeError();
    if (*shape != resultShape)
      return opError(op, "c of shape " + formatShape(c->shape()) +
                             " does not broadcast to the result shape " +
                             formatShape(resultShape));
    cShapes.push_back(c->shape());
  }
  double alpha = attrOr(op.getAlphaAttr(), 1.0);
  double beta = attrOr(op.getBetaAttr(), 1.0);
  MatrixView av{&a, 0, transA ? 1 : k, transA ? m : 1};
  MatrixView bv{&b, 0, transB ? 1 : n, transB ? k : 1};
  BroadcastIterator it(resultShape, cShapes);
  for (int64_t row = 0, out = 0; row < m; ++row)
    for (int64_t col = 0; col < n; ++col, ++out, it.next()) {
      double value =
          alpha * (a.isFloat()
                       ? dotDouble(av, bv, row, col, k)
                       : static_cast<double>(dotWrapping(av, bv, row, col, k)));
      if (c)
        value += beta * c->getDouble(it.operandIndex(0));
      if (a.isFloat())
        result->setDouble(out, value);
      else
        result->ints()[out] = castFloatToInt(value, a.dtype());
    }
  return result;
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateContraction(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  llvm::Expected<Tensor> result =
      llvm::TypeSwitch<mlir::Operation *, llvm::Expected<Tensor>>(op)
          .Case([&](MatMulOp) {
            if (operands.size() != 2)
              return llvm::Expected<Tensor>(opError(op, "expects 2 operands"));
            return matmul(op, operands[0], operands[1]);
          })
          .Case([&](GemmOp gemmOp) {
            if (operands.size() < 2 || operands.size() > 3)
              return llvm::Expected<Tensor>(
                  opError(op, "expects 2 or 3 operands"));
            return gemm(gemmOp, operands);
          })
          .Default([&](mlir::Operation *) {
            return llvm::Expected<Tensor>(opError(op, "is not a contraction"));
          });
  return singleResult(std::move(result));
}

} // namespace kiln::eval
