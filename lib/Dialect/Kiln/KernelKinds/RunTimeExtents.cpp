// The kernel kinds' third question (issue 18): which loop extents of a kernel
// may be run-time values, and which ops can compute with them.
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/StridedView.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln {

namespace {
bool isDynamicTensor(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && !shaped.hasStaticShape();
}

/// The last dim of |value|'s run-time prefix, the leading dims that hold its
/// run-time extents (kDynamic when it has none): every dim up to it is a
/// run-time extent or of size 1, every dim after it static. No value when
/// it has none such, with the reason in |why|. The templates index the
/// prefix as one extent, the product of its dims (indexedShapeOf in the CUDA
/// target collapses it), so no index needs the value of any of them.
std::optional<int64_t> runTimeDim(Value value, std::string &why) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type) {
    if (isDynamicTensor(value.getType())) {
      why = "an operand or result of unknown rank";
      return std::nullopt;
    }
    return ShapedType::kDynamic;
  }
  int64_t last = ShapedType::kDynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      last = d;
  for (int64_t before = 0; before < last; ++before)
    if (!type.isDynamicDim(before) && type.getDimSize(before) != 1) {
      why = "a run-time extent in dim " + std::to_string(last) +
            " after a static dim of size " +
            std::to_string(type.getDimSize(before)) + " (dim " +
            std::to_string(before) +
            "), so its run-time extents are not "
            "leading dims";
      return std::nullopt;
    }
  return last;
}

/// Whether |value| has more than one run-time extent: its prefix is indexed
/// as one extent, so every value it meets must agree on that prefix.
bool hasSeveralRunTimeExtents(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && llvm::count_if(type.getShape(), ShapedType::isDynamic) > 1;
}

/// Why |op| cannot take its run-time prefixes as one collapsed extent each,
/// or std::nullopt: with several run-time extents in one value, every
/// operand with run-time extents has the result's prefix (the same dims
/// dynamic or 1, aligned from the right for a broadcasting op and from the
/// left otherwise), and operands without any broadcast only within the
/// static dims; a transpose keeps the prefix in place. A single run-time
/// extent in the outermost dim needs none of this (collapsing it changes
/// nothing).
std::optional<std::string> unmetPrefixRule(Operation *op) {
  if (op->getNumResults() != 1 ||
      (!hasSeveralRunTimeExtents(op->getResult(0)) &&
       llvm::none_of(op->getOperands(), hasSeveralRunTimeExtents)))
    return std::nullopt;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType)
    return std::nullopt;
  std::string unused;
  int64_t last =
      runTimeDim(op->getResult(0), unused).value_or(ShapedType::kDynamic);
  ArrayRef<int64_t> result = resultType.getShape();
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    for (int64_t d = 0; d <= last; ++d)
      if (transpose.getPerm()[d] != d)
        return std::string("moves a dim of its run-time prefix (a kernel "
                           "with several run-time extents indexes its "
                           "leading run-time dims as one)");
    return std::nullopt;
  }
  // Views keep the element order: the collapsed prefixes index the same
  // elements whatever dims they split into.
  if (classifyForFusion(op) == FusionClass::View)
    return std::nullopt;
  bool broadcasting =
      classifyForFusion(op) == FusionClass::Pointwise || isa<ExpandOp>(op);
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || (!broadcasting && type.hasStaticShape()))
      continue; // Shapes, axes, weights and other static parameters.
    ArrayRef<int64_t> shape = type.getShape();
    int64_t offset = broadcasting ? int64_t(result.size() - shape.size()) : 0;
    bool hasRunTime = !type.hasStaticShape();
    for (int64_t d = 0; d <= last; ++d) {
      int64_t position = d - offset;
      if (position < 0 || position >= int64_t(shape.size()))
        continue;
      bool same = shape[position] == result[d];
      bool unit = shape[position] == 1;
      if (hasRunTime ? !same : !unit)
        return std::string("has an operand ") +
               (hasRunTime ? "whose run-time prefix is not its result's"
                           : "that broadcasts along its result's run-time "
                             "prefix") +
               " (a kernel with several run-time extents indexes its "
               "leading run-time dims as one, so no index may address one "
               "of them alone)";
    }
  }
  return std::nullopt;
}

/// Whether |value| is a kiln.constant (its elements are known to the
/// emitter, not computed from run-time extents).
bool isConstant(Value value) { return value.getDefiningOp<ConstantOp>(); }

/// Why |conv|'s tensors could exceed what cuDNN describes
/// (kMaxLibraryElements) at the ranges' maximum, or std::nullopt.
std::optional<std::string> unmetLibraryBound(ConvOp conv) {
  Operation *function = conv->getParentOp();
  while (function && !function->hasAttr(kDimRangesAttrName))
    function = function->getParentOp();
  std::vector<std::optional<DimExpr>> extents = getRecordedDimExprs(conv);
  std::optional<int64_t> batch;
  if (function && !extents.empty() && extents.front())
    batch = maximumExtent(*extents.front(), getDimRanges(function));
  if (!batch)
    return std::string("has a batch (N) whose largest value the ranges do "
                       "not give (no kiln.dim_exprs)");
  for (Value value : {conv.getInput(), conv.getResult()}) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t elements = *batch;
    for (int64_t d = 1; d < type.getRank(); ++d)
      if (llvm::MulOverflow(elements, type.getDimSize(d), elements))
        elements = kMaxLibraryElements;
    if (elements >= kMaxLibraryElements)
      return "has a tensor of " + std::to_string(elements) +
             " elements at the largest batch (" + std::to_string(*batch) +
             "), more than cuDNN's descriptors take (2^31)";
  }
  return std::nullopt;
}

/// The op-specific part of the rule: the op's own axes never index the
/// run-time dim.
std::optional<std::string> unmetOpRule(Operation *op) {
  // The last dim of the run-time prefix (kDynamic when there is none).
  auto dynamicDimOf = [](Value value) {
    std::string unused;
    return runTimeDim(value, unused).value_or(ShapedType::kDynamic);
  };
  auto isRunTimeAxis = [&](std::optional<int64_t> axis, Value value) {
    return axis && cast<ShapedType>(value.getType()).isDynamicDim(*axis);
  };
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case<BatchNormOp, QuantizeLinearOp, DequantizeLinearOp>(
          [](auto) -> std::optional<std::string> {
            return std::string("reads per-channel parameters along an axis, "
                               "which is not checked against run-time "
                               "extents yet");
          })
      .Case<ShapeOp>([](auto) -> std::optional<std::string> {
        // Its elements are the extents, computed from the dim parameters.
        return std::nullopt;
      })
      .Case<SizeOp>([](auto) -> std::optional<std::string> {
        return std::string("reads its run-time element count as a value, "
                           "which no kernel computes yet");
      })
      .Case<ReshapeOp>([&](ReshapeOp reshape) -> std::optional<std::string> {
        if (!isConstant(reshape.getShape()))
          return std::string("takes its shape from a computed value; a "
                             "reshape with run-time extents needs a "
                             "constant shape (0 and -1 entries allowed)");
        return std::nullopt;
      })
      .Case<ConcatOp>([&](ConcatOp concat) -> std::optional<std::string> {
        int64_t rank = cast<ShapedType>(concat.getType()).getRank();
        std::optional<int64_t> axis = normalizeAxis(concat.getAxis(), rank);
        if (isRunTimeAxis(axis, concat.getResult()))
          return std::string("concatenates along its run-time extent; the "
                             "offsets of its inputs would be run-time values");
        return std::nullopt;
      })
      .Case<SliceOp>([&](SliceOp slice) -> std::optional<std::string> {
        std::optional<SmallVector<int64_t>> axes =
            getConstantIntegers(slice.getAxes());
        std::optional<SmallVector<int64_t>> steps =
            getConstantIntegers(slice.getSteps());
        // With steps of 1 the result's extents give each length, so the
        // ends may be computed (`positions[:seq]`, from a kiln.shape).
        bool unitSteps =
            steps && llvm::all_of(*steps, [](int64_t s) { return s == 1; });
        if (!axes || !isConstant(slice.getStarts()) || !steps ||
            (!unitSteps && !isConstant(slice.getEnds())))
          return std::string("has starts, axes or steps that are not "
                             "constants, or computed ends with a step other "
                             "than 1");
        int64_t rank = cast<ShapedType>(slice.getData().getType()).getRank();
        for (int64_t axis : *axes)
          if (isRunTimeAxis(normalizeAxis(axis, rank), slice.getData()))
            return std::string("slices its run-time extent; its bounds would "
                               "be run-time values");
        return std::nullopt;
      })
      .Case<GatherOp>([&](GatherOp gather) -> std::optional<std::string> {
        int64_t rank = cast<ShapedType>(gather.getData().getType()).getRank();
        // Along a run-time extent the index bound is that extent's value
        // (indexesRunTimeExtentsByValue).
        (void)rank;
        return std::nullopt;
      })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
            ReduceLogSumExpOp, SoftmaxOp, LogSoftmaxOp>(
          [&](Operation *reduction) -> std::optional<std::string> {
            // Reduced per output element (pointwise) or along rows
            // (row_reduce): either way over static dims only.
            Value input = reduction->getOperand(0);
            if (dynamicDimOf(input) == ShapedType::kDynamic)
              return std::nullopt;
            std::optional<SmallVector<int64_t>> axes =
                getReducedAxes(reduction);
            if (!axes)
              return std::string("reduces over axes that are not constants");
            if (llvm::any_of(*axes, [&](int64_t axis) {
                  return isRunTimeAxis(axis, input);
                }))
              return std::string("reduces over its run-time extent; the "
                                 "length it reduces would be a run-time "
                                 "value");
            return std::nullopt;
          })
      .Case<LayerNormOp>([&](LayerNormOp norm) -> std::optional<std::string> {
        // Normalises the dims from its axis on, which must be static.
        auto type = cast<ShapedType>(norm.getInput().getType());
        std::optional<int64_t> axis =
            normalizeAxis(norm.getAxis(), type.getRank());
        if (!axis)
          return std::string("normalises from an axis outside its rank");
        for (int64_t d = *axis; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            return std::string("normalises over a run-time extent; the "
                               "length it reduces would be a run-time value");
        return std::nullopt;
      })
      .Case<ConvOp>([&](ConvOp conv) -> std::optional<std::string> {
        // cuDNN takes N per shape at run time; the filter and bias are
        // weights.
        if (isDynamicTensor(conv.getWeight().getType()) ||
            (conv.getBias() && isDynamicTensor(conv.getBias().getType())))
          return std::string("has a filter or bias with run-time extents; "
                             "only the batch (N) may be one");
        if (dynamicDimOf(conv.getInput()) != ShapedType::kDynamic &&
            dynamicDimOf(conv.getInput()) != 0)
          return std::string("has a run-time extent that is not its batch "
                             "(N)");
        return unmetLibraryBound(conv);
      })
      .Case<GemmOp>([&](GemmOp gemm) -> std::optional<std::string> {
        if (gemm.getTransA() && isDynamicTensor(gemm.getA().getType()))
          return std::string("has a transposed A with a run-time extent; "
                             "only M (A's rows) may be one");
        if (isDynamicTensor(gemm.getB().getType()))
          return std::string("has a B with run-time extents; only M (the "
                             "rows of A and of the result) may be one");
        return std::nullopt;
      })
      .Case<MatMulOp>([&](MatMulOp matmul) -> std::optional<std::string> {
        if (isDynamicTensor(matmul.getRhs().getType()))
          return std::string("has a right-hand side with run-time extents; "
                             "only the rows of the left-hand side (M, with "
                             "its batch dims) may have one");
        if (cast<ShapedType>(matmul.getRhs().getType()).getRank() > 2)
          return std::string("has a batched right-hand side; with a run-time "
                             "extent the library call is one product of M "
                             "rows, with a shared right-hand side");
        return std::nullopt;
      })
      .Case<MaxPoolOp, AveragePoolOp>([](auto) -> std::optional<std::string> {
        // Windows slide over the spatial dims; the run-time extent is the
        // outermost (the batch), which no window reads across.
        return std::nullopt;
      })
      .Case<TransposeOp, ExpandOp, FlattenOp, SqueezeOp, UnsqueezeOp,
            ConstantOp, RangeOp, GatherElementsOp, GatherNDOp>(
          [](auto) { return std::nullopt; })
      .Default([](Operation *other) -> std::optional<std::string> {
        if (classifyForFusion(other) == FusionClass::Pointwise)
          return std::nullopt;
        return std::string("has no rule for run-time extents yet (pointwise "
                           "ops, views, transpose, concat, slice, gather, "
                           "expand, reductions, layer_norm, pools and the "
                           "library's matmul, gemm and conv have one)");
      });
}

/// Whether |op|'s CUDA model takes each extent of its operands and result
/// from ElementalEmitter::extentsOf, a run-time one as its expression over
/// the kernel's dim parameters, so that it can index run-time extents in
/// any dims: elementwise ops (broadcasting), views, transpose, expand,
/// slice, gather, concat, the index gathers, range, shape and constants.
bool indexesByValue(Operation *op) {
  // Pointwise ops read their operands at broadcast indices (the CUDA
  // target's emitBroadcastOperands); batch_norm and the quantize ops read
  // per-channel parameters along an axis instead.
  if (classifyForFusion(op) == FusionClass::Pointwise)
    return !isa<BatchNormOp, QuantizeLinearOp, DequantizeLinearOp>(op);
  return isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, TransposeOp,
             ExpandOp, SliceOp, GatherOp, ConcatOp, ConstantOp,
             GatherElementsOp, GatherNDOp, RangeOp, ShapeOp>(op);
}

/// Whether |value|'s run-time extents are all in leading dims.
bool hasLeadingRunTimeExtents(Value value) {
  std::string unused;
  return runTimeDim(value, unused).has_value();
}

/// Whether |axis| of |value| is a run-time extent.
bool isRunTimeAxisOf(Value value, std::optional<int64_t> axis) {
  return axis && cast<ShapedType>(value.getType()).isDynamicDim(*axis);
}
} // namespace

bool indexesRunTimeExtentsByValue(Operation *op) {
  if (!hasRunTimeExtents(op))
    return false;
  SmallVector<Value> values(op->getOperands());
  llvm::append_range(values, op->getResults());
  if (!llvm::all_of(values, hasLeadingRunTimeExtents) || unmetPrefixRule(op))
    return true;
  // Ops whose index arithmetic needs an extent's value: a bound or a
  // length along a run-time extent, or the extents themselves as data.
  if (isa<ShapeOp>(op))
    return true;
  if (auto gather = dyn_cast<GatherOp>(op))
    return isRunTimeAxisOf(
        gather.getData(),
        normalizeAxis(gather.getAxis(),
                      cast<ShapedType>(gather.getData().getType()).getRank()));
  if (auto gather = dyn_cast<GatherElementsOp>(op))
    return isRunTimeAxisOf(
        gather.getData(),
        normalizeAxis(gather.getAxis(),
                      cast<ShapedType>(gather.getData().getType()).getRank()));
  // GatherND's index bounds are extents of its data.
  return isa<GatherNDOp>(op);
}

bool kernelIndexesRunTimeExtentsByValue(KernelOp kernel) {
  for (Operation &op : kernel.getBody().front().without_terminator())
    if (indexesRunTimeExtentsByValue(&op))
      return true;
  return false;
}

std::vector<std::string> getKernelDimParameters(KernelOp kernel) {
  std::vector<std::string> names;
  if (!llvm::any_of(kernel->getOperandTypes(), isDynamicTensor) &&
      !kernel->hasAttr(kElementCountAttrName))
    return names;
  Operation *function = kernel->getParentOp();
  while (function && !function->hasAttr(kDimRangesAttrName))
    function = function->getParentOp();
  if (function)
    for (const auto &entry : getDimRanges(function))
      names.push_back(entry.first.str());
  // A kernel outside a function with ranges (a hand-written test): the dims
  // its count names.
  if (auto count = kernel->getAttrOfType<StringAttr>(kElementCountAttrName))
    if (std::optional<DimExpr> parsed = DimExpr::parse(count.getValue()))
      for (const std::string &name : parsed->getSymbols())
        if (!llvm::is_contained(names, name))
          names.push_back(name);
  llvm::sort(names);
  return names;
}

std::optional<std::string>
unmetByValueKernelRule(llvm::ArrayRef<Operation *> ops) {
  Operation *byValue = nullptr, *other = nullptr;
  for (Operation *op : ops) {
    if (!byValue && indexesRunTimeExtentsByValue(op))
      byValue = op;
    if (!other && hasRunTimeExtents(op) && !indexesByValue(op))
      other = op;
  }
  if (!byValue || !other)
    return std::nullopt;
  return "'" + other->getName().getStringRef().str() +
         "' indexes its run-time extents as one leading extent, but '" +
         byValue->getName().getStringRef().str() +
         "' in the same kernel needs their values (each run-time dim a "
         "kernel parameter), which the first op's CUDA model cannot take";
}

bool takesRunTimeExtents(KernelKind kind) {
  // The transpose kind's tiles would need a run-time plane count: a tiled
  // transpose with run-time extents roots a data_movement kernel instead
  // (KernelContracts.cpp).
  return kind == KernelKind::Pointwise || kind == KernelKind::DataMovement ||
         kind == KernelKind::RowReduce || kind == KernelKind::Library ||
         kind == KernelKind::Attention;
}

namespace {
/// Why an attention kernel cannot take |op|'s run-time extents: its
/// templates take them in the batch dims and both sequence lengths of a
/// kiln.attention with static head sizes, and in the strided views it reads
/// q, k and v through and writes its result through (isStridedViewOp: the
/// strides are then expressions of the ranged dims, StridedView.h), as in a
/// static kernel.
std::optional<std::string> unmetAttentionRule(Operation *op) {
  auto attention = dyn_cast<AttentionOp>(op);
  if (!attention) {
    if (isStridedViewOp(op))
      return std::nullopt;
    return std::string("is neither the kiln.attention nor a strided view of "
                       "an operand or the result (a transpose, reshape or "
                       "constant slice along static dims, whose extents are "
                       "expressions of the ranged dims)");
  }
  for (Value value : {attention.getQuery(), attention.getKey(),
                      attention.getValue(), attention.getResult()}) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || type.getRank() < 2 || type.isDynamicDim(type.getRank() - 1))
      return std::string("has a run-time head size (the last dim of q, k, v "
                         "or the result); only the batch dims and the "
                         "sequence lengths may be run-time extents");
  }
  if (Value mask = attention.getMask())
    if (!isa<RankedTensorType>(mask.getType()))
      return std::string("has a mask of unknown rank");
  return std::nullopt;
}
} // namespace

bool hasRunTimeExtents(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isDynamicTensor) ||
         llvm::any_of(op->getResultTypes(), isDynamicTensor);
}

std::optional<std::string> unmetRunTimeExtentRule(KernelKind kind,
                                                  Operation *op) {
  if (!hasRunTimeExtents(op))
    return std::nullopt;
  if (!takesRunTimeExtents(kind))
    return "a " + stringifyKernelKind(kind).str() +
           " kernel takes no run-time extents (pointwise, data_movement, "
           "row_reduce, library and attention kernels do)";
  if (kind == KernelKind::Attention)
    return unmetAttentionRule(op);
  if (indexesRunTimeExtentsByValue(op)) {
    // The loop template's index arithmetic takes each run-time extent's
    // value from the kernel's dim parameters.
    if (kind != KernelKind::Pointwise && kind != KernelKind::DataMovement)
      return "needs the values of its run-time extents (they are not a "
             "leading prefix its operands and result agree on), which only "
             "the loop template of pointwise and data_movement kernels "
             "takes";
    if (!indexesByValue(op))
      return "has run-time extents that are not a leading prefix its "
             "operands and result agree on, and its CUDA model indexes "
             "run-time extents only as such a prefix (elementwise ops, "
             "views, transpose, expand, slice, gather, concat, the index "
             "gathers, range and shape index them by value)";
    return unmetOpRule(op);
  }
  std::string why;
  SmallVector<Value> values(op->getOperands());
  llvm::append_range(values, op->getResults());
  for (Value value : values)
    if (!runTimeDim(value, why))
      return "has " + why +
             "; a kernel takes run-time extents only in leading dims (each "
             "dim before the last of them run-time or of size 1): the loop "
             "and row templates index them as one extent, whose value no "
             "index needs, and they are the batch (N) or the rows (M) of a "
             "library call";
  if (std::optional<std::string> prefix = unmetPrefixRule(op))
    return prefix;
  return unmetOpRule(op);
}

namespace {
constexpr llvm::StringLiteral kBucketFields[] = {"max_count", "vector_width",
                                                 "elements_per_thread",
                                                 "block_size", "grid_size"};

int64_t KernelBucket::*bucketField(size_t index) {
  static int64_t KernelBucket::*const fields[] = {
      &KernelBucket::maxCount, &KernelBucket::vectorWidth,
      &KernelBucket::elementsPerThread, &KernelBucket::blockSize,
      &KernelBucket::gridSize};
  return fields[index];
}
} // namespace

std::optional<std::vector<KernelBucket>> getKernelBuckets(KernelOp kernel) {
  std::vector<KernelBucket> buckets;
  Attribute attribute = kernel->getAttr(kBucketsAttrName);
  if (!attribute)
    return buckets;
  auto fail = [&](const llvm::Twine &why) {
    kernel.emitError("'") << kernel.getSymName() << "' has a malformed "
                          << kBucketsAttrName << ": " << why;
    return std::nullopt;
  };
  auto list = dyn_cast<ArrayAttr>(attribute);
  if (!list)
    return fail("not an array");
  for (Attribute entry : list) {
    auto dictionary = dyn_cast<DictionaryAttr>(entry);
    if (!dictionary || dictionary.size() != std::size(kBucketFields))
      return fail("each bucket is a dictionary of max_count, vector_width, "
                  "elements_per_thread, block_size and grid_size");
    KernelBucket bucket;
    for (auto [index, name] : llvm::enumerate(kBucketFields)) {
      auto value = dictionary.getAs<IntegerAttr>(name);
      if (!value || value.getInt() < 1)
        return fail("'" + name + "' is not a positive integer");
      bucket.*bucketField(index) = value.getInt();
    }
    if (!buckets.empty() && bucket.maxCount <= buckets.back().maxCount)
      return fail("the buckets are not by ascending max_count");
    buckets.push_back(bucket);
  }
  if (!buckets.empty() && !kernel->hasAttr(kElementCountAttrName))
    return fail("a kernel without run-time extents has no buckets");
  return buckets;
}

void setKernelBuckets(KernelOp kernel, ArrayRef<KernelBucket> buckets) {
  if (buckets.empty()) {
    kernel->removeAttr(kBucketsAttrName);
    return;
  }
  Builder builder(kernel.getContext());
  SmallVector<Attribute> entries;
  for (const KernelBucket &bucket : buckets) {
    SmallVector<NamedAttribute> fields;
    for (auto [index, name] : llvm::enumerate(kBucketFields))
      fields.push_back(builder.getNamedAttr(
          name, builder.getI64IntegerAttr(bucket.*bucketField(index))));
    entries.push_back(builder.getDictionaryAttr(fields));
  }
  kernel->setAttr(kBucketsAttrName, builder.getArrayAttr(entries));
}

void applyKernelBucket(KernelOp kernel, const KernelBucket &bucket) {
  kernel.setVectorWidth(uint64_t(bucket.vectorWidth));
  kernel.setElementsPerThread(uint64_t(bucket.elementsPerThread));
  kernel.setBlockSize(uint64_t(bucket.blockSize));
  kernel.setGridSize(uint64_t(bucket.gridSize));
}

} // namespace kiln
