// The kernel-test bundle writer: per case, tiled IR -> CUDA -> cubins, inputs
// drawn deterministically (never zero, both signs), expected outputs from the
// CPU evaluator on the original function, and a line-based manifest.
#include "KernelTestBundle.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Evaluator/Interpreter.h"
#include "kiln/Target/CUDA/CUDAEmitter.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

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

/// Deterministic inputs: floats uniform in [lo, hi] (default [-2, 2]) with
/// |x| >= 1/8, integers in [lo, hi] (default [-8, 8] without 0), bools fair.
/// An argument's `kiln.test_range = [lo, hi]` overrides the range.
Tensor drawInput(func::FuncOp function, unsigned argument,
                 const std::string &caseName) {
  auto type = cast<RankedTensorType>(function.getArgument(argument).getType());
  DType dtype = *eval::dtypeFromMlir(type.getElementType());
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
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
  int64_t count = type.getNumElements();
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
llvm::Error writeCase(func::FuncOp original, func::FuncOp tiled,
                      const std::string &caseName, const std::string &dir,
                      const BundleOptions &options, llvm::raw_ostream &log) {
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
  for (unsigned a = 0; a < original.getNumArguments(); ++a)
    inputs.push_back(drawInput(original, a, caseName));
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
      manifest +=
          "tolerance " +
          std::to_string(cast<FloatAttr>(tolerance[0]).getValueAsDouble()) +
          " " +
          std::to_string(cast<FloatAttr>(tolerance[1]).getValueAsDouble()) +
          "\n";

  llvm::DenseMap<Value, int> bufferOf;
  int buffers = 0;
  auto addBuffer = [&](Value value, const std::string &init) -> llvm::Error {
    auto type = cast<RankedTensorType>(value.getType());
    std::optional<DType> dtype = eval::dtypeFromMlir(type.getElementType());
    if (!dtype || !type.hasStaticShape())
      return fail("case " + caseName + ": buffer of unsupported type");
    int64_t bytes = type.getNumElements() * eval::byteWidth(*dtype);
    manifest += "buffer " + std::to_string(buffers) + " " +
                eval::dtypeName(*dtype) + " " + shapeText(type.getShape()) +
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
    } else if (isView(&op)) {
      bufferOf[op.getResult(0)] = bufferOf.lookup(op.getOperand(0));
    } else if (auto kernel = dyn_cast<KernelOp>(op)) {
      const KernelLaunch &launch = cuda->launches[launchIndex++];
      std::string line = "launch " + cuda->kernels[launch.kernel].name + " " +
                         std::to_string(launch.grid) + " " +
                         std::to_string(launch.block) + " " +
                         std::to_string(launch.dynamicSharedBytes);
      for (Value operand : kernel->getOperands()) {
        if (!bufferOf.count(operand))
          return fail("case " + caseName + ": kernel '" +
                      kernel.getSymName().str() +
                      "' reads a value with no buffer");
        line += " " + std::to_string(bufferOf[operand]);
      }
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
    std::string dir = (directory + "/" + caseName).str();

    bool hasKernels = false;
    function.walk([&](KernelOp) { hasKernels = true; });
    if (hasKernels) {
      if (llvm::Error error =
              writeCase(function, function, caseName, dir, options, log))
        return error;
      continue;
    }
    if (!options.prepare)
      return fail("case " + caseName +
                  " has no kiln.kernel ops and this build has no kernel "
                  "pipeline (kiln-fuse-kernels, kiln-tile-kernels) to make "
                  "them; write hand-tiled kernels");
    OwningOpRef<ModuleOp> prepared = ModuleOp::create(function.getLoc());
    IRMapping mapping;
    prepared->push_back(function->clone(mapping));
    if (failed(options.prepare(*prepared)))
      return fail("case " + caseName + ": the kernel pipeline failed");
    auto tiled = *prepared->getOps<func::FuncOp>().begin();
    if (llvm::Error error =
            writeCase(function, tiled, caseName, dir, options, log))
      return error;
  }
  return llvm::Error::success();
}

} // namespace kiln
