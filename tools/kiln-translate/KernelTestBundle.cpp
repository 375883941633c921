// The kernel-test bundle writer: per case, tiled IR -> CUDA -> cubins, inputs
// drawn deterministically (never zero, both signs), expected outputs from the
// CPU evaluator on the original function, and a line-based manifest. A
// function with ranged dims (issue 18) is one case per shape of its
// `kiln.test_shapes`, all running the same kernels with their dims as
// parameters.
#include "KernelTestBundle.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Evaluator/Interpreter.h"
#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <map>
#include <random>

using namespace mlir;

namespace kiln {
namespace {

using eval::DType;
using eval::Tensor;

llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

llvm::Error writeFile(const std::string &path, llvm::StringRef bytes) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    return fail("cannot write " + path + ": " + error.message());
  os << bytes;
  return llvm::Error::success();
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  return llvm::join(
      llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }), "x");
}

/// The values of the ranged dims a case runs at (an entry of the function's
/// `kiln.test_shapes`), by name; empty for a static case.
using DimValues = std::map<std::string, int64_t>;

/// |value|'s shape in a case run at |dims|: its static dims, and each
/// run-time one its recorded expression (a function argument's
/// `kiln.dim_names`, an op's `kiln.dim_exprs`) at |dims|.
std::optional<std::vector<int64_t>> concreteShape(Value value,
                                                  const DimValues &dims) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return std::nullopt;
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  if (type.hasStaticShape())
    return shape;
  std::vector<std::optional<DimExpr>> extents = getRecordedExtents(value);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    std::optional<int64_t> size =
        d < int64_t(extents.size()) && extents[d]
            ? extents[d]->evaluate([&](llvm::StringRef name)
                                       -> std::optional<int64_t> {
                auto found = dims.find(name.str());
                if (found == dims.end())
                  return std::nullopt;
                return found->second;
              })
            : std::nullopt;
    if (!size || *size < 0)
      return std::nullopt;
    shape[d] = *size;
  }
  return shape;
}

/// Deterministic inputs: floats uniform in [lo, hi] (default [-2, 2]) with
/// |x| >= 1/8, integers in [lo, hi] (default [-8, 8] without 0), bools fair.
/// An argument's `kiln.test_range = [lo, hi]` overrides the range.
Tensor drawInput(func::FuncOp function, unsigned argument,
                 const std::string &caseName, std::vector<int64_t> shape) {
  auto type = cast<RankedTensorType>(function.getArgument(argument).getType());
  DType dtype = *eval::dtypeFromMlir(type.getElementType());
  std::mt19937_64 random(llvm::xxh3_64bits(caseName) + 7919 * argument);
  double low = -2, high = 2;
  bool explicitRange = false;
  if (auto range =
          function.getArgAttrOfType<ArrayAttr>(argument, "kiln.test_range"))
    if (range.size() == 2) {
      auto number = [](Attribute attr) {
        if (auto f = dyn_cast<FloatAttr>(attr))
          return f.getValueAsDouble();
        return static_cast<double>(cast<IntegerAttr>(attr).getInt());
      };
      low = number(range[0]);
      high = number(range[1]);
      explicitRange = true;
    }
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  if (eval::isFloat(dtype)) {
    std::uniform_real_distribution<double> uniform(low, high);
    std::vector<double> values(count);
    for (double &value : values) {
      do
        value = uniform(random);
      while (std::abs(value) < 0.125 && (low < -0.125 || high > 0.125));
    }
    return Tensor::fromDoubles(dtype, shape, values);
  }
  if (!explicitRange) {
    low = dtype == DType::Bool ? 0 : (eval::isUnsigned(dtype) ? 1 : -8);
    high = dtype == DType::Bool ? 1 : 8;
  }
  std::uniform_int_distribution<int64_t> uniform(static_cast<int64_t>(low),
                                                 static_cast<int64_t>(high));
  std::vector<int64_t> values(count);
  for (int64_t &value : values) {
    do
      value = uniform(random);
    while (value == 0 && !explicitRange && dtype != DType::Bool);
  }
  return Tensor::fromInts(dtype, shape, values);
}

bool isView(Operation *op) {
  return isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, IdentityOp>(op);
}

/// Writes one case; |tiled| is the function whose kernels run on the GPU.
/// |dims|: the ranged dims' values the case runs at (empty: static).
llvm::Error writeCase(func::FuncOp original, func::FuncOp tiled,
                      const std::string &caseName, const std::string &dir,
                      const BundleOptions &options, const DimValues &dims,
                      llvm::raw_ostream &log) {
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return fail("cannot create " + dir + ": " + error.message());
  std::string manifest = "kiln-kernel-test 1\ncase " + caseName + "\n";
  auto finish = [&]() { return writeFile(dir + "/manifest.txt", manifest); };

  // Library kernels (cuBLASLt) cannot run here.
  std::string library;
  tiled.walk([&](KernelOp kernel) {
    if (kernel.getKind() == KernelKind::Library && library.empty())
      library = kernel.getSymName().str();
  });
  if (!library.empty()) {
    manifest += "skip library kernel '" + library +
                "' runs through cuBLASLt, which this harness does not link\n";
    log << "kernel-test-bundle: skipped case " << caseName
        << ": library kernel '" << library << "'\n";
    return finish();
  }

  std::vector<Tensor> inputs;
  for (unsigned a = 0; a < original.getNumArguments(); ++a) {
    std::optional<std::vector<int64_t>> shape =
        concreteShape(original.getArgument(a), dims);
    if (!shape)
      return fail("case " + caseName + ": argument " + std::to_string(a) +
                  " has a run-time dim that no `kiln.test_shapes` entry "
                  "(and `kiln.dim_names`) gives a size");
    inputs.push_back(drawInput(original, a, caseName, *shape));
  }
  llvm::Expected<std::vector<Tensor>> expected =
      eval::interpretFunction(original, inputs);
  if (!expected)
    return fail("case " + caseName + ": the CPU evaluator failed: " +
                llvm::toString(expected.takeError()));

  FailureOr<CUDAModule> cuda = emitCUDAModule(tiled);
  if (failed(cuda))
    return fail("case " + caseName + ": CUDA emission failed (see above)");
  llvm::Expected<NVRTCResult> compiled =
      compileWithNVRTC(cuda->kernels, options.nvrtc);
  if (!compiled)
    return fail("case " + caseName + ": " +
                llvm::toString(compiled.takeError()));

  if (auto tolerance = tiled->getAttrOfType<ArrayAttr>("kiln.test_tolerance"))
    if (tolerance.size() == 2)
      // 17 digits: std::to_string's six decimals wrote an atol of 1e-7 as 0.
      manifest += llvm::formatv(
          "tolerance {0:e16} {1:e16}\n",
          cast<FloatAttr>(tolerance[0]).getValueAsDouble(),
          cast<FloatAttr>(tolerance[1]).getValueAsDouble());

  llvm::DenseMap<Value, int> bufferOf;
  int buffers = 0;
  auto addBuffer = [&](Value value, const std::string &init) -> llvm::Error {
    auto type = cast<RankedTensorType>(value.getType());
    std::optional<DType> dtype = eval::dtypeFromMlir(type.getElementType());
    std::optional<std::vector<int64_t>> shape = concreteShape(value, dims);
    if (!dtype || !shape)
      return fail("case " + caseName + ": buffer of unsupported type");
    int64_t bytes = eval::byteWidth(*dtype);
    for (int64_t size : *shape)
      bytes *= size;
    manifest += "buffer " + std::to_string(buffers) + " " +
                eval::dtypeName(*dtype) + " " + shapeText(*shape) +
                " " + std::to_string(bytes) + " " + init + "\n";
    bufferOf[value] = buffers++;
    return llvm::Error::success();
  };
  for (auto [a, argument] : llvm::enumerate(tiled.getArguments())) {
    std::string file = "input" + std::to_string(a) + ".bin";
    std::vector<char> bytes = inputs[a].toBytes();
    if (llvm::Error error = writeFile(
            dir + "/" + file, llvm::StringRef(bytes.data(), bytes.size())))
      return error;
    if (llvm::Error error = addBuffer(argument, "file:" + file))
      return error;
  }
  // The CUDA sources go along for debugging on the GPU machine (and for the
  // host emulation in runtime/kernel-test/emulation).
  for (const EmittedKernel &kernel : cuda->kernels)
    if (llvm::Error error =
            writeFile(dir + "/" + kernel.name + ".cu", kernel.source))
      return error;
  // A kernel's cubin is its NVRTC program's, which holds its symbol.
  for (const EmittedKernel &kernel : cuda->kernels)
    for (const auto &[arch, cubin] :
         compiled->programOf(&kernel - cuda->kernels.data()).cubins) {
      std::string file = kernel.name + "." + arch + ".cubin";
      if (llvm::Error error = writeFile(dir + "/" + file, cubin))
        return error;
      manifest += "kernel " + kernel.name + " " + arch + " " + file + "\n";
    }

  size_t launchIndex = 0, constants = 0;
  std::map<int, std::pair<int, int64_t>> viewBase; // Slice views: (of, at).
  for (Operation &op : tiled.front()) {
    if (isa<EmptyOp>(op)) {
      if (llvm::Error error = addBuffer(op.getResult(0), "poison"))
        return error;
    } else if (auto constant = dyn_cast<ConstantOp>(op)) {
      llvm::Expected<Tensor> value = eval::tensorFromAttr(constant.getValue());
      if (!value)
        return fail("case " + caseName + ": " +
                    llvm::toString(value.takeError()));
      std::string file = "constant" + std::to_string(constants++) + ".bin";
      std::vector<char> bytes = value->toBytes();
      if (llvm::Error error = writeFile(
              dir + "/" + file, llvm::StringRef(bytes.data(), bytes.size())))
        return error;
      if (llvm::Error error = addBuffer(op.getResult(0), "file:" + file))
        return error;
    } else if (isa<SliceOp>(op) && isViewOp(&op)) {
      // A slice view (kiln's alias at a byte offset): a buffer that points
      // into the one it views, at the offsets of its chain added up.
      int source = bufferOf.lookup(op.getOperand(0));
      int64_t offset = *getViewByteOffset(&op);
      if (auto base = viewBase.find(source); base != viewBase.end()) {
        source = base->second.first;
        offset += base->second.second;
      }
      viewBase[buffers] = {source, offset};
      if (llvm::Error error =
              addBuffer(op.getResult(0), "view:" + std::to_string(source) +
                                             ":" + std::to_string(offset)))
        return error;
    } else if (isView(&op)) {
      bufferOf[op.getResult(0)] = bufferOf.lookup(op.getOperand(0));
    } else if (auto kernel = dyn_cast<KernelOp>(op)) {
      const KernelLaunch &launch = cuda->launches[launchIndex++];
      // With run-time extents, as the runtime launches it: min(ceil(count /
      // units per block), the recorded grid) blocks, the dims as parameters.
      int64_t grid = launch.grid;
      std::string dimArguments;
      std::vector<std::string> parameters = getKernelDimParameters(kernel);
      if (!parameters.empty()) {
        auto valueOf = [&](llvm::StringRef name) -> std::optional<int64_t> {
          auto found = dims.find(name.str());
          if (found == dims.end())
            return std::nullopt;
          return found->second;
        };
        auto count = kernel->getAttrOfType<StringAttr>(kElementCountAttrName);
        std::optional<DimExpr> expression =
            count ? DimExpr::parse(count.getValue()) : std::nullopt;
        std::optional<int64_t> elements =
            expression ? expression->evaluate(valueOf) : std::nullopt;
        int64_t units = launchUnitsPerBlock(kernel);
        if (!elements || units <= 0)
          return fail("case " + caseName + ": kernel '" +
                      kernel.getSymName().str() +
                      "' has run-time extents but no element count at this "
                      "shape");
        grid = std::clamp<int64_t>((*elements + units - 1) / units, 1, grid);
        dimArguments = " dims";
        for (const std::string &name : parameters) {
          std::optional<int64_t> value = valueOf(name);
          if (!value)
            return fail("case " + caseName + ": no value for dim '" + name +
                        "' in its `kiln.test_shapes` entry");
          dimArguments += " " + std::to_string(*value);
        }
      }
      std::string line = "launch " + cuda->kernels[launch.kernel].name + " " +
                         std::to_string(grid) + " " +
                         std::to_string(launch.block) + " " +
                         std::to_string(launch.dynamicSharedBytes);
      for (Value operand : kernel->getOperands()) {
        if (!bufferOf.count(operand))
          return fail("case " + caseName + ": kernel '" +
                      kernel.getSymName().str() +
                      "' reads a value with no buffer");
        line += " " + std::to_string(bufferOf[operand]);
      }
      line += dimArguments;
      manifest += line + "  # " + kernel.getSymName().str() + "\n";
      for (auto [result, output] :
           llvm::zip(kernel.getResults(), kernel.getOutputs()))
        bufferOf[result] = bufferOf[output];
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [r, value] : llvm::enumerate(ret.getOperands())) {
        std::string file = "expected" + std::to_string(r) + ".bin";
        std::vector<char> bytes = (*expected)[r].toBytes();
        if (llvm::Error error = writeFile(
                dir + "/" + file, llvm::StringRef(bytes.data(), bytes.size())))
          return error;
        manifest += "check " + std::to_string(bufferOf.lookup(value)) + " " +
                    eval::dtypeName((*expected)[r].dtype()) + " " +
                    std::to_string((*expected)[r].numElements()) + " " + file +
                    "\n";
      }
    } else {
      return fail("case " + caseName + ": '" +
                  op.getName().getStringRef().str() +
                  "' outside a kernel is not supported by the kernel-test "
                  "harness");
    }
  }
  log << "kernel-test-bundle: wrote case " << caseName << " ("
      << cuda->kernels.size() << " kernels, " << cuda->launches.size()
      << " launches)\n";
  return finish();
}

} // namespace

llvm::Error writeKernelTestBundle(ModuleOp module, llvm::StringRef stem,
                                  llvm::StringRef directory,
                                  const BundleOptions &options,
                                  llvm::raw_ostream &log) {
  SmallVector<func::FuncOp> functions;
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal())
      functions.push_back(function);
  for (func::FuncOp function : functions) {
    std::string caseName = stem.str();
    if (functions.size() > 1)
      caseName += "." + function.getSymName().str();

    // A ranged function runs at each entry of its `kiln.test_shapes`
    // (`[{batch = 2, seq = 77}, ...]`), a case of its own named after it.
    std::vector<std::pair<std::string, DimValues>> shapes;
    if (auto entries =
            function->getAttrOfType<ArrayAttr>("kiln.test_shapes")) {
      for (Attribute entry : entries) {
        auto dictionary = dyn_cast<DictionaryAttr>(entry);
        if (!dictionary || dictionary.empty())
          return fail("case " + caseName +
                      ": `kiln.test_shapes` entries are dictionaries of dim "
                      "sizes ({batch = 2, seq = 77})");
        DimValues values;
        std::string suffix;
        for (NamedAttribute dim : dictionary) {
          auto size = dyn_cast<IntegerAttr>(dim.getValue());
          if (!size)
            return fail("case " + caseName + ": dim '" +
                        dim.getName().str() + "' of `kiln.test_shapes` is "
                        "not an integer");
          values[dim.getName().str()] = size.getInt();
          suffix += (suffix.empty() ? "" : "_") + dim.getName().str() +
                    std::to_string(size.getInt());
        }
        shapes.emplace_back(caseName + "." + suffix, values);
      }
    } else {
      shapes.emplace_back(caseName, DimValues());
    }

    bool hasKernels = false;
    function.walk([&](KernelOp) { hasKernels = true; });
    OwningOpRef<ModuleOp> prepared;
    func::FuncOp tiled = function;
    if (!hasKernels) {
      if (!options.prepare)
        return fail("case " + caseName +
                    " has no kiln.kernel ops and this build has no kernel "
                    "pipeline (kiln-fuse-kernels, kiln-tile-kernels) to make "
                    "them; write hand-tiled kernels");
      prepared = ModuleOp::create(function.getLoc());
      IRMapping mapping;
      prepared->push_back(function->clone(mapping));
      if (failed(options.prepare(*prepared)))
        return fail("case " + caseName + ": the kernel pipeline failed");
      tiled = *prepared->getOps<func::FuncOp>().begin();
    }
    for (const auto &[name, dims] : shapes)
      if (llvm::Error error = writeCase(function, tiled, name,
                                        (directory + "/" + name).str(),
                                        options, dims, log))
        return error;
  }
  return llvm::Error::success();
}

} // namespace kiln
