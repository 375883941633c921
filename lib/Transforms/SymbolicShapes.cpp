// The symbolic shape analysis: transfer rules per op family from operand
// extents (and shape values) to result extents.
#include "kiln/Transforms/SymbolicShapes.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <type_traits>

using namespace mlir;

namespace kiln {

namespace {
using OptExpr = std::optional<DimExpr>;

/// The product of |extents|, or unknown if any is.
OptExpr product(ArrayRef<OptExpr> extents) {
  OptExpr total = DimExpr::constant(1);
  for (const OptExpr &extent : extents) {
    if (!extent || !total)
      return std::nullopt;
    total = *total * *extent;
  }
  return total;
}

/// NumPy broadcast of several operands' extents (right-aligned): a size-1
/// extent gives way; among the others the first known one is the result
/// (the shapes must agree at run time).
DimExprs broadcast(ArrayRef<DimExprs> operands, int64_t rank) {
  DimExprs result(rank);
  for (int64_t d = 0; d < rank; ++d) {
    bool allOne = true;
    for (const DimExprs &operand : operands) {
      int64_t position = d - (rank - int64_t(operand.size()));
      if (position < 0)
        continue;
      const OptExpr &extent = operand[position];
      if (extent && extent->getConstant() == 1)
        continue;
      allOne = false;
      if (extent && !result[d])
        result[d] = extent;
    }
    if (allOne)
      result[d] = DimExpr::constant(1);
  }
  return result;
}

/// Axis |axis| of rank |rank|, normalised, or -1.
int64_t axisOf(int64_t axis, int64_t rank) {
  std::optional<int64_t> normalized = normalizeAxis(axis, rank);
  return normalized ? *normalized : -1;
}

/// The normalised constant axes of |axes| for rank |rank|.
std::optional<SmallVector<int64_t>> constantAxes(Value axes, int64_t rank) {
  std::optional<SmallVector<int64_t>> values = getConstantIntegers(axes);
  if (!values)
    return std::nullopt;
  SmallVector<int64_t> normalized;
  for (int64_t axis : *values) {
    int64_t position = axisOf(axis, rank);
    if (position < 0)
      return std::nullopt;
    normalized.push_back(position);
  }
  return normalized;
}

/// True for an end index that means "to the end" (ONNX's INT_MAX ends).
bool isOpenEnd(int64_t end) { return end >= (int64_t(1) << 31) - 1; }

/// Whether |op| has the shape of its first operand (normalisations,
/// softmax-like reductions over one axis, scans).
bool keepsInputShape(Operation *op) {
  return isa<SoftmaxOp, LogSoftmaxOp, HardmaxOp, CumSumOp, LayerNormOp,
             InstanceNormOp, BatchNormOp, LRNOp>(op);
}
} // namespace

SymbolicShapes::SymbolicShapes(func::FuncOp function) {
  for (BlockArgument argument : function.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(argument.getType());
    if (!type)
      continue;
    auto names = function.getArgAttrOfType<ArrayAttr>(argument.getArgNumber(),
                                                      "kiln.dim_names");
    DimExprs extents = getDims(argument);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d) || !names || d >= int64_t(names.size()))
        continue;
      auto name = dyn_cast<StringAttr>(names[d]);
      if (name && !name.getValue().empty())
        extents[d] = DimExpr::symbol(name.getValue());
    }
    dims[argument] = extents;
  }
  function.walk<WalkOrder::PreOrder>([&](Operation *op) { visit(op); });
}

DimExprs SymbolicShapes::getDims(Value value) const {
  auto found = dims.find(value);
  if (found != dims.end())
    return found->second;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  DimExprs extents;
  if (type)
    for (int64_t size : type.getShape())
      extents.push_back(ShapedType::isDynamic(size)
                            ? OptExpr()
                            : OptExpr(DimExpr::constant(size)));
  return extents;
}

std::optional<DimExprs> SymbolicShapes::getElements(Value value) const {
  auto found = elements.find(value);
  if (found != elements.end())
    return found->second;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() > 1 || !type.hasStaticShape() ||
      type.getNumElements() > kMaxRank ||
      !type.getElementType().isSignlessInteger())
    return std::nullopt;
  DimExprs values(type.getNumElements());
  if (std::optional<SmallVector<int64_t>> constant = getConstantIntegers(value))
    for (auto [index, element] : llvm::enumerate(*constant))
      values[index] = DimExpr::constant(element);
  return values;
}

void SymbolicShapes::visit(Operation *op) {
  if (op->getNumResults() != 1)
    return;
  Value result = op->getResult(0);
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type)
    return;
  // The type is the truth for static dims; the rules fill dynamic ones.
  DimExprs extents = getDims(result);
  if (std::optional<DimExprs> inferred = inferDims(op);
      inferred && int64_t(inferred->size()) == type.getRank())
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        extents[d] = (*inferred)[d];
  dims[result] = extents;
  if (std::optional<DimExprs> values = getElements(result)) {
    if (std::optional<DimExprs> inferred = inferElements(op);
        inferred && inferred->size() == values->size())
      for (auto [known, derived] : llvm::zip(*values, *inferred))
        if (!known)
          known = derived;
    elements[result] = *values;
  }
}

std::optional<DimExprs> SymbolicShapes::inferDims(Operation *op) const {
  auto rankOf = [](Value value) -> int64_t {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type ? type.getRank() : -1;
  };
  int64_t rank = rankOf(op->getResult(0));
  if (keepsInputShape(op))
    return getDims(op->getOperand(0));
  if (classifyForFusion(op) == FusionClass::Pointwise) {
    SmallVector<DimExprs> operands;
    for (Value operand : op->getOperands())
      operands.push_back(getDims(operand));
    return broadcast(operands, rank);
  }
  return llvm::TypeSwitch<Operation *, std::optional<DimExprs>>(op)
      .Case<MatMulOp>([&](MatMulOp matmul) -> std::optional<DimExprs> {
        DimExprs lhs = getDims(matmul.getLhs());
        DimExprs rhs = getDims(matmul.getRhs());
        if (lhs.empty() || rhs.empty())
          return std::nullopt;
        // 1-D operands are promoted and the added dim removed (ONNX).
        bool lhsVector = lhs.size() == 1, rhsVector = rhs.size() == 1;
        if (lhsVector)
          lhs.insert(lhs.begin(), DimExpr::constant(1));
        if (rhsVector)
          rhs.push_back(DimExpr::constant(1));
        DimExprs lhsBatch(lhs.begin(), lhs.end() - 2);
        DimExprs rhsBatch(rhs.begin(), rhs.end() - 2);
        int64_t batchRank = std::max(lhsBatch.size(), rhsBatch.size());
        DimExprs result = broadcast({lhsBatch, rhsBatch}, batchRank);
        if (!lhsVector)
          result.push_back(lhs[lhs.size() - 2]);
        if (!rhsVector)
          result.push_back(rhs.back());
        return result;
      })
      .Case<GemmOp>([&](GemmOp gemm) -> std::optional<DimExprs> {
        DimExprs a = getDims(gemm.getA()), b = getDims(gemm.getB());
        if (a.size() != 2 || b.size() != 2)
          return std::nullopt;
        return DimExprs{gemm.getTransA() ? a[1] : a[0],
                        gemm.getTransB() ? b[0] : b[1]};
      })
      .Case<AttentionOp>([&](AttentionOp attention) -> std::optional<DimExprs> {
        DimExprs query = getDims(attention.getQuery());
        DimExprs key = getDims(attention.getKey());
        DimExprs value = getDims(attention.getValue());
        if (query.size() < 2 || key.size() < 2 || value.size() < 2)
          return std::nullopt;
        SmallVector<DimExprs> batches = {
            DimExprs(query.begin(), query.end() - 2),
            DimExprs(key.begin(), key.end() - 2),
            DimExprs(value.begin(), value.end() - 2)};
        DimExprs result = broadcast(batches, rank - 2);
        result.push_back(query[query.size() - 2]);
        result.push_back(value.back());
        return result;
      })
      .Case<ConvOp, MaxPoolOp, AveragePoolOp>(
          [&](auto window) -> std::optional<DimExprs> {
            // The batch dim passes through and the channels come from the
            // weight (conv) or the input (pools); spatial extents only from
            // the type.
            DimExprs input = getDims(window.getInput());
            if (int64_t(input.size()) != rank || rank < 3)
              return std::nullopt;
            int64_t channel = window.isChannelsLast() ? rank - 1 : 1;
            DimExprs result(rank);
            result[0] = input[0];
            result[channel] = input[channel];
            if constexpr (std::is_same_v<decltype(window), ConvOp>) {
              DimExprs weight = getDims(window.getWeight());
              result[channel] = weight.empty() ? OptExpr() : weight[0];
            }
            return result;
          })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp,
            ReduceLogSumExpOp>(
          [&](Operation *reduce) -> std::optional<DimExprs> {
            DimExprs input = getDims(reduce->getOperand(0));
            if (int64_t(input.size()) == rank)
              return input; // keepdims: reduced dims are static 1 in the type.
            if (reduce->getNumOperands() < 2)
              return std::nullopt;
            std::optional<SmallVector<int64_t>> axes =
                constantAxes(reduce->getOperand(1), input.size());
            if (!axes)
              return std::nullopt;
            DimExprs result;
            for (auto [d, extent] : llvm::enumerate(input))
              if (!llvm::is_contained(*axes, int64_t(d)))
                result.push_back(extent);
            return result;
          })
      .Case<ArgMaxOp, ArgMinOp>([&](auto reduce) -> std::optional<DimExprs> {
        DimExprs input = getDims(reduce.getData());
        if (int64_t(input.size()) == rank)
          return input;
        int64_t axis = axisOf(int64_t(reduce.getAxis()), input.size());
        if (axis < 0)
          return std::nullopt;
        input.erase(input.begin() + axis);
        return input;
      })
      .Case<ReshapeOp>([&](ReshapeOp reshape) -> std::optional<DimExprs> {
        DimExprs input = getDims(reshape.getData());
        std::optional<DimExprs> shape = getElements(reshape.getShape());
        if (!shape)
          return std::nullopt;
        DimExprs result;
        int64_t inferred = -1;
        for (auto [index, entry] : llvm::enumerate(*shape)) {
          std::optional<int64_t> value =
              entry ? entry->getConstant() : std::nullopt;
          if (value == 0 && !reshape.getAllowzero())
            result.push_back(index < input.size() ? input[index] : OptExpr());
          else if (value == -1) {
            inferred = index;
            result.push_back(std::nullopt);
          } else
            result.push_back(entry);
        }
        if (inferred >= 0) {
          DimExprs others(result);
          others.erase(others.begin() + inferred);
          OptExpr total = product(input), known = product(others);
          if (total && known)
            result[inferred] = divideExactly(*total, *known);
        }
        return result;
      })
      .Case<FlattenOp>([&](FlattenOp flatten) -> std::optional<DimExprs> {
        DimExprs input = getDims(flatten.getInput());
        int64_t axis = int64_t(flatten.getAxis());
        if (axis < 0)
          axis += int64_t(input.size());
        if (axis < 0 || axis > int64_t(input.size()))
          return std::nullopt;
        return DimExprs{product(ArrayRef(input).take_front(axis)),
                        product(ArrayRef(input).drop_front(axis))};
      })
      .Case<UnsqueezeOp>([&](UnsqueezeOp unsqueeze) -> std::optional<DimExprs> {
        DimExprs input = getDims(unsqueeze.getData());
        std::optional<SmallVector<int64_t>> axes =
            constantAxes(unsqueeze.getAxes(), rank);
        if (!axes)
          return std::nullopt;
        DimExprs result;
        auto next = input.begin();
        for (int64_t d = 0; d < rank; ++d)
          if (llvm::is_contained(*axes, d))
            result.push_back(DimExpr::constant(1));
          else if (next != input.end())
            result.push_back(*next++);
        return result;
      })
      .Case<SqueezeOp>([&](SqueezeOp squeeze) -> std::optional<DimExprs> {
        DimExprs input = getDims(squeeze.getData());
        std::optional<SmallVector<int64_t>> axes;
        if (squeeze.getAxes())
          axes = constantAxes(squeeze.getAxes(), input.size());
        DimExprs result;
        for (auto [d, extent] : llvm::enumerate(input)) {
          bool removed = axes ? llvm::is_contained(*axes, int64_t(d))
                              : extent && extent->getConstant() == 1;
          if (!removed)
            result.push_back(extent);
        }
        return result;
      })
      .Case<TransposeOp>([&](TransposeOp transpose) -> std::optional<DimExprs> {
        DimExprs input = getDims(transpose.getData());
        DimExprs result;
        for (int64_t axis : transpose.getPerm()) {
          if (axis < 0 || axis >= int64_t(input.size()))
            return std::nullopt;
          result.push_back(input[axis]);
        }
        return result;
      })
      .Case<ConcatOp>([&](ConcatOp concat) -> std::optional<DimExprs> {
        int64_t axis = axisOf(int64_t(concat.getAxis()), rank);
        if (axis < 0)
          return std::nullopt;
        DimExprs result(rank);
        OptExpr length = DimExpr::constant(0);
        for (Value input : concat.getInputs()) {
          DimExprs extents = getDims(input);
          if (int64_t(extents.size()) != rank)
            return std::nullopt;
          for (int64_t d = 0; d < rank; ++d)
            if (d != axis && !result[d])
              result[d] = extents[d];
          length =
              length && extents[axis] ? *length + *extents[axis] : std::nullopt;
        }
        result[axis] = length;
        return result;
      })
      .Case<SliceOp>([&](SliceOp slice) -> std::optional<DimExprs> {
        // A slice with step 1 from a constant start to the end, or to an
        // end that is an extent (x[:, :seq], as exporters slice position
        // tables), keeps the extent minus the start.
        DimExprs result = getDims(slice.getData());
        std::optional<SmallVector<int64_t>> axes =
            constantAxes(slice.getAxes(), result.size());
        std::optional<SmallVector<int64_t>> starts =
            getConstantIntegers(slice.getStarts());
        std::optional<SmallVector<int64_t>> steps =
            getConstantIntegers(slice.getSteps());
        std::optional<DimExprs> ends = getElements(slice.getEnds());
        if (!axes || !starts || !steps || !ends ||
            starts->size() != axes->size() || steps->size() != axes->size() ||
            ends->size() != axes->size())
          return std::nullopt;
        for (auto [index, axis] : llvm::enumerate(*axes)) {
          int64_t start = (*starts)[index];
          const OptExpr &end = (*ends)[index];
          std::optional<int64_t> endValue =
              end ? end->getConstant() : std::nullopt;
          OptExpr &extent = result[axis];
          if ((*steps)[index] != 1 || start < 0 || !end)
            extent = std::nullopt;
          else if (endValue && isOpenEnd(*endValue))
            extent = extent ? *extent - DimExpr::constant(start) : std::nullopt;
          else if (!endValue)
            extent = *end - DimExpr::constant(start);
          else
            extent = std::nullopt; // Static: the type has it.
        }
        return result;
      })
      .Case<GatherOp>([&](GatherOp gather) -> std::optional<DimExprs> {
        DimExprs data = getDims(gather.getData());
        int64_t axis = axisOf(int64_t(gather.getAxis()), data.size());
        if (axis < 0)
          return std::nullopt;
        DimExprs result(data.begin(), data.begin() + axis);
        llvm::append_range(result, getDims(gather.getIndices()));
        result.append(data.begin() + axis + 1, data.end());
        return result;
      })
      .Case<GatherElementsOp>([&](GatherElementsOp gather) {
        return std::optional<DimExprs>(getDims(gather.getIndices()));
      })
      .Case<GatherNDOp>([&](GatherNDOp gather) -> std::optional<DimExprs> {
        // indices.shape[:-1] + data.shape[batch_dims + m:], m the static
        // last extent of the indices.
        DimExprs data = getDims(gather.getData());
        DimExprs indices = getDims(gather.getIndices());
        if (indices.empty() || !indices.back())
          return std::nullopt;
        std::optional<int64_t> depth = indices.back()->getConstant();
        int64_t first = int64_t(gather.getBatchDims()) + depth.value_or(-1);
        if (!depth || first > int64_t(data.size()))
          return std::nullopt;
        DimExprs result(indices.begin(), indices.end() - 1);
        result.append(data.begin() + first, data.end());
        return result;
      })
      .Case<RangeOp>([&](RangeOp range) -> std::optional<DimExprs> {
        // From 0 by 1 to a shape value: that many elements (exporters build
        // positions and mask indices as range(0, seq)).
        std::optional<DimExprs> start = getElements(range.getStart());
        std::optional<DimExprs> limit = getElements(range.getLimit());
        std::optional<SmallVector<int64_t>> delta =
            getConstantIntegers(range.getDelta());
        if (!start || !limit || !delta || start->size() != 1 ||
            limit->size() != 1 || delta->size() != 1 || (*delta)[0] != 1 ||
            !(*start)[0] || !(*limit)[0] || (*start)[0]->getConstant() != 0)
          return std::nullopt;
        return DimExprs{(*limit)[0]};
      })
      .Case<ExpandOp>([&](ExpandOp expand) -> std::optional<DimExprs> {
        std::optional<DimExprs> shape = getElements(expand.getShape());
        if (!shape)
          return std::nullopt;
        return broadcast({getDims(expand.getInput()), *shape}, rank);
      })
      .Case<ConstantOfShapeOp>([&](Operation *fill) -> std::optional<DimExprs> {
        return getElements(fill->getOperand(0));
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<DimExprs> SymbolicShapes::inferElements(Operation *op) const {
  auto binary = [&](auto combine) -> std::optional<DimExprs> {
    std::optional<DimExprs> lhs = getElements(op->getOperand(0));
    std::optional<DimExprs> rhs = getElements(op->getOperand(1));
    if (!lhs || !rhs || lhs->empty() || rhs->empty())
      return std::nullopt;
    size_t size = std::max(lhs->size(), rhs->size());
    if ((lhs->size() != size && lhs->size() != 1) ||
        (rhs->size() != size && rhs->size() != 1))
      return std::nullopt;
    DimExprs result;
    for (size_t i = 0; i < size; ++i) {
      const OptExpr &a = (*lhs)[lhs->size() == 1 ? 0 : i];
      const OptExpr &b = (*rhs)[rhs->size() == 1 ? 0 : i];
      result.push_back(a && b ? combine(*a, *b) : std::nullopt);
    }
    return result;
  };
  return llvm::TypeSwitch<Operation *, std::optional<DimExprs>>(op)
      .Case<ShapeOp>([&](ShapeOp shape) -> std::optional<DimExprs> {
        DimExprs input = getDims(shape.getData());
        int64_t rank = input.size();
        auto clamp = [&](int64_t index) {
          return std::clamp<int64_t>(index < 0 ? index + rank : index, 0, rank);
        };
        int64_t first = clamp(int64_t(shape.getStart()));
        int64_t last = shape.getEnd() ? clamp(int64_t(*shape.getEnd())) : rank;
        return DimExprs(input.begin() + first,
                        input.begin() + std::max(first, last));
      })
      .Case<SizeOp>([&](SizeOp size) -> std::optional<DimExprs> {
        return DimExprs{product(getDims(size->getOperand(0)))};
      })
      .Case<GatherOp>([&](GatherOp gather) -> std::optional<DimExprs> {
        std::optional<DimExprs> source = getElements(gather.getData());
        std::optional<SmallVector<int64_t>> indices =
            getConstantIntegers(gather.getIndices());
        if (!source || !indices)
          return std::nullopt;
        DimExprs result;
        for (int64_t index : *indices) {
          int64_t position = axisOf(index, source->size());
          result.push_back(position < 0 ? OptExpr() : (*source)[position]);
        }
        return result;
      })
      .Case<ConcatOp>([&](ConcatOp concat) -> std::optional<DimExprs> {
        DimExprs result;
        for (Value input : concat.getInputs()) {
          std::optional<DimExprs> part = getElements(input);
          if (!part)
            return std::nullopt;
          llvm::append_range(result, *part);
        }
        return result;
      })
      .Case<SliceOp>([&](SliceOp slice) -> std::optional<DimExprs> {
        // shape(x)[a:b] (a step of 1 along the only axis), as exporters
        // write `x.shape[1:2]`.
        std::optional<DimExprs> source = getElements(slice.getData());
        std::optional<SmallVector<int64_t>> starts =
            getConstantIntegers(slice.getStarts());
        std::optional<SmallVector<int64_t>> ends =
            getConstantIntegers(slice.getEnds());
        std::optional<SmallVector<int64_t>> steps =
            getConstantIntegers(slice.getSteps());
        if (!source || !starts || !ends || !steps || starts->size() != 1 ||
            ends->size() != 1 || steps->size() != 1 || (*steps)[0] != 1)
          return std::nullopt;
        int64_t size = source->size();
        auto clamp = [&](int64_t index) {
          return std::clamp<int64_t>(index < 0 ? index + size : index, 0, size);
        };
        int64_t first = clamp((*starts)[0]), last = clamp((*ends)[0]);
        return DimExprs(source->begin() + first,
                        source->begin() + std::max(first, last));
      })
      .Case<UnsqueezeOp, SqueezeOp, ReshapeOp, IdentityOp, FlattenOp, CastOp>(
          [&](Operation *view) { return getElements(view->getOperand(0)); })
      .Case<AddOp>([&](auto) {
        return binary([](const DimExpr &a, const DimExpr &b) { return a + b; });
      })
      .Case<SubOp>([&](auto) {
        return binary([](const DimExpr &a, const DimExpr &b) { return a - b; });
      })
      .Case<MulOp>([&](auto) {
        return binary([](const DimExpr &a, const DimExpr &b) { return a * b; });
      })
      .Case<DivOp>([&](auto) {
        return binary([](const DimExpr &a, const DimExpr &b) {
          return divideExactly(a, b);
        });
      })
      .Case<EqualOp>([&](auto) {
        // 1 or 0 where it is known: equal expressions, two constants, or
        // an extent compared with a constant below its lower bound (the
        // TorchScript exporter's `where(shape == -1, 1, shape)`).
        return binary(
            [](const DimExpr &a, const DimExpr &b) -> std::optional<DimExpr> {
              if (a == b)
                return DimExpr::constant(1);
              std::optional<int64_t> ca = a.getConstant(), cb = b.getConstant();
              if (ca && cb)
                return DimExpr::constant(0);
              std::optional<int64_t> low =
                  ca ? b.getLowerBound() : a.getLowerBound();
              std::optional<int64_t> constant = ca ? ca : cb;
              if (low && constant && *constant < *low)
                return DimExpr::constant(0);
              return std::nullopt;
            });
      })
      .Case<WhereOp>([&](WhereOp where) -> std::optional<DimExprs> {
        // Element-wise selection where the condition is known.
        std::optional<DimExprs> condition = getElements(where.getCondition());
        std::optional<DimExprs> x = getElements(where.getX());
        std::optional<DimExprs> y = getElements(where.getY());
        if (!condition || !x || !y || condition->empty() || x->empty() ||
            y->empty())
          return std::nullopt;
        size_t size = std::max({condition->size(), x->size(), y->size()});
        for (const DimExprs *part : {&*condition, &*x, &*y})
          if (part->size() != size && part->size() != 1)
            return std::nullopt;
        auto at = [&](const DimExprs &part, size_t i) {
          return part[part.size() == 1 ? 0 : i];
        };
        DimExprs result;
        for (size_t i = 0; i < size; ++i) {
          OptExpr selector = at(*condition, i);
          std::optional<int64_t> chosen =
              selector ? selector->getConstant() : std::nullopt;
          result.push_back(!chosen ? OptExpr()
                                   : (*chosen ? at(*x, i) : at(*y, i)));
        }
        return result;
      })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace kiln
