// The online softmax of the flash attention kernel's key-tile loop (scores
// to P in registers, running max and sum in base 2); the rest of the kernel
// is in FlashAttentionEmitter.cpp.
#include "AttentionTemplates.h"

#include <cmath>

using namespace mlir;

namespace kiln::cuda {

std::string flashScoreToBase2(AttentionOp attention, bool readMask) {
  Type f32 = Float32Type::get(attention.getContext());
  return readMask ? " * " + ElementalEmitter::floatLiteral(f32, M_LOG2E) : "";
}

/// Emits, inside the key-tile loop after S = Q K^T, with s[j][c] the C
/// fragments of keys key0 + 8j ...:
///  1. Scores in base-2 units: scale log2(e) s, so that e^x = 2^(x log2 e)
///     is one ex2 (kiln_flash_exp2). With a mask read at run time (bias[j][c])
///     the scores stay in natural units, scale s + bias, and differences are
///     converted: (x - base) log2 e; converting a score near the bf16 lowest
///     (-3.39e38) itself would overflow to -inf and turn a row masked
///     throughout with it (uniform weights) into NaN.
///  2. -inf for keys above the diagonal in the diagonal tile of a causal
///     mask that is not read (KeyTileBounds::zeroCausal), and for keys past
///     sk.
///  3. Online softmax per row (a quad of 4 lanes holds a row's columns):
///     m_new = max(m, max_j s_j); p_j = 2^(s_j - m_new); l and O are scaled
///     by 2^(m - m_new). A row whose scores are all -inf so far subtracts 0
///     instead, so p = 0 (no NaN from -inf - -inf) and the final 0/0 is NaN,
///     as the decomposed softmax gives.
LogicalResult emitFlashSoftmax(ElementalEmitter &emitter,
                               AttentionOp attention,
                               const KeyTileBounds *bounds, bool readMask,
                               int64_t keysPerTile) {
  auto text = [](int64_t value) { return std::to_string(value); };
  Type type = elementTypeOf(attention.getQuery());
  Type f32 = Float32Type::get(type.getContext());
  // The keys: a size, or with run-time extents (issue 18) an expression.
  Extents keyShape = emitter.extentsOf(attention.getKey());
  Extent sk(keyShape, keyShape.size() - 2);
  std::string negInf = ElementalEmitter::floatLiteral(type, -INFINITY);
  double scale = attention.getScale().convertToDouble();
  // In base 2: the fp32 scale times log2(e), rounded to fp32 once.
  std::string scoreScale = ElementalEmitter::floatLiteral(
      f32, readMask ? scale : double(float(scale)) * M_LOG2E);
  std::string toBase2 = flashScoreToBase2(attention, readMask);
  bool diagonal = bounds && bounds->zeroCausal;

  // Step 1 and the row maxima.
  emitter.line(std::string("// Scores in ") +
               (readMask ? "natural units (mask added)" : "base 2 (scale "
                                                          "times log2 e)") +
               "; the row maxima.");
  emitter.line("float rowMax[2] = {" + negInf + ", " + negInf + "};");
  if (diagonal)
    emitter.line("const bool diagonalTile = t == lastTile;");
  emitter.line("#pragma unroll");
  emitter.open("for (int j = 0; j < " + text(keysPerTile / 8) + "; ++j)");
  emitter.line("#pragma unroll");
  emitter.open("for (int c = 0; c < 4; ++c)");
  std::string score = "s[j][c] * " + scoreScale;
  if (readMask)
    score += " + bias[j][c]";
  // Keys masked without a read: past sk, above the diagonal.
  std::string masked;
  if (!sk.isStatic() || sk.size % keysPerTile != 0)
    masked = "key >= " + sk.text;
  if (diagonal)
    masked += std::string(masked.empty() ? "" : " || ") +
              "(diagonalTile && key > (c < 2 ? row0 : row1))";
  if (!masked.empty()) {
    emitter.line("const kiln_index_t key = key0 + j * 8 + pair * 2 + (c & 1);");
    emitter.line("s[j][c] = " + masked + " ? " + negInf + " : " + score + ";");
  } else {
    emitter.line("s[j][c] = " + score + ";");
  }
  emitter.line("rowMax[c >> 1] = fmaxf(rowMax[c >> 1], s[j][c]);");
  emitter.close();
  emitter.close();

  // Step 3.
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
  emitter.line("alpha[r] = kiln_flash_exp2((m[r] - base[r])" + toBase2 + ");");
  emitter.line("m[r] = mNew;");
  emitter.close();
  emitter.line("#pragma unroll");
  emitter.open("for (int j = 0; j < " + text(keysPerTile / 8) + "; ++j)");
  emitter.line("#pragma unroll");
  emitter.open("for (int c = 0; c < 4; ++c)");
  emitter.line("s[j][c] = kiln_flash_exp2((s[j][c] - base[c >> 1])" + toBase2 +
               ");");
  emitter.line("rowSum[c >> 1] += s[j][c];");
  emitter.close();
  emitter.close();
  emitter.line("l[0] = l[0] * alpha[0] + rowSum[0];");
  emitter.line("l[1] = l[1] * alpha[1] + rowSum[1];");
  int64_t dv = indexedShapeOf(attention.getValue()).back();
  emitter.line("#pragma unroll");
  emitter.open("for (int e = 0; e < " + text(dv / 8) + "; ++e)");
  emitter.line("o[e][0] *= alpha[0];");
  emitter.line("o[e][1] *= alpha[0];");
  emitter.line("o[e][2] *= alpha[1];");
  emitter.line("o[e][3] *= alpha[1];");
  emitter.close();
  return success();
}

} // namespace kiln::cuda
