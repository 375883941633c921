// The views an attention kernel reads q/k/v through and writes its output
// through: transposes, reshapes and slices of one buffer that keep rows of
// the head dim contiguous (GPT-2's split of the merged QKV projection, the
// [b, h, s, d] -> [b, s, h, d] transpose before the output projection).
#include "kiln/Transforms/FusionRules.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/StridedView.h"

using namespace mlir;

namespace kiln {
namespace {
/// Rows start 16 bytes apart in f16/bf16: the offset and every stride but the
/// innermost (1) are multiples of 8 elements.
constexpr int64_t kRowAlignment = 8;
} // namespace

// transpose(views(attention)) -> attention writing in the transpose's layout.
std::optional<AttentionStore> matchAttentionStore(Operation *root) {
  auto transpose = dyn_cast<TransposeOp>(root);
  if (!transpose || transpose.getPerm().empty() ||
      transpose.getPerm().back() != int64_t(transpose.getPerm().size()) - 1)
    return std::nullopt;
  AttentionStore store;
  store.chain.push_back(root);
  Operation *op = transpose.getData().getDefiningOp();
  while (op && isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(op) &&
         op->hasOneUse()) {
    store.chain.insert(store.chain.begin(), op);
    op = op->getOperand(0).getDefiningOp();
  }
  if (!op || !isa<AttentionOp>(op) || !op->hasOneUse())
    return std::nullopt;
  store.attention = op;
  std::optional<StridedLayout> layout =
      traceStridedWrite(op->getResult(0), store.chain);
  if (!layout || !hasAlignedRows(*layout, kRowAlignment))
    return std::nullopt;
  return store;
}

bool isStridedAttentionOperand(Value operand, ArrayRef<Operation *> views) {
  std::optional<StridedLayout> layout = traceStridedRead(
      operand, [&](Operation *op) { return llvm::is_contained(views, op); });
  return layout && hasAlignedRows(*layout, kRowAlignment);
}

} // namespace kiln
