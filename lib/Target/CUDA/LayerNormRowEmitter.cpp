// The row-reduce template for a layer_norm anchor. Each row (the dims from
// `axis` on) is handled by one warp or one block (VectorRowKernel):
//  1. Each thread reads its share of the row in vectors of `vector_width`
//     elements (16-byte loads for inputs read at the row's own index or at
//     its column, such as a bias), computes the elementwise prologue (the
//     residual and bias adds) and keeps the values in registers.
//  2. mean = sum / n, reduced across the warp or block (shuffles, shared
//     memory for the block's partials).
//  3. var = sum((x - mean)^2) / n over the registers, reduced the same way:
//     two passes in the computation type (fp32 for f16/bf16/f32), as
//     accurate as the elemental form.
//  4. y = (x - mean) / sqrt(var + epsilon) * scale + bias, then the epilogue
//     per element, written in vectors.
// Rows too long to keep in registers (more than kMaxHeldValues per thread)
// recompute the prologue in each pass instead of holding it.
#include "ElementalModels.h"
#include "KernelTemplates.h"
#include "VectorRowKernel.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

class LayerNormRows {
public:
  LayerNormRows(ElementalEmitter &emitter, LayerNormOp op,
                const RowGeometry &geometry, int64_t axis, int64_t width)
      : emitter(emitter), op(op),
        row(emitter, op.getInput(), geometry, axis, width), geometry(geometry),
        shape(indexedShapeOf(op.getInput())),
        type(elementTypeOf(op.getInput())) {}

  LogicalResult emit(LaunchGeometry &launch);

private:
  /// (x - mean) * inv * scale + bias at lane |j|.
  FailureOr<std::string> normalised(const VectorLanes &lanes, int64_t j);

  ElementalEmitter &emitter;
  LayerNormOp op;
  VectorRowKernel row;
  RowGeometry geometry;
  ArrayRef<int64_t> shape;
  Type type;
};

FailureOr<std::string> LayerNormRows::normalised(const VectorLanes &lanes,
                                                 int64_t j) {
  FailureOr<std::string> x = row.rowValue(lanes, j, /*compute=*/false);
  const ElementIndex &index = lanes.indices[j];
  FailureOr<std::string> scale = emitter.emit(
      op.getScale(),
      emitter.broadcastIndex(index, shape, indexedShapeOf(op.getScale())));
  if (failed(x) || failed(scale))
    return failure();
  std::string y = "(" + *x + " - mean) * inv * " + parenthesize(*scale);
  if (op.getBias()) {
    FailureOr<std::string> bias = emitter.emit(
        op.getBias(),
        emitter.broadcastIndex(index, shape, indexedShapeOf(op.getBias())));
    if (failed(bias))
      return failure();
    y += " + " + parenthesize(*bias);
  }
  return y;
}

LogicalResult LayerNormRows::emit(LaunchGeometry &launch) {
  std::string accType = row.getComputeType();
  row.openRowLoop();
  std::string zero = ElementalEmitter::floatLiteral(type, 0.0);
  std::string count = ElementalEmitter::floatLiteral(type, geometry.length);

  // Pass 1: the prologue, held, and the sum.
  emitter.line(accType + " sum = " + zero + ";");
  if (failed(row.forEachRowValue(
          /*compute=*/true, [&](const std::string &x, int64_t j) {
            if (row.isHeld())
              emitter.line(row.heldSlot(j) + " = " + x + ";");
            emitter.line("sum += " + x + ";");
          })))
    return failure();
  emitter.line("const " + accType + " mean = " +
               row.allReduce("sum", "kiln_sum_op()") + " / " + count + ";");

  // Pass 2: squared deviations from the mean.
  emitter.line(accType + " squares = " + zero + ";");
  if (failed(row.forEachRowValue(
          /*compute=*/false,
          [&](const std::string &x, int64_t) {
            std::string d = emitter.materialize(type, x + " - mean", "d");
            emitter.line("squares += " + d + " * " + d + ";");
          },
          /*declareLanes=*/!row.isHeld())))
    return failure();
  emitter.line(
      "const " + accType +
      " inv = " + ElementalEmitter::floatLiteral(type, 1.0) + " / kiln_sqrt(" +
      row.allReduce("squares", "kiln_sum_op()") + " / " + count + " + " +
      ElementalEmitter::floatLiteral(type, op.getEpsilon().convertToFloat()) +
      ");");

  // Pass 3: the affine map and the epilogue.
  if (failed(row.forEachVector([&](const VectorLanes &lanes) {
        return row.writeOutputs(lanes, op.getResult(), [&](int64_t j) {
          return normalised(lanes, j);
        });
      })))
    return failure();
  row.closeRowLoop(launch);
  return success();
}

} // namespace

LogicalResult emitLayerNormRows(ElementalEmitter &emitter,
                                LayerNormOp layerNorm,
                                const RowGeometry &geometry,
                                LaunchGeometry &launch) {
  ArrayRef<int64_t> shape = indexedShapeOf(layerNorm.getInput());
  int64_t axis = *normalizeAxis(layerNorm.getAxis(), shape.size());
  if (elementTypeOf(layerNorm.getInput()).isIntOrIndex())
    return emitter.error(layerNorm) << "needs a float type";
  FailureOr<int64_t> width =
      VectorRowKernel::checkVectorWidth(emitter, geometry, "the layer_norm");
  if (failed(width))
    return failure();
  return LayerNormRows(emitter, layerNorm, geometry, axis, *width).emit(launch);
}

} // namespace kiln::cuda
