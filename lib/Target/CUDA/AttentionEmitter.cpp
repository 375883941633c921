// The attention template: one kiln.attention, softmax(scale q k^T + mask) v.
// Two kernels, chosen by dtype and shape:
//  - flash (f16/bf16; d a multiple of 16 and dv of 8, both at most 128; q, k
//    and v read straight from kernel inputs; 128 threads): a block per tile of
//    64 query rows of one (batch, head), tensor cores, see emitFlashKernel.
//  - row (everything else, f32 and f64 included): one block per (batch,
//    query row), grid-stride over the rows. The straightforward form:
//  1. The query row goes to shared memory (computation type: float for
//     f16/bf16/f32, double for f64).
//  2. Keys are taken in chunks of at most 4096 (fewer when shared memory is
//     short); each thread scores its keys of the chunk (dot product, scale,
//     plus the mask read with broadcast indices) into shared memory.
//  3. Online softmax across chunks: the running maximum m and sum l are
//     rescaled by e^(m_old - m_new) when a chunk raises the maximum; so is
//     each thread's accumulator of its output columns (dv / block_size of
//     them), which adds p_j * v[j, e] over the chunk.
//  4. The output row is acc / l. A row whose scores are all -inf gives 0/0 =
//     NaN, as the decomposed softmax does.
#include "KernelTemplates.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;

namespace kiln::cuda {
namespace {
constexpr int64_t kMaxChunk = 4096;
constexpr int64_t kSharedBytes = 48 * 1024; // Static shared memory limit.
constexpr int64_t kMaxOutputsPerThread = 32;

/// Reads attention operands at (batch b, row, col), b the linear index into
/// the output's batch dims: NumPy broadcasting from the full [batch..., rows,
/// cols] index.
struct BatchedOperands {
  BatchedOperands(ElementalEmitter &emitter, ArrayRef<int64_t> batchShape)
      : emitter(emitter), batchShape(batchShape),
        batchDims(emitter.dimsOf(ElementIndex::fromLinear("b"), batchShape)) {}

  ElementIndex indexOf(Value operand, int64_t rows, int64_t cols,
                       const std::string &row, const std::string &col) const {
    SmallVector<int64_t> full(batchShape);
    full.push_back(rows);
    full.push_back(cols);
    SmallVector<std::string, 4> dims(batchDims);
    dims.push_back(row);
    dims.push_back(col);
    return emitter.broadcastIndex(ElementIndex::fromDims(dims), full,
                                  shapeOf(operand));
  }
  /// The operand's value at (b, row, col) in the computation type.
  FailureOr<std::string> at(Value operand, int64_t rows, int64_t cols,
                            const std::string &row, const std::string &col) {
    return emitter.emit(operand, indexOf(operand, rows, cols, row, col));
  }
  /// The linear element offset of the operand's matrix for batch b.
  std::string matrixOffset(Value operand) const {
    ArrayRef<int64_t> shape = shapeOf(operand);
    int64_t rank = shape.size();
    return emitter.linearOf(
        indexOf(operand, shape[rank - 2], shape[rank - 1], "0", "0"), shape);
  }

  ElementalEmitter &emitter;
  SmallVector<int64_t> batchShape;
  SmallVector<std::string, 4> batchDims;
};

/// The row kernel: one block per (batch, query row).
LogicalResult emitRowKernel(ElementalEmitter &emitter, AttentionOp attention,
                            LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  ArrayRef<int64_t> outShape = shapeOf(attention.getResult());
  ArrayRef<int64_t> kShape = shapeOf(attention.getKey());
  int64_t rank = outShape.size();
  int64_t sq = outShape[rank - 2], dv = outShape[rank - 1];
  int64_t sk = kShape[rank - 2], d = kShape[rank - 1];
  SmallVector<int64_t> batchShape(outShape.drop_back(2));
  int64_t rows = elementCount(outShape.drop_back(1));
  int64_t block = getIntAttr(kernel, "block_size", 0);
  if (block % 32 != 0 || block > 1024)
    return emitter.error(nullptr)
           << "block_size " << block << " is not a multiple of 32 up to 1024";

  Type type = elementTypeOf(attention.getQuery());
  std::string acc = ElementalEmitter::computeType(type);
  int64_t accBytes = type.isF64() ? 8 : 4;
  int64_t chunkBytes = kSharedBytes - (d + 32) * accBytes;
  int64_t chunk = std::min({sk, kMaxChunk, chunkBytes / accBytes});
  if (chunk < 32 && chunk < sk)
    return emitter.error(attention)
           << "head size " << d << " leaves too little shared memory";
  chunk = std::max<int64_t>(chunk, 1);
  int64_t perThread = (dv + block - 1) / block;
  if (perThread > kMaxOutputsPerThread)
    return emitter.error(attention)
           << "value head size " << dv << " needs more than "
           << kMaxOutputsPerThread << " outputs per thread at block_size "
           << block;

  BatchedOperands operands(emitter, batchShape);
  auto operandAt = [&](Value operand, int64_t rowsOfFull, int64_t colsOfFull,
                       const std::string &row, const std::string &col) {
    return operands.at(operand, rowsOfFull, colsOfFull, row, col);
  };
  std::string s = std::to_string(sk), n = std::to_string(chunk);
  std::string zero = ElementalEmitter::floatLiteral(type, 0.0);
  std::string negInf = ElementalEmitter::floatLiteral(type, -INFINITY);

  emitter.line(
      "// kiln.attention: " + std::to_string(rows) + " query rows of " + s +
      " keys, head sizes " + std::to_string(d) + "/" + std::to_string(dv) +
      "; one block per row, keys in chunks of " + n + " (online softmax).");
  emitter.line("__shared__ " + acc + " kiln_q[" + std::to_string(d) + "];");
  emitter.line("__shared__ " + acc + " kiln_p[" + n + "];");
  emitter.line("__shared__ " + acc + " kiln_partials[32];");
  emitter.open("for (kiln_index_t row = blockIdx.x; row < " +
               std::to_string(rows) + "; row += gridDim.x)");
  emitter.line("const kiln_index_t b = row / " + std::to_string(sq) +
               ", i = row % " + std::to_string(sq) + ";");
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
  emitter.line(
      "if (e < " + std::to_string(dv) + ") out0[row * " + std::to_string(dv) +
      " + e] = " + ElementalEmitter::storeConversion(type, "acc[a] / l") + ";");
  emitter.close();
  emitter.close();

  launch.block = block;
  launch.grid = getIntAttr(kernel, "grid_size", 0);
  return success();
}

//===----------------------------------------------------------------------===//
// The flash kernel
//===----------------------------------------------------------------------===//

// kFlashWarps warps of 16 query rows (one m16 tile of the mma) per block,
// kFlashKeys keys per shared-memory tile of K and V.
constexpr int64_t kFlashWarps = 4;
constexpr int64_t kFlashRows = 16 * kFlashWarps;
constexpr int64_t kFlashKeys = 64;
constexpr int64_t kFlashMaxHead = 128;
// Shared rows are padded by 8 elements (16 bytes), so the 8 rows that one
// fragment load touches start 4 banks apart: a warp's 32 loads hit 32 banks.
constexpr int64_t kFlashPad = 8;

// Device helpers of the flash kernel; @MMA@, @STORAGE@, @PAIR@, @PACK@ and
// @TOFLOAT@ are filled in per dtype. The host-emulation branch (selected by
// the include guard of runtime/kernel-test/emulation/cuda_emulation.h)
// implements the same contracts in plain C++, so that the emulator checks the
// kernel's logic, fragment layouts included, without a GPU.
constexpr const char *kFlashHelpers =
    R"CUDA(// ---- flash attention helpers ----
// Two floats rounded into one 32-bit register of two @STORAGE@: |low| in
// bits 0-15 (the lower column or k index of a fragment pair).
KILN_DEVICE unsigned kiln_flash_pack(float low, float high) {
  @PAIR@ pair = @PACK@(low, high);
  return *reinterpret_cast<unsigned *>(&pair);
}
#ifndef KILN_KERNEL_TEST_CUDA_EMULATION_H
// D += A B for one warp on tensor cores (PTX mma.m16n8k16, fp32 D): A 16x16
// row major, B 16x8, D 16x8. With group = lane / 4 and pair = lane % 4,
// each 32-bit register holds two @STORAGE@ (lower column or k first):
//   a[0] = A[group][2 pair, 2 pair + 1]        a[1] = the same of row group + 8
//   a[2] = A[group][2 pair + 8, 2 pair + 9]    a[3] = the same of row group + 8
//   b0 = B[2 pair, 2 pair + 1][group]          b1 = B[2 pair + 8, 2 pair + 9][group]
//   d[0], d[1] = D[group][2 pair, 2 pair + 1]  d[2], d[3] = the same of row group + 8
KILN_DEVICE void kiln_flash_mma(float (&d)[4], const unsigned (&a)[4],
                                unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.@MMA@.@MMA@.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// 16 bytes from global to shared memory, asynchronously; zeros when !valid
// (|global| must still be a valid address).
KILN_DEVICE void kiln_flash_copy16(void *shared, const void *global, bool valid) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               ::"r"(address), "l"(global), "r"(valid ? 16 : 0) : "memory");
}
// Closes this thread's current group of copies.
KILN_DEVICE void kiln_flash_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits for all of this thread's groups but the newest.
KILN_DEVICE void kiln_flash_wait_one() { asm volatile("cp.async.wait_group 1;\n" ::: "memory"); }
#else
// Host emulation: synchronous copies; the mma gathers its operands from the
// warp's lanes through an exchange, by the layout written above.
static unsigned kiln_flash_exchange[32][32][6];
inline float kiln_flash_element(unsigned pair, unsigned high) {
  const unsigned short bits = static_cast<unsigned short>(high ? pair >> 16 : pair & 0xffffu);
  @STORAGE@ value;
  std::memcpy(&value, &bits, sizeof(bits));
  return @TOFLOAT@(value);
}
inline void kiln_flash_mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned *mine = kiln_flash_exchange[warp][lane];
  for (int i = 0; i < 4; ++i) mine[i] = a[i];
  mine[4] = b0;
  mine[5] = b1;
  __shfl_xor_sync(0xffffffffu, 0, 0);  // A warp barrier: every operand is posted.
  float result[4];
  for (unsigned i = 0; i < 4; ++i) {
    const unsigned row = (lane >> 2) + (i >= 2 ? 8 : 0), col = (lane & 3) * 2 + (i & 1);
    float sum = d[i];
    for (unsigned k = 0; k < 16; ++k) {
      const unsigned *aLane = kiln_flash_exchange[warp][(row & 7) * 4 + (k & 7) / 2];
      const unsigned *bLane = kiln_flash_exchange[warp][col * 4 + (k & 7) / 2];
      sum += kiln_flash_element(aLane[(row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0)], k & 1) *
             kiln_flash_element(bLane[k >= 8 ? 5 : 4], k & 1);
    }
    result[i] = sum;
  }
  __shfl_xor_sync(0xffffffffu, 0, 0);  // Every lane has read the exchange.
  for (int i = 0; i < 4; ++i) d[i] = result[i];
}
inline void kiln_flash_copy16(void *shared, const void *global, bool valid) {
  if (valid) std::memcpy(shared, global, 16);
  else std::memset(shared, 0, 16);
}
inline void kiln_flash_commit() {}
inline void kiln_flash_wait_one() {}
#endif
// ---- end of flash attention helpers ----)CUDA";

std::string flashHelpers(Type type) {
  bool bf16 = type.isBF16();
  std::string text = kFlashHelpers;
  std::pair<std::string, std::string> fills[] = {
      {"@MMA@", bf16 ? "bf16" : "f16"},
      {"@STORAGE@", bf16 ? "__nv_bfloat16" : "__half"},
      {"@PAIR@", bf16 ? "__nv_bfloat162" : "__half2"},
      {"@PACK@", bf16 ? "__floats2bfloat162_rn" : "__floats2half2_rn"},
      {"@TOFLOAT@", bf16 ? "__bfloat162float" : "__half2float"}};
  for (const auto &[key, fill] : fills)
    for (size_t at = text.find(key); at != std::string::npos;
         at = text.find(key, at + fill.size()))
      text.replace(at, key.size(), fill);
  return text;
}

/// The kernel-input number of |value|, when it is one.
std::optional<unsigned> inputNumber(ElementalEmitter &emitter, Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument ||
      argument.getOwner() != &emitter.getKernel().getBody().front() ||
      argument.getArgNumber() >= emitter.getNumInputs())
    return std::nullopt;
  return argument.getArgNumber();
}

/// Whether the flash kernel handles |attention|: f16/bf16 throughout, head
/// sizes it tiles, q/k/v read from kernel inputs, kFlashWarps warps.
bool canUseFlashKernel(ElementalEmitter &emitter, AttentionOp attention,
                       int64_t block) {
  Type type = elementTypeOf(attention.getQuery());
  if ((!type.isF16() && !type.isBF16()) || block != 32 * kFlashWarps)
    return false;
  for (Value value :
       {attention.getKey(), attention.getValue(), attention.getResult()})
    if (elementTypeOf(value) != type)
      return false;
  for (Value value :
       {attention.getQuery(), attention.getKey(), attention.getValue()})
    if (!inputNumber(emitter, value))
      return false;
  int64_t d = shapeOf(attention.getKey()).back();
  int64_t dv = shapeOf(attention.getValue()).back();
  return d % 16 == 0 && d <= kFlashMaxHead && dv % 8 == 0 &&
         dv <= kFlashMaxHead;
}

/// The flash kernel (FlashAttention-2 style). Grid-stride over tiles of
/// kFlashRows query rows of one batch index b; per tile:
///  1. Start async copies of key/value tile 0 into shared memory (rows
///     padded by kFlashPad; keys past sk zero-filled), then load each warp's
///     16 query rows as mma A fragments, straight from global memory.
///  2. Per key tile t: S = Q K^T on tensor cores (fp32), then start copying
///     key tile t + 1 into the freed buffer. Scale S, add the mask (read with
///     broadcast indices), -inf for keys past sk.
///  3. Online softmax per row (a quad of 4 lanes holds a row's columns):
///     m_new = max(m, max_j s_j); p_j = e^(s_j - m_new); l and O are scaled
///     by e^(m - m_new). A row whose scores are all -inf so far subtracts 0
///     instead, so p = 0 (no NaN from -inf - -inf) and the final 0/0 is NaN,
///     as the decomposed softmax gives.
///  4. O += P V on tensor cores: P's C fragments, rounded to the storage
///     dtype, are A fragments as they stand (two n8 tiles = one k16 step);
///     then start copying value tile t + 1.
///  5. The output row is O / l, written in the storage dtype.
/// Copies are committed in the order K0, V0, K1, V1, ... (empty groups when
/// there is no next tile), so "all but the newest group" is always the tile
/// about to be read.
LogicalResult emitFlashKernel(ElementalEmitter &emitter, AttentionOp attention,
                              LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  ArrayRef<int64_t> outShape = shapeOf(attention.getResult());
  int64_t rank = outShape.size();
  int64_t sq = outShape[rank - 2], dv = outShape[rank - 1];
  int64_t sk = shapeOf(attention.getKey())[rank - 2];
  int64_t d = shapeOf(attention.getKey())[rank - 1];
  SmallVector<int64_t> batchShape(outShape.drop_back(2));
  int64_t batch = elementCount(batchShape);
  int64_t queryTiles = (sq + kFlashRows - 1) / kFlashRows;
  int64_t keyTiles = (sk + kFlashKeys - 1) / kFlashKeys;
  int64_t tiles = batch * queryTiles;
  int64_t block = 32 * kFlashWarps;
  Type type = elementTypeOf(attention.getQuery());
  std::string storage = ElementalEmitter::storageType(type);
  auto text = [](int64_t value) { return std::to_string(value); };
  std::string negInf = ElementalEmitter::floatLiteral(type, -INFINITY);
  std::string keyStride = text(d + kFlashPad),
              valueStride = text(dv + kFlashPad);
  BatchedOperands operands(emitter, batchShape);
  emitter.addGlobal(flashHelpers(type));

  // Copies rows [keyStart, keyStart + kFlashKeys) of |source| (cols wide)
  // into |buffer| in 16-byte pieces, when |condition| holds; then commits.
  auto emitTileCopy = [&](const std::string &buffer, const std::string &source,
                          int64_t cols, const std::string &keyStart,
                          const std::string &condition) {
    int64_t pieces = cols / 8;
    if (!condition.empty())
      emitter.open("if (" + condition + ")");
    emitter.open("for (int c = threadIdx.x; c < " + text(kFlashKeys * pieces) +
                 "; c += " + text(block) + ")");
    emitter.line("const int r = c / " + text(pieces) + ", col = (c % " +
                 text(pieces) + ") * 8;");
    emitter.line("const kiln_index_t key = " + keyStart + " + r;");
    emitter.line("const bool valid = key < " + text(sk) + ";");
    emitter.line("kiln_flash_copy16(&" + buffer + "[r * " +
                 text(cols + kFlashPad) + " + col], " + source +
                 " + (valid ? key : 0) * " + text(cols) + " + col, valid);");
    emitter.close();
    if (!condition.empty())
      emitter.close();
    emitter.line("kiln_flash_commit();");
  };

  emitter.line("// kiln.attention (flash): " + text(batch) + " x " + text(sq) +
               " query rows of " + text(sk) + " keys, head sizes " + text(d) +
               "/" + text(dv) + "; a block per " + text(kFlashRows) +
               " query rows (a warp per 16), tensor cores, key/value tiles "
               "of " +
               text(kFlashKeys) + " in shared memory, online softmax.");
  emitter.line("__align__(16) __shared__ unsigned short kiln_k[" +
               text(kFlashKeys * (d + kFlashPad)) + "];");
  emitter.line("__align__(16) __shared__ unsigned short kiln_v[" +
               text(kFlashKeys * (dv + kFlashPad)) + "];");
  emitter.line("const int warp = threadIdx.x >> 5, group = (threadIdx.x & 31) "
               ">> 2, pair = threadIdx.x & 3;");
  emitter.open("for (kiln_index_t tile = blockIdx.x; tile < " + text(tiles) +
               "; tile += gridDim.x)");
  emitter.line("const kiln_index_t b = tile / " + text(queryTiles) + ";");
  emitter.line("// This lane's rows of the scores and output: row0, row1.");
  emitter.line("const kiln_index_t row0 = (tile % " + text(queryTiles) +
               ") * " + text(kFlashRows) +
               " + warp * 16 + group, row1 = row0 + 8;");
  const char *names[] = {"q", "k", "v"};
  Value inputs[] = {attention.getQuery(), attention.getKey(),
                    attention.getValue()};
  for (auto [name, input] : llvm::zip(names, inputs))
    emitter.line("const " + storage + " *" + name + " = " +
                 emitter.pointerName(*inputNumber(emitter, input)) + " + " +
                 operands.matrixOffset(input) + ";");
  emitTileCopy("kiln_k", "k", d, "0", "");
  emitTileCopy("kiln_v", "v", dv, "0", "");

  emitter.line("// A fragments of the warp's 16 query rows (zero past " +
               text(sq) + ").");
  emitter.line("unsigned qa[" + text(d / 16) + "][4];");
  emitter.line("#pragma unroll");
  emitter.open("for (int ks = 0; ks < " + text(d / 16) + "; ++ks)");
  emitter.line("const int col = ks * 16 + pair * 2;");
  for (int i = 0; i < 4; ++i) {
    std::string row = i % 2 ? "row1" : "row0";
    emitter.line("qa[ks][" + text(i) + "] = " + row + " < " + text(sq) +
                 " ? *reinterpret_cast<const unsigned *>(q + " + row + " * " +
                 text(d) + " + col" + (i >= 2 ? " + 8" : "") + ") : 0u;");
  }
  emitter.close();
  emitter.line("float o[" + text(dv / 8) + "][4];");
  emitter.line("#pragma unroll");
  emitter.line("for (int e = 0; e < " + text(dv / 8) +
               "; ++e) o[e][0] = o[e][1] = o[e][2] = o[e][3] = 0.0f;");
  emitter.line("float m[2] = {" + negInf + ", " + negInf +
               "}, l[2] = {0.0f, 0.0f};  // Per row; l summed over the quad "
               "at the end.");

  emitter.open("for (int t = 0; t < " + text(keyTiles) + "; ++t)");
  emitter.line("const kiln_index_t key0 = t * " + text(kFlashKeys) + ";");
  emitter.line("kiln_flash_wait_one();  // This thread's copies of key tile "
               "t have landed,");
  emitter.line("__syncthreads();        // and everyone's.");
  emitter.line("// s[j]: the C fragment of keys key0 + 8j ... key0 + 8j + 7.");
  emitter.line("float s[" + text(kFlashKeys / 8) + "][4];");
  emitter.line("#pragma unroll");
  emitter.open("for (int j = 0; j < " + text(kFlashKeys / 8) + "; ++j)");
  emitter.line("s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;");
  emitter.line("#pragma unroll");
  emitter.open("for (int ks = 0; ks < " + text(d / 16) + "; ++ks)");
  emitter.line("// B[k][n] = K[key0 + 8j + n][16 ks + k]: two adjacent k of "
               "one key row.");
  emitter.line("const unsigned short *kr = &kiln_k[(j * 8 + group) * " +
               keyStride + " + ks * 16 + pair * 2];");
  emitter.line("kiln_flash_mma(s[j], qa[ks], *reinterpret_cast<const "
               "unsigned *>(kr), *reinterpret_cast<const unsigned *>(kr + "
               "8));");
  emitter.close();
  emitter.close();
  emitter.line("__syncthreads();  // Every warp is done with kiln_k.");
  emitTileCopy("kiln_k", "k", d, "key0 + " + text(kFlashKeys),
               "t + 1 < " + text(keyTiles));

  // Scores: scale, mask, keys past the end; the row maxima.
  emitter.line("float rowMax[2] = {" + negInf + ", " + negInf + "};");
  emitter.line("#pragma unroll");
  emitter.open("for (int j = 0; j < " + text(kFlashKeys / 8) + "; ++j)");
  emitter.line("#pragma unroll");
  emitter.open("for (int c = 0; c < 4; ++c)");
  emitter.line("const kiln_index_t key = key0 + j * 8 + pair * 2 + (c & 1);");
  emitter.line("float score = s[j][c] * " +
               ElementalEmitter::floatLiteral(
                   type, attention.getScale().convertToDouble()) +
               ";");
  if (Value mask = attention.getMask()) {
    emitter.line("const kiln_index_t row = c < 2 ? row0 : row1;");
    emitter.line("const kiln_index_t maskRow = row < " + text(sq) +
                 " ? row : " + text(sq - 1) + ", maskKey = key < " + text(sk) +
                 " ? key : " + text(sk - 1) + ";");
    FailureOr<std::string> bias =
        operands.at(mask, sq, sk, "maskRow", "maskKey");
    if (failed(bias))
      return failure();
    emitter.line("score += " + *bias + ";");
  }
  if (sk % kFlashKeys != 0)
    emitter.line("if (key >= " + text(sk) + ") score = " + negInf + ";");
  emitter.line("s[j][c] = score;");
  emitter.line("rowMax[c >> 1] = fmaxf(rowMax[c >> 1], score);");
  emitter.close();
  emitter.close();

  // Online softmax.
  emitter.line("float base[2], alpha[2], rowSum[2] = {0.0f, 0.0f};");
  emitter.line("#pragma unroll");
  emitter.open("for (int r = 0; r < 2; ++r)");
  emitter.line("rowMax[r] = fmaxf(rowMax[r], __shfl_xor_sync(0xffffffffu, "
               "rowMax[r], 1));");
  emitter.line("rowMax[r] = fmaxf(rowMax[r], __shfl_xor_sync(0xffffffffu, "
               "rowMax[r], 2));");
  emitter.line("const float mNew = fmaxf(m[r], rowMax[r]);");
  emitter.line("base[r] = mNew == " + negInf +
               " ? 0.0f : mNew;  // All -inf so far: p = 0, not NaN.");
  emitter.line("alpha[r] = expf(m[r] - base[r]);");
  emitter.line("m[r] = mNew;");
  emitter.close();
  emitter.line("#pragma unroll");
  emitter.open("for (int j = 0; j < " + text(kFlashKeys / 8) + "; ++j)");
  emitter.line("#pragma unroll");
  emitter.open("for (int c = 0; c < 4; ++c)");
  emitter.line("s[j][c] = expf(s[j][c] - base[c >> 1]);");
  emitter.line("rowSum[c >> 1] += s[j][c];");
  emitter.close();
  emitter.close();
  emitter.line("l[0] = l[0] * alpha[0] + rowSum[0];");
  emitter.line("l[1] = l[1] * alpha[1] + rowSum[1];");
  emitter.line("#pragma unroll");
  emitter.open("for (int e = 0; e < " + text(dv / 8) + "; ++e)");
  emitter.line("o[e][0] *= alpha[0];");
  emitter.line("o[e][1] *= alpha[0];");
  emitter.line("o[e][2] *= alpha[1];");
  emitter.line("o[e][3] *= alpha[1];");
  emitter.close();

  // O += P V.
  emitter.line("kiln_flash_wait_one();  // Value tile t has landed.");
  emitter.line("__syncthreads();");
  emitter.line("#pragma unroll");
  emitter.open("for (int kk = 0; kk < " + text(kFlashKeys / 16) + "; ++kk)");
  emitter.line("// The A fragment of P for keys key0 + 16kk ...: the C "
               "fragments s[2kk], s[2kk + 1].");
  emitter.line("const unsigned pa[4] = {kiln_flash_pack(s[2 * kk][0], s[2 * "
               "kk][1]), kiln_flash_pack(s[2 * kk][2], s[2 * kk][3]),");
  emitter.line("                        kiln_flash_pack(s[2 * kk + 1][0], "
               "s[2 * kk + 1][1]), kiln_flash_pack(s[2 * kk + 1][2], s[2 * "
               "kk + 1][3])};");
  emitter.line("// B[k][n] = V[key0 + 16kk + k][8e + n]: two rows of one "
               "column per register.");
  emitter.line("const unsigned short *vr = &kiln_v[(kk * 16 + pair * 2) * " +
               valueStride + " + group];");
  emitter.line("#pragma unroll");
  emitter.open("for (int e = 0; e < " + text(dv / 8) + "; ++e)");
  emitter.line("const unsigned short *ve = vr + e * 8;");
  emitter.line("kiln_flash_mma(o[e], pa, ve[0] | ((unsigned)ve[" + valueStride +
               "] << 16), ve[" + text(8 * (dv + kFlashPad)) +
               "] | ((unsigned)ve[" + text(9 * (dv + kFlashPad)) +
               "] << 16));");
  emitter.close();
  emitter.close();
  emitter.line("__syncthreads();  // Every warp is done with kiln_v.");
  emitTileCopy("kiln_v", "v", dv, "key0 + " + text(kFlashKeys),
               "t + 1 < " + text(keyTiles));
  emitter.close();

  // The output rows: O / l.
  emitter.line("#pragma unroll");
  emitter.open("for (int r = 0; r < 2; ++r)");
  emitter.line("l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);");
  emitter.line("l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);");
  emitter.close();
  std::string out = emitter.pointerName(emitter.getNumInputs());
  emitter.line(storage + " *out = " + out + " + b * " + text(sq * dv) + ";");
  emitter.line("#pragma unroll");
  emitter.open("for (int e = 0; e < " + text(dv / 8) + "; ++e)");
  emitter.line("const int col = e * 8 + pair * 2;");
  emitter.line("if (row0 < " + text(sq) +
               ") *reinterpret_cast<unsigned *>(out + row0 * " + text(dv) +
               " + col) = kiln_flash_pack(o[e][0] / l[0], o[e][1] / l[0]);");
  emitter.line("if (row1 < " + text(sq) +
               ") *reinterpret_cast<unsigned *>(out + row1 * " + text(dv) +
               " + col) = kiln_flash_pack(o[e][2] / l[1], o[e][3] / l[1]);");
  emitter.close();
  emitter.close();

  launch.block = block;
  launch.grid =
      std::clamp<int64_t>(getIntAttr(kernel, "grid_size", tiles), 1, tiles);
  return success();
}

} // namespace

LogicalResult emitAttentionKernel(ElementalEmitter &emitter,
                                  LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  AttentionOp attention;
  unsigned found = 0;
  kernel.getBody().walk([&](AttentionOp op) {
    attention = op;
    ++found;
  });
  if (found != 1)
    return emitter.error(nullptr) << "is an attention kernel with " << found
                                  << " kiln.attention ops; expected one";
  ValueRange yielded = kernel.getYield().getValues();
  if (yielded.size() != 1 || yielded[0] != attention.getResult())
    return emitter.error(nullptr)
           << "must yield exactly the kiln.attention result";
  if (canUseFlashKernel(emitter, attention,
                        getIntAttr(kernel, "block_size", 0)))
    return emitFlashKernel(emitter, attention, launch);
  return emitRowKernel(emitter, attention, launch);
}

} // namespace kiln::cuda
