// The flash attention kernel (FlashAttention-2 style, f16/bf16 on tensor
// cores) of kiln.attention; the row kernel and the choice between the two are
// in AttentionEmitter.cpp.
#include "AttentionTemplates.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace kiln::cuda {
namespace {

// kFlashWarps warps of 16 query rows (one m16 tile of the mma) per block,
// kFlashKeys keys per shared-memory tile of K and V.
constexpr int64_t kFlashWarps = 4;
constexpr int64_t kFlashRows = 16 * kFlashWarps;
constexpr int64_t kFlashKeys = 64;
constexpr int64_t kFlashMaxHead = 128;
// Shared rows are padded by 8 elements (16 bytes), so the 8 rows that one
// fragment load touches start 4 banks apart: a warp's 32 loads hit 32 banks.
constexpr int64_t kFlashPad = 8;

} // namespace

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
/// When the mask is known at compile time (findKeyTileBounds), each query
/// tile visits only key tiles [firstTile, lastTile]: a closed form for a
/// causal mask, else a table indexed by the mask's batch slice and the query
/// tile; query tiles are then taken in reverse, the longest first.
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
  std::optional<KeyTileBounds> bounds = findKeyTileBounds(
      kernel, attention.getMask(), rank, sq, sk, kFlashRows, kFlashKeys);

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
  // The key tiles this query tile visits: [keyStart, keyEnd) for the loop,
  // keyNext < keyEnd when there is a next tile to copy.
  std::string loopStart = "0", loopCondition = "t < " + text(keyTiles),
              nextCondition = "t + 1 < " + text(keyTiles);
  if (!bounds) {
    emitter.line("const int queryTile = (int)(tile % " + text(queryTiles) +
                 ");");
  } else {
    emitter.line("const int queryTile = " + text(queryTiles - 1) +
                 " - (int)(tile % " + text(queryTiles) +
                 ");  // The longest first.");
    if (bounds->causal) {
      emitter.line("// The causal mask: query tile i needs key tiles 0 ... "
                   "i only.");
      emitter.line("const int firstTile = 0, lastTile = queryTile;");
    } else {
      std::string table = emitter.fresh("kiln_key_tiles");
      SmallVector<std::string> entries;
      for (auto [first, last] : llvm::zip(bounds->first, bounds->last)) {
        entries.push_back(text(first));
        entries.push_back(text(last));
      }
      emitter.addGlobal("// The first and last key tile of each (mask slice, "
                        "query tile) that holds an unmasked key.\n"
                        "static __device__ const int " +
                        table + "[" + text(entries.size()) + "] = {" +
                        llvm::join(entries, ", ") + "};");
      std::string slice = "0";
      if (bounds->slices > 1) {
        ArrayRef<int64_t> maskShape = shapeOf(attention.getMask());
        int64_t matrix = maskShape.end()[-2] * maskShape.end()[-1];
        slice = "(" + operands.matrixOffset(attention.getMask()) + ") / " +
                text(matrix);
      }
      emitter.line("const int *tileRange = &" + table + "[(" + slice + " * " +
                   text(queryTiles) + " + queryTile) * 2];");
      emitter.line("const int firstTile = tileRange[0], lastTile = "
                   "tileRange[1];");
    }
    loopStart = "firstTile";
    loopCondition = "t <= lastTile";
    nextCondition = "t < lastTile";
  }
  emitter.line("// This lane's rows of the scores and output: row0, row1.");
  emitter.line("const kiln_index_t row0 = queryTile * " + text(kFlashRows) +
               " + warp * 16 + group, row1 = row0 + 8;");
  const char *names[] = {"q", "k", "v"};
  Value inputs[] = {attention.getQuery(), attention.getKey(),
                    attention.getValue()};
  for (auto [name, input] : llvm::zip(names, inputs))
    emitter.line("const " + storage + " *" + name + " = " +
                 emitter.pointerName(*inputNumber(emitter, input)) + " + " +
                 operands.matrixOffset(input) + ";");
  std::string firstKey =
      bounds ? loopStart + " * " + text(kFlashKeys) : std::string("0");
  emitTileCopy("kiln_k", "k", d, firstKey, "");
  emitTileCopy("kiln_v", "v", dv, firstKey, "");

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

  emitter.open("for (int t = " + loopStart + "; " + loopCondition + "; ++t)");
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
  emitTileCopy("kiln_k", "k", d, "key0 + " + text(kFlashKeys), nextCondition);

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
  emitTileCopy("kiln_v", "v", dv, "key0 + " + text(kFlashKeys), nextCondition);
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

} // namespace kiln::cuda
