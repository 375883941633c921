// The row-reduce template for softmax and log_softmax over the last axis.
// Each row is handled by one warp or one block (VectorRowKernel):
//  1. Each thread reads its share of the row in vectors of `vector_width`
//     elements (16-byte loads of the inputs read at the row's index or at
//     its column, such as an additive mask), computes the elementwise
//     prologue (a scale, a mask) in the computation type (fp32 for
//     f16/bf16/f32), keeps the values in registers and takes their maximum.
//  2. The row's maximum, reduced across the warp or block (shuffles, shared
//     memory for the block's partials).
//  3. e = exp(x - max) as exp2f((x - max) * log2(e)) over the registers
//     (softmax keeps e in place of x), summed and reduced the same way.
//  4. softmax: y = e * (1 / sum); log_softmax: y = x - max - log(sum); then
//     the epilogue per element, written in vectors.
// Rows too long to keep in registers (more than kMaxHeldValues per thread)
// recompute the prologue in each pass instead of holding it: three reads of
// the row, in vectors all the same.
#include "ElementalModels.h"
#include "KernelTemplates.h"
#include "VectorRowKernel.h"

#include <cmath>

using namespace mlir;

namespace kiln::cuda {
namespace {

class SoftmaxRows {
public:
  SoftmaxRows(ElementalEmitter &emitter, Operation *op, bool logarithm,
              const RowGeometry &geometry, int64_t width)
      : emitter(emitter), op(op), logarithm(logarithm),
        row(emitter, op->getOperand(0), geometry,
            indexedShapeOf(op->getOperand(0)).size() - 1, width),
        type(elementTypeOf(op->getOperand(0))) {}

  LogicalResult emit(LaunchGeometry &launch);

private:
  /// exp(|x| - rowMax) in the computation type.
  std::string shiftedExp(const std::string &x) const {
    if (ElementalEmitter::computeKind(type) != ComputeKind::Float)
      return "kiln_exp(" + x + " - rowMax)";
    return "exp2f((" + x + " - rowMax) * " +
           ElementalEmitter::floatLiteral(type, M_LOG2E) + ")";
  }

  ElementalEmitter &emitter;
  Operation *op;
  bool logarithm;
  VectorRowKernel row;
  Type type;
};

LogicalResult SoftmaxRows::emit(LaunchGeometry &launch) {
  std::string accType = row.getComputeType();
  bool held = row.isHeld();
  row.openRowLoop();

  // Pass 1: the prologue, held, and the maximum.
  emitter.line(accType + " rowMax = " +
               ElementalEmitter::floatLiteral(type, -INFINITY) + ";");
  if (failed(row.forEachRowValue(
          /*compute=*/true, [&](const std::string &x, int64_t j) {
            if (held)
              emitter.line(row.heldSlot(j) + " = " + x + ";");
            emitter.line("rowMax = kiln_max(rowMax, " + x + ");");
          })))
    return failure();
  emitter.line("rowMax = " + row.allReduce("rowMax", "kiln_max_op()") + ";");

  // Pass 2: the sum of exponentials; softmax holds them in place of x.
  emitter.line(accType + " sum = " + ElementalEmitter::floatLiteral(type, 0.0) +
               ";");
  if (failed(row.forEachRowValue(
          /*compute=*/false,
          [&](const std::string &x, int64_t) {
            if (held && !logarithm) {
              emitter.line(x + " = " + shiftedExp(x) + ";");
              emitter.line("sum += " + x + ";");
            } else {
              emitter.line("sum += " + shiftedExp(x) + ";");
            }
          },
          /*declareLanes=*/!held)))
    return failure();
  emitter.line("sum = " + row.allReduce("sum", "kiln_sum_op()") + ";");
  if (logarithm)
    emitter.line("const " + accType + " logSum = kiln_log(sum);");
  else
    emitter.line("const " + accType + " inv = " +
                 ElementalEmitter::floatLiteral(type, 1.0) + " / sum;");

  // Pass 3: the normalised values and the epilogue.
  if (failed(row.forEachVector([&](const VectorLanes &lanes) {
        return row.writeOutputs(
            lanes, op->getResult(0), [&](int64_t j) -> FailureOr<std::string> {
              FailureOr<std::string> x =
                  row.rowValue(lanes, j, /*compute=*/false);
              if (failed(x))
                return failure();
              if (logarithm)
                return *x + " - rowMax - logSum";
              return (held ? *x : shiftedExp(*x)) + " * inv";
            });
      })))
    return failure();
  row.closeRowLoop(launch);
  return success();
}

} // namespace

LogicalResult emitSoftmaxRows(ElementalEmitter &emitter, Operation *softmax,
                              const RowGeometry &geometry,
                              LaunchGeometry &launch) {
  bool logarithm = isa<LogSoftmaxOp>(softmax);
  std::string anchor = logarithm ? "the log_softmax" : "the softmax";
  std::optional<ComputeKind> kind =
      ElementalEmitter::computeKind(elementTypeOf(softmax->getOperand(0)));
  if (kind != ComputeKind::Float && kind != ComputeKind::Double)
    return emitter.error(softmax) << "softmax needs a float type";
  FailureOr<int64_t> width =
      VectorRowKernel::checkVectorWidth(emitter, geometry, anchor);
  if (failed(width))
    return failure();
  return SoftmaxRows(emitter, softmax, logarithm, geometry, *width)
      .emit(launch);
}

} // namespace kiln::cuda
