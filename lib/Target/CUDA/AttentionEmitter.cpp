// The attention template: one kiln.attention, softmax(scale q k^T + mask) v.
// Two kernels, the kernel's `variant` (kiln-tile-kernels chooses it by dtype
// and shape, KernelConfiguration.h):
//  - flash (f16/bf16; d a multiple of 16 and dv of 8, both at most 128; q, k
//    and v read straight from kernel inputs; 128 threads): a block per tile of
//    64 query rows of one (batch, head), tensor cores, in
//    FlashAttentionEmitter.cpp.
//  - query_rows (everything else, f32 and f64 included): one block per
//    (batch, query row), grid-stride over the rows. The straightforward form:
//  1. The query row goes to shared memory (computation type: float for
//     f16/bf16/f32, double for f64).
//  2. Keys are taken in chunks of `key_chunk` (tiling's choice: at most 4096,
//     fewer when shared memory is short); each thread scores its keys of the chunk (dot product, scale,
//     plus the mask read with broadcast indices) into shared memory.
//  3. Online softmax across chunks: the running maximum m and sum l are
//     rescaled by e^(m_old - m_new) when a chunk raises the maximum; so is
//     each thread's accumulator of its output columns (dv / block_size of
//     them), which adds p_j * v[j, e] over the chunk.
//  4. The output row is acc / l. A row whose scores are all -inf gives 0/0 =
//     NaN, as the decomposed softmax does.
// Both kernels read q/k/v through the views, transposes and slices fused
// into the kernel and may write the output through a transpose of it
// (AttentionOperands.cpp): the row kernel elementally, the flash kernel by
// the strides of each operand's rows.
#include "AttentionTemplates.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;

namespace kiln::cuda {
ElementIndex BatchedOperands::indexOf(Value operand, const Extent &rows,
                                      const Extent &cols,
                                      const std::string &row,
                                      const std::string &col) const {
  Extents full = batch;
  for (const Extent *extent : {&rows, &cols}) {
    full.sizes.push_back(extent->size);
    full.texts.push_back(extent->text);
  }
  SmallVector<std::string, 4> dims(batchDims);
  dims.push_back(row);
  dims.push_back(col);
  return emitter.broadcastIndex(ElementIndex::fromDims(dims), full,
                                emitter.extentsOf(operand));
}

FailureOr<std::string> BatchedOperands::at(Value operand, const Extent &rows,
                                           const Extent &cols,
                                           const std::string &row,
                                           const std::string &col) {
  return emitter.emit(operand, indexOf(operand, rows, cols, row, col));
}

std::string BatchedOperands::matrixOffset(Value operand) const {
  Extents shape = emitter.extentsOf(operand);
  int64_t rank = shape.size();
  return emitter.linearOf(indexOf(operand, Extent(shape, rank - 2),
                                  Extent(shape, rank - 1), "0", "0"),
                          shape);
}

namespace {
/// The first |count| dims of |extents|.
Extents leadingExtents(const Extents &extents, size_t count) {
  Extents leading;
  leading.sizes.assign(extents.sizes.begin(), extents.sizes.begin() + count);
  leading.texts.assign(extents.texts.begin(), extents.texts.begin() + count);
  return leading;
}
} // namespace

namespace {
/// The row kernel: one block per (batch, query row).
LogicalResult emitRowKernel(ElementalEmitter &emitter, AttentionOp attention,
                            LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  // Sizes, or with run-time extents (issue 18) their expressions: the batch
  // dims and both sequence lengths; the head sizes are static.
  Extents outShape = emitter.extentsOf(attention.getResult());
  Extents kShape = emitter.extentsOf(attention.getKey());
  int64_t rank = outShape.size();
  Extent sq(outShape, rank - 2), sk(kShape, rank - 2);
  int64_t dv = outShape[rank - 1], d = kShape[rank - 1];
  Extents batchShape = leadingExtents(outShape, rank - 2);
  Extent rows = productOf(leadingExtents(outShape, rank - 1));
  int64_t block = int64_t(kernel.getBlockSize().value_or(0));
  if (block <= 0)
    return emitter.error(nullptr) << "has no block_size";
  // The verifier checked a recorded variant; a hand-tiled kernel is checked
  // here. The key chunk is tiling's (or the template's own for a kernel
  // without one).
  std::string unmet =
      unmetVariantPrecondition(kernel, KernelVariant::QueryRows, block);
  if (!unmet.empty())
    return emitter.error(attention) << unmet;
  int64_t chunk = int64_t(kernel.getKeyChunk().value_or(0));
  if (chunk <= 0)
    chunk = queryRowsKeyChunk(kernel);
  int64_t perThread = (dv + block - 1) / block;

  Type type = elementTypeOf(attention.getQuery());
  std::string acc = ElementalEmitter::computeType(type);

  BatchedOperands operands(emitter, batchShape);
  auto operandAt = [&](Value operand, const Extent &rowsOfFull,
                       const Extent &colsOfFull, const std::string &row,
                       const std::string &col) {
    return operands.at(operand, rowsOfFull, colsOfFull, row, col);
  };
  std::string s = sk.text, n = std::to_string(chunk);
  std::string zero = ElementalEmitter::floatLiteral(type, 0.0);
  std::string negInf = ElementalEmitter::floatLiteral(type, -INFINITY);

  emitter.line("// kiln.attention: " + rows.text + " query rows of " + s +
               " keys, head sizes " + std::to_string(d) + "/" +
               std::to_string(dv) + "; one block per row, keys in chunks of " +
               n + " (online softmax).");
  emitter.line("__shared__ " + acc + " kiln_q[" + std::to_string(d) + "];");
  emitter.line("__shared__ " + acc + " kiln_p[" + n + "];");
  emitter.line("__shared__ " + acc + " kiln_partials[32];");
  emitter.open("for (kiln_index_t row = blockIdx.x; row < " + rows.text +
               "; row += gridDim.x)");
  emitter.line("const kiln_index_t b = row / " + sq.text + ", i = row % " +
               sq.text + ";");
  emitter.line("__syncthreads();  // The previous row is done with kiln_q.");
  emitter.open("for (kiln_index_t t = threadIdx.x; t < " + std::to_string(d) +
               "; t += blockDim.x)");
  FailureOr<std::string> q = operandAt(attention.getQuery(), sq, d, "i", "t");
  if (failed(q))
    return failure();
  emitter.line("kiln_q[t] = " + *q + ";");
  emitter.close();
  emitter.line("__syncthreads();");
  emitter.line(acc + " m = " + negInf + ", l = " + zero + ";");
  emitter.line(acc + " acc[" + std::to_string(perThread) + "];");
  emitter.line("#pragma unroll");
  emitter.line("for (int a = 0; a < " + std::to_string(perThread) +
               "; ++a) acc[a] = " + zero + ";");
  emitter.open("for (kiln_index_t c0 = 0; c0 < " + s + "; c0 += " + n + ")");
  emitter.line("const int n = " + s + " - c0 < " + n + " ? (int)(" + s +
               " - c0) : " + n + ";");

  // Scores of the chunk and their maximum.
  emitter.line(acc + " localMax = " + negInf + ";");
  emitter.open("for (int j = threadIdx.x; j < n; j += blockDim.x)");
  emitter.line("const kiln_index_t key = c0 + j;");
  emitter.line(acc + " dot = " + zero + ";");
  emitter.open("for (kiln_index_t t = 0; t < " + std::to_string(d) + "; ++t)");
  FailureOr<std::string> k = operandAt(attention.getKey(), sk, d, "key", "t");
  if (failed(k))
    return failure();
  emitter.line("dot += kiln_q[t] * " + *k + ";");
  emitter.close();
  emitter.line(acc + " score = dot * " +
               ElementalEmitter::floatLiteral(
                   type, attention.getScale().convertToDouble()) +
               ";");
  if (Value mask = attention.getMask()) {
    FailureOr<std::string> bias = operandAt(mask, sq, sk, "i", "key");
    if (failed(bias))
      return failure();
    emitter.line("score += " + *bias + ";");
  }
  emitter.line("kiln_p[j] = score;");
  emitter.line("localMax = kiln_max(localMax, score);");
  emitter.close();

  // Online softmax: rescale the running sum and accumulators.
  emitter.line("const " + acc +
               " mNew = kiln_max(m, kiln_block_allreduce(localMax, "
               "kiln_max_op(), kiln_partials));");
  emitter.line("const bool allMasked = mNew == " + negInf +
               ";  // Every score so far is -inf.");
  emitter.line("const " + acc + " alpha = allMasked ? " +
               ElementalEmitter::floatLiteral(type, 1.0) +
               " : kiln_exp(m - mNew);");
  emitter.line(acc + " localSum = " + zero + ";");
  emitter.open("for (int j = threadIdx.x; j < n; j += blockDim.x)");
  emitter.line("const " + acc + " p = allMasked ? " + zero +
               " : kiln_exp(kiln_p[j] - mNew);");
  emitter.line("kiln_p[j] = p;");
  emitter.line("localSum += p;");
  emitter.close();
  emitter.line("// The block reduction also makes every kiln_p[j] visible.");
  emitter.line("l = l * alpha + kiln_block_allreduce(localSum, kiln_sum_op(), "
               "kiln_partials);");
  emitter.line("m = mNew;");
  emitter.line("#pragma unroll");
  emitter.open("for (int a = 0; a < " + std::to_string(perThread) + "; ++a)");
  emitter.line("const kiln_index_t e = threadIdx.x + a * " +
               std::to_string(block) + ";");
  emitter.line("if (e >= " + std::to_string(dv) + ") break;");
  emitter.line(acc + " sum = " + zero + ";");
  emitter.open("for (int j = 0; j < n; ++j)");
  FailureOr<std::string> v =
      operandAt(attention.getValue(), sk, dv, "(c0 + j)", "e");
  if (failed(v))
    return failure();
  emitter.line("sum += kiln_p[j] * " + *v + ";");
  emitter.close();
  emitter.line("acc[a] = acc[a] * alpha + sum;");
  emitter.close();
  emitter.line("__syncthreads();  // kiln_p is rewritten by the next chunk.");
  emitter.close();

  // Write the row.
  emitter.line("#pragma unroll");
  emitter.open("for (int a = 0; a < " + std::to_string(perThread) + "; ++a)");
  emitter.line("const kiln_index_t e = threadIdx.x + a * " +
               std::to_string(block) + ";");
  std::string outRow = "row * " + std::to_string(dv);
  std::optional<StridedLayout> stored =
      attentionOutputLayout(kernel, attention);
  if (attention.getResult() != kernel.getYield().getValues()[0])
    outRow = operands.stridedMatrixOffset(attention.getResult(), *stored) +
             " + i * " + layoutText(emitter, stored->strides[rank - 2]);
  emitter.line("if (e < " + std::to_string(dv) + ") out0[" + outRow +
               " + e] = " +
               ElementalEmitter::storeConversion(type, "acc[a] / l") + ";");
  emitter.close();
  emitter.close();

  launch.block = block;
  launch.grid = int64_t(kernel.getGridSize().value_or(0));
  return success();
}

} // namespace

LogicalResult emitAttentionKernel(ElementalEmitter &emitter,
                                  LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  // The verifier has checked the contract: exactly one kiln.attention.
  auto attention = cast<AttentionOp>(getKernelAnchor(kernel));
  std::optional<StridedLayout> stored =
      attentionOutputLayout(kernel, attention);
  if (!stored || stored->strides.back().getConstant() != 1)
    return emitter.error(nullptr)
           << "must yield the kiln.attention result, or a transpose or "
              "reshape of it that keeps the head dim innermost";
  // kiln-tile-kernels chose the variant (KernelConfiguration.h); the
  // verifier has checked its preconditions, checked again here against the
  // geometry the kernel carries.
  KernelVariant variant = *getKernelVariant(kernel);
  if (std::string unmet = unmetVariantPrecondition(
          kernel, variant, int64_t(kernel.getBlockSize().value_or(0)));
      !unmet.empty())
    return emitter.error(nullptr) << "cannot run its variant '"
                                  << stringifyKernelVariant(variant)
                                  << "': " << unmet;
  switch (variant) {
  case KernelVariant::Flash:
    return emitFlashKernel(emitter, attention, launch);
  case KernelVariant::QueryRows:
    return emitRowKernel(emitter, attention, launch);
  default:
    return emitter.error(nullptr) << "records variant '"
                                  << stringifyKernelVariant(variant)
                                  << "', which no attention template runs";
  }
}

} // namespace kiln::cuda
