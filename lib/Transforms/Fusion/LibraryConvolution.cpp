// Which convolutions run through cuDNN as `library` kernels (the packager's
// Conv step) instead of the elemental loop over the window, and the epilogue
// that cuDNN fuses after them.
#include "kiln/Transforms/FusionRules.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

namespace kiln {

namespace {
/// cuDNN's legacy descriptors take int dims and strides.
constexpr int64_t kMaxLibraryElements = int64_t(1) << 31;

/// A static 4-D tensor of f32, f16 or bf16 that cuDNN can describe.
bool isLibraryTensor(Type type, int64_t rank) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != rank || !tensor.hasStaticShape() ||
      tensor.getNumElements() >= kMaxLibraryElements)
    return false;
  Type element = tensor.getElementType();
  return element.isF32() || element.isF16() || element.isBF16();
}
} // namespace

bool isLibraryConvolution(Operation *op) {
  // The filter is a weight (cuDNN reads it from the weight arena).
  return fitsLibraryConvolution(op) &&
         cast<ConvOp>(op).getWeight().getDefiningOp<ConstantOp>();
}

bool fitsLibraryConvolution(Operation *op) {
  auto conv = dyn_cast<ConvOp>(op);
  if (!conv || !isLibraryTensor(conv.getInput().getType(), 4) ||
      !isLibraryTensor(conv.getWeight().getType(), 4) ||
      !isLibraryTensor(conv.getType(), 4))
    return false;
  Type element = getElementTypeOrSelf(conv.getType());
  if (getElementTypeOrSelf(conv.getInput().getType()) != element ||
      getElementTypeOrSelf(conv.getWeight().getType()) != element)
    return false;
  if (Value bias = conv.getBias())
    if (!isLibraryTensor(bias.getType(), 1) ||
        getElementTypeOrSelf(bias.getType()) != element)
      return false;
  // cuDNN pads both ends of a dim alike: asymmetric pads stay elemental.
  ArrayRef<int64_t> pads = conv.getPads(), strides = conv.getStrides(),
                    dilations = conv.getDilations();
  if (pads.size() != 4 || strides.size() != 2 || dilations.size() != 2 ||
      pads[0] != pads[2] || pads[1] != pads[3] || pads[0] < 0 || pads[1] < 0)
    return false;
  if (llvm::any_of(strides, [](int64_t v) { return v < 1; }) ||
      llvm::any_of(dilations, [](int64_t v) { return v < 1; }))
    return false;
  int64_t group = conv.getGroup();
  auto input = cast<RankedTensorType>(conv.getInput().getType());
  auto weight = cast<RankedTensorType>(conv.getWeight().getType());
  int64_t channelDim = conv.isChannelsLast() ? 3 : 1;
  return group >= 1 && input.getDimSize(channelDim) % group == 0 &&
         weight.getDimSize(0) % group == 0 &&
         weight.getDimSize(channelDim) * group == input.getDimSize(channelDim);
}

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

std::optional<ConvEpilogue>
matchConvEpilogue(Operation *root, function_ref<bool(Operation *)> isConvolution,
                  bool singleUse) {
  auto relu = dyn_cast_or_null<ReluOp>(root);
  if (!relu)
    return std::nullopt;
  auto onlyUser = [&](Operation *op, Operation *user) {
    return !singleUse || (op->hasOneUse() && *op->user_begin() == user);
  };
  auto fusable = [&](Value value, Operation *user) -> ConvOp {
    auto conv = value.getDefiningOp<ConvOp>();
    if (!conv || !conv.getBias() || !isConvolution(conv) ||
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
