// The flash attention kernel (FlashAttention-2 style, f16/bf16 on tensor
// cores) of kiln.attention, for kernels whose `variant` is flash (its
// preconditions are in KernelConfiguration.h); the query-row kernel is in
// AttentionEmitter.cpp.
#include "AttentionTemplates.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace kiln::cuda {
namespace {

// kFlashAttentionWarps warps of 16 query rows (one m16 tile of the mma) per
// key group (KernelConfiguration.h), kFlashKeys keys per shared-memory tile
// of K and V.
constexpr int64_t kFlashRows = 16 * kFlashAttentionWarps;
constexpr int64_t kFlashKeys = kFlashAttentionKeys;
constexpr int64_t kGroupThreads = 32 * kFlashAttentionWarps;
// Shared rows are padded by 8 elements (16 bytes), so the 8 rows that one
// fragment load touches start 4 banks apart: a warp's 32 loads hit 32 banks.
constexpr int64_t kFlashPad = kFlashAttentionPad;

/// After the key-tile loop of G > 1 key groups: groups 1 ... G - 1 post m,
/// l (this lane's partial sum) and O per thread, group 0 merges them into
/// its own. |toBase2| converts differences of m to base 2 (empty when the
/// scores already are).
void emitKeyGroupMerge(ElementalEmitter &emitter, int64_t groups, int64_t dv,
                       const std::string &toBase2) {
  auto text = [](int64_t value) { return std::to_string(value); };
  int64_t values = flashMergePostValues(dv), threads = kGroupThreads;
  std::string negInf = ElementalEmitter::floatLiteral(
      Float32Type::get(emitter.getKernel().getContext()), -INFINITY);
  std::string posters = groups == 2
                            ? "group 1 posts"
                            : "groups 1 ... " + text(groups - 1) + " post";
  emitter.line("// Merge the key groups: " + posters +
               " m, l and O (value i of thread x at [i][x]), group 0 "
               "scales each by 2^(m_g - max m) and adds.");
  emitter.line("__syncthreads();  // Every group is done with its tiles.");
  emitter.line("float *const kiln_posts = reinterpret_cast<float "
               "*>(kiln_tiles);");
  emitter.open("if (keyGroup > 0)");
  emitter.line("float *post = kiln_posts + (keyGroup - 1) * " +
               text(values * threads) + " + groupThread;");
  emitter.line("post[0] = m[0];");
  emitter.line("post[" + text(threads) + "] = m[1];");
  emitter.line("post[" + text(2 * threads) + "] = l[0];");
  emitter.line("post[" + text(3 * threads) + "] = l[1];");
  emitter.line("#pragma unroll");
  emitter.open("for (int e = 0; e < " + text(dv / 8) + "; ++e)");
  emitter.line("#pragma unroll");
  emitter.line("for (int c = 0; c < 4; ++c) post[(4 + e * 4 + c) * " +
               text(threads) + "] = o[e][c];");
  emitter.close();
  emitter.close();
  emitter.line("__syncthreads();");
  emitter.open("if (keyGroup == 0)");
  emitter.line("#pragma unroll");
  emitter.open("for (int g = 0; g < " + text(groups - 1) + "; ++g)");
  emitter.line("const float *post = kiln_posts + g * " +
               text(values * threads) + " + groupThread;");
  emitter.line("float alpha[2], beta[2];");
  emitter.line("#pragma unroll");
  emitter.open("for (int r = 0; r < 2; ++r)");
  emitter.line("const float mOther = post[r * " + text(threads) +
               "], mNew = fmaxf(m[r], mOther);");
  emitter.line("const float base = mNew == " + negInf +
               " ? 0.0f : mNew;  // Both -inf: l = 0, O = 0.");
  emitter.line("alpha[r] = kiln_flash_exp2((m[r] - base)" + toBase2 + ");");
  emitter.line("beta[r] = kiln_flash_exp2((mOther - base)" + toBase2 + ");");
  emitter.line("l[r] = l[r] * alpha[r] + post[(2 + r) * " + text(threads) +
               "] * beta[r];");
  emitter.line("m[r] = mNew;");
  emitter.close();
  emitter.line("#pragma unroll");
  emitter.open("for (int e = 0; e < " + text(dv / 8) + "; ++e)");
  emitter.line("#pragma unroll");
  emitter.line("for (int c = 0; c < 4; ++c) o[e][c] = o[e][c] * alpha[c >> 1] "
               "+ post[(4 + e * 4 + c) * " +
               text(threads) + "] * beta[c >> 1];");
  emitter.close();
  emitter.close();
  emitter.close();
  emitter.line("__syncthreads();  // The posts are read: the next tile's "
               "copies may overwrite them.");
}

} // namespace

/// The flash kernel (FlashAttention-2 style). Grid-stride over tiles of
/// kFlashRows query rows of one batch index b; per tile:
///  1. Start async copies of key/value tile 0 into shared memory (rows
///     padded by kFlashPad; keys past sk zero-filled), then load each warp's
///     16 query rows as mma A fragments, straight from global memory.
///  2. Per key tile t: read the mask's entries (broadcast indices) before
///     waiting for the tile, so their latency overlaps it; S = Q K^T on
///     tensor cores (fp32), B fragments by ldmatrix (two n8 tiles, both k
///     halves, per instruction); then start copying key tile t + 1 into the
///     freed buffer.
///  3. Online softmax (emitFlashSoftmax): scale, mask, -inf for keys past sk
///     (and above the diagonal of a causal mask that is not read); running
///     max and sum in base 2 (one ex2 per score).
///  4. O += P V on tensor cores: P's C fragments, rounded to the storage
///     dtype, are A fragments as they stand (two n8 tiles = one k16 step),
///     V's B fragments by ldmatrix.trans; then start copying value tile
///     t + 1.
///  5. The output row is O / l (times 1 / l), in the storage dtype.
/// Copies are committed in the order K0, V0, K1, V1, ... (empty groups when
/// there is no next tile), so "all but the newest group" is always the tile
/// about to be read.
/// When the mask is known at compile time (findKeyTileBounds), each query
/// tile visits only key tiles [firstTile, lastTile]: a closed form for a
/// causal mask, else a table indexed by the mask's batch slice and the query
/// tile; query tiles are then taken in reverse, the longest first, with the
/// batch index varying fastest (tile t: query tile queryTiles - 1 - t / batch
/// of batch index t % batch), so the heaviest tiles of every head start first.
/// With G = block_size / 128 key groups (flashKeyGroups), each group of 4
/// warps takes the same query rows against key tiles first + g, first + g +
/// G, ... with its own tiles in shared memory and its own named barrier
/// (kiln_flash_group_sync), so groups with different trip counts never wait
/// for each other in the loop; then groups 1 ... G - 1 post their rows' m, l
/// and O fragments to shared memory and group 0 merges them (the lanes'
/// fragment layouts agree, so each lane reads its own), scaling each by
/// 2^(m_g - max m) as the online softmax does, and writes the output.
LogicalResult emitFlashKernel(ElementalEmitter &emitter, AttentionOp attention,
                              LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  // Sizes, or with run-time extents (issue 18) their expressions: the batch
  // dims and both sequence lengths; the head sizes are static.
  Extents outShape = emitter.extentsOf(attention.getResult());
  Extents keyShape = emitter.extentsOf(attention.getKey());
  int64_t rank = outShape.size();
  Extent sq(outShape, rank - 2), sk(keyShape, rank - 2);
  int64_t dv = outShape[rank - 1], d = keyShape[rank - 1];
  Extents batchShape;
  batchShape.sizes.assign(outShape.sizes.begin(), outShape.sizes.end() - 2);
  batchShape.texts.assign(outShape.texts.begin(), outShape.texts.end() - 2);
  Extent batch = productOf(batchShape);
  bool runTime = !sq.isStatic() || !sk.isStatic() || !batch.isStatic();
  std::string queryTiles = sq.ceilDiv(kFlashRows),
              keyTiles = sk.ceilDiv(kFlashKeys);
  std::string tiles =
      runTime ? batch.text + " * " + queryTiles
              : std::to_string(batch.size *
                               ((sq.size + kFlashRows - 1) / kFlashRows));
  int64_t groups = std::max<int64_t>(
      int64_t(kernel.getBlockSize().value_or(kGroupThreads)) / kGroupThreads,
      1);
  int64_t block = kGroupThreads * groups;
  Type type = elementTypeOf(attention.getQuery());
  std::string storage = ElementalEmitter::storageType(type);
  auto text = [](int64_t value) { return std::to_string(value); };
  std::string negInf = ElementalEmitter::floatLiteral(type, -INFINITY);
  std::string keyStride = text(d + kFlashPad),
              valueStride = text(dv + kFlashPad);
  BatchedOperands operands(emitter, batchShape);
  emitter.addGlobal(flashHelpers(type));
  // Key tiles to skip come from a mask known at compile time, of static
  // extents.
  std::optional<KeyTileBounds> bounds =
      runTime ? std::nullopt
              : findKeyTileBounds(kernel, attention.getMask(), rank, sq.size,
                                  sk.size, kFlashRows, kFlashKeys);

  // Copies rows [keyStart, keyStart + kFlashKeys) of |source| (cols wide)
  // into |buffer| in 16-byte pieces, when |condition| holds; then commits.
  auto emitTileCopy = [&](const std::string &buffer, const std::string &source,
                          int64_t cols, const std::string &rowStride,
                          const std::string &keyStart,
                          const std::string &condition) {
    int64_t pieces = cols / 8, total = kFlashKeys * pieces;
    int64_t threads = kGroupThreads;
    if (!condition.empty())
      emitter.open("if (" + condition + ")");
    emitter.line("#pragma unroll");
    emitter.open("for (int i = 0; i < " +
                 text((total + threads - 1) / threads) + "; ++i)");
    emitter.line("const int c = " +
                 std::string(groups > 1 ? "groupThread" : "threadIdx.x") +
                 " + i * " + text(threads) + ";");
    if (total % threads != 0)
      emitter.line("if (c >= " + text(total) + ") break;");
    emitter.line("const int r = c / " + text(pieces) + ", col = (c % " +
                 text(pieces) + ") * 8;");
    emitter.line("const kiln_index_t key = " + keyStart + " + r;");
    emitter.line("const bool valid = key < " + sk.text + ";");
    emitter.line("kiln_flash_copy16(&" + buffer + "[r * " +
                 text(cols + kFlashPad) + " + col], " + source +
                 " + (valid ? key : 0) * " + rowStride +
                 " + col, valid);");
    emitter.close();
    if (!condition.empty())
      emitter.close();
    emitter.line("kiln_flash_commit();");
  };

  emitter.line("// kiln.attention (flash): " + batch.text + " x " + sq.text +
               " query rows of " + sk.text + " keys, head sizes " + text(d) +
               "/" + text(dv) + "; a block per " + text(kFlashRows) +
               " query rows (a warp per 16), tensor cores, key/value tiles "
               "of " +
               text(kFlashKeys) + " in shared memory, online softmax.");
  int64_t keyElements = flashTileElements(d),
          valueElements = flashTileElements(dv);
  // Within the loop a group waits for its own threads only.
  std::string sync = groups > 1 ? "kiln_flash_group_sync(keyGroup + 1, " +
                                      text(kGroupThreads) + ");"
                                : "__syncthreads();";
  if (groups == 1) {
    emitter.line("__align__(16) __shared__ unsigned short kiln_k[" +
                 text(keyElements) + "];");
    emitter.line("__align__(16) __shared__ unsigned short kiln_v[" +
                 text(valueElements) + "];");
    emitter.line("const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, "
                 "group = lane >> 2, pair = lane & 3;");
  } else {
    emitter.line("// " + text(groups) + " key groups of " +
                 text(kFlashAttentionWarps) +
                 " warps: group g takes key tiles first + g, first + g + " +
                 text(groups) +
                 ", ...; each its own K and V tile, and afterwards the "
                 "merge's posts, in one array.");
    int64_t sharedBytes = flashSharedBytes(groups, d, dv);
    std::string tiles =
        "unsigned short kiln_tiles[" + text(sharedBytes / 2) + "];";
    if (sharedBytes <= kFlashAttentionStaticSharedBytes) {
      emitter.line("__align__(16) __shared__ " + tiles);
    } else {
      // Past the static limit: dynamic shared memory, which the launch
      // carries and the runtime allows the kernel (the host emulator keeps
      // a static array).
      emitter.line("#ifndef KILN_KERNEL_TEST_CUDA_EMULATION_H");
      emitter.line("extern __shared__ __align__(16) unsigned short "
                   "kiln_tiles[];  // " +
                   text(sharedBytes) + " bytes, dynamic.");
      emitter.line("#else");
      emitter.line("__align__(16) __shared__ " + tiles);
      emitter.line("#endif");
      launch.dynamicSharedBytes = sharedBytes;
    }
    emitter.line("const int lane = threadIdx.x & 31, warp = (threadIdx.x >> "
                 "5) % " +
                 text(kFlashAttentionWarps) +
                 ", group = lane >> 2, pair = lane & 3;");
    emitter.line("const int keyGroup = threadIdx.x / " + text(kGroupThreads) +
                 ", groupThread = threadIdx.x % " + text(kGroupThreads) + ";");
    emitter.line("unsigned short *const kiln_k = kiln_tiles + keyGroup * " +
                 text(keyElements + valueElements) + ";");
    emitter.line("unsigned short *const kiln_v = kiln_k + " +
                 text(keyElements) + ";");
  }
  emitter.line("// The shared row this lane addresses for ldmatrix: of K, key "
               "(lane & 7) + 8 (lane >> 4) at column 8 ((lane >> 3) & 1); of V,");
  emitter.line("// key lane & 15 at column 8 (lane >> 4).");
  emitter.line("const int kLane = ((lane & 7) + ((lane >> 4) << 3)) * " +
               keyStride + " + ((lane >> 3) & 1) * 8;");
  emitter.line("const int vLane = (lane & 15) * " + valueStride +
               " + (lane >> 4) * 8;");
  emitter.open("for (kiln_index_t tile = blockIdx.x; tile < " + tiles +
               "; tile += gridDim.x)");
  // The key tiles this query tile visits: [keyStart, keyEnd) for the loop,
  // keyNext < keyEnd when there is a next tile to copy.
  std::string loopStart = "0", loopCondition = "t < " + keyTiles,
              nextCondition = "t + 1 < " + keyTiles;
  if (!bounds) {
    emitter.line("const kiln_index_t b = tile / " + queryTiles + ";");
    emitter.line("const int queryTile = (int)(tile % " + queryTiles + ");");
  } else {
    // Longest first across the whole grid (the last query tile of every
    // batch index, then the one before, ...): the blocks that start first
    // are the heaviest, and the light ones fill in behind them. Ordering by
    // batch index first left the heaviest tiles of the last heads to the
    // end (GPT-2: 12 heads x 16 query tiles on 132 SMs).
    emitter.line("const kiln_index_t b = tile % " + batch.text + ";");
    emitter.line("const int queryTile = " +
                 text((sq.size + kFlashRows - 1) / kFlashRows - 1) +
                 " - (int)(tile / " + batch.text +
                 ");  // The longest first, of every batch index.");
    if (bounds->causal) {
      emitter.line("// The causal mask: query tile i needs key tiles 0 ... "
                   "i only.");
      if (bounds->zeroCausal)
        emitter.line("// Its entries are 0 up to the diagonal and masked "
                     "above it: not read; -inf above the diagonal of tile i.");
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
        ArrayRef<int64_t> maskShape = indexedShapeOf(attention.getMask());
        int64_t matrix = maskShape.end()[-2] * maskShape.end()[-1];
        slice = "(" + operands.matrixOffset(attention.getMask()) + ") / " +
                text(matrix);
      }
      emitter.line("const int *tileRange = &" + table + "[(" + slice + " * " +
                   queryTiles + " + queryTile) * 2];");
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
  // q, k, v: a kernel input (rows of d contiguous) or a strided view of one
  // (rows rowStride apart: a slice of a merged projection, transposed; with
  // run-time extents the strides may be expressions of them).
  const char *names[] = {"q", "k", "v"};
  Value inputs[] = {attention.getQuery(), attention.getKey(),
                    attention.getValue()};
  std::string rowStrides[3];
  for (auto [name, input, rowStride] : llvm::zip(names, inputs, rowStrides)) {
    StridedOperand operand = *attentionOperandLayout(kernel, input);
    rowStride = text(indexedShapeOf(input).back());
    std::string offset = operands.matrixOffset(input);
    if (!kernelInputNumber(kernel, input)) {
      rowStride = layoutText(emitter, operand.layout.strides.end()[-2]);
      offset = operands.stridedMatrixOffset(input, operand.layout);
    }
    emitter.line("const " + storage + " *" + name + " = " +
                 emitter.pointerName(operand.input) + " + " + offset + ";");
  }
  std::string queryStride = rowStrides[0], keyRowStride = rowStrides[1],
              valueRowStride = rowStrides[2];
  // Key group g starts at tile loopStart + g and steps by |groups|; a group
  // without a tile copies nothing (its commits are empty).
  std::string firstCondition;
  if (groups > 1) {
    loopStart = bounds ? loopStart + " + keyGroup" : "keyGroup";
    firstCondition =
        bounds ? loopStart + " <= lastTile" : "keyGroup < " + keyTiles;
    nextCondition =
        "t + " + text(groups) + (bounds ? " <= lastTile" : " < " + keyTiles);
  }
  std::string firstKey = "0";
  if (groups > 1 && bounds)
    firstKey = "(" + loopStart + ") * " + text(kFlashKeys);
  else if (groups > 1)
    firstKey = "keyGroup * " + text(kFlashKeys);
  else if (bounds)
    firstKey = loopStart + " * " + text(kFlashKeys);
  emitTileCopy("kiln_k", "k", d, keyRowStride, firstKey, firstCondition);
  emitTileCopy("kiln_v", "v", dv, valueRowStride, firstKey, firstCondition);

  emitter.line("// A fragments of the warp's 16 query rows (zero past " +
               sq.text + ").");
  emitter.line("unsigned qa[" + text(d / 16) + "][4];");
  emitter.line("#pragma unroll");
  emitter.open("for (int ks = 0; ks < " + text(d / 16) + "; ++ks)");
  emitter.line("const int col = ks * 16 + pair * 2;");
  for (int i = 0; i < 4; ++i) {
    std::string row = i % 2 ? "row1" : "row0";
    emitter.line("qa[ks][" + text(i) + "] = " + row + " < " + sq.text +
                 " ? *reinterpret_cast<const unsigned *>(q + " + row + " * " +
                 queryStride + " + col" + (i >= 2 ? " + 8" : "") +
                 ") : 0u;");
  }
  emitter.close();
  emitter.line("float o[" + text(dv / 8) + "][4];");
  emitter.line("#pragma unroll");
  emitter.line("for (int e = 0; e < " + text(dv / 8) +
               "; ++e) o[e][0] = o[e][1] = o[e][2] = o[e][3] = 0.0f;");
  emitter.line("float m[2] = {" + negInf + ", " + negInf +
               "}, l[2] = {0.0f, 0.0f};  // Per row; l summed over the quad "
               "at the end.");

  emitter.open("for (int t = " + loopStart + "; " + loopCondition + "; " +
               (groups > 1 ? "t += " + text(groups) : std::string("++t")) +
               ")");
  emitter.line("const kiln_index_t key0 = t * " + text(kFlashKeys) + ";");
  // A mask read at run time: its entries of this tile, loaded before the
  // wait so that their latency overlaps it and S = Q K^T.
  Value mask = attention.getMask();
  bool readMask = mask && !(bounds && bounds->zeroCausal);
  if (readMask) {
    emitter.line("float bias[" + text(kFlashKeys / 8) + "][4];");
    emitter.line("#pragma unroll");
    emitter.open("for (int j = 0; j < " + text(kFlashKeys / 8) + "; ++j)");
    emitter.line("#pragma unroll");
    emitter.open("for (int c = 0; c < 4; ++c)");
    emitter.line("const kiln_index_t key = key0 + j * 8 + pair * 2 + (c & 1);");
    emitter.line("const kiln_index_t row = c < 2 ? row0 : row1;");
    emitter.line("const kiln_index_t maskRow = row < " + sq.text +
                 " ? row : " + sq.plus(-1) + ", maskKey = key < " + sk.text +
                 " ? key : " + sk.plus(-1) + ";");
    FailureOr<std::string> entry =
        operands.at(mask, sq, sk, "maskRow", "maskKey");
    if (failed(entry))
      return failure();
    emitter.line("bias[j][c] = " + *entry + ";");
    emitter.close();
    emitter.close();
  }
  emitter.line("kiln_flash_wait_one();  // This thread's copies of key tile "
               "t have landed,");
  emitter.line(sync + "  // and everyone's.");
  emitter.line("// s[j]: the C fragment of keys key0 + 8j ... key0 + 8j + 7.");
  emitter.line("float s[" + text(kFlashKeys / 8) + "][4];");
  emitter.line("#pragma unroll");
  emitter.line("for (int j = 0; j < " + text(kFlashKeys / 8) +
               "; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;");
  emitter.line("#pragma unroll");
  emitter.open("for (int j = 0; j < " + text(kFlashKeys / 8) + "; j += 2)");
  emitter.line("#pragma unroll");
  emitter.open("for (int ks = 0; ks < " + text(d / 16) + "; ++ks)");
  emitter.line("// B[k][n] = K[key0 + 8j + n][16 ks + k]: b[0], b[1] of keys "
               "8j ..., b[2], b[3] of keys 8j + 8 ....");
  emitter.line("unsigned b[4];");
  emitter.line("kiln_flash_ldmatrix(b, &kiln_k[j * " +
               text(8 * (d + kFlashPad)) + " + ks * 16 + kLane]);");
  emitter.line("kiln_flash_mma(s[j], qa[ks], b[0], b[1]);");
  emitter.line("kiln_flash_mma(s[j + 1], qa[ks], b[2], b[3]);");
  emitter.close();
  emitter.close();
  emitter.line(sync + "  // Every warp is done with kiln_k.");
  emitTileCopy("kiln_k", "k", d, keyRowStride,
               "key0 + " + text(groups * kFlashKeys), nextCondition);
  if (failed(emitFlashSoftmax(emitter, attention, bounds ? &*bounds : nullptr,
                              readMask, kFlashKeys)))
    return failure();

  // O += P V.
  emitter.line("kiln_flash_wait_one();  // Value tile t has landed.");
  emitter.line(sync);
  emitter.line("#pragma unroll");
  emitter.open("for (int kk = 0; kk < " + text(kFlashKeys / 16) + "; ++kk)");
  emitter.line("// The A fragment of P for keys key0 + 16kk ...: the C "
               "fragments s[2kk], s[2kk + 1].");
  emitter.line("const unsigned pa[4] = {kiln_flash_pack(s[2 * kk][0], s[2 * "
               "kk][1]), kiln_flash_pack(s[2 * kk][2], s[2 * kk][3]),");
  emitter.line("                        kiln_flash_pack(s[2 * kk + 1][0], "
               "s[2 * kk + 1][1]), kiln_flash_pack(s[2 * kk + 1][2], s[2 * "
               "kk + 1][3])};");
  emitter.line("#pragma unroll");
  emitter.open("for (int e = 0; e < " + text(dv / 8) + "; e += 2)");
  emitter.line("// B[k][n] = V[key0 + 16kk + k][8e + n]: b[0], b[1] of columns "
               "8e ..., b[2], b[3] of 8e + 8 ...");
  if (dv % 16 != 0)
    emitter.line("// (past dv, the row's padding: unused).");
  emitter.line("unsigned b[4];");
  emitter.line("kiln_flash_ldmatrix_trans(b, &kiln_v[kk * " +
               text(16 * (dv + kFlashPad)) + " + e * 8 + vLane]);");
  emitter.line("kiln_flash_mma(o[e], pa, b[0], b[1]);");
  if (dv % 16 != 0)
    emitter.line("if (e + 1 < " + text(dv / 8) +
                 ") kiln_flash_mma(o[e + 1], pa, b[2], b[3]);");
  else
    emitter.line("kiln_flash_mma(o[e + 1], pa, b[2], b[3]);");
  emitter.close();
  emitter.close();
  emitter.line(sync + "  // Every warp is done with kiln_v.");
  emitTileCopy("kiln_v", "v", dv, valueRowStride,
               "key0 + " + text(groups * kFlashKeys), nextCondition);
  emitter.close();
  if (groups > 1)
    emitKeyGroupMerge(emitter, groups, dv,
                      flashScoreToBase2(attention, readMask));

  // The output rows: O / l (group 0's, merged).
  if (groups > 1)
    emitter.open("if (keyGroup == 0)");
  emitter.line("#pragma unroll");
  emitter.open("for (int r = 0; r < 2; ++r)");
  emitter.line("l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);");
  emitter.line("l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);");
  emitter.line("l[r] = 1.0f / l[r];  // 0 (a row of -inf): inf, and 0 * inf = "
               "NaN.");
  emitter.close();
  std::string out = emitter.pointerName(emitter.getNumInputs());
  // The output: [batch..., sq, dv] in order, or the layout of the transpose
  // the kernel yields ([b, s, h, d]: rows h * d apart).
  std::string outOffset = "b * " + sq.times(dv);
  std::string outStride = text(dv);
  if (attention.getResult() != kernel.getYield().getValues()[0]) {
    StridedLayout stored = *attentionOutputLayout(kernel, attention);
    outOffset = operands.stridedMatrixOffset(attention.getResult(), stored);
    outStride = layoutText(emitter, stored.strides[rank - 2]);
  }
  emitter.line(storage + " *out = " + out + " + " + outOffset + ";");
  emitter.line("#pragma unroll");
  emitter.open("for (int e = 0; e < " + text(dv / 8) + "; ++e)");
  emitter.line("const int col = e * 8 + pair * 2;");
  emitter.line("if (row0 < " + sq.text +
               ") *reinterpret_cast<unsigned *>(out + row0 * " + outStride +
               " + col) = kiln_flash_pack(o[e][0] * l[0], o[e][1] * l[0]);");
  emitter.line("if (row1 < " + sq.text +
               ") *reinterpret_cast<unsigned *>(out + row1 * " + outStride +
               " + col) = kiln_flash_pack(o[e][2] * l[1], o[e][3] * l[1]);");
  emitter.close();
  if (groups > 1)
    emitter.close();
  emitter.close();

  launch.block = block;
  // With run-time extents the recorded grid is the largest; the runtime
  // launches min(ceil(count / units per block), grid) blocks.
  int64_t staticTiles =
      runTime ? int64_t(kernel.getGridSize().value_or(1))
              : batch.size * ((sq.size + kFlashRows - 1) / kFlashRows);
  launch.grid = std::clamp<int64_t>(
      int64_t(kernel.getGridSize().value_or(staticTiles)), 1, staticTiles);
  return success();
}

} // namespace kiln::cuda
