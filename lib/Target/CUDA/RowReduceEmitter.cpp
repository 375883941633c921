// The row-reduce template: one anchor (reduce_sum/mean/max/min/prod over
// trailing axes) computed by one warp (`variant = warp_rows`, `rows_per_block`
// warps per block) or one block (`variant = block_rows`) per row, with the
// elementwise prologue evaluated per input element and the epilogue per
// result element, or (a float reduction normalising its row: Swin-V2's
// x / clip(sqrt(sum(x²))), the kernel contract's per-element epilogue) per
// input element, the row read again in vectors. Accumulation is in the
// computation type (float for f16/bf16/f32, double for f64). A layer_norm
// anchor goes to emitLayerNormRows (LayerNormRowEmitter.cpp), a softmax or
// log_softmax over the last axis to emitSoftmaxRows (SoftmaxRowEmitter.cpp).
#include "ElementalModels.h"
#include "KernelTemplates.h"
#include "VectorRowKernel.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;

namespace kiln::cuda {
namespace {

enum class AnchorKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  Softmax,
  LogSoftmax,
  LayerNorm
};

/// Softmax-like anchors: one result per input element (SoftmaxRowEmitter).
bool isSoftmaxLike(AnchorKind kind) {
  return kind == AnchorKind::Softmax || kind == AnchorKind::LogSoftmax;
}

struct Anchor {
  Operation *op = nullptr;
  AnchorKind kind;
  Value data;
  int64_t rows = 1, length = 1;
  bool runTimeRows = false;
};

/// The kernel's anchor (the verifier has checked that there is exactly one
/// row reduction) and the row/length split of its input.
FailureOr<Anchor> findAnchor(ElementalEmitter &emitter) {
  Anchor anchor;
  anchor.op = getKernelAnchor(emitter.getKernel());
  anchor.data = anchor.op->getOperand(0);
  std::optional<AnchorKind> kind =
      llvm::TypeSwitch<Operation *, std::optional<AnchorKind>>(anchor.op)
          .Case([](ReduceSumOp) { return AnchorKind::Sum; })
          .Case([](ReduceMeanOp) { return AnchorKind::Mean; })
          .Case([](ReduceMaxOp) { return AnchorKind::Max; })
          .Case([](ReduceMinOp) { return AnchorKind::Min; })
          .Case([](ReduceProdOp) { return AnchorKind::Prod; })
          .Case([](SoftmaxOp) { return AnchorKind::Softmax; })
          .Case([](LogSoftmaxOp) { return AnchorKind::LogSoftmax; })
          .Case([](LayerNormOp) { return AnchorKind::LayerNorm; })
          .Default([](Operation *) { return std::nullopt; });
  if (!kind)
    return emitter.error(anchor.op) << "has no row template";
  anchor.kind = *kind;
  // The rows and their length, as tiling chose the variant by them; the
  // kernel's verifier checked that the anchor reduces trailing axes only.
  std::optional<RowReduceExtents> extents =
      rowReduceExtents(emitter.getKernel());
  if (!extents)
    return emitter.error(anchor.op)
           << "is not a row reduction (trailing axes, or a softmax over the "
              "last axis)";
  anchor.rows = extents->rows;
  anchor.length = extents->length;
  anchor.runTimeRows = extents->runTimeRows;
  return anchor;
}

std::string combineLine(Type type, AnchorKind kind, const std::string &acc,
                        const std::string &value) {
  bool isInt = type.isIntOrIndex();
  std::string u = ElementalEmitter::isUnsignedInteger(type) ? "true" : "false";
  if (kind == AnchorKind::Max)
    return acc + " = " +
           (isInt ? "kiln_imax(" + acc + ", " + value + ", " + u + ")"
                  : "kiln_max(" + acc + ", " + value + ")") +
           ";";
  if (kind == AnchorKind::Min)
    return acc + " = " +
           (isInt ? "kiln_imin(" + acc + ", " + value + ", " + u + ")"
                  : "kiln_min(" + acc + ", " + value + ")") +
           ";";
  if (kind == AnchorKind::Prod)
    return isInt ? acc + " = kiln_imul(" + acc + ", " + value + ");"
                 : acc + " *= " + value + ";";
  return isInt ? acc + " = kiln_iadd(" + acc + ", " + value + ");"
               : acc + " += " + value + ";";
}

std::string combinerFunctor(Type type, AnchorKind kind) {
  bool max = kind == AnchorKind::Max;
  std::string u = ElementalEmitter::isUnsignedInteger(type) ? "true" : "false";
  if (type.isIntOrIndex())
    return max                        ? "kiln_imax_op<" + u + ">()"
           : kind == AnchorKind::Min  ? "kiln_imin_op<" + u + ">()"
           : kind == AnchorKind::Prod ? std::string("kiln_iprod_op()")
                                      : std::string("kiln_isum_op()");
  return max                        ? "kiln_max_op()"
         : kind == AnchorKind::Min  ? "kiln_min_op()"
         : kind == AnchorKind::Prod ? "kiln_prod_op()"
                                    : "kiln_sum_op()";
}

/// The identity of the anchor's combiner in the computation type.
std::string initialValue(Type type, AnchorKind kind) {
  bool isInt = type.isIntOrIndex();
  unsigned bits = isInt ? type.getIntOrFloatBitWidth() : 0;
  bool isUnsigned = ElementalEmitter::isUnsignedInteger(type);
  switch (kind) {
  case AnchorKind::Max:
    if (!isInt)
      return ElementalEmitter::floatLiteral(type, -INFINITY);
    return isUnsigned ? std::string("0LL")
                      : ElementalEmitter::intLiteral(
                            -int64_t(uint64_t(1) << (bits - 1)));
  case AnchorKind::Min:
    if (!isInt)
      return ElementalEmitter::floatLiteral(type, INFINITY);
    if (isUnsigned)
      return bits == 64 ? std::string("(long long)~0ULL")
                        : ElementalEmitter::intLiteral(
                              int64_t((uint64_t(1) << bits) - 1));
    return ElementalEmitter::intLiteral(
        int64_t((uint64_t(1) << (bits - 1)) - 1));
  case AnchorKind::Prod:
    return isInt ? std::string("1LL")
                 : ElementalEmitter::floatLiteral(type, 1.0);
  default:
    return isInt ? std::string("0LL")
                 : ElementalEmitter::floatLiteral(type, 0.0);
  }
}

/// The per-element epilogue of a row reduction (unmetElementEpilogue),
/// after |reduced| (the anchor's value for the row) is known: the row part
/// (the epilogue ops with the anchor's element count: a norm's sqrt and
/// clip) computed once per row, then each output at every element of the
/// row, read again in vectors.
LogicalResult emitElementEpilogue(ElementalEmitter &emitter,
                                  VectorRowKernel &row, Value anchorResult,
                                  const std::string &reduced, int64_t rows) {
  llvm::SetVector<Value> rowPart;
  SmallVector<Value> worklist{anchorResult};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (Operation *user : current.getUsers())
      if (!isa<YieldOp>(user) && user->getNumResults() == 1 &&
          elementCount(indexedShapeOf(user->getResult(0))) == rows &&
          rowPart.insert(user->getResult(0)))
        worklist.push_back(user->getResult(0));
  }
  // Within the row, the anchor is |reduced| and a row-part value is its
  // value at the row, wherever the epilogue reads it.
  emitter.setValueOverride(
      [&](Value value, const ElementIndex &) -> std::optional<std::string> {
        if (value == anchorResult)
          return reduced;
        if (!rowPart.contains(value))
          return std::nullopt;
        FailureOr<std::string> atRow =
            emitter.emitOwnModel(value, ElementIndex::fromLinear("row"));
        return succeeded(atRow) ? std::optional<std::string>(*atRow)
                                : std::nullopt;
      });
  for (Value value : rowPart)
    if (failed(emitter.emit(value, ElementIndex::fromLinear("row")))) {
      emitter.setValueOverride(nullptr);
      return failure();
    }
  LogicalResult stored = row.forEachVector(
      [&](const VectorLanes &lanes) { return row.storeOutputs(lanes); });
  emitter.setValueOverride(nullptr);
  return stored;
}

} // namespace

std::string RowGeometry::description() const {
  std::string threads = !warp ? "one block"
                        : lanes == 32
                            ? "one warp"
                            : std::to_string(lanes) + " lanes of a warp";
  return rowCount() + " rows of " + std::to_string(length) + " elements; " +
         threads + " per row" +
         (warp ? ", " + std::to_string(rowsPerBlock) + " rows per block" : "");
}

void RowGeometry::openRowLoop(ElementalEmitter &emitter,
                              const std::string &accType) const {
  if (!warp) {
    emitter.line("__shared__ " + accType + " kiln_partials[32];");
    emitter.open("for (kiln_index_t row = blockIdx.x; row < " + rowCount() +
                 "; row += gridDim.x)");
    return;
  }
  std::string perBlock = std::to_string(rowsPerBlock);
  emitter.line("const int lane = threadIdx.x & " + std::to_string(lanes - 1) +
               ";");
  emitter.open("for (kiln_index_t row = (kiln_index_t)blockIdx.x * " +
               perBlock + " + (threadIdx.x >> " +
               std::to_string(llvm::Log2_64(uint64_t(lanes))) + "); row < " +
               rowCount() + "; row += (kiln_index_t)gridDim.x * " + perBlock +
               ")");
}

std::string RowGeometry::allReduce(const std::string &value,
                                   StringRef functor) const {
  if (!warp)
    return "kiln_block_allreduce(" + value + ", " + functor.str() +
           ", kiln_partials)";
  return "kiln_warp_allreduce" +
         (lanes == 32 ? std::string() : "<" + std::to_string(lanes) + ">") +
         "(" + value + ", " + functor.str() + ")";
}

bool RowGeometry::holdsRows(ArrayRef<int64_t> shape, int64_t perRow) const {
  int64_t elements = 1;
  bool runTime = false;
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      runTime = true;
    else
      elements *= dim;
  }
  return runTime == runTimeRows && elements == rows * perRow;
}

LogicalResult declareRunTimeRows(ElementalEmitter &emitter,
                                 const RowGeometry &geometry, int64_t perRow) {
  if (!geometry.runTimeRows)
    return success();
  FailureOr<std::optional<RunTimeCount>> runTime =
      getRunTimeCount(emitter.getKernel());
  if (failed(runTime))
    return failure();
  if (!*runTime)
    return emitter.error(nullptr) << "has run-time rows but no run-time count";
  std::string parameters;
  for (auto [i, dim] : llvm::enumerate((*runTime)->dims))
    parameters += (i ? ", " : "") + runTimeDimParameter(i) + " = " + dim;
  emitter.line("// " + (*runTime)->count.str() + " output elements (" +
               parameters + "), " + std::to_string(perRow) + " per row.");
  emitter.line("const kiln_index_t kiln_rows = (kiln_index_t)(" +
               (*runTime)->code() + ") / " + std::to_string(perRow) + ";");
  return success();
}

LogicalResult emitRowReduceKernel(ElementalEmitter &emitter,
                                  LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  FailureOr<Anchor> anchorOr = findAnchor(emitter);
  if (failed(anchorOr))
    return failure();
  Anchor anchor = *anchorOr;
  // The recorded variant (a hand-tiled kernel without one: warp_rows),
  // whose preconditions the verifier checked when it was recorded.
  KernelVariant variant = *getKernelVariant(kernel);
  bool warp = variant == KernelVariant::WarpRows;
  int64_t block = int64_t(kernel.getBlockSize().value_or(0));
  std::string unmet = unmetVariantPrecondition(kernel, variant, block);
  if (!unmet.empty())
    return emitter.error(nullptr) << unmet;
  int64_t lanes = warp ? warpRowLanes(kernel) : 32;
  int64_t rowsPerBlock =
      int64_t(kernel.getRowsPerBlock().value_or(warp ? block / lanes : 1));

  RowGeometry geometry{anchor.rows,  anchor.length,      warp, block,
                       rowsPerBlock, anchor.runTimeRows, lanes};
  if (anchor.kind == AnchorKind::LayerNorm)
    return emitLayerNormRows(emitter, cast<LayerNormOp>(anchor.op), geometry,
                             launch);
  if (isSoftmaxLike(anchor.kind))
    return emitSoftmaxRows(emitter, anchor.op, geometry, launch);

  // Outputs of one value per row, or (a per-element epilogue, the kernel
  // contract's unmetElementEpilogue: a normalisation by the reduced value)
  // one per element of the row.
  Type type = elementTypeOf(anchor.data);
  bool perElement =
      !type.isIntOrIndex() && !anchor.runTimeRows &&
      geometry.holdsRows(indexedShapeOf(kernel.getOutputs()[0]), anchor.length);
  for (Value output : kernel.getOutputs())
    if (!geometry.holdsRows(indexedShapeOf(output),
                            perElement ? anchor.length : 1))
      return emitter.error(nullptr)
             << "has an output of " << elementCount(indexedShapeOf(output))
             << " elements; the anchor gives " << geometry.rowCount()
             << (perElement ? " rows of " + std::to_string(anchor.length)
                            : std::string());
  if (failed(declareRunTimeRows(emitter, geometry, 1)))
    return failure();

  std::string accType = ElementalEmitter::computeType(type);
  bool isInt = type.isIntOrIndex();
  std::string length = std::to_string(anchor.length);
  std::string stride = warp ? std::to_string(lanes) : "blockDim.x";
  std::string laneId = warp ? "lane" : "threadIdx.x";

  // A float row in vectors (`vector_width`): VectorRowKernel's loop over
  // rows and vector loads, each value read once, nothing held.
  int64_t width = int64_t(kernel.getVectorWidth().value_or(1));
  std::optional<VectorRowKernel> vectorRow;
  if (width > 1 || perElement) {
    // rowsPrecondition (checked above) has the width dividing float rows.
    std::optional<int64_t> axis = rowReductionFirstAxis(anchor.op);
    if (!axis)
      return emitter.error(anchor.op) << "reduces no trailing axes";
    vectorRow.emplace(emitter, anchor.data, geometry, *axis, width,
                      /*hold=*/false);
    vectorRow->openRowLoop();
  } else {
    emitter.line("// " + geometry.description() + ".");
    geometry.openRowLoop(emitter, accType);
  }

  // One pass over the row: |visit| gets the prologue value at column `col`.
  auto pass = [&](const std::string &header,
                  llvm::function_ref<LogicalResult(const std::string &)> visit)
      -> LogicalResult {
    emitter.line(header);
    emitter.open("for (kiln_index_t col = " + laneId + "; col < " + length +
                 "; col += " + stride + ")");
    std::string at = emitter.fresh("at");
    emitter.line("const kiln_index_t " + at + " = row * " + length + " + col;");
    FailureOr<std::string> x =
        emitter.emit(anchor.data, ElementIndex::fromLinear(at));
    if (failed(x) || failed(visit(*x)))
      return failure();
    emitter.close();
    return success();
  };
  auto writeOutputs = [&](const std::string &linear) -> LogicalResult {
    for (auto [k, value] : llvm::enumerate(kernel.getYield().getValues())) {
      FailureOr<std::string> result =
          emitter.emit(value, ElementIndex::fromLinear(linear));
      if (failed(result))
        return failure();
      emitter.line(
          "out" + std::to_string(k) + "[" + linear + "] = " +
          ElementalEmitter::storeConversion(elementTypeOf(value), *result) +
          ";");
    }
    return success();
  };
  Value anchorResult = anchor.op->getResult(0);
  ArrayRef<int64_t> resultShape = indexedShapeOf(anchorResult);

  std::string init = initialValue(type, anchor.kind);
  if (vectorRow) {
    emitter.line(accType + " acc = " + init + ";");
    if (failed(vectorRow->forEachRowValue(
            /*compute=*/true, [&](const std::string &x, int64_t) {
              emitter.line(combineLine(type, anchor.kind, "acc", x));
            })))
      return failure();
  } else {
    if (failed(
            pass(accType + " acc = " + init + ";", [&](const std::string &x) {
              emitter.line(combineLine(type, anchor.kind, "acc", x));
              return success();
            })))
      return failure();
  }
  emitter.line(
      "acc = " + geometry.allReduce("acc", combinerFunctor(type, anchor.kind)) +
      ";");

  std::string reduced = "acc";
  if (anchor.kind == AnchorKind::Mean) {
    emitter.line("const " + accType + " mean = " +
                 (isInt ? "kiln_idiv(acc, " + length + "LL, " +
                              (type.isUnsignedInteger(64) ? "true" : "false") +
                              ")"
                        : "acc / " + ElementalEmitter::floatLiteral(
                                         type, double(anchor.length))) +
                 ";");
    reduced = "mean";
  }
  reduced = ElementalEmitter::wrapInteger(type, reduced);
  if (perElement) {
    if (failed(emitElementEpilogue(emitter, *vectorRow, anchorResult, reduced,
                                   geometry.rows)))
      return failure();
    vectorRow->closeRowLoop(launch);
    return success();
  }
  emitter.setValueOverride([&](Value value, const ElementIndex &index)
                               -> std::optional<std::string> {
    if (value == anchorResult && emitter.linearOf(index, resultShape) == "row")
      return reduced;
    return std::nullopt;
  });
  emitter.open("if (" + laneId + " == 0)");
  if (failed(writeOutputs("row")))
    return failure();
  emitter.close();
  emitter.setValueOverride(nullptr);
  if (vectorRow) {
    vectorRow->closeRowLoop(launch);
    return success();
  }
  emitter.close();

  launch.block = block;
  launch.grid = int64_t(kernel.getGridSize().value_or(0));
  return success();
}

} // namespace kiln::cuda
