// Classification of kiln ops for fusion (the cost model's vocabulary).
#include "kiln/Transforms/FusionRules.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln {

FusionClass classifyForFusion(Operation *op) {
  return llvm::TypeSwitch<Operation *, FusionClass>(op)
      .Case<ConstantOp>([](auto) { return FusionClass::Constant; })
      .Case<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, ReciprocalOp, ReluOp,
            SigmoidOp, TanhOp, ErfOp, NotOp, IdentityOp, AddOp, SubOp, MulOp,
            DivOp, PowOp, EqualOp, LessOp, GreaterOp, WhereOp, CastOp,
            GeluOp>(
          [](auto) { return FusionClass::Pointwise; })
      // Math and logic ops (KilnMathOps.td).
      .Case<AcosOp, AcoshOp, AsinOp, AsinhOp, AtanOp, AtanhOp, CosOp, CoshOp,
            SinOp, SinhOp, TanOp, CeilOp, FloorOp, RoundOp, SignOp, IsNaNOp,
            IsInfOp, SoftplusOp, SoftsignOp, HardSwishOp, EluOp, SeluOp,
            CeluOp, LeakyReluOp, HardSigmoidOp, ThresholdedReluOp, ShrinkOp,
            MaxOp, MinOp, GreaterOrEqualOp, LessOrEqualOp, AndOp, OrOp, XorOp,
            PReluOp, ModOp, BitShiftOp, ClipOp>(
          [](auto) { return FusionClass::Pointwise; })
      .Case<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(
          [](auto) { return FusionClass::View; })
      .Case<TransposeOp, ConcatOp, SliceOp, GatherOp, ExpandOp>(
          [](auto) { return FusionClass::DataMovement; })
      // Movement ops (KilnMovementOps.td): elemental gathers, or serial
      // loops per element (scatter, top_k, resize, einsum).
      .Case<RangeOp, ConstantOfShapeOp, EyeLikeOp, SizeOp, OneHotOp, PadOp,
            TileOp, TriluOp, DepthToSpaceOp, SpaceToDepthOp, ReverseSequenceOp,
            GatherElementsOp, GatherNDOp, ScatterElementsOp, ScatterNDOp,
            TopKOp, ResizeOp, EinsumOp>(
          [](auto) { return FusionClass::DataMovement; })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, SoftmaxOp>(
          [](auto) { return FusionClass::Reduction; })
      // Further reductions, normalisations and losses (KilnNormOps.td):
      // serial loops per element unless isRowReduction.
      .Case<ReduceMinOp, ReduceProdOp, ReduceLogSumExpOp, ArgMaxOp, ArgMinOp,
            LogSoftmaxOp, HardmaxOp, CumSumOp, LayerNormOp, InstanceNormOp,
            LRNOp, NLLLossOp>([](auto) { return FusionClass::Reduction; })
      .Case<BatchNormOp>([](auto) { return FusionClass::Pointwise; })
      .Case<MatMulOp, GemmOp>([](Operation *contraction) {
        // cuBLASLt runs f16/bf16/f32; other dtypes (integers, f64) get an
        // elemental kernel of their own (a dot product per element).
        Type element = getElementTypeOrSelf(contraction->getResult(0).getType());
        return element.isF16() || element.isBF16() || element.isF32()
                   ? FusionClass::Library
                   : FusionClass::Window;
      })
      .Case<AttentionOp>([](auto) { return FusionClass::Attention; })
      .Case<ConvOp>([](ConvOp conv) {
        return isLibraryConvolution(conv) ? FusionClass::Library
                                          : FusionClass::Window;
      })
      .Case<ConvTransposeOp, MaxPoolOp, MaxPoolIndicesOp, AveragePoolOp>(
          [](auto) { return FusionClass::Window; })
      .Case<QuantizeLinearOp, DequantizeLinearOp>(
          [](auto) { return FusionClass::Pointwise; })
      .Default([](auto) { return FusionClass::Unsupported; });
}

namespace {
/// The normalised, sorted reduced axes of a reduce op, or std::nullopt when
/// they are not constant.
template <typename ReduceOp>
std::optional<SmallVector<int64_t>> reducedAxes(ReduceOp op) {
  auto type = cast<RankedTensorType>(op.getData().getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  if (!op.getAxes()) {
    if (op.getNoopWithEmptyAxes())
      return axes;
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
    return axes;
  }
  std::optional<SmallVector<int64_t>> values = getConstantIntegers(op.getAxes());
  if (!values)
    return std::nullopt;
  if (values->empty() && !op.getNoopWithEmptyAxes()) {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
    return axes;
  }
  for (int64_t axis : *values) {
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized)
      return std::nullopt;
    axes.push_back(*normalized);
  }
  llvm::sort(axes);
  return axes;
}

template <typename ReduceOp> bool reducesTrailingAxes(ReduceOp op) {
  auto type = dyn_cast<RankedTensorType>(op.getData().getType());
  if (!type)
    return false;
  std::optional<SmallVector<int64_t>> axes = reducedAxes(op);
  if (!axes || axes->empty())
    return false;
  int64_t rank = type.getRank();
  for (auto [i, axis] : llvm::enumerate(*axes))
    if (axis != rank - int64_t(axes->size()) + int64_t(i))
      return false;
  return true;
}
} // namespace

bool isRowReduction(Operation *op) {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
          [](auto reduce) { return reducesTrailingAxes(reduce); })
      .Case<SoftmaxOp>([](SoftmaxOp softmax) {
        auto type = dyn_cast<RankedTensorType>(softmax.getType());
        if (!type || type.getRank() == 0)
          return false;
        return normalizeAxis(softmax.getAxis(), type.getRank()) ==
               type.getRank() - 1;
      })
      .Case<LogSoftmaxOp>([](LogSoftmaxOp logSoftmax) {
        auto type = dyn_cast<RankedTensorType>(logSoftmax.getType());
        if (!type || type.getRank() == 0)
          return false;
        return normalizeAxis(logSoftmax.getAxis(), type.getRank()) ==
               type.getRank() - 1;
      })
      // LayerNorm always normalises the trailing dims from `axis` on; the row
      // template needs them static and non-empty (else: the elemental form).
      .Case<LayerNormOp>([](LayerNormOp layerNorm) {
        auto type = dyn_cast<RankedTensorType>(layerNorm.getInput().getType());
        if (!type || type.getRank() == 0 || !type.hasStaticShape() ||
            type.getNumElements() == 0)
          return false;
        return normalizeAxis(layerNorm.getAxis(), type.getRank()).has_value();
      })
      .Default([](auto) { return false; });
}

} // namespace kiln
