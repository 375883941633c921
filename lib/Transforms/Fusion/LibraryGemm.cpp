// The epilogue cuBLASLt fuses after a library GEMM: a bias row, a relu or
// tanh GELU (CUBLASLT_EPILOGUE_[RELU_|GELU_]BIAS, _RELU, _GELU) and a residual
// read as C with beta 1 (D = act(A·B + C + bias)), and a cast of the product
// from f16/bf16 to f32 (D and C in f32).
#include "kiln/Transforms/FusionRules.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/KernelKinds/LibraryEpilogue.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln {

namespace {
/// The GEMM behind |value| through views that keep the element order and at
/// most one output cast (isGemmOutputCast), with the views (nearest the GEMM
/// first) and the cast; null when there is none or when one of them has
/// another user. |castSeen|: a cast above |value| was
/// already matched, so none may follow.
Operation *gemmThroughViews(Value value, SmallVectorImpl<Operation *> &views,
                            Operation *&outputCast, bool castSeen = false) {
  SmallVector<Operation *> chain;
  Operation *castOp = nullptr;
  Operation *op = value.getDefiningOp();
  while (op && (isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(op) ||
                (!castOp && !castSeen && isGemmOutputCast(op)))) {
    if (!op->hasOneUse())
      return nullptr;
    if (isa<CastOp>(op))
      castOp = op;
    else
      chain.insert(chain.begin(), op);
    op = op->getOperand(0).getDefiningOp();
  }
  if (!op || !isa<MatMulOp, GemmOp>(op) ||
      classifyForFusion(op) != FusionClass::Library ||
      !op->hasOneUse())
    return nullptr;
  if (auto gemm = dyn_cast<GemmOp>(op))
    if (Value c = gemm.getC()) {
      // A Gemm whose C has the result's shape already uses cuBLASLt's C.
      if (cast<ShapedType>(c.getType()).getShape() ==
          cast<ShapedType>(gemm.getType()).getShape())
        return nullptr;
      // With a cast, C and the bias must be f32 like D: the Gemm's own C
      // (f16 here) cannot be (GemmOutputCast.cpp moves a constant bias row
      // after the cast first).
      if (castOp || castSeen)
        return nullptr;
    }
  views.append(chain.begin(), chain.end());
  if (castOp)
    outputCast = castOp;
  return op;
}
/// Whether |value| is a bias row (isBiasRow) of |result|, the result of
/// views of |gemm|, which has no bias yet.
bool isGemmBiasRow(Value value, Value result, Operation *gemm) {
  if (!isBiasRow(value, result, gemm->getResult(0)))
    return false;
  if (auto gemmOp = dyn_cast<GemmOp>(gemm))
    return !gemmOp.getC(); // A Gemm's C row is its bias already.
  return true;
}

/// The other operand of |add| when one operand is views(gemm) and |accepts|
/// the other one; sets |epilogue|'s gemm and views.
std::optional<Value> addedToGemm(AddOp add,
                                 function_ref<bool(Value, Operation *)> accepts,
                                 GemmEpilogue &epilogue) {
  for (unsigned side : {0u, 1u}) {
    SmallVector<Operation *> views;
    Operation *outputCast = nullptr;
    Operation *gemm =
        gemmThroughViews(add->getOperand(side), views, outputCast);
    Value other = add->getOperand(1 - side);
    if (!gemm || !accepts(other, gemm))
      continue;
    epilogue.gemm = gemm;
    epilogue.views = std::move(views);
    epilogue.cast = outputCast;
    return other;
  }
  return std::nullopt;
}

/// |value| = views(gemm) + bias row (either order), for |epilogue|: sets its
/// gemm, views, biasAdd and bias. |isRoot|: the add is the epilogue's last
/// op, whose users do not matter.
bool matchBiasAdd(Value value, bool isRoot, GemmEpilogue &epilogue) {
  auto add = value.getDefiningOp<AddOp>();
  if (!add || (!isRoot && !add->hasOneUse()))
    return false;
  std::optional<Value> bias = addedToGemm(
      add,
      [&](Value other, Operation *gemm) {
        return isGemmBiasRow(other, add, gemm);
      },
      epilogue);
  if (!bias)
    return false;
  epilogue.biasAdd = add;
  epilogue.bias = *bias;
  return true;
}
/// |value| = views(gemm) [+ bias row] + residual (either order in each add;
/// the residual of the add's type, no broadcast), for |epilogue|: sets its
/// gemm, views, add and residual, and biasAdd and bias when there is one.
/// |isRoot|: the residual add is the epilogue's last op.
bool matchResidualAdd(Value value, bool isRoot, GemmEpilogue &epilogue) {
  auto add = value.getDefiningOp<AddOp>();
  if (!add || (!isRoot && !add->hasOneUse()) ||
      add.getLhs().getType() != add.getType() ||
      add.getRhs().getType() != add.getType())
    return false;
  std::optional<Value> residual = addedToGemm(
      add, [](Value, Operation *) { return true; }, epilogue);
  if (!residual) {
    // (views(gemm) + bias) + residual: cuBLASLt adds both in one call.
    for (unsigned side : {0u, 1u}) {
      GemmEpilogue withBias;
      if (!matchBiasAdd(add->getOperand(side), /*isRoot=*/false, withBias))
        continue;
      epilogue.gemm = withBias.gemm;
      epilogue.views = std::move(withBias.views);
      epilogue.cast = withBias.cast;
      epilogue.biasAdd = withBias.biasAdd;
      epilogue.bias = withBias.bias;
      residual = add->getOperand(1 - side);
      break;
    }
  }
  if (!residual)
    return false;
  epilogue.add = add;
  epilogue.residual = *residual;
  return true;
}
} // namespace

std::optional<GemmEpilogue> matchGemmEpilogue(Operation *root) {
  if (!root || root->getNumResults() != 1)
    return std::nullopt;
  GemmEpilogue epilogue;
  epilogue.root = root;
  auto gelu = dyn_cast<GeluOp>(root);
  if (isa<ReluOp>(root) || (gelu && gelu.getApproximate() == "tanh")) {
    epilogue.activation = root;
    if (matchBiasAdd(root->getOperand(0), /*isRoot=*/false, epilogue) ||
        matchResidualAdd(root->getOperand(0), /*isRoot=*/false, epilogue))
      return epilogue;
    epilogue.gemm =
        gemmThroughViews(root->getOperand(0), epilogue.views, epilogue.cast);
    if (!epilogue.gemm)
      return std::nullopt;
    return epilogue;
  }
  if (isGemmOutputCast(root)) {
    epilogue.cast = root;
    epilogue.gemm = gemmThroughViews(root->getOperand(0), epilogue.views,
                                     epilogue.cast, /*castSeen=*/true);
    if (!epilogue.gemm)
      return std::nullopt;
    return epilogue;
  }
  if (matchBiasAdd(root->getResult(0), /*isRoot=*/true, epilogue) ||
      matchResidualAdd(root->getResult(0), /*isRoot=*/true, epilogue))
    return epilogue;
  return std::nullopt;
}

} // namespace kiln
