// How each kiln op takes part in a kernel (the cost model's vocabulary):
// its fusion class, row reductions, tiled transposes, and the convolutions
// cuDNN runs.
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln {

FusionClass classifyForFusion(Operation *op) {
  return llvm::TypeSwitch<Operation *, FusionClass>(op)
      .Case<ConstantOp>([](auto) { return FusionClass::Constant; })
      .Case<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, ReciprocalOp, ReluOp, SigmoidOp,
            TanhOp, ErfOp, NotOp, IdentityOp, AddOp, SubOp, MulOp, DivOp, PowOp,
            EqualOp, LessOp, GreaterOp, WhereOp, CastOp, GeluOp>(
          [](auto) { return FusionClass::Pointwise; })
      // Math and logic ops (KilnMathOps.td).
      .Case<AcosOp, AcoshOp, AsinOp, AsinhOp, AtanOp, AtanhOp, CosOp, CoshOp,
            SinOp, SinhOp, TanOp, CeilOp, FloorOp, RoundOp, SignOp, IsNaNOp,
            IsInfOp, SoftplusOp, SoftsignOp, HardSwishOp, EluOp, SeluOp, CeluOp,
            LeakyReluOp, HardSigmoidOp, ThresholdedReluOp, ShrinkOp, MaxOp,
            MinOp, GreaterOrEqualOp, LessOrEqualOp, AndOp, OrOp, XorOp, PReluOp,
            ModOp, BitShiftOp, ClipOp>(
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
      // Shapes of ranged values (static ones fold away): the extents as
      // data, computed from the kernel's dim parameters.
      .Case<ShapeOp>([](auto) { return FusionClass::DataMovement; })
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

std::optional<SmallVector<int64_t>> getReducedAxes(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<SmallVector<int64_t>>>(op)
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
            ReduceLogSumExpOp>([](auto reduce) { return reducedAxes(reduce); })
      .Case<SoftmaxOp, LogSoftmaxOp>(
          [](auto softmax) -> std::optional<SmallVector<int64_t>> {
            auto type = cast<RankedTensorType>(softmax.getType());
            std::optional<int64_t> axis =
                normalizeAxis(softmax.getAxis(), type.getRank());
            if (!axis)
              return std::nullopt;
            return SmallVector<int64_t>{*axis};
          })
      .Default([](auto) { return std::nullopt; });
}

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
      // template needs them static and non-empty (else: the elemental form);
      // the rows before them may be run-time extents (issue 18).
      .Case<LayerNormOp>([](LayerNormOp layerNorm) {
        auto type = dyn_cast<RankedTensorType>(layerNorm.getInput().getType());
        if (!type || type.getRank() == 0)
          return false;
        std::optional<int64_t> axis =
            normalizeAxis(layerNorm.getAxis(), type.getRank());
        if (!axis)
          return false;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.getDimSize(d) == 0 || (d >= *axis && type.isDynamicDim(d)))
            return false;
        return true;
      })
      .Default([](auto) { return false; });
}

std::optional<int64_t> rowReductionFirstAxis(Operation *op) {
  if (!isRowReduction(op))
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
          [](auto reduce) -> std::optional<int64_t> {
            std::optional<SmallVector<int64_t>> axes = reducedAxes(reduce);
            return axes && !axes->empty() ? std::optional(axes->front())
                                          : std::nullopt;
          })
      .Case<SoftmaxOp, LogSoftmaxOp>([](auto softmax) -> std::optional<int64_t> {
        return cast<RankedTensorType>(softmax.getType()).getRank() - 1;
      })
      .Case<LayerNormOp>([](LayerNormOp layerNorm) {
        return normalizeAxis(
            layerNorm.getAxis(),
            cast<RankedTensorType>(layerNorm.getInput().getType()).getRank());
      })
      .Default([](auto) { return std::nullopt; });
}

std::optional<ColumnReductionExtents> columnReductionExtents(Operation *op) {
  std::optional<SmallVector<int64_t>> axes =
      llvm::TypeSwitch<Operation *, std::optional<SmallVector<int64_t>>>(op)
          .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp>(
              [](auto reduce) { return reducedAxes(reduce); })
          .Default([](Operation *) { return std::nullopt; });
  if (!axes || axes->empty())
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type || !type.hasStaticShape() || !isa<FloatType>(type.getElementType()))
    return std::nullopt;
  int64_t first = axes->front(), last = axes->back();
  // One run (the axes are sorted and distinct), with kept axes after it.
  if (last - first + 1 != int64_t(axes->size()) || last + 1 >= type.getRank())
    return std::nullopt;
  ColumnReductionExtents extents;
  for (int64_t d = 0; d < type.getRank(); ++d)
    (d < first   ? extents.outer
     : d <= last ? extents.length
                 : extents.inner) *= type.getDimSize(d);
  return extents;
}

bool isTiledTranspose(Operation *op) {
  auto transpose = dyn_cast<TransposeOp>(op);
  if (!transpose)
    return false;
  ArrayRef<int64_t> perm = transpose.getPerm();
  return !perm.empty() && perm.back() != int64_t(perm.size()) - 1;
}

namespace {
/// A 4-D tensor of f32, f16 or bf16 that cuDNN can describe: static, or
/// with a run-time extent in dim 0 only (the batch, which cuDNN's
/// descriptors take per shape at run time; the run-time extents' contract
/// bounds its elements at the ranges' maximum, RunTimeExtents.cpp).
bool isLibraryTensor(Type type, int64_t rank) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() != rank)
    return false;
  int64_t staticElements = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (tensor.isDynamicDim(d) && d != 0)
      return false;
    staticElements *= tensor.isDynamicDim(d) ? 1 : tensor.getDimSize(d);
    if (staticElements >= kMaxLibraryElements)
      return false;
  }
  Type element = tensor.getElementType();
  return element.isF32() || element.isF16() || element.isBF16();
}
} // namespace

bool isDepthwiseChannelsLast(Operation *op) {
  auto conv = dyn_cast<ConvOp>(op);
  if (!conv)
    return false;
  auto weight = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  return conv.isChannelsLast() && conv.getGroup() > 1 && weight &&
         weight.getRank() == 4 && weight.getDimSize(3) == 1;
}

bool isDepthwiseWeightLayout(Operation *op) {
  auto transpose = dyn_cast<TransposeOp>(op);
  if (!transpose || transpose.getPerm() != ArrayRef(kDepthwiseWeightPerm))
    return false;
  auto stored = dyn_cast<RankedTensorType>(transpose.getData().getType());
  if (!stored || stored.getRank() != 4 || stored.getDimSize(2) != 1 ||
      transpose->use_empty())
    return false;
  return llvm::all_of(transpose->getUses(), [](OpOperand &use) {
    auto conv = dyn_cast<ConvOp>(use.getOwner());
    return conv && use.getOperandNumber() == 1 && isDepthwiseChannelsLast(conv);
  });
}

bool isLibraryConvolution(Operation *op) {
  // The filter is a weight (cuDNN reads it from the weight arena). A
  // channels-last depthwise convolution is generated instead: computed per
  // output element, with channels innermost, it fuses with its neighbours
  // (the activation before and after it), where cuDNN's grouped kernels ran
  // at 75-250 GB/s (H200, MobileNet-V2 at batch 8: 0.58 ms with cuDNN's,
  // 0.41 ms generated).
  return fitsLibraryConvolution(op) &&
         cast<ConvOp>(op).getWeight().getDefiningOp<ConstantOp>() &&
         !isDepthwiseChannelsLast(op);
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

bool isGemmOutputCast(Operation *op) {
  // cuBLASLt computes f16/bf16 A and B in CUBLAS_COMPUTE_32F with C and D in
  // 32F; it has no 32F A/B with a 16F or 16BF D at that compute type, so a
  // cast to a narrower type (f32 -> f16) stays a pointwise kernel.
  auto castOp = dyn_cast_or_null<CastOp>(op);
  if (!castOp)
    return false;
  Type from = getElementTypeOrSelf(castOp.getInput().getType());
  return (from.isF16() || from.isBF16()) &&
         getElementTypeOrSelf(castOp.getType()).isF32();
}

} // namespace kiln
