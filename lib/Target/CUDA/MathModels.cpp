// Elemental CUDA models of the math and logic ops (KilnMathOps.td): the CUDA
// templates of their scalar-table rows, with attribute parameters as literals.
#include "ElementalModels.h"

#include "kiln/Evaluator/ScalarSemantics.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

template <typename... Ops> void attachMath(MLIRContext &context) {
  (Ops::template attachInterface<TableModel<Ops>>(context), ...);
}

} // namespace

void attachMathModels(MLIRContext &context) {
  attachMath<AcosOp, AcoshOp, AsinOp, AsinhOp, AtanOp, AtanhOp, CosOp, CoshOp,
             SinOp, SinhOp, TanOp, CeilOp, FloorOp, RoundOp, SignOp, IsNaNOp,
             IsInfOp, SoftplusOp, SoftsignOp, HardSwishOp, EluOp, SeluOp,
             CeluOp, LeakyReluOp, HardSigmoidOp, ThresholdedReluOp, ShrinkOp,
             MaxOp, MinOp, GreaterOrEqualOp, LessOrEqualOp, AndOp, OrOp, XorOp,
             PReluOp, ModOp, BitShiftOp, ClipOp>(context);
}

} // namespace kiln::cuda
