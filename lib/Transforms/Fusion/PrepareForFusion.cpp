// Rewrites before kernel formation so that every op maps onto a kernel kind
// the runtime can execute and every graph output comes from a kernel.
#include "kiln/Transforms/FusionRules.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kiln {
namespace {

/// A scalar constant of |elementType| holding |value|.
Value scalarConstant(OpBuilder &builder, Location loc, Type elementType,
                     double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element = isa<FloatType>(elementType)
                          ? Attribute(builder.getFloatAttr(elementType, value))
                          : Attribute(builder.getIntegerAttr(elementType,
                                                             int64_t(value)));
  return builder.create<ConstantOp>(loc,
                                    DenseElementsAttr::get(type, element));
}

// gemm(a, b, c) with a C that the library call cannot take (anything but the
// result's shape, or a row of n with beta 1) -> gemm(a, b) + beta * c
void splitGemmBias(GemmOp gemm) {
  Value c = gemm.getC();
  if (!c)
    return;
  auto cType = cast<RankedTensorType>(c.getType());
  auto outType = cast<RankedTensorType>(gemm.getType());
  float beta = gemm.getBeta().convertToFloat();
  int64_t n = outType.getDimSize(1);
  bool row = cType.getNumElements() == n &&
             (cType.getRank() == 1 ||
              (cType.getRank() == 2 && cType.getDimSize(0) == 1));
  if (cType.getShape() == outType.getShape() || (row && beta == 1.0f))
    return;
  OpBuilder builder(gemm);
  Location loc = gemm.getLoc();
  Value product = builder.create<GemmOp>(
      loc, gemm.getA(), gemm.getB(), Value(), gemm.getAlphaAttr(),
      gemm.getBetaAttr(), gemm.getTransAAttr(), gemm.getTransBAttr());
  Value result = product;
  if (beta != 0.0f) {
    Value scaled = c;
    if (beta != 1.0f)
      scaled = builder.create<MulOp>(
          loc, c, scalarConstant(builder, loc, cType.getElementType(), beta));
    result = builder.create<AddOp>(loc, product, scaled);
  }
  gemm.getResult().replaceAllUsesWith(result);
  gemm.erase();
}

// matmul(a, b) whose batch dims are broadcast only in part (e.g. [2,1,M,K] x
// [3,K,N]) -> matmul(expand(a), expand(b)) with every batch dim materialised,
// which a strided batched library call can run.
void expandPartialBatch(MatMulOp matmul) {
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
  auto out = cast<RankedTensorType>(matmul.getType());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return;
  ArrayRef<int64_t> batch = out.getShape().drop_back(2);
  OpBuilder builder(matmul);
  auto materialise = [&](Value operand, RankedTensorType type) -> Value {
    ArrayRef<int64_t> own = type.getShape().drop_back(2);
    bool allOnes = llvm::all_of(own, [](int64_t d) { return d == 1; });
    if (allOnes || own == batch)
      return operand; // Fully broadcast (stride 0) or full: fine as is.
    SmallVector<int64_t> shape(batch);
    llvm::append_range(shape, type.getShape().take_back(2));
    auto shapeType = RankedTensorType::get({int64_t(shape.size())},
                                           builder.getI64Type());
    Value shapeValue = builder.create<ConstantOp>(
        matmul.getLoc(), DenseIntElementsAttr::get(shapeType, shape));
    return builder.create<ExpandOp>(matmul.getLoc(), operand, shapeValue);
  };
  Value newLhs = materialise(matmul.getLhs(), lhs);
  Value newRhs = materialise(matmul.getRhs(), rhs);
  if (newLhs == matmul.getLhs() && newRhs == matmul.getRhs())
    return;
  matmul.getLhsMutable().assign(newLhs);
  matmul.getRhsMutable().assign(newRhs);
}

/// The value |value| is a view of (through reshape-like ops), or itself.
Value viewSource(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (classifyForFusion(op) != FusionClass::View)
      break;
    value = op->getOperand(0);
  }
  return value;
}

// return v, where v is (a view of) a graph input -> return identity(v), so
// that every output that is not a constant is written by a kernel launch
// (constant outputs are copied from the weight arena)
void copyUncomputedOutputs(func::FuncOp function) {
  Operation *terminator = function.getBody().front().getTerminator();
  OpBuilder builder(terminator);
  for (OpOperand &operand : terminator->getOpOperands()) {
    Value source = viewSource(operand.get());
    if (!isa<BlockArgument>(source))
      continue;
    operand.set(builder.create<IdentityOp>(operand.get().getLoc(),
                                           operand.get()));
  }
}

} // namespace

void prepareForFusion(func::FuncOp function) {
  SmallVector<GemmOp> gemms;
  SmallVector<MatMulOp> matmuls;
  function.walk([&](Operation *op) {
    if (auto gemm = dyn_cast<GemmOp>(op))
      gemms.push_back(gemm);
    else if (auto matmul = dyn_cast<MatMulOp>(op))
      matmuls.push_back(matmul);
  });
  for (GemmOp gemm : gemms)
    splitGemmBias(gemm);
  for (MatMulOp matmul : matmuls)
    expandPartialBatch(matmul);
  copyUncomputedOutputs(function);
  sinkGemmOutputCasts(function);
}

} // namespace kiln
