// The kernel kinds' third question (issue 18): which loop extents of a kernel
// may be run-time values, and which ops can compute with them.
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"

#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln {

namespace {
bool isDynamicTensor(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && !shaped.hasStaticShape();
}

/// The dim of |value| that holds its run-time extent (kDynamic when it has
/// none); no value when it breaks the outermost rule, with the reason in
/// |why|.
std::optional<int64_t> runTimeDim(Value value, std::string &why) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type) {
    if (isDynamicTensor(value.getType())) {
      why = "an operand or result of unknown rank";
      return std::nullopt;
    }
    return ShapedType::kDynamic;
  }
  int64_t found = ShapedType::kDynamic;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    if (found != ShapedType::kDynamic) {
      why = "two run-time extents (dims " + std::to_string(found) + " and " +
            std::to_string(d) + ")";
      return std::nullopt;
    }
    for (int64_t before = 0; before < d; ++before)
      if (type.getDimSize(before) != 1) {
        why = "a run-time extent in dim " + std::to_string(d) +
              " after a dim of size " +
              std::to_string(type.getDimSize(before)) +
              ", which is not the outermost";
        return std::nullopt;
      }
    found = d;
  }
  return found;
}

/// Whether |value| is a kiln.constant (its elements are known to the
/// emitter, not computed from run-time extents).
bool isConstant(Value value) { return value.getDefiningOp<ConstantOp>(); }

/// The op-specific part of the rule: the op's own axes never index the
/// run-time dim.
std::optional<std::string> unmetOpRule(Operation *op) {
  auto dynamicDimOf = [](Value value) {
    std::string unused;
    return runTimeDim(value, unused).value_or(ShapedType::kDynamic);
  };
  return llvm::TypeSwitch<Operation *, std::optional<std::string>>(op)
      .Case<BatchNormOp, QuantizeLinearOp, DequantizeLinearOp>(
          [](auto) -> std::optional<std::string> {
            return std::string("reads per-channel parameters along an axis, "
                               "which is not checked against run-time "
                               "extents yet");
          })
      .Case<ShapeOp, SizeOp>([](auto) -> std::optional<std::string> {
        return std::string("reads run-time extents as values; shape "
                           "arithmetic folds only over static dims, and "
                           "kernels do not read their extents as data yet");
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
        if (axis && *axis == dynamicDimOf(concat.getResult()))
          return std::string("concatenates along its run-time extent; the "
                             "offsets of its inputs would be run-time values");
        return std::nullopt;
      })
      .Case<SliceOp>([&](SliceOp slice) -> std::optional<std::string> {
        std::optional<SmallVector<int64_t>> axes =
            getConstantIntegers(slice.getAxes());
        if (!axes || !isConstant(slice.getStarts()) ||
            !isConstant(slice.getEnds()) || !isConstant(slice.getSteps()))
          return std::string("has starts, ends, axes or steps that are not "
                             "constants");
        int64_t rank = cast<ShapedType>(slice.getData().getType()).getRank();
        int64_t dynamicDim = dynamicDimOf(slice.getData());
        for (int64_t axis : *axes)
          if (normalizeAxis(axis, rank) == dynamicDim)
            return std::string("slices its run-time extent; its bounds would "
                               "be run-time values");
        return std::nullopt;
      })
      .Case<GatherOp>([&](GatherOp gather) -> std::optional<std::string> {
        int64_t rank = cast<ShapedType>(gather.getData().getType()).getRank();
        if (normalizeAxis(gather.getAxis(), rank) ==
            dynamicDimOf(gather.getData()))
          return std::string("gathers along its data's run-time extent; the "
                             "index bound would be a run-time value");
        return std::nullopt;
      })
      .Case<TransposeOp, ExpandOp, FlattenOp, SqueezeOp, UnsqueezeOp,
            ConstantOp>([](auto) { return std::nullopt; })
      .Default([](Operation *other) -> std::optional<std::string> {
        if (classifyForFusion(other) == FusionClass::Pointwise)
          return std::nullopt;
        return std::string("has no rule for run-time extents yet (pointwise "
                           "ops, views, transpose, concat, slice, gather and "
                           "expand have one)");
      });
}
} // namespace

bool takesRunTimeExtents(KernelKind kind) {
  return kind == KernelKind::Pointwise || kind == KernelKind::DataMovement;
}

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
           " kernel takes no run-time extents yet (only pointwise and "
           "data_movement kernels do)";
  std::string why;
  SmallVector<Value> values(op->getOperands());
  llvm::append_range(values, op->getResults());
  for (Value value : values)
    if (!runTimeDim(value, why))
      return "has " + why +
             "; the loop template takes a run-time extent only in the "
             "outermost dim (all dims before it of size 1), where index "
             "arithmetic never needs its value";
  return unmetOpRule(op);
}

} // namespace kiln
