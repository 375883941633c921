// The epilogue that cuDNN fuses after a `library` convolution
// (isLibraryConvolution, OpClasses.cpp, says which convolutions those are).
#include "kiln/Transforms/FusionRules.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

namespace kiln {

namespace {
/// Whether |a| is defined before |b| (block arguments first).
bool definedBefore(Value a, Value b) {
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!y)
    return false;
  if (!x)
    return true;
  return x->getBlock() == y->getBlock() ? x->isBeforeInBlock(y) : false;
}

/// Of two convolutions added together, the one to fuse: the one whose input
/// comes later (the longer branch, e.g. a bottleneck's conv3), so that the
/// other (the shortcut) can run beside it; on a tie the later one.
ConvOp laterBranch(ConvOp lhs, ConvOp rhs) {
  Value a = lhs.getInput(), b = rhs.getInput();
  if (a != b && (definedBefore(a, b) || definedBefore(b, a)))
    return definedBefore(a, b) ? rhs : lhs;
  return lhs->isBeforeInBlock(rhs) ? rhs : lhs;
}
} // namespace

std::optional<ConvEpilogue> matchConvEpilogue(Operation *root) {
  auto relu = dyn_cast_or_null<ReluOp>(root);
  if (!relu)
    return std::nullopt;
  auto onlyUser = [&](Operation *op, Operation *user) {
    return op->hasOneUse() && *op->user_begin() == user;
  };
  auto fusable = [&](Value value, Operation *user) -> ConvOp {
    auto conv = value.getDefiningOp<ConvOp>();
    if (!conv || !conv.getBias() || !isLibraryConvolution(conv) ||
        !onlyUser(conv, user) || conv.getType() != relu.getType())
      return ConvOp();
    return conv;
  };
  ConvEpilogue epilogue;
  epilogue.relu = relu;
  Value operand = relu->getOperand(0);
  if (ConvOp conv = fusable(operand, relu)) {
    epilogue.conv = conv;
    return epilogue;
  }
  auto add = operand.getDefiningOp<AddOp>();
  if (!add || !onlyUser(add, relu) || add.getType() != relu.getType())
    return std::nullopt;
  ConvOp lhs = fusable(add.getLhs(), add), rhs = fusable(add.getRhs(), add);
  if (lhs && lhs == rhs)
    return std::nullopt; // conv + conv of one value: no residual to read.
  ConvOp conv = lhs && rhs ? laterBranch(lhs, rhs) : (lhs ? lhs : rhs);
  if (!conv)
    return std::nullopt;
  Value residual = conv == lhs ? add.getRhs() : add.getLhs();
  if (residual.getType() != relu.getType())
    return std::nullopt;
  epilogue.conv = conv;
  epilogue.add = add;
  epilogue.residual = residual;
  return epilogue;
}

} // namespace kiln
