// Moves a cast of a GEMM's epilogue from f16/bf16 to f32 onto the GEMM, so
// that cuBLASLt writes the f32 result itself (C/D in 32F) and the cast
// kernel disappears:
//   cast(act(views(gemm(a, b [, c_row])) [+ bias]))
//     -> act(cast(views(gemm(a, b))) + f32 bias)
// The bias (a Gemm's C row, or an added row) must be a constant whose data
// the compiler has, rebuilt here in f32: cuBLASLt reads the bias in D's
// type. A cast above a residual add stays (the residual is f16; C would have
// to be f32), as does one whose bias is computed or an init-program result.
// The epilogue then runs in f32 instead of f16: the result differs from the
// unfused one by at most the f16 (bf16) rounding of the values it skips.
#include "kiln/Transforms/FusionRules.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Evaluator/Interpreter.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kiln {
namespace {

/// |bias| (a constant with data) rebuilt in f32 at |builder|'s insertion
/// point; null when it is not such a constant or cannot be evaluated.
Value widenedConstant(Value bias, Type f32, OpBuilder &builder) {
  auto constant = bias.getDefiningOp<ConstantOp>();
  if (!constant || constant->hasAttr(kInitResultAttr))
    return nullptr; // An init-program result has no data at compile time.
  auto type = cast<RankedTensorType>(bias.getType());
  if (!type.hasStaticShape())
    return nullptr;
  llvm::Expected<eval::Tensor> value =
      eval::tensorFromAttr(constant.getValue());
  if (!value) {
    llvm::consumeError(value.takeError());
    return nullptr;
  }
  auto wideType = type.clone(f32);
  // The evaluator's own Cast, so the widening matches kiln-interpret's.
  auto castOp =
      builder.create<CastOp>(bias.getLoc(), wideType, bias, TypeAttr::get(f32));
  llvm::Expected<std::vector<eval::Tensor>> wide =
      eval::evaluateOp(castOp, {*value});
  castOp->erase();
  if (!wide) {
    llvm::consumeError(wide.takeError());
    return nullptr;
  }
  DenseElementsAttr data = eval::tensorToAttr(wide->front(), wideType);
  if (!data)
    return nullptr;
  return builder.create<ConstantOp>(bias.getLoc(), data);
}

/// |root| = views(gemm(a, b, c)) with C a row (beta 1: PrepareForFusion
/// split any other broadcast C off), every op but |root| with one user.
std::optional<GemmEpilogue> gemmWithRow(Operation *root) {
  GemmEpilogue epilogue;
  Operation *op = root;
  while (op && isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(op) &&
         op->hasOneUse()) {
    epilogue.views.insert(epilogue.views.begin(), op);
    op = op->getOperand(0).getDefiningOp();
  }
  auto gemm = dyn_cast_or_null<GemmOp>(op);
  if (!gemm || !gemm.getC() || !gemm->hasOneUse() ||
      classifyForFusion(gemm) != FusionClass::Library ||
      cast<ShapedType>(gemm.getC().getType()).getShape() ==
          cast<ShapedType>(gemm.getType()).getShape())
    return std::nullopt;
  epilogue.gemm = gemm;
  epilogue.root = root;
  return epilogue;
}

/// The rewrite of the file comment for |castOp|; false when it does not
/// apply (nothing changed).
bool sinkCast(CastOp castOp) {
  Operation *root = castOp.getInput().getDefiningOp();
  if (!root || !root->hasOneUse())
    return false;
  std::optional<GemmEpilogue> epilogue = matchGemmEpilogue(root);
  if (!epilogue)
    epilogue = gemmWithRow(root);
  if (!epilogue || epilogue->add || epilogue->cast)
    return false;
  auto gemmOp = dyn_cast<GemmOp>(epilogue->gemm);
  Value bias = epilogue->bias;
  if (gemmOp && gemmOp.getC())
    bias = gemmOp.getC(); // A row: matchGemmEpilogue refuses a full C.
  if (!bias)
    return false; // Nothing to move: the cast joins as it is.
  Type f32 = getElementTypeOrSelf(castOp.getType());
  OpBuilder builder(castOp);
  Value wideBias = widenedConstant(bias, f32, builder);
  if (!wideBias)
    return false;

  // The product without its C row, through the views.
  Value product = epilogue->gemm->getResult(0);
  if (gemmOp && gemmOp.getC()) {
    OpBuilder before(gemmOp);
    Value plain = before.create<GemmOp>(
        gemmOp.getLoc(), gemmOp.getA(), gemmOp.getB(), Value(),
        gemmOp.getAlphaAttr(), gemmOp.getBetaAttr(), gemmOp.getTransAAttr(),
        gemmOp.getTransBAttr());
    gemmOp.getResult().replaceAllUsesWith(plain);
    gemmOp.erase();
    product = plain;
  }
  if (!epilogue->views.empty())
    product = epilogue->views.back()->getResult(0);

  auto wideType = cast<RankedTensorType>(product.getType()).clone(f32);
  Value value = builder.create<CastOp>(castOp.getLoc(), wideType, product,
                                       TypeAttr::get(f32));
  Location addLoc =
      epilogue->biasAdd ? epilogue->biasAdd->getLoc() : castOp.getLoc();
  value = builder.create<AddOp>(addLoc, value, wideBias);
  if (Operation *activation = epilogue->activation) {
    Operation *wide = builder.clone(*activation);
    wide->setOperand(0, value);
    wide->getResult(0).setType(value.getType());
    value = wide->getResult(0);
  }
  castOp.getResult().replaceAllUsesWith(value);
  castOp.erase();
  for (Operation *dead : {epilogue->activation, epilogue->biasAdd})
    if (dead && dead->use_empty())
      dead->erase();
  if (Operation *constant = bias.getDefiningOp();
      constant && constant->use_empty())
    constant->erase();
  return true;
}

} // namespace

void sinkGemmOutputCasts(func::FuncOp function) {
  SmallVector<CastOp> casts;
  // Top-level casts only: those inside kernels (a second run of the pass)
  // are grouped already.
  for (Operation &op : function.getBody().front())
    if (auto castOp = dyn_cast<CastOp>(op); castOp && isGemmOutputCast(castOp))
      casts.push_back(castOp);
  for (CastOp castOp : casts)
    sinkCast(castOp);
}

} // namespace kiln
