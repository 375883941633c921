// Evaluation of kiln.attention: softmax(scale * q k^T + mask) v per batch
// index and query row, in double (scores, softmax statistics and products),
// rounded once to the dtype.
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Evaluator/ScalarSemantics.h"

#include <cmath>

namespace kiln::eval {
namespace {

/// Row-major element strides of |shape| aligned right against |target|, 0
/// along dims that broadcast (size 1 or missing); std::nullopt when |shape|
/// does not broadcast to |target| without growing it.
std::optional<std::vector<int64_t>>
broadcastStrides(llvm::ArrayRef<int64_t> shape,
                 llvm::ArrayRef<int64_t> target) {
  if (shape.size() > target.size())
    return std::nullopt;
  std::vector<int64_t> strides(target.size(), 0);
  int64_t stride = 1;
  size_t offset = target.size() - shape.size();
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != target[offset + i] && shape[i] != 1)
      return std::nullopt;
    strides[offset + i] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

/// The flat offset of multi-index |index| under |strides|.
int64_t offsetOf(llvm::ArrayRef<int64_t> index,
                 llvm::ArrayRef<int64_t> strides) {
  int64_t offset = 0;
  for (size_t i = 0; i < index.size(); ++i)
    offset += index[i] * strides[i];
  return offset;
}

llvm::Expected<Tensor> attention(AttentionOp op,
                                 llvm::ArrayRef<Tensor> operands) {
  const Tensor &q = operands[0], &k = operands[1], &v = operands[2];
  const Tensor *mask = operands.size() > 3 ? &operands[3] : nullptr;
  for (const Tensor &operand : operands)
    if (operand.dtype() != q.dtype() || !operand.isFloat())
      return opError(op, "operands must share one float dtype, got " +
                             q.describe() + " and " + operand.describe());
  int64_t rank = q.rank();
  if (rank < 2 || k.rank() != rank || v.rank() != rank)
    return opError(op, "query, key and value must have one rank >= 2, got " +
                           q.describe() + ", " + k.describe() + ", " +
                           v.describe());
  int64_t sq = q.shape()[rank - 2], d = q.shape()[rank - 1];
  int64_t sk = k.shape()[rank - 2], dv = v.shape()[rank - 1];
  if (k.shape()[rank - 1] != d || v.shape()[rank - 2] != sk)
    return opError(op, "shapes do not fit q [..., sq, d], k [..., sk, d], "
                       "v [..., sk, dv]: " +
                           q.describe() + ", " + k.describe() + ", " +
                           v.describe());
  std::vector<llvm::ArrayRef<int64_t>> batchShapes = {
      q.shape().drop_back(2), k.shape().drop_back(2), v.shape().drop_back(2)};
  llvm::Expected<std::vector<int64_t>> batch =
      broadcastRuntimeShapes(op, batchShapes);
  if (!batch)
    return batch.takeError();

  // Every operand is indexed through the full [batch..., rows, cols] index.
  std::vector<int64_t> scoresShape = *batch, outShape = *batch;
  scoresShape.push_back(sq);
  scoresShape.push_back(sk);
  outShape.push_back(sq);
  outShape.push_back(dv);
  auto full = [&](int64_t rows, int64_t cols) {
    std::vector<int64_t> shape = *batch;
    shape.push_back(rows);
    shape.push_back(cols);
    return shape;
  };
  std::optional<std::vector<int64_t>> qStrides =
      broadcastStrides(q.shape(), full(sq, d));
  std::optional<std::vector<int64_t>> kStrides =
      broadcastStrides(k.shape(), full(sk, d));
  std::optional<std::vector<int64_t>> vStrides =
      broadcastStrides(v.shape(), full(sk, dv));
  std::optional<std::vector<int64_t>> maskStrides;
  if (mask) {
    maskStrides = broadcastStrides(mask->shape(), scoresShape);
    if (!maskStrides)
      return opError(op, "mask " + mask->describe() +
                             " does not broadcast to the scores " +
                             formatShape(scoresShape));
  }
  if (!qStrides || !kStrides || !vStrides)
    return opError(op, "batch dims do not broadcast");

  llvm::Expected<Tensor> result = makeTensor(op, q.dtype(), outShape);
  if (!result)
    return result.takeError();
  double scale = op.getScale().convertToDouble();
  int64_t batchCount = 1;
  for (int64_t dim : *batch)
    batchCount *= dim;
  std::vector<int64_t> index(rank, 0);
  std::vector<double> scores(sk), sums(dv);
  for (int64_t b = 0, out = 0; b < batchCount; ++b) {
    for (int64_t rest = b, dim = rank - 3; dim >= 0; --dim) {
      index[dim] = rest % (*batch)[dim];
      rest /= (*batch)[dim];
    }
    for (int64_t i = 0; i < sq; ++i) {
      double maximum = -INFINITY;
      for (int64_t j = 0; j < sk; ++j) {
        double dot = 0.0;
        for (int64_t t = 0; t < d; ++t) {
          index[rank - 2] = i, index[rank - 1] = t;
          double qt = q.getDouble(offsetOf(index, *qStrides));
          index[rank - 2] = j;
          dot += qt * k.getDouble(offsetOf(index, *kStrides));
        }
        double score = scale * dot;
        if (mask) {
          index[rank - 2] = i, index[rank - 1] = j;
          score += mask->getDouble(offsetOf(index, *maskStrides));
        }
        scores[j] = score;
        maximum = nanPropagatingMax(maximum, score);
      }
      double total = 0.0;
      for (double &score : scores) {
        score = std::exp(score - maximum); // All -inf: NaN, as softmax gives.
        total += score;
      }
      std::fill(sums.begin(), sums.end(), 0.0);
      for (int64_t j = 0; j < sk; ++j)
        for (int64_t e = 0; e < dv; ++e) {
          index[rank - 2] = j, index[rank - 1] = e;
          sums[e] += scores[j] * v.getDouble(offsetOf(index, *vStrides));
        }
      for (int64_t e = 0; e < dv; ++e, ++out)
        result->setDouble(out, sums[e] / total);
    }
  }
  return result;
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateAttention(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  auto attentionOp = mlir::dyn_cast<AttentionOp>(op);
  if (!attentionOp)
    return opError(op, "is not kiln.attention");
  if (operands.size() < 3 || operands.size() > 4)
    return opError(op, "expects 3 or 4 operands");
  llvm::Expected<Tensor> result = attention(attentionOp, operands);
  return singleResult(std::move(result));
}

} // namespace kiln::eval
