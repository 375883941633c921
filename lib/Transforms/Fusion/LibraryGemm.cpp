// The epilogue cuBLASLt fuses after a library GEMM: a relu or tanh GELU
// (CUBLASLT_EPILOGUE_RELU/GELU[_BIAS]) or a residual read as C with beta 1.
#include "kiln/Transforms/FusionRules.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

namespace kiln {

namespace {
/// The GEMM behind |value| through views that keep the element order, with
/// the views (nearest the GEMM first); null when there is none or, with
/// |singleUse|, when one of them has another user.
Operation *gemmThroughViews(Value value, bool singleUse,
                            SmallVectorImpl<Operation *> &views) {
  Operation *op = value.getDefiningOp();
  while (op && isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(op)) {
    if (singleUse && !op->hasOneUse())
      return nullptr;
    views.insert(views.begin(), op);
    op = op->getOperand(0).getDefiningOp();
  }
  if (!op || !isa<MatMulOp, GemmOp>(op) ||
      classifyForFusion(op) != FusionClass::Library ||
      (singleUse && !op->hasOneUse()))
    return nullptr;
  // A Gemm whose C has the result's shape already uses cuBLASLt's C.
  if (auto gemm = dyn_cast<GemmOp>(op))
    if (Value c = gemm.getC())
      if (cast<ShapedType>(c.getType()).getShape() ==
          cast<ShapedType>(gemm.getType()).getShape())
        return nullptr;
  return op;
}
} // namespace

std::optional<GemmEpilogue> matchGemmEpilogue(Operation *root, bool singleUse) {
  if (!root || root->getNumResults() != 1)
    return std::nullopt;
  GemmEpilogue epilogue;
  epilogue.root = root;
  auto gelu = dyn_cast<GeluOp>(root);
  if (isa<ReluOp>(root) || (gelu && gelu.getApproximate() == "tanh")) {
    epilogue.activation = root;
    epilogue.gemm =
        gemmThroughViews(root->getOperand(0), singleUse, epilogue.views);
    if (!epilogue.gemm)
      return std::nullopt;
    return epilogue;
  }
  auto add = dyn_cast<AddOp>(root);
  if (!add || add.getLhs().getType() != add.getType() ||
      add.getRhs().getType() != add.getType())
    return std::nullopt;
  for (unsigned side : {0u, 1u}) {
    SmallVector<Operation *> views;
    Operation *gemm =
        gemmThroughViews(add->getOperand(side), singleUse, views);
    if (!gemm)
      continue;
    epilogue.gemm = gemm;
    epilogue.views = std::move(views);
    epilogue.add = add;
    epilogue.residual = add->getOperand(1 - side);
    return epilogue;
  }
  return std::nullopt;
}

} // namespace kiln
