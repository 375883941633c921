// The loop template (pointwise and data_movement kernels): a grid-stride loop
// over units of `vector_width` consecutive elements (one element, or one
// vector of at most 16 bytes per tensor, read and written with one aligned
// access), each thread taking `elements_per_thread` units per step,
// blockDim.x units apart, so that a warp's accesses are contiguous.
//
// Steps of the emitted loop:
//  1. Whole steps: a thread's units are all in range, so every vector (or
//     element) load of the inputs read at the unit's own index is issued
//     first, then the elements are computed and stored a unit at a time.
//  2. The last, partial step: the thread's remaining units one at a time.
//  3. The tail: the count % vector_width elements that fill no vector, one
//     element per thread with scalar loads and stores.
// An input is loaded by unit only where it has the output's element count
// and is read at the lane's own linear index (the text of the index says
// so: elementwise ops on one shape and views pass it through), or is a
// broadcast that keeps the innermost dim (a bias row, a squeeze-excite
// scale [N, 1, 1, C] over [N, H, W, C]) read at the lane's index broadcast
// to it: a unit's lanes are then one vector of it. A concat of inputs along
// the innermost dim (a channel concat) whose pieces are whole vectors is
// loaded a vector per unit from the piece that holds it. Every other read
// (other broadcasts, a scalar, a gather) stays a scalar load, except an
// input read through data movement that keeps the innermost dim's runs (a
// transpose keeping it last, pads, slices and concats of other dims), which
// is a path vector: each unit's first lane loads it whole where it reads its
// element, and the other lanes read theirs from that vector (pathLoad).
// Which kernels get vectors is kiln-tile-kernels' choice (`vector_width`).
//
// Alignment: vector accesses reinterpret the kernel's pointers as 16-byte
// vectors without checking them at run time, because every pointer a kernel
// receives is proven 16-byte aligned: activation and weight buffers sit at
// 256-byte-aligned arena offsets (kiln-plan-memory, the packager), views
// outside kernels (reshape, squeeze...) keep their buffer's start, staging
// buffers come from cudaMalloc, and kiln_session_bind rejects a device
// pointer that is not 16-byte aligned (runtime/src/session.cpp). The
// kernel-test runner binds cudaMalloc'd buffers.
#include "KernelTemplates.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"

#include <cctype>
#include <map>

using namespace mlir;

namespace kiln::cuda {

namespace {

/// Emits the loads, computation and stores of units (`width` consecutive
/// elements each) whose unit indices are variables named in |units|.
class UnitEmitter {
public:
  UnitEmitter(ElementalEmitter &emitter, int64_t count, int64_t width)
      : emitter(emitter), kernel(emitter.getKernel()), count(count),
        width(width) {
    outputShape = indexedShapeOf(kernel.getOutputs()[0]);
    rowLength = outputShape.empty() ? 1 : outputShape.back();
  }

  /// Whether |input| has the output's element count: equal static counts,
  /// or with a run-time extent the output's shape (whose one run-time
  /// extent is the output's, by the contract).
  bool hasOutputCount(Value input) const {
    int64_t elements = elementCount(indexedShapeOf(input));
    if (elements != ShapedType::kDynamic && count != ShapedType::kDynamic)
      return elements == count;
    return indexedShapeOf(input) == outputShape;
  }

  /// Whether |input| is a broadcast read by vectors: one that keeps the
  /// output's innermost dim (a bias row, a squeeze-excite scale [N, 1, 1,
  /// C] over [N, H, W, C]), which is a whole number of vectors, and not of
  /// the output's element count.
  bool isVectorBroadcast(Value input) const {
    return width > 1 && !hasOutputCount(input) &&
           keepsInnermostDim(indexedShapeOf(input), outputShape) &&
           rowLength % width == 0;
  }

  /// The kernel's inputs and op results that are row broadcasts of the
  /// output whose run the width divides (rowBroadcastRun).
  SmallVector<Value> rowBroadcastValues() {
    SmallVector<Value> values;
    auto add = [&](Value value) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      int64_t run = type ? rowBroadcastRun(type.getShape(), outputShape) : 0;
      if (run && run % width == 0 && elementCount(type.getShape()) > 1)
        values.push_back(value);
    };
    Block &body = kernel.getBody().front();
    for (BlockArgument argument :
         body.getArguments().take_front(kernel.getInputs().size()))
      add(argument);
    for (Operation &op : body.without_terminator())
      if (!isa<ConstantOp>(op) && op.getNumResults() == 1)
        add(op.getResult(0));
    return values;
  }

  /// The concats loaded by vectors (isVectorConcat) of the output's
  /// element count.
  SmallVector<ConcatOp> vectorConcats() {
    SmallVector<ConcatOp> concats;
    kernel.getBody().walk([&](ConcatOp concat) {
      if (isVectorConcat(kernel, concat, width) &&
          hasOutputCount(concat.getOutput()))
        concats.push_back(concat);
    });
    return concats;
  }

  /// |shape| with its innermost dim counted in vectors.
  SmallVector<int64_t> inVectors(ArrayRef<int64_t> shape) const {
    SmallVector<int64_t> vectors(shape);
    vectors.back() /= width;
    return vectors;
  }

  /// The vector of broadcast |input| that unit |unit| reads: its index in
  /// vectors broadcast to |input| in vectors (both innermost dims counted
  /// in vectors, which divide them).
  std::string broadcastVector(Value input, const std::string &unit) const {
    SmallVector<int64_t> inputVectors = inVectors(indexedShapeOf(input));
    return emitter.linearOf(
        emitter.broadcastIndex(ElementIndex::fromLinear(unit),
                               inVectors(outputShape), inputVectors),
        inputVectors);
  }

  /// The index at which the elemental models read broadcast |input| for
  /// the output element at linear index |lane| (ElementwiseModels'
  /// broadcast index, spelled by the same helpers), as the load override
  /// sees it.
  std::string broadcastLinear(Value input, const std::string &lane) const {
    return emitter.linearOf(
        emitter.broadcastIndex(ElementIndex::fromLinear(lane), outputShape,
                               indexedShapeOf(input)),
        indexedShapeOf(input));
  }

  LogicalResult emitUnits(ArrayRef<std::string> units) {
    // The linear index of each element of each unit, as the text loads and
    // index arithmetic see: expressions, not variables, since vector loads
    // leave most of them unused.
    std::vector<std::vector<std::string>> lanes;
    for (const std::string &unit : units) {
      lanes.emplace_back();
      for (int64_t lane = 0; lane < width; ++lane)
        lanes.back().push_back(
            width == 1 ? unit
                       : "(" + unit + " * " + std::to_string(width) +
                             (lane ? " + " + std::to_string(lane) : "") + ")");
    }
    // Every load by unit first (a load the body turns out not to use is dead
    // code to the CUDA compiler): scalar loads as values of the computation
    // type, vectors as they are in memory.
    std::vector<unsigned> loaded, broadcastLoaded;
    Block &body = kernel.getBody().front();
    for (auto [number, input] : llvm::enumerate(kernel.getInputs())) {
      // A broadcast keeping the innermost dim: unit u's vector is the
      // broadcast's vector at u's index in vectors broadcast to it, since
      // the innermost dim is whole vectors (a row [C]: u % (C / width)).
      bool isBroadcast = isVectorBroadcast(input);
      if (!hasOutputCount(input) && !isBroadcast)
        continue;
      (isBroadcast ? broadcastLoaded : loaded).push_back(number);
      std::string pointer = emitter.pointerName(number);
      for (auto [u, unit] : llvm::enumerate(units)) {
        if (width == 1) {
          if (failed(emitter.emit(body.getArgument(number),
                                  ElementIndex::fromLinear(unit))))
            return failure();
          continue;
        }
        std::string at = isBroadcast ? broadcastVector(input, unit) : unit;
        std::string type = vectorTypeName(elementTypeOf(input), width);
        emitter.line("const " + type + " " + vectorName(number, u) +
                     " = reinterpret_cast<const " + type + "*>(" + pointer +
                     ")[" + at + "];");
      }
    }
    if (width == 1)
      return emitAllStores(units, lanes);
    llvm::StringMap<std::string> firstLanes;
    for (const std::vector<std::string> &unitLanes : lanes)
      for (const std::string &lane : ArrayRef(unitLanes).drop_front())
        firstLanes[lane] = unitLanes[0];
    emitter.setVectorLanes(std::move(firstLanes), width);
    auto clearLanes = llvm::make_scope_exit(
        [&] { emitter.setVectorLanes(llvm::StringMap<std::string>(), 1); });
    SmallVector<ConcatOp> concats = vectorConcats();
    for (auto [c, concat] : llvm::enumerate(concats))
      for (auto [u, unit] : llvm::enumerate(units))
        emitConcatVector(emitter, concat, width, unit, concatName(c, u));
    // Lanes of a loaded input read their vector's element. A broadcast's
    // lanes are read at the lane's index broadcast to it, as the elemental
    // models spell it; a read spelled otherwise (through a view, say) stays
    // a scalar load.
    std::map<unsigned, std::vector<std::vector<std::string>>> broadcastLanes;
    for (unsigned argument : broadcastLoaded)
      for (const std::vector<std::string> &unitLanes : lanes) {
        broadcastLanes[argument].emplace_back();
        for (const std::string &lane : unitLanes)
          broadcastLanes[argument].back().push_back(
              broadcastLinear(kernel.getInputs()[argument], lane));
      }
    auto unitLoad =
        [&](unsigned argument,
            const ElementIndex &index) -> std::optional<std::string> {
      auto broadcast = broadcastLanes.find(argument);
      bool isBroadcast = broadcast != broadcastLanes.end();
      if (!isBroadcast && !llvm::is_contained(loaded, argument))
        return std::nullopt;
      std::string at = index.linear;
      if (at.empty() && isBroadcast)
        at = emitter.linearOf(index,
                              indexedShapeOf(kernel.getInputs()[argument]));
      if (at.empty())
        return std::nullopt;
      for (auto [u, unitLanes] :
           llvm::enumerate(isBroadcast ? broadcast->second : lanes)) {
        auto lane = llvm::find(unitLanes, at);
        if (lane != unitLanes.end())
          return vectorName(argument, u) + ".v[" +
                 std::to_string(lane - unitLanes.begin()) + "]";
      }
      return std::nullopt;
    };
    pathInputs = pathVectorInputs();
    emitter.setLoadOverride(
        [&](unsigned argument,
            const ElementIndex &index) -> std::optional<std::string> {
          if (std::optional<std::string> load = unitLoad(argument, index))
            return load;
          return pathLoad(argument, index);
        });
    // A value broadcast along the output's innermost dims (rowBroadcastRun,
    // which the width divides: Swin-V2's L2 norms [.., 1] under [.., 32])
    // is one value per unit: each lane after the first reads the first's,
    // computed once (its reads, sqrt and clip), not once per lane.
    std::map<std::pair<const void *, std::string>, size_t> laterRowLanes;
    for (Value value : rowBroadcastValues())
      for (auto [u, unitLanes] : llvm::enumerate(lanes))
        for (const std::string &lane : ArrayRef(unitLanes).drop_front())
          laterRowLanes[{value.getAsOpaquePointer(),
                         broadcastLinear(value, lane)}] = u;
    // A vector concat's lanes, read at the lane's own index, are its
    // vector's elements; read elsewhere, the concat's elemental model
    // chooses the piece per element.
    emitter.setValueOverride(
        [&](Value value,
            const ElementIndex &index) -> std::optional<std::string> {
          if (!laterRowLanes.empty()) {
            std::string at =
                index.linear.empty()
                    ? emitter.linearOf(index, indexedShapeOf(value))
                    : index.linear;
            auto lane = laterRowLanes.find({value.getAsOpaquePointer(), at});
            if (lane != laterRowLanes.end()) {
              // The first lane's value, computed by its own model (its
              // index may spell as a later lane's does).
              FailureOr<std::string> first = emitter.emitOwnModel(
                  value, emitter.broadcastIndex(
                             ElementIndex::fromLinear(lanes[lane->second][0]),
                             outputShape, indexedShapeOf(value)));
              if (succeeded(first))
                return *first;
              return std::nullopt;
            }
          }
          auto concat = llvm::find_if(
              concats, [&](ConcatOp op) { return op.getOutput() == value; });
          if (concat == concats.end() || index.linear.empty())
            return std::nullopt;
          for (auto [u, unitLanes] : llvm::enumerate(lanes)) {
            auto lane = llvm::find(unitLanes, index.linear);
            if (lane != unitLanes.end())
              return ElementalEmitter::loadConversion(
                  elementTypeOf(value),
                  concatName(concat - concats.begin(), u) + ".v[" +
                      std::to_string(lane - unitLanes.begin()) + "]");
          }
          return std::nullopt;
        });
    LogicalResult result = emitAllStores(units, lanes);
    emitter.setLoadOverride(nullptr);
    emitter.setValueOverride(nullptr);
    return result;
  }

private:
  /// Path vectors: an input that is not read at the lane's own index or its
  /// broadcast but through data movement that keeps innermost runs (a
  /// transpose keeping the innermost dim, a pad or slice of other dims, a
  /// concat; kiln-tile-kernels admits only such kernels,
  /// innermostRunOfMovement) is still read as one vector per unit: a unit's
  /// lanes read |width| consecutive elements of it from a multiple of |width|.
  /// Lane 0 loads the vector where it reads its element (in the same branch of
  /// a pad or concat, which the other lanes take too: their conditions are on
  /// other dims), and lane l's n-th read of the input is element l of lane 0's
  /// n-th, when its index is lane 0's with l's own index in place of lane
  /// 0's (variables the index arithmetic declared aside); otherwise it stays
  /// a scalar load.
  struct PathRead {
    unsigned argument;
    std::string at;
    std::string name;
  };

  /// Whether operand |number| of |user| is read by runs: W consecutive
  /// elements of |user|'s result, the first at a multiple of W, read W
  /// consecutive elements of it, the first at a multiple of W (W the width).
  /// Elementwise ops with NumPy broadcasting read an operand of their shape
  /// or a broadcast keeping the innermost dim so (not a scalar or a row
  /// statistic, whose lanes share an element, nor BatchNorm's or
  /// (de)quantisation's per-channel parameters, which are read at a
  /// channel); views do (the linear order); data movement that keeps the
  /// innermost dim's runs does (innermostRunOfMovement) when the width
  /// divides them.
  bool readsByRuns(Operation *user, unsigned number) const {
    if (user->getNumResults() != 1)
      return false;
    ArrayRef<int64_t> operand = indexedShapeOf(user->getOperand(number));
    ArrayRef<int64_t> result = indexedShapeOf(user->getResult(0));
    if (isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(user))
      return number == 0;
    if (std::optional<int64_t> run = innermostRunOfMovement(*user))
      return (number == 0 || isa<ConcatOp>(user)) && *run && *run % width == 0;
    if (isa<ExpandOp>(user))
      return number == 0 && keepsInnermostDim(operand, result);
    if (classifyForFusion(user) != FusionClass::Pointwise ||
        isa<BatchNormOp, QuantizeLinearOp, DequantizeLinearOp>(user))
      return false;
    return operand == result || keepsInnermostDim(operand, result);
  }

  /// The kernel's values (and inputs) every read of which is by runs, from
  /// the outputs up: those of a yield, and those each of whose users reads
  /// them by runs (readsByRuns) into such a value.
  llvm::DenseSet<Value> valuesReadByRuns() {
    llvm::DenseSet<Value> byRuns;
    auto allReadsByRuns = [&](Value value) {
      if (value.use_empty())
        return false;
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (isa<YieldOp>(user))
          continue;
        if (user->getNumResults() != 1 ||
            !byRuns.contains(user->getResult(0)) ||
            !readsByRuns(user, use.getOperandNumber()))
          return false;
      }
      return true;
    };
    Block &body = kernel.getBody().front();
    for (Operation &op : llvm::reverse(body.without_terminator()))
      if (op.getNumResults() == 1 && allReadsByRuns(op.getResult(0)))
        byRuns.insert(op.getResult(0));
    for (BlockArgument argument :
         body.getArguments().take_front(kernel.getInputs().size()))
      if (allReadsByRuns(argument))
        byRuns.insert(argument);
    return byRuns;
  }

  /// The inputs read as path vectors: read by runs only (valuesReadByRuns),
  /// more than one element, an innermost dim of whole vectors, vectors of
  /// at most 16 bytes.
  llvm::SmallDenseSet<unsigned> pathVectorInputs() {
    llvm::SmallDenseSet<unsigned> inputs;
    if (width == 1)
      return inputs;
    llvm::DenseSet<Value> byRuns = valuesReadByRuns();
    Block &body = kernel.getBody().front();
    for (auto [number, input] : llvm::enumerate(kernel.getInputs())) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
          type.getNumElements() <= 1 || type.getShape().back() % width ||
          !byRuns.contains(body.getArgument(number)) ||
          !fitsVector(type.getElementType(), width))
        continue;
      inputs.insert(number);
    }
    return inputs;
  }

  /// |index| with the lane's own index text and its unit's first lane's
  /// (which spells the dims all lanes share, setVectorLanes) as "@", and
  /// each variable the index arithmetic declared (a name ending in digits)
  /// as "#".
  static std::string indexShape(StringRef index, StringRef lane,
                                StringRef firstLane) {
    std::string replaced;
    for (size_t at = 0; at < index.size();) {
      StringRef rest = index.substr(at);
      if (rest.starts_with(lane) || rest.starts_with(firstLane)) {
        replaced += '@';
        at += rest.starts_with(lane) ? lane.size() : firstLane.size();
        continue;
      }
      char c = index[at];
      if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') {
        replaced += c;
        ++at;
        continue;
      }
      size_t end = at;
      while (end < index.size() &&
             (std::isalnum(static_cast<unsigned char>(index[end])) ||
              index[end] == '_'))
        ++end;
      StringRef name = index.slice(at, end);
      replaced += std::isdigit(static_cast<unsigned char>(name.back()))
                      ? StringRef("#")
                      : name;
      at = end;
    }
    return replaced;
  }

  std::optional<std::string> pathLoad(unsigned argument,
                                      const ElementIndex &index) {
    if (currentLane < 0 || !pathInputs.contains(argument))
      return std::nullopt;
    Value input = kernel.getInputs()[argument];
    std::string at = index.linear.empty()
                         ? emitter.linearOf(index, indexedShapeOf(input))
                         : index.linear;
    if (at.empty())
      return std::nullopt;
    if (currentLane == 0) {
      PathRead read{argument, at, emitter.fresh("vpath")};
      std::string type = vectorTypeName(elementTypeOf(input), width);
      pathReads.push_back(read);
      return "(" + read.name + " = reinterpret_cast<const " + type + "*>(" +
             emitter.pointerName(argument) + ")[(" + at + ") / " +
             std::to_string(width) + "]).v[0]";
    }
    size_t n = laneReads[argument]++;
    for (size_t r = firstPathRead; r < pathReads.size(); ++r) {
      const PathRead &read = pathReads[r];
      if (read.argument != argument || n-- != 0)
        continue;
      if (indexShape(at, unitLanes[currentLane], unitLanes[0]) !=
          indexShape(read.at, unitLanes[0], unitLanes[0]))
        return std::nullopt;
      return read.name + ".v[" + std::to_string(currentLane) + "]";
    }
    return std::nullopt;
  }

  static std::string vectorName(unsigned argument, size_t unit) {
    return "vin" + std::to_string(argument) + "_" + std::to_string(unit);
  }
  static std::string concatName(size_t concat, size_t unit) {
    return "vcat" + std::to_string(concat) + "_" + std::to_string(unit);
  }

  LogicalResult emitAllStores(ArrayRef<std::string> units,
                              ArrayRef<std::vector<std::string>> lanes) {
    for (auto [u, unit] : llvm::enumerate(units))
      if (failed(emitStores(unit, u, lanes[u])))
        return failure();
    return success();
  }

  LogicalResult emitStores(const std::string &unit, size_t u,
                           ArrayRef<std::string> lanes) {
    // Path vectors (pathLoad) are declared ahead of the unit's code, once
    // its first lanes have named them.
    size_t unitStart = emitter.mark();
    unitLanes = lanes;
    auto declarePathVectors = llvm::make_scope_exit([&] {
      std::vector<std::string> declarations;
      for (const PathRead &read : pathReads)
        declarations.push_back(
            vectorTypeName(elementTypeOf(kernel.getInputs()[read.argument]),
                           width) +
            " " + read.name + ";");
      emitter.insertLines(unitStart, declarations);
      pathReads.clear();
      unitLanes = {};
    });
    for (auto [k, value] : llvm::enumerate(kernel.getYield().getValues())) {
      Type type = elementTypeOf(value);
      std::string pointer = "out" + std::to_string(k);
      std::vector<std::string> results;
      firstPathRead = pathReads.size();
      for (auto [l, lane] : llvm::enumerate(lanes)) {
        currentLane = l;
        laneReads.clear();
        FailureOr<std::string> result =
            emitter.emit(value, ElementIndex::fromLinear(lane));
        if (failed(result))
          return failure();
        results.push_back(ElementalEmitter::storeConversion(type, *result));
      }
      currentLane = -1;
      if (width == 1) {
        emitter.line(pointer + "[" + unit + "] = " + results[0] + ";");
        continue;
      }
      std::string vector = vectorTypeName(type, width);
      std::string name = "vout" + std::to_string(k) + "_" + std::to_string(u);
      emitter.line(vector + " " + name + ";");
      for (auto [lane, result] : llvm::enumerate(results))
        emitter.line(name + ".v[" + std::to_string(lane) + "] = " + result +
                     ";");
      emitter.line("reinterpret_cast<" + vector + "*>(" + pointer + ")[" +
                   unit + "] = " + name + ";");
    }
    return success();
  }

  ElementalEmitter &emitter;
  KernelOp kernel;
  int64_t count, width, rowLength = 1;
  ArrayRef<int64_t> outputShape;
  /// Path vectors (pathLoad): the inputs read so, lane 0's reads of the unit
  /// being emitted (those of the current yield from firstPathRead), the
  /// lane being emitted (-1 outside stores), its reads of each input so far,
  /// and the unit's lane index texts.
  llvm::SmallDenseSet<unsigned> pathInputs;
  std::vector<PathRead> pathReads;
  size_t firstPathRead = 0;
  int64_t currentLane = -1;
  llvm::DenseMap<unsigned, size_t> laneReads;
  ArrayRef<std::string> unitLanes;
};

} // namespace

bool isVectorConcat(KernelOp kernel, ConcatOp concat, int64_t width) {
  int64_t pieces = innermostConcatOfInputs(kernel, concat);
  return width > 1 && pieces && pieces % width == 0 &&
         fitsVector(elementTypeOf(concat.getOutput()), width);
}

void emitConcatVector(ElementalEmitter &emitter, ConcatOp concat, int64_t width,
                      const std::string &unit, const std::string &name) {
  KernelOp kernel = emitter.getKernel();
  int64_t vectors = indexedShapeOf(concat.getOutput()).back() / width;
  std::string type = vectorTypeName(elementTypeOf(concat.getOutput()), width);
  std::string pixel = emitter.fresh("px"), channel = emitter.fresh("cv");
  emitter.line("const kiln_index_t " + pixel + " = " +
               (vectors == 1 ? unit : "(" + unit + " / " + str(vectors) + ")") +
               ";");
  emitter.line("const kiln_index_t " + channel + " = " +
               (vectors == 1 ? "0" : "(" + unit + " % " + str(vectors) + ")") +
               ";");
  emitter.line(type + " " + name + ";");
  int64_t first = 0;
  size_t pieces = concat.getInputs().size();
  for (auto [k, input] : llvm::enumerate(concat.getInputs())) {
    int64_t pieceVectors = indexedShapeOf(input).back() / width;
    std::string header = k + 1 == pieces ? ""
                                         : "if (" + channel + " < " +
                                               str(first + pieceVectors) + ")";
    if (k > 0)
      header = header.empty() ? "else" : "else " + header;
    emitter.open(header);
    unsigned number = *kernelInputNumber(kernel, input);
    std::string at =
        "(" + (pieceVectors == 1 ? pixel : pixel + " * " + str(pieceVectors)) +
        " + " + (first ? "(" + channel + " - " + str(first) + ")" : channel) +
        ")";
    emitter.line(name + " = reinterpret_cast<const " + type + "*>(" +
                 emitter.pointerName(number) + ")[" + at + "];");
    emitter.close();
    first += pieceVectors;
  }
}

int64_t storageBytes(Type elementType) {
  if (elementType.isInteger(1))
    return 1;
  return (elementType.getIntOrFloatBitWidth() + 7) / 8;
}

bool fitsVector(Type elementType, int64_t width) {
  return width * storageBytes(elementType) <= kVectorBytes;
}

std::string vectorTypeName(Type elementType, int64_t width) {
  return "kiln_vec<" + ElementalEmitter::storageType(elementType) + ", " +
         std::to_string(width) + ">";
}

int64_t unitGrid(KernelOp kernel, int64_t units, int64_t block) {
  int64_t needed = std::max<int64_t>((units + block - 1) / block, 1);
  return std::clamp<int64_t>(int64_t(kernel.getGridSize().value_or(needed)), 1,
                             needed);
}

std::string runTimeDimParameter(size_t i) {
  return "kiln_dim" + std::to_string(i);
}

std::string RunTimeCount::code() const {
  return count.formatAsCode([&](StringRef name) {
    return runTimeDimParameter(llvm::find(dims, name.str()) - dims.begin());
  });
}

FailureOr<std::optional<RunTimeCount>> getRunTimeCount(KernelOp kernel) {
  auto text = kernel->getAttrOfType<StringAttr>(kElementCountAttrName);
  bool dynamic = llvm::any_of(kernel->getOperandTypes(), [](Type type) {
    return !cast<ShapedType>(type).hasStaticShape();
  });
  if (!text && !dynamic)
    return std::optional<RunTimeCount>();
  std::optional<DimExpr> count =
      text ? DimExpr::parse(text.getValue()) : std::nullopt;
  if (!count || !takesRunTimeExtents(kernel.getKind()))
    return kernel.emitError("CUDA emitter: kernel '")
           << kernel.getSymName() << "' has run-time extents but "
           << (takesRunTimeExtents(kernel.getKind())
                   ? "no readable " + kElementCountAttrName.str() +
                         " (run kiln-tile-kernels first)"
                   : "its kind takes none");
  RunTimeCount runTime{*count, getKernelDimParameters(kernel)};
  return std::optional<RunTimeCount>(std::move(runTime));
}

LogicalResult emitLoopKernel(ElementalEmitter &emitter,
                             LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  // The channels-last window variant goes a vector of channels per thread
  // (a column reduction: per block), by its window op.
  KernelVariant variant = *getKernelVariant(kernel);
  if (variant == KernelVariant::ChannelsLastPool) {
    std::optional<int64_t> blockSize;
    if (std::optional<uint64_t> block = kernel.getBlockSize())
      blockSize = int64_t(*block);
    std::string unmet = unmetVariantPrecondition(
        kernel, KernelVariant::ChannelsLastPool, blockSize);
    if (!unmet.empty())
      return emitter.error(nullptr)
             << "cannot run its variant 'channels_last_pool': " << unmet;
    std::optional<ChannelsLastWindow> window = getChannelsLastWindow(kernel);
    if (!kernel.getVectorWidth() ||
        (window->kind == ChannelsLastWindowKind::ColumnReduction && !blockSize))
      return emitter.error(nullptr)
             << "has no vector_width (the channels a thread takes) or, for a "
                "column reduction, block_size; run kiln-tile-kernels";
    switch (window->kind) {
    case ChannelsLastWindowKind::Pool:
      return emitChannelsLastPoolKernel(emitter, launch);
    case ChannelsLastWindowKind::DepthwiseConv:
      return emitDepthwiseConvKernel(emitter, launch);
    case ChannelsLastWindowKind::ColumnReduction:
      return emitColumnReductionKernel(emitter, launch);
    }
  }
  if (variant != KernelVariant::Loop)
    return emitter.error(nullptr) << "records variant '"
                                  << stringifyKernelVariant(variant)
                                  << "', which no loop template runs";
  FailureOr<std::optional<RunTimeCount>> runTime = getRunTimeCount(kernel);
  if (failed(runTime))
    return failure();
  int64_t count = elementCount(indexedShapeOf(kernel.getOutputs()[0]));
  for (Value output : kernel.getOutputs())
    if (indexedShapeOf(output) != indexedShapeOf(kernel.getOutputs()[0]) &&
        elementCount(indexedShapeOf(output)) != count)
      return emitter.error(nullptr)
             << "has outputs of different element counts; the loop template "
                "writes all outputs at one linear index";
  int64_t perThread = int64_t(kernel.getElementsPerThread().value_or(1));
  int64_t width = int64_t(kernel.getVectorWidth().value_or(1));
  if (perThread < 1)
    return emitter.error(nullptr)
           << "elements_per_thread " << perThread << " is not positive";
  if (width < 1 || width > 16 || (width & (width - 1)) != 0)
    return emitter.error(nullptr)
           << "vector_width " << width << " is not a power of two <= 16";
  // Vectors hold at most 16 bytes (the alignment the pointers have).
  if (width > 1) {
    SmallVector<Value> accessed(kernel.getOutputs());
    ArrayRef<int64_t> outputShape = indexedShapeOf(kernel.getOutputs()[0]);
    for (Value input : kernel.getInputs())
      if (indexedShapeOf(input) == outputShape ||
          elementCount(indexedShapeOf(input)) == count ||
          keepsInnermostDim(indexedShapeOf(input), outputShape))
        accessed.push_back(input);
    kernel.getBody().walk([&](ConcatOp concat) {
      if (innermostConcatOfInputs(kernel, concat))
        accessed.push_back(concat.getOutput());
    });
    for (Value value : accessed)
      if (!fitsVector(elementTypeOf(value), width))
        return emitter.error(nullptr)
               << "vector_width " << width << " makes vectors of "
               << elementTypeOf(value) << " wider than " << kVectorBytes
               << " bytes";
  }

  std::string perThreadText = std::to_string(perThread);
  std::string what = width == 1 ? "element" : "vector";
  std::string stepText = "; " + perThreadText + " " + what +
                         (perThread == 1 ? "" : "s") +
                         " per thread and grid-stride step" +
                         (perThread == 1 ? "" : ", blockDim.x apart") + ".";
  int64_t units = 0, tail = 0;
  if (*runTime) {
    // The count is a multiple of the static trailing dims, which the vector
    // width divides (kiln-tile-kernels): whole vectors, no tail.
    const RunTimeCount &countAtRunTime = **runTime;
    auto output = cast<RankedTensorType>(kernel.getOutputs()[0].getType());
    int64_t trailing = 1;
    for (int64_t d = output.getRank() - 1; d >= 0 && !output.isDynamicDim(d);
         --d)
      trailing *= output.getDimSize(d);
    if (trailing % width)
      return emitter.error(nullptr)
             << "vector_width " << width
             << " does not divide its static trailing extent " << trailing
             << "; its run-time element count "
             << countAtRunTime.count.str() << " would leave a tail";
    std::string parameters;
    for (auto [i, dim] : llvm::enumerate(countAtRunTime.dims))
      parameters += (i ? ", " : "") + runTimeDimParameter(i) + " = " + dim;
    emitter.line("// " + countAtRunTime.count.str() + " elements (" +
                 parameters + ")" +
                 (width == 1 ? "" : " in vectors of " + std::to_string(width)) +
                 stepText);
    emitter.line("const kiln_index_t kiln_count = (kiln_index_t)(" +
                 countAtRunTime.code() +
                 (width == 1 ? "" : " / " + std::to_string(width)) + ");");
  } else {
    units = count / width;
    tail = count % width;
    emitter.line(
        "// " + std::to_string(count) + " elements" +
        (width == 1
             ? ""
             : " in " + std::to_string(units) + " vectors of " +
                   std::to_string(width) +
                   (tail ? " and a tail of " + std::to_string(tail) : "")) +
        stepText);
    emitter.line("const kiln_index_t kiln_count = " + std::to_string(units) +
                 ";");
  }
  UnitEmitter body(emitter, count, width);
  const std::string threads = "(kiln_index_t)blockDim.x";
  const std::string gridThreads = "(kiln_index_t)gridDim.x * blockDim.x";
  const std::string firstThread =
      "(kiln_index_t)blockIdx.x * blockDim.x + threadIdx.x";
  if (perThread == 1) {
    emitter.open("for (kiln_index_t i = " + firstThread +
                 "; i < kiln_count; i += " + gridThreads + ")");
    if (failed(body.emitUnits({"i"})))
      return failure();
    emitter.close();
  } else {
    emitter.line("kiln_index_t kiln_unit = (kiln_index_t)blockIdx.x * "
                 "blockDim.x * " +
                 perThreadText + " + threadIdx.x;");
    emitter.open("for (; kiln_unit + " + std::to_string(perThread - 1) + " * " +
                 threads + " < kiln_count; kiln_unit += " + gridThreads +
                 " * " + perThreadText + ")");
    std::vector<std::string> names;
    for (int64_t e = 0; e < perThread; ++e) {
      names.push_back("i" + std::to_string(e));
      emitter.line("const kiln_index_t " + names.back() + " = kiln_unit" +
                   (e == 0 ? "" : " + " + std::to_string(e) + " * " + threads) +
                   ";");
    }
    if (failed(body.emitUnits(names)))
      return failure();
    emitter.close();
    emitter.line("// The last, partial step: this thread's remaining " + what +
                 "s.");
    emitter.open("for (kiln_index_t i = kiln_unit; i < kiln_count; i += " +
                 threads + ")");
    if (failed(body.emitUnits({"i"})))
      return failure();
    emitter.close();
  }
  if (tail) {
    emitter.line("// The " + std::to_string(tail) +
                 " elements after the last whole vector.");
    emitter.open("for (kiln_index_t i = " + std::to_string(units * width) +
                 " + " + firstThread + "; i < " + std::to_string(count) +
                 "; i += " + gridThreads + ")");
    UnitEmitter scalar(emitter, count, 1);
    if (failed(scalar.emitUnits({"i"})))
      return failure();
    emitter.close();
  }

  launch.block = int64_t(kernel.getBlockSize().value_or(0));
  launch.grid = int64_t(kernel.getGridSize().value_or(0));
  return success();
}

} // namespace kiln::cuda
