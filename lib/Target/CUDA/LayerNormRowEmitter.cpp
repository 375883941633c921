// The row-reduce template for a layer_norm anchor. Each row (the dims from
// `axis` on) is handled by one warp or one block:
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

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

/// The most row values one thread keeps in registers.
constexpr int64_t kMaxHeldValues = 64;

std::string vectorType(Type elementType, int64_t width) {
  return "kiln_vec<" + ElementalEmitter::storageType(elementType) + ", " +
         std::to_string(width) + ">";
}

/// The per-lane indices of the vector a thread works on in one step.
struct VectorLanes {
  std::string vector;                // The vector's index within the row.
  SmallVector<std::string> linear;   // Linear index of each lane.
  SmallVector<std::string> column;   // Linear index within the row.
  SmallVector<ElementIndex> indices; // Dims and linear, per lane.
};

class LayerNormRows {
public:
  LayerNormRows(ElementalEmitter &emitter, LayerNormOp op,
                const RowGeometry &geometry, int64_t axis, int64_t width)
      : emitter(emitter), kernel(emitter.getKernel()), op(op),
        geometry(geometry), axis(axis), width(width),
        shape(shapeOf(op.getInput())), type(elementTypeOf(op.getInput())),
        accType(ElementalEmitter::computeType(type)) {
    threads = geometry.warp ? 32 : geometry.block;
    vectors = geometry.length / width;
    perThread = (vectors + threads - 1) / threads;
    held = perThread * width <= kMaxHeldValues;
  }

  LogicalResult emit(LaunchGeometry &launch);

private:
  /// Opens the loop over the thread's vectors of the row, calls |body| with
  /// the lanes of each and closes it. Inputs read at a lane's index are
  /// loaded as one vector per input and step. |declareLanes| false: the body
  /// only reads held values and needs no lane indices.
  LogicalResult
  forEachVector(llvm::function_ref<LogicalResult(const VectorLanes &)> body,
                bool declareLanes = true);
  /// The prologue's value at lane |j|: held in registers, or recomputed.
  FailureOr<std::string> rowValue(const VectorLanes &lanes, int64_t j,
                                  bool compute);
  std::string heldSlot(int64_t j) const {
    return "xs[k * " + std::to_string(width) + " + " + std::to_string(j) + "]";
  }
  LogicalResult writeOutputs(const VectorLanes &lanes);

  ElementalEmitter &emitter;
  KernelOp kernel;
  LayerNormOp op;
  RowGeometry geometry;
  int64_t axis, width;
  ArrayRef<int64_t> shape;
  Type type;
  std::string accType;
  int64_t threads = 32, vectors = 0, perThread = 0;
  bool held = true;
  SmallVector<std::string> rowDims; // The kept dims of the current row.
};

LogicalResult LayerNormRows::forEachVector(
    llvm::function_ref<LogicalResult(const VectorLanes &)> body,
    bool declareLanes) {
  std::string laneId = geometry.warp ? "lane" : "threadIdx.x";
  emitter.line("#pragma unroll");
  emitter.open("for (int k = 0; k < " + std::to_string(perThread) + "; ++k)");
  VectorLanes lanes;
  lanes.vector = emitter.fresh("vcol");
  emitter.line("const kiln_index_t " + lanes.vector + " = " + laneId +
               " + k * " + std::to_string(threads) + ";");
  bool tail = vectors % threads != 0;
  if (tail)
    emitter.open("if (" + lanes.vector + " < " + std::to_string(vectors) + ")");
  ArrayRef<int64_t> rowShape = shape.drop_front(axis);
  for (int64_t j = 0; j < width && declareLanes; ++j) {
    std::string column = emitter.fresh("c"), linear = emitter.fresh("at");
    emitter.line("const kiln_index_t " + column + " = " + lanes.vector +
                 (width == 1 ? ""
                             : " * " + std::to_string(width) + " + " +
                                   std::to_string(j)) +
                 ";");
    emitter.line("const kiln_index_t " + linear + " = row * " +
                 std::to_string(geometry.length) + " + " + column + ";");
    ElementIndex index;
    index.hasDims = true;
    index.dims.assign(rowDims.begin(), rowDims.end());
    for (const std::string &dim :
         emitter.dimsOf(ElementIndex::fromLinear(column), rowShape))
      index.dims.push_back(dim);
    index.linear = linear;
    lanes.column.push_back(column);
    lanes.linear.push_back(linear);
    lanes.indices.push_back(index);
  }

  // Vector loads: an input read at every lane's row index (or, for inputs
  // of one row's size, at every lane's column) in this step.
  llvm::DenseMap<unsigned, std::string> loaded;
  int64_t rowElements = geometry.rows * geometry.length;
  if (width > 1)
    emitter.setLoadOverride([&](unsigned argument, const ElementIndex &index)
                                -> std::optional<std::string> {
      Value input = kernel.getInputs()[argument];
      int64_t count = elementCount(shapeOf(input));
      ArrayRef<std::string> names;
      std::string vectorIndex;
      if (count == rowElements) {
        names = lanes.linear;
        vectorIndex = "row * " + std::to_string(vectors) + " + " + lanes.vector;
      } else if (count == geometry.length) {
        names = lanes.column;
        vectorIndex = lanes.vector;
      } else {
        return std::nullopt;
      }
      auto lane = llvm::find(names, emitter.linearOf(index, shapeOf(input)));
      if (lane == names.end())
        return std::nullopt;
      auto [it, inserted] = loaded.try_emplace(argument);
      if (inserted) {
        std::string vector = vectorType(elementTypeOf(input), width);
        it->second = emitter.fresh("vin");
        emitter.line("const " + vector + " " + it->second +
                     " = reinterpret_cast<const " + vector + "*>(" +
                     emitter.pointerName(argument) + ")[" + vectorIndex + "];");
      }
      return it->second + ".v[" + std::to_string(lane - names.begin()) + "]";
    });
  LogicalResult result = body(lanes);
  emitter.setLoadOverride(nullptr);
  if (tail)
    emitter.close();
  emitter.close();
  return result;
}

FailureOr<std::string> LayerNormRows::rowValue(const VectorLanes &lanes,
                                               int64_t j, bool compute) {
  if (held && !compute)
    return heldSlot(j);
  return emitter.emit(op.getInput(), lanes.indices[j]);
}

LogicalResult LayerNormRows::writeOutputs(const VectorLanes &lanes) {
  Value result = op.getResult();
  // The normalised value of each lane, computed once.
  SmallVector<std::string> normalised;
  for (int64_t j = 0; j < width; ++j) {
    FailureOr<std::string> x = rowValue(lanes, j, /*compute=*/false);
    const ElementIndex &index = lanes.indices[j];
    FailureOr<std::string> scale = emitter.emit(
        op.getScale(),
        emitter.broadcastIndex(index, shape, shapeOf(op.getScale())));
    if (failed(x) || failed(scale))
      return failure();
    std::string y = "(" + *x + " - mean) * inv * " + parenthesize(*scale);
    if (op.getBias()) {
      FailureOr<std::string> bias = emitter.emit(
          op.getBias(),
          emitter.broadcastIndex(index, shape, shapeOf(op.getBias())));
      if (failed(bias))
        return failure();
      y += " + " + parenthesize(*bias);
    }
    normalised.push_back(emitter.materialize(type, y, "y"));
  }
  emitter.setValueOverride(
      [&](Value value,
          const ElementIndex &index) -> std::optional<std::string> {
        if (value != result)
          return std::nullopt;
        auto lane = llvm::find(lanes.linear, emitter.linearOf(index, shape));
        if (lane == lanes.linear.end())
          return std::nullopt;
        return normalised[lane - lanes.linear.begin()];
      });
  for (auto [k, value] : llvm::enumerate(kernel.getYield().getValues())) {
    Type elementType = elementTypeOf(value);
    bool sameShape = shapeOf(value) == shape;
    SmallVector<std::string> stores;
    for (int64_t j = 0; j < width; ++j) {
      FailureOr<std::string> y = emitter.emit(
          value, sameShape ? lanes.indices[j]
                           : ElementIndex::fromLinear(lanes.linear[j]));
      if (failed(y))
        return failure();
      stores.push_back(ElementalEmitter::storeConversion(elementType, *y));
    }
    std::string out = "out" + std::to_string(k);
    if (width == 1) {
      emitter.line(out + "[" + lanes.linear[0] + "] = " + stores[0] + ";");
      continue;
    }
    std::string vector = vectorType(elementType, width);
    std::string name = emitter.fresh("vout");
    emitter.line(vector + " " + name + ";");
    for (auto [j, store] : llvm::enumerate(stores))
      emitter.line(name + ".v[" + std::to_string(j) + "] = " + store + ";");
    emitter.line("reinterpret_cast<" + vector + "*>(" + out + ")[row * " +
                 std::to_string(vectors) + " + " + lanes.vector +
                 "] = " + name + ";");
  }
  emitter.setValueOverride(nullptr);
  return success();
}

LogicalResult LayerNormRows::emit(LaunchGeometry &launch) {
  std::string rows = std::to_string(geometry.rows);
  std::string length = std::to_string(geometry.length);
  std::string unit = width == 1 ? "element" : "vector";
  emitter.line(
      "// " + rows + " rows of " + length + " elements; one " +
      (geometry.warp ? "warp" : "block") + " per row" +
      (geometry.warp
           ? ", " + std::to_string(geometry.rowsPerBlock) + " rows per block"
           : "") +
      "; " + std::to_string(perThread) + " " + unit +
      (perThread == 1 ? "" : "s") +
      (width == 1 ? "" : " of " + std::to_string(width)) + " per thread" +
      (held ? ", held in registers." : ", recomputed per pass."));
  auto allReduce = [&](const std::string &value) {
    return geometry.warp ? "kiln_warp_allreduce(" + value + ", kiln_sum_op())"
                         : "kiln_block_allreduce(" + value +
                               ", kiln_sum_op(), kiln_partials)";
  };
  if (geometry.warp) {
    std::string perBlock = std::to_string(geometry.rowsPerBlock);
    emitter.line("const int lane = threadIdx.x & 31;");
    emitter.open("for (kiln_index_t row = (kiln_index_t)blockIdx.x * " +
                 perBlock + " + (threadIdx.x >> 5); row < " + rows +
                 "; row += (kiln_index_t)gridDim.x * " + perBlock + ")");
  } else {
    emitter.line("__shared__ " + accType + " kiln_partials[32];");
    emitter.open("for (kiln_index_t row = blockIdx.x; row < " + rows +
                 "; row += gridDim.x)");
  }
  rowDims.clear();
  for (const std::string &dim :
       emitter.dimsOf(ElementIndex::fromLinear("row"), shape.take_front(axis)))
    rowDims.push_back(
        emitter.materialize(IntegerType::get(op.getContext(), 64), dim, "r"));
  std::string zero = ElementalEmitter::floatLiteral(type, 0.0);
  std::string count = ElementalEmitter::floatLiteral(type, geometry.length);
  if (held)
    emitter.line(accType + " xs[" + std::to_string(perThread * width) + "];");

  // Pass 1: the prologue, held, and the sum.
  emitter.line(accType + " sum = " + zero + ";");
  if (failed(forEachVector([&](const VectorLanes &lanes) -> LogicalResult {
        for (int64_t j = 0; j < width; ++j) {
          FailureOr<std::string> x = rowValue(lanes, j, /*compute=*/true);
          if (failed(x))
            return failure();
          if (held)
            emitter.line(heldSlot(j) + " = " + *x + ";");
          emitter.line("sum += " + *x + ";");
        }
        return success();
      })))
    return failure();
  emitter.line("const " + accType + " mean = " + allReduce("sum") + " / " +
               count + ";");

  // Pass 2: squared deviations from the mean.
  emitter.line(accType + " squares = " + zero + ";");
  if (failed(forEachVector(
          [&](const VectorLanes &lanes) -> LogicalResult {
            for (int64_t j = 0; j < width; ++j) {
              FailureOr<std::string> x = rowValue(lanes, j, /*compute=*/false);
              if (failed(x))
                return failure();
              std::string d = emitter.materialize(type, *x + " - mean", "d");
              emitter.line("squares += " + d + " * " + d + ";");
            }
            return success();
          },
          /*declareLanes=*/!held)))
    return failure();
  emitter.line(
      "const " + accType +
      " inv = " + ElementalEmitter::floatLiteral(type, 1.0) + " / kiln_sqrt(" +
      allReduce("squares") + " / " + count + " + " +
      ElementalEmitter::floatLiteral(type, op.getEpsilon().convertToFloat()) +
      ");");

  // Pass 3: the affine map and the epilogue.
  if (failed(forEachVector(
          [&](const VectorLanes &lanes) { return writeOutputs(lanes); })))
    return failure();
  emitter.close();

  launch.block = geometry.block;
  launch.grid = getIntAttr(kernel, "grid_size", 0);
  return success();
}

} // namespace

LogicalResult emitLayerNormRows(ElementalEmitter &emitter,
                                LayerNormOp layerNorm,
                                const RowGeometry &geometry,
                                LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  ArrayRef<int64_t> shape = shapeOf(layerNorm.getInput());
  int64_t axis = *normalizeAxis(layerNorm.getAxis(), shape.size());
  if (elementTypeOf(layerNorm.getInput()).isIntOrIndex())
    return emitter.error(layerNorm) << "needs a float type";
  int64_t width = getIntAttr(kernel, "vector_width", 1);
  if (width < 1 || width > 16 || (width & (width - 1)) != 0)
    return emitter.error(nullptr)
           << "vector_width " << width << " is not a power of two <= 16";
  if (geometry.length % width != 0)
    return emitter.error(nullptr)
           << "vector_width " << width << " does not divide the rows of "
           << geometry.length << " elements";
  for (Value output : kernel.getOutputs())
    if (elementCount(shapeOf(output)) != geometry.rows * geometry.length)
      return emitter.error(nullptr)
             << "has an output of " << elementCount(shapeOf(output))
             << " elements; the layer_norm gives "
             << geometry.rows * geometry.length;
  return LayerNormRows(emitter, layerNorm, geometry, axis, width).emit(launch);
}

} // namespace kiln::cuda
