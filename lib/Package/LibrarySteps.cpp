// The steps of `library` kernels (a cuBLASLt Gemm or a cuDNN Conv step,
// described by GemmSteps.cpp / ConvSteps.cpp from the kernel's body) and the
// FLOP counts of launch steps, for the entry point builder.
#include "PackageInternal.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>

using namespace mlir;

namespace kiln::package {

using namespace kiln::artifact;

/// The floating-point operations of a kernel's attention, convolution and
/// matmul ops (multiply-adds count 2), for profiles; 0 for other kernels.
uint64_t countFlops(KernelOp kernel) {
  uint64_t flops = 0;
  auto elements = [](Value value) -> uint64_t {
    auto type = cast<ShapedType>(value.getType());
    return type.hasStaticShape() ? uint64_t(type.getNumElements()) : 0;
  };
  auto dim = [](Value value, int64_t fromEnd) -> uint64_t {
    auto type = cast<ShapedType>(value.getType());
    int64_t size = type.getDimSize(type.getRank() - fromEnd);
    return size > 0 ? uint64_t(size) : 0;
  };
  kernel.getBody().walk([&](Operation *op) {
    if (auto attention = dyn_cast<AttentionOp>(op)) {
      // QKᵀ and PV: 2·sq·sk·(d + dv) per batch·head.
      uint64_t rows = elements(attention.getOutput()) /
                      std::max<uint64_t>(dim(attention.getOutput(), 1), 1);
      flops += 2 * rows * dim(attention.getKey(), 2) *
               (dim(attention.getKey(), 1) + dim(attention.getValue(), 1));
    } else if (auto conv = dyn_cast<ConvOp>(op)) {
      // 2 · outputs · (C / group) · kernel window.
      int64_t outChannels =
          cast<ShapedType>(conv.getWeight().getType()).getDimSize(0);
      uint64_t window = elements(conv.getWeight()) /
                        uint64_t(std::max<int64_t>(outChannels, 1));
      flops += 2 * elements(conv.getOutput()) * window;
    } else if (auto matmul = dyn_cast<MatMulOp>(op)) {
      flops += 2 * elements(matmul.getOutput()) * dim(matmul.getLhs(), 1);
    }
  });
  return flops;
}

SmallVector<int64_t> LibraryExtent::shapeOf(Type type) const {
  SmallVector<int64_t> shape(cast<ShapedType>(type).getShape());
  // Leading run-time dims collapse into the last of them (the kernel kinds'
  // contract: each before it is run-time or 1), which is |largest|.
  auto last = llvm::find_if(llvm::reverse(shape), ShapedType::isDynamic);
  if (last == shape.rend())
    return shape;
  for (auto dim = std::next(last); dim != shape.rend(); ++dim)
    *dim = 1;
  *last = largest;
  return shape;
}

FailureOr<std::optional<LibraryExtent>> getLibraryExtent(KernelOp kernel) {
  auto result = cast<RankedTensorType>(kernel.getResult(0).getType());
  if (result.hasStaticShape())
    return std::optional<LibraryExtent>();
  // The product of the result's leading dims up to its last run-time one.
  std::vector<std::optional<DimExpr>> extents = getRecordedDimExprs(kernel);
  int64_t last = result.getRank() - 1;
  while (!result.isDynamicDim(last))
    --last;
  std::optional<DimExpr> extent = DimExpr::constant(1);
  if (int64_t(extents.size()) != result.getRank())
    extent = std::nullopt;
  for (int64_t d = 0; extent && d <= last; ++d)
    extent = extents[d] ? std::optional<DimExpr>(*extent * *extents[d])
                        : std::nullopt;
  std::optional<int64_t> largest;
  if (extent)
    largest = maximumExtent(
        *extent, getDimRanges(kernel->getParentOfType<func::FuncOp>()));
  if (!largest)
    return kernel.emitError("packager: library kernel '")
           << kernel.getSymName() << "' has a run-time extent but no "
           << kDimExprsAttrName << " that gives it over the ranged dims";
  return std::optional<LibraryExtent>(LibraryExtent{*extent, *largest});
}

LogicalResult describeLibraryStep(KernelOp kernel, BodyBufferFn bufferOf,
                                  StepT &step, EntryPointCounts &counts) {
  Block &body = kernel.getBody().front();
  auto bodyBuffer = [&](Value value) -> FailureOr<uint32_t> {
    if (auto argument = dyn_cast<BlockArgument>(value))
      if (argument.getOwner() == &body)
        return bufferOf(kernel->getOperand(argument.getArgNumber()));
    if (auto constant = value.getDefiningOp<ConstantOp>())
      return bufferOf(constant);
    return kernel.emitError("packager: library kernel '")
           << kernel.getSymName()
           << "' computes an operand inside the kernel; the library "
              "call reads operands from memory";
  };
  // Operands first, then the output (buffer ids in that order).
  bool isConv = yieldsConvolution(kernel);
  if (isConv) {
    step.kind = StepKind_Conv;
    step.conv = std::make_unique<ConvT>();
    if (failed(describeConv(kernel, bodyBuffer, *step.conv)))
      return failure();
  } else {
    step.kind = StepKind_Gemm;
    step.gemm = std::make_unique<GemmT>();
    if (failed(describeGemm(kernel, bodyBuffer, *step.gemm)))
      return failure();
  }
  FailureOr<uint32_t> out = bufferOf(kernel.getResult(0));
  if (failed(out))
    return failure();
  if (isConv) {
    step.conv->out = *out;
    ++counts.convs;
  } else {
    step.gemm->out = *out;
    ++counts.gemms;
  }
  return success();
}

} // namespace kiln::package
