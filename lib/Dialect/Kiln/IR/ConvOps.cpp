// Type inference of kiln's convolutions, pools and quantisation ops.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/WindowGeometry.h"

using namespace mlir;
using namespace kiln;

namespace {
constexpr int64_t kDynamic = ShapedType::kDynamic;

bool conflicts(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

/// Checks the window attributes of a rank-|rank| [N, C, D1..Dk] input:
/// k in 1..3, one stride/dilation/kernel per spatial dim, two pads.
LogicalResult checkWindow(std::optional<Location> location, int64_t rank,
                          ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                          ArrayRef<int64_t> dilations,
                          std::optional<ArrayRef<int64_t>> kernel) {
  int64_t k = rank - 2;
  if (k < 1 || k > 3)
    return emitOptionalError(location,
                             "input must have 1 to 3 spatial dims "
                             "(rank 3 to 5), got rank ",
                             rank);
  if (int64_t(strides.size()) != k || int64_t(dilations.size()) != k ||
      int64_t(pads.size()) != 2 * k || (kernel && int64_t(kernel->size()) != k))
    return emitOptionalError(location, "expected ", k, " strides, dilations",
                             kernel ? " and kernel dims" : "", " and ", 2 * k,
                             " pads for ", k, " spatial dims");
  for (int64_t i = 0; i < k; ++i) {
    if (strides[i] < 1 || dilations[i] < 1)
      return emitOptionalError(location, "strides and dilations must be >= 1");
    if (kernel && (*kernel)[i] < 1)
      return emitOptionalError(location, "kernel dims must be >= 1");
  }
  return success();
}

/// |type| with its dims permuted by |perm| (ranked types only).
TensorType permuted(TensorType type, ArrayRef<int64_t> perm) {
  if (!type.hasRank() || type.getRank() != int64_t(perm.size()))
    return type;
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return RankedTensorType::get(shape, type.getElementType());
}

/// NHWC <-> NCHW dim permutations of 4-D tensors.
constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};
constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};

template <typename AdaptorT>
LogicalResult inferConvLike(std::optional<Location> location, AdaptorT adaptor,
                            bool transposed, ArrayRef<int64_t> outputPadding,
                            SmallVectorImpl<Type> &inferred,
                            TensorType inputType, TensorType weightType) {
  Type element = inputType.getElementType();
  if (weightType.getElementType() != element)
    return emitOptionalError(location,
                             "input and weight must have one element type");
  Value bias = adaptor.getBias();
  if (bias && cast<TensorType>(bias.getType()).getElementType() != element)
    return emitOptionalError(location,
                             "bias must have the input's element type");
  if (!inputType.hasRank() || !weightType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  int64_t rank = inputType.getRank(), k = rank - 2;
  if (failed(checkWindow(location, rank, adaptor.getStrides(),
                         adaptor.getPads(), adaptor.getDilations(),
                         std::nullopt)))
    return failure();
  if (weightType.getRank() != rank)
    return emitOptionalError(location, "weight must have rank ", rank, ", got ",
                             weightType);
  int64_t group = adaptor.getGroup();
  if (group < 1)
    return emitOptionalError(location, "group must be >= 1");
  if (transposed && int64_t(outputPadding.size()) != k)
    return emitOptionalError(location, "expected ", k,
                             " output_padding values");
  int64_t channels = inputType.getDimSize(1);
  // Conv weights are [M, C/group, K...]; ConvTranspose weights [C, M/group,
  // K...].
  int64_t weightChannels = weightType.getDimSize(transposed ? 0 : 1);
  int64_t expectedWeightChannels = transposed || ShapedType::isDynamic(channels)
                                       ? channels
                                       : channels / group;
  if (!ShapedType::isDynamic(channels) && channels % group != 0)
    return emitOptionalError(location, "input channels ", channels,
                             " are not divisible by group ", group);
  if (conflicts(weightChannels, expectedWeightChannels))
    return emitOptionalError(location, "weight has ", weightChannels,
                             " input channels, expected ",
                             expectedWeightChannels);
  int64_t outChannels = weightType.getDimSize(transposed ? 1 : 0);
  if (!ShapedType::isDynamic(outChannels)) {
    if (transposed)
      outChannels *= group;
    else if (outChannels % group != 0)
      return emitOptionalError(location, "output channels ", outChannels,
                               " are not divisible by group ", group);
  }
  if (bias) {
    auto biasType = cast<TensorType>(bias.getType());
    if (biasType.hasRank() && (biasType.getRank() != 1 ||
                               conflicts(biasType.getDimSize(0), outChannels)))
      return emitOptionalError(location, "bias must be 1-D with ", outChannels,
                               " elements, got ", biasType);
  }
  SmallVector<int64_t> shape{inputType.getDimSize(0), outChannels};
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  for (int64_t i = 0; i < k; ++i) {
    int64_t in = inputType.getDimSize(2 + i),
            kernel = weightType.getDimSize(2 + i);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel)) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t size =
        transposed
            ? transposedWindowSize(in, kernel, strides[i], dilations[i],
                                   pads[i], pads[k + i], outputPadding[i])
            : slidingWindowSize(in, kernel, strides[i], dilations[i], pads[i],
                                pads[k + i], false);
    if (size < 1)
      return emitOptionalError(location, "spatial dim ", i, " of size ", in,
                               " is too small for the kernel (output size ",
                               size, ")");
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

template <typename AdaptorT>
LogicalResult inferPool(std::optional<Location> location, AdaptorT adaptor,
                        Type resultElement, SmallVectorImpl<Type> &inferred,
                        TensorType inputType) {
  if (!inputType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(resultElement));
    return success();
  }
  int64_t rank = inputType.getRank(), k = rank - 2;
  ArrayRef<int64_t> kernel = adaptor.getKernelShape();
  if (failed(checkWindow(location, rank, adaptor.getStrides(),
                         adaptor.getPads(), adaptor.getDilations(), kernel)))
    return failure();
  ArrayRef<int64_t> strides = adaptor.getStrides(), pads = adaptor.getPads(),
                    dilations = adaptor.getDilations();
  SmallVector<int64_t> shape{inputType.getDimSize(0), inputType.getDimSize(1)};
  for (int64_t i = 0; i < k; ++i) {
    int64_t in = inputType.getDimSize(2 + i);
    if (ShapedType::isDynamic(in)) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t size =
        slidingWindowSize(in, kernel[i], strides[i], dilations[i], pads[i],
                          pads[k + i], adaptor.getCeilMode());
    if (size < 1)
      return emitOptionalError(location, "spatial dim ", i, " of size ", in,
                               " is too small for the kernel");
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, resultElement));
  return success();
}

/// Whether `layout` asks for channels last: NCHW (or absent) or NHWC, the
/// latter for 4-D tensors only.
FailureOr<bool> isChannelsLastLayout(std::optional<Location> location,
                                     std::optional<StringRef> layout,
                                     ArrayRef<TensorType> operands) {
  if (!layout || *layout == "NCHW")
    return false;
  if (*layout != "NHWC")
    return emitOptionalError(location, "layout must be NCHW or NHWC, got ",
                             *layout);
  for (TensorType type : operands)
    if (type.hasRank() && type.getRank() != 4)
      return emitOptionalError(location, "layout NHWC needs 4-D operands, got ",
                               type);
  return true;
}

/// Max and average pools: channels last infers in NCHW on the permuted input
/// and permutes the result back.
template <typename AdaptorT>
LogicalResult inferPoolWithLayout(std::optional<Location> location,
                                  AdaptorT adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  FailureOr<bool> channelsLast =
      isChannelsLastLayout(location, adaptor.getLayout(), {inputType});
  if (failed(channelsLast))
    return failure();
  if (!*channelsLast)
    return inferPool(location, adaptor, inputType.getElementType(), inferred,
                     inputType);
  if (failed(inferPool(location, adaptor, inputType.getElementType(), inferred,
                       permuted(inputType, kToChannelsFirst))))
    return failure();
  inferred.back() =
      permuted(cast<TensorType>(inferred.back()), kToChannelsLast);
  return success();
}

/// Scale and zero point are scalars (per tensor) or 1-D along |axis|.
LogicalResult checkQuantParams(std::optional<Location> location,
                               TensorType inputType, TensorType scaleType,
                               TensorType zeroType, int64_t axis) {
  if (!scaleType.hasRank() || !zeroType.hasRank())
    return success();
  if (scaleType.getRank() > 1 || zeroType.getRank() > 1 ||
      (scaleType.hasStaticShape() && zeroType.hasStaticShape() &&
       scaleType.getNumElements() != zeroType.getNumElements()))
    return emitOptionalError(location,
                             "scale and zero_point must both be "
                             "scalars or 1-D of one size, got ",
                             scaleType, " and ", zeroType);
  if (scaleType.getRank() == 1 && scaleType.getDimSize(0) != 1 &&
      inputType.hasRank()) {
    std::optional<int64_t> a = normalizeAxis(axis, inputType.getRank());
    if (!a)
      return emitOptionalError(location, "axis ", axis,
                               " is out of range for rank ",
                               inputType.getRank());
    if (conflicts(scaleType.getDimSize(0), inputType.getDimSize(*a)))
      return emitOptionalError(location, "per-axis scale has ",
                               scaleType.getDimSize(0), " elements but dim ",
                               *a, " has ", inputType.getDimSize(*a));
  }
  return success();
}

Type withElement(TensorType type, Type element) {
  if (!type.hasRank())
    return UnrankedTensorType::get(element);
  return RankedTensorType::get(type.getShape(), element);
}
} // namespace

LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto weightType = cast<TensorType>(adaptor.getWeight().getType());
  FailureOr<bool> channelsLast = isChannelsLastLayout(
      location, adaptor.getLayout(), {inputType, weightType});
  if (failed(channelsLast))
    return failure();
  if (!*channelsLast)
    return inferConvLike(location, adaptor, /*transposed=*/false, {}, inferred,
                         inputType, weightType);
  // Infer in NCHW on the permuted shapes, then permute the result back.
  if (failed(inferConvLike(location, adaptor, /*transposed=*/false, {},
                           inferred, permuted(inputType, kToChannelsFirst),
                           permuted(weightType, kToChannelsFirst))))
    return failure();
  inferred.back() = permuted(cast<TensorType>(inferred.back()), kToChannelsLast);
  return success();
}

LogicalResult ConvTransposeOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferConvLike(location, adaptor, /*transposed=*/true,
                       adaptor.getOutputPadding(), inferred,
                       cast<TensorType>(adaptor.getInput().getType()),
                       cast<TensorType>(adaptor.getWeight().getType()));
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferPoolWithLayout(location, adaptor, inferred);
}

LogicalResult MaxPoolIndicesOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  if (adaptor.getStorageOrder() != 0 && adaptor.getStorageOrder() != 1)
    return emitOptionalError(location, "storage_order must be 0 or 1");
  return inferPool(location, adaptor, IntegerType::get(context, 64), inferred,
                   cast<TensorType>(adaptor.getInput().getType()));
}

LogicalResult AveragePoolOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> location,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  return inferPoolWithLayout(location, adaptor, inferred);
}

LogicalResult QuantizeLinearOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto scaleType = cast<TensorType>(adaptor.getScale().getType());
  auto zeroType = cast<TensorType>(adaptor.getZeroPoint().getType());
  if (scaleType.getElementType() != inputType.getElementType())
    return emitOptionalError(location,
                             "scale must have the input's element type");
  if (failed(checkQuantParams(location, inputType, scaleType, zeroType,
                              adaptor.getAxis())))
    return failure();
  inferred.push_back(withElement(inputType, zeroType.getElementType()));
  return success();
}

LogicalResult DequantizeLinearOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto inputType = cast<TensorType>(adaptor.getInput().getType());
  auto scaleType = cast<TensorType>(adaptor.getScale().getType());
  auto zeroType = cast<TensorType>(adaptor.getZeroPoint().getType());
  if (zeroType.getElementType() != inputType.getElementType())
    return emitOptionalError(location,
                             "zero_point must have the input's element type");
  if (failed(checkQuantParams(location, inputType, scaleType, zeroType,
                              adaptor.getAxis())))
    return failure();
  inferred.push_back(withElement(inputType, scaleType.getElementType()));
  return success();
}
