// The row loop, vector loads and stores, held values and reductions shared
// by the layer_norm and softmax row kernels (VectorRowKernel.h).
#include "VectorRowKernel.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"

#include "llvm/ADT/StringMap.h"

#include <cassert>

using namespace mlir;

namespace kiln::cuda {
namespace {

/// Loops over more vectors per thread than this are unrolled 4 times rather
/// than fully (rows too long to hold, recomputed per pass).
constexpr int64_t kMaxUnrolledVectors = 64;

/// A vector of |width| elements of |type| as accessed: in pieces of at most
/// 16 bytes, since kernel pointers are proven 16-byte aligned and no more
/// (LoopEmitter.cpp). Rows of f16 take vectors of 8, so an int64 index read
/// along them (DeBERTa's relative positions) is four pieces of 2.
struct Pieces {
  int64_t count, width;
};
Pieces piecesOf(Type type, int64_t width) {
  int64_t bytes = width * storageBytes(type);
  int64_t count = std::max<int64_t>(bytes / kVectorBytes, 1);
  assert(width % count == 0 && "vectors and elements are powers of two");
  return {count, width / count};
}

/// The index of piece |piece| of the vector at |vectorIndex|.
std::string pieceIndex(const std::string &vectorIndex, Pieces pieces,
                       int64_t piece) {
  if (pieces.count == 1)
    return vectorIndex;
  return parenthesize(vectorIndex) + " * " + std::to_string(pieces.count) +
         " + " + std::to_string(piece);
}

} // namespace

VectorRowKernel::VectorRowKernel(ElementalEmitter &emitter, Value rowInput,
                                 const RowGeometry &geometry, int64_t axis,
                                 int64_t width, bool hold)
    : emitter(emitter), kernel(emitter.getKernel()), rowInput(rowInput),
      geometry(geometry), axis(axis), width(width),
      shape(indexedShapeOf(rowInput)), type(elementTypeOf(rowInput)),
      accType(ElementalEmitter::computeType(type)) {
  threads = geometry.warp ? geometry.lanes : geometry.block;
  vectors = geometry.length / width;
  perThread = (vectors + threads - 1) / threads;
  held = hold && perThread * width <= kMaxHeldValues;
}

FailureOr<int64_t> VectorRowKernel::checkVectorWidth(
    ElementalEmitter &emitter, const RowGeometry &geometry, StringRef anchor) {
  KernelOp kernel = emitter.getKernel();
  int64_t width = int64_t(kernel.getVectorWidth().value_or(1));
  if (width < 1 || width > 16 || (width & (width - 1)) != 0)
    return emitter.error(nullptr)
           << "vector_width " << width << " is not a power of two <= 16";
  if (geometry.length % width != 0)
    return emitter.error(nullptr)
           << "vector_width " << width << " does not divide the rows of "
           << geometry.length << " elements";
  for (Value output : kernel.getOutputs())
    if (!geometry.holdsRows(indexedShapeOf(output), geometry.length))
      return emitter.error(nullptr)
             << "has an output of " << elementCount(indexedShapeOf(output))
             << " elements; " << anchor << " gives " << geometry.rowCount()
             << " rows of " << geometry.length;
  if (failed(declareRunTimeRows(emitter, geometry, geometry.length)))
    return failure();
  return width;
}

void VectorRowKernel::openRowLoop() {
  std::string unit = width == 1 ? "element" : "vector";
  emitter.line(
      "// " + geometry.description() + "; " + std::to_string(perThread) + " " +
      unit + (perThread == 1 ? "" : "s") +
      (width == 1 ? "" : " of " + std::to_string(width)) + " per thread" +
      (held ? ", held in registers." : ", recomputed per pass."));
  geometry.openRowLoop(emitter, accType);
  rowDims.clear();
  for (const std::string &dim :
       emitter.dimsOf(ElementIndex::fromLinear("row"), shape.take_front(axis)))
    rowDims.push_back(emitter.materialize(
        IntegerType::get(kernel.getContext(), 64), dim, "r"));
  if (held)
    emitter.line(accType + " xs[" + std::to_string(perThread * width) + "];");
}

void VectorRowKernel::closeRowLoop(LaunchGeometry &launch) {
  emitter.close();
  launch.block = geometry.block;
  launch.grid = int64_t(kernel.getGridSize().value_or(0));
}

std::string VectorRowKernel::allReduce(const std::string &value,
                                       StringRef functor) const {
  return geometry.allReduce(value, functor);
}

std::string VectorRowKernel::heldSlot(int64_t j) const {
  return "xs[k * " + std::to_string(width) + " + " + std::to_string(j) + "]";
}

LogicalResult VectorRowKernel::forEachRowValue(
    bool compute,
    llvm::function_ref<void(const std::string &, int64_t)> body,
    bool declareLanes) {
  return forEachVector(
      [&](const VectorLanes &lanes) -> LogicalResult {
        for (int64_t j = 0; j < width; ++j) {
          FailureOr<std::string> x = rowValue(lanes, j, compute);
          if (failed(x))
            return failure();
          body(*x, j);
        }
        return success();
      },
      declareLanes);
}

LogicalResult VectorRowKernel::forEachVector(
    llvm::function_ref<LogicalResult(const VectorLanes &)> body,
    bool declareLanes) {
  std::string laneId = geometry.warp ? "lane" : "threadIdx.x";
  emitter.line(perThread <= kMaxUnrolledVectors ? "#pragma unroll"
                                                : "#pragma unroll 4");
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

  // Vector loads: one per input and vector index in this step, declared at
  // the first read and reused while the scope of the declaration is open
  // (a read in a branch declares it there: Swin-V2's shifted windows read
  // the bias under each of the roll's four branches).
  llvm::StringMap<std::pair<std::string, unsigned>> loaded;
  if (width > 1)
    emitter.setLoadOverride(
        [&](unsigned argument,
            const ElementIndex &index) -> std::optional<std::string> {
          Value input = kernel.getInputs()[argument];
          std::optional<VectorRead> read = findVectorRead(input, index, lanes);
          if (!read)
            return std::nullopt;
          // Each piece is loaded once, where its first lane is read.
          Type type = elementTypeOf(input);
          Pieces pieces = piecesOf(type, width);
          std::string at =
              pieceIndex(read->vectorIndex, pieces, read->lane / pieces.width);
          auto [it, inserted] =
              loaded.try_emplace(std::to_string(argument) + ":" + at);
          if (inserted || !emitter.isScopeOpen(it->second.second)) {
            std::string vector = vectorTypeName(type, pieces.width);
            it->second = {emitter.fresh("vin"), emitter.currentScope()};
            emitter.line("const " + vector + " " + it->second.first +
                         " = reinterpret_cast<const " + vector + "*>(" +
                         emitter.pointerName(argument) + ")[" + at + "];");
          }
          return it->second.first + ".v[" +
                 std::to_string(read->lane % pieces.width) + "]";
        });
  LogicalResult result = body(lanes);
  emitter.setLoadOverride(nullptr);
  if (tail)
    emitter.close();
  emitter.close();
  return result;
}

std::optional<VectorRowKernel::VectorRead>
VectorRowKernel::findVectorRead(Value input, const ElementIndex &index,
                                const VectorLanes &lanes) const {
  ArrayRef<int64_t> inputShape = indexedShapeOf(input);
  int64_t count = elementCount(inputShape);
  auto laneOf = [](ArrayRef<std::string> names,
                   const std::string &name) -> std::optional<int64_t> {
    auto lane = llvm::find(names, name);
    if (lane == names.end())
      return std::nullopt;
    return lane - names.begin();
  };
  // Read at the lane's own index, in a tensor of the rows' size.
  if (geometry.holdsRows(inputShape, geometry.length))
    if (std::optional<int64_t> lane =
            laneOf(lanes.linear, emitter.linearOf(index, inputShape)))
      return VectorRead{*lane, "row * " + std::to_string(vectors) + " + " +
                                   lanes.vector};
  // Read at the lane's column, in a tensor of one row's size (a bias).
  if (count == geometry.length)
    if (std::optional<int64_t> lane =
            laneOf(lanes.column, emitter.linearOf(index, inputShape)))
      return VectorRead{*lane, lanes.vector};
  // Read along the row with other dims than the row's (a mask [1, 1, S, S]
  // broadcast over scores [B, H, S, S], or permuted outer dims): the lane's
  // column in the last dim, the row's own dims (or 0) in the others, so the
  // lanes' elements are contiguous. Such a tensor's elements may be wider
  // than the row's (tiling sized the vectors by the row's tensors): the load
  // then takes 16-byte pieces (piecesOf).
  Type elementType = elementTypeOf(input);
  if (!index.hasDims || inputShape.empty() ||
      index.dims.size() != inputShape.size() ||
      inputShape.back() != geometry.length || !elementType.isIntOrFloat())
    return std::nullopt;
  std::optional<int64_t> lane = laneOf(lanes.column, index.dims.back());
  if (!lane)
    return std::nullopt;
  ArrayRef<std::string> prefix = ArrayRef(index.dims).drop_back();
  for (const std::string &dim : prefix)
    if (dim != "0" && !llvm::is_contained(rowDims, dim))
      return std::nullopt;
  std::string rowStart =
      emitter.linearOf(ElementIndex::fromDims(prefix), inputShape.drop_back());
  if (rowStart == "0")
    return VectorRead{*lane, lanes.vector};
  return VectorRead{*lane, parenthesize(rowStart) + " * " +
                               std::to_string(vectors) + " + " + lanes.vector};
}

FailureOr<std::string> VectorRowKernel::rowValue(const VectorLanes &lanes,
                                                 int64_t j, bool compute) {
  if (held && !compute)
    return heldSlot(j);
  return emitter.emit(rowInput, lanes.indices[j]);
}

LogicalResult VectorRowKernel::writeOutputs(
    const VectorLanes &lanes, Value anchorResult,
    llvm::function_ref<FailureOr<std::string>(int64_t)> anchorValue) {
  // The anchor's value at each lane, computed once.
  SmallVector<std::string> results;
  for (int64_t j = 0; j < width; ++j) {
    FailureOr<std::string> y = anchorValue(j);
    if (failed(y))
      return failure();
    results.push_back(emitter.materialize(type, *y, "y"));
  }
  ArrayRef<int64_t> resultShape = indexedShapeOf(anchorResult);
  emitter.setValueOverride([&](Value value, const ElementIndex &index)
                               -> std::optional<std::string> {
    if (value != anchorResult)
      return std::nullopt;
    auto lane = llvm::find(lanes.linear, emitter.linearOf(index, resultShape));
    if (lane == lanes.linear.end())
      return std::nullopt;
    return results[lane - lanes.linear.begin()];
  });
  LogicalResult stored = storeOutputs(lanes);
  emitter.setValueOverride(nullptr);
  return stored;
}

LogicalResult VectorRowKernel::storeOutputs(const VectorLanes &lanes) {
  for (auto [k, value] : llvm::enumerate(kernel.getYield().getValues())) {
    Type elementType = elementTypeOf(value);
    bool sameShape = indexedShapeOf(value) == shape;
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
    // Tiling sizes the vectors by the outputs too, so an output takes more
    // than one piece only at a vector_width set by hand.
    Pieces pieces = piecesOf(elementType, width);
    std::string vector = vectorTypeName(elementType, pieces.width);
    for (int64_t piece = 0; piece < pieces.count; ++piece) {
      std::string name = emitter.fresh("vout");
      emitter.line(vector + " " + name + ";");
      for (int64_t j = 0; j < pieces.width; ++j)
        emitter.line(name + ".v[" + std::to_string(j) +
                     "] = " + stores[piece * pieces.width + j] + ";");
      emitter.line(
          "reinterpret_cast<" + vector + "*>(" + out + ")[" +
          pieceIndex("row * " + std::to_string(vectors) + " + " + lanes.vector,
                     pieces, piece) +
          "] = " + name + ";");
    }
  }
  return success();
}

} // namespace kiln::cuda
