// kiln-interpret --kernel-numerics: rewrites each kiln.kernel's body so that
// the CPU evaluator computes it as the CUDA templates do: f16/bf16 values
// loaded into float, every op inside the kernel in f32, rounding only where
// the kernel stores its outputs and at its explicit casts.
#include "KernelNumerics.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"

namespace kiln {

namespace {

/// Whether |type| is a tensor of f16 or bf16, a type kernels store but do
/// not compute in.
bool isNarrowFloatTensor(mlir::Type type) {
  auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
  return tensor && (tensor.getElementType().isF16() ||
                    tensor.getElementType().isBF16());
}

mlir::RankedTensorType widened(mlir::Type type) {
  auto tensor = mlir::cast<mlir::RankedTensorType>(type);
  return tensor.clone(mlir::Float32Type::get(type.getContext()));
}

/// Replaces every use of |value| but by the new cast with |value| cast to
/// f32, inserted at the builder's point.
void widenUses(mlir::OpBuilder &builder, mlir::Value value) {
  if (value.use_empty())
    return;
  auto cast = builder.create<CastOp>(
      value.getLoc(), widened(value.getType()), value,
      mlir::TypeAttr::get(builder.getF32Type()));
  value.replaceAllUsesExcept(cast, cast);
}

void widenKernel(KernelOp kernel) {
  mlir::Block &body = kernel.getBody().front();
  mlir::OpBuilder builder(kernel.getContext());
  // What the kernel reads is loaded into float.
  builder.setInsertionPointToStart(&body);
  for (mlir::BlockArgument argument : body.getArguments())
    if (isNarrowFloatTensor(argument.getType()))
      widenUses(builder, argument);
  for (mlir::Operation &op : llvm::make_early_inc_range(body)) {
    if (mlir::isa<YieldOp>(op)) {
      // What it writes is stored in its outputs' types.
      builder.setInsertionPoint(&op);
      for (auto [operand, result] :
           llvm::zip(op.getOpOperands(), kernel->getResults()))
        if (operand.get().getType() != result.getType())
          operand.set(builder.create<CastOp>(
              op.getLoc(), result.getType(), operand.get(),
              mlir::TypeAttr::get(mlir::cast<mlir::RankedTensorType>(
                                      result.getType())
                                      .getElementType())));
      continue;
    }
    bool narrow = llvm::any_of(op.getResultTypes(), isNarrowFloatTensor);
    if (!narrow)
      continue;
    // A cast rounds (kiln_round_f16), and constants and fills have their
    // element type in an attribute: kept, their results widened after them.
    if (mlir::isa<CastOp, ConstantOp, ConstantOfShapeOp, EyeLikeOp>(op)) {
      builder.setInsertionPointAfter(&op);
      for (mlir::Value result : op.getResults())
        if (isNarrowFloatTensor(result.getType()))
          widenUses(builder, result);
      continue;
    }
    for (mlir::Value result : op.getResults())
      if (isNarrowFloatTensor(result.getType()))
        result.setType(widened(result.getType()));
  }
}

} // namespace

void widenKernelIntermediates(mlir::ModuleOp module) {
  module.walk([](KernelOp kernel) { widenKernel(kernel); });
}

} // namespace kiln
