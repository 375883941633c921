// kiln-interpret: runs an ONNX model (or kiln IR) on the CPU evaluator after
// import and graph simplification, and compares the outputs with expected
// tensors. Exit status: 0 all outputs match, 1 a mismatch, 2 a usage or
// file error, a model that does not import or inputs it rejects
// (tools/common/ExitCodes.h).
#include "ExitCodes.h"
#include "KernelNumerics.h"
#include "ModelLoading.h"
#include "StepComparison.h"
#include "ToolCommandLine.h"

#include "kiln/Dialect/Kiln/IR/Messages.h"
#include "kiln/Evaluator/Interpreter.h"
#include "kiln/Evaluator/ScalarSemantics.h"
#include "kiln/Evaluator/TensorIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace kiln;
using namespace kiln::eval;
namespace cl = llvm::cl;

namespace {

cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::desc("<model.onnx | kiln IR .mlir>"),
                               cl::cat(kiln::tools::kilnCategory()));
cl::opt<std::string>
    inputsFlag("inputs", cl::value_desc("DIR|FILE[,FILE...]"),
               cl::desc("Input tensors: a folder of input_N.pb/.npy files, "
                        "or a comma-separated list of .pb/.npy files"),
               cl::cat(kiln::tools::kilnCategory()));
cl::opt<std::string>
    expectFlag("expect", cl::value_desc("DIR|FILE[,FILE...]"),
               cl::desc("Expected outputs: a folder of output_N.pb/.npy "
                        "files, or a comma-separated list of files"),
               cl::cat(kiln::tools::kilnCategory()));
cl::opt<double>
    relativeTolerance("rtol", cl::init(1e-3),
                      cl::desc("Relative tolerance (numpy allclose)"),
                      cl::cat(kiln::tools::kilnCategory()));
cl::opt<double>
    absoluteTolerance("atol", cl::init(1e-7),
                      cl::desc("Absolute tolerance (numpy allclose)"),
                      cl::cat(kiln::tools::kilnCategory()));
cl::list<std::string>
    inputShapes("input-shape", cl::value_desc("name=2x128"),
                cl::desc("Specialise an input's (or a named dim's) shape; "
                         "repeatable, comma-separated as kiln-compile's"),
                cl::CommaSeparated, cl::cat(kiln::tools::kilnCategory()));
cl::opt<std::string> outputDir("output-dir", cl::value_desc("DIR"),
                               cl::desc("Write output_N.npy files here"),
                               cl::cat(kiln::tools::kilnCategory()));
cl::opt<bool> simplify("simplify", cl::init(true),
                       cl::desc("Fold constants and simplify before running "
                                "(--simplify=false runs the imported graph)"),
                       cl::cat(kiln::tools::kilnCategory()));
cl::opt<bool> printIR("print-ir",
                      cl::desc("Print the IR that is interpreted to stderr"),
                      cl::cat(kiln::tools::kilnCategory()));
cl::opt<bool> printValues("print-values",
                          cl::desc("Print every output's values"),
                          cl::cat(kiln::tools::kilnCategory()));
cl::opt<std::string>
    precision("precision", cl::init("fp32"),
              cl::desc("Compute precision, as kiln-compile's: fp32, tf32, "
                       "fp16 or bf16"),
              cl::cat(kiln::tools::kilnCategory()));
cl::opt<std::string> compareStepsFlag(
    "compare-steps", cl::value_desc("DIR"),
    cl::desc("Compile as kiln-compile does, evaluate each kernel on its own "
             "from the step dump in DIR (kiln-run --dump-steps) and report "
             "the first whose outputs diverge (exit 1); the inputs and, "
             "without --input-shape, the shapes come from the dump"),
    cl::cat(kiln::tools::kilnCategory()));
cl::opt<std::string> dumpStepsFlag(
    "dump-steps", cl::value_desc("DIR"),
    cl::desc("Compile as kiln-compile does and write every kernel's CPU "
             "outputs as a step dump, as kiln-run --dump-steps would"),
    cl::cat(kiln::tools::kilnCategory()));
cl::opt<bool> kernelNumerics(
    "kernel-numerics",
    cl::desc("Compile as kiln-compile does and evaluate each kernel as the "
             "CUDA templates compute it: in float inside the kernel, "
             "rounding to f16/bf16 only at its stores and casts (default: "
             "round after every op, the IR's semantics)"),
    cl::cat(kiln::tools::kilnCategory()));
cl::opt<double> stepTolerance(
    "step-rel-l2", cl::init(-1),
    cl::desc("--compare-steps: the rel-L2 a kernel's outputs may have "
             "(default by --precision: fp32 1e-5, tf32 and fp16 2e-3, bf16 "
             "1.6e-2)"),
    cl::cat(kiln::tools::kilnCategory()));

/// Prints |message| as an error and returns |status|: by default an input
/// the tool cannot take (a file, a model that does not import, tensors that
/// do not fit it or that the evaluator rejects).
int fail(const llvm::Twine &message,
         int status = kiln::tools::kExitUsageOrFileError) {
  llvm::errs() << "kiln-interpret: error: " << escapeNonPrintable(message.str())
               << "\n";
  return status;
}

/// Reads DIR (files <prefix>_N) or a comma-separated list of files.
llvm::Expected<std::vector<NamedTensor>> readTensors(llvm::StringRef spec,
                                                     llvm::StringRef prefix) {
  if (llvm::sys::fs::is_directory(spec))
    return readTensorDirectory(spec.str(), prefix.str());
  std::vector<NamedTensor> tensors;
  llvm::SmallVector<llvm::StringRef> files;
  spec.split(files, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef file : files) {
    llvm::Expected<NamedTensor> tensor = readTensorFile(file.trim().str());
    if (!tensor)
      return tensor.takeError();
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}

/// NumPy has no bfloat16, so ONNX's test data (and numpy-based tools) store
/// bfloat16 tensors as uint16 bit patterns. Where a bfloat16 tensor is
/// wanted and a uint16 one was given, reinterpret the bits.
Tensor adaptBFloat16Bits(Tensor tensor, std::optional<DType> wanted) {
  if (wanted != DType::BF16 || tensor.dtype() != DType::U16)
    return tensor;
  Tensor result(DType::BF16, std::vector<int64_t>(tensor.shape().begin(),
                                                  tensor.shape().end()));
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    result.floats()[i] =
        bfloat16BitsToDouble(static_cast<uint16_t>(tensor.ints()[i]));
  return result;
}

std::optional<DType> elementDType(mlir::Type type) {
  auto shaped = mlir::dyn_cast<mlir::ShapedType>(type);
  return shaped ? dtypeFromMlir(shaped.getElementType()) : std::nullopt;
}

/// "'x' (float32[4])": graph input |arg| for messages.
std::string describeInput(mlir::func::FuncOp function, unsigned arg) {
  auto name = function.getArgAttrOfType<mlir::StringAttr>(arg, "kiln.name");
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'"
     << (name ? name.getValue() : llvm::StringRef("#" + std::to_string(arg)))
     << "' (" << function.getArgument(arg).getType() << ")";
  return text;
}

/// Orders |tensors| as the function's arguments: tensors whose name matches an
/// argument's kiln.name bind to it, the others fill the remaining arguments
/// in order. A count mismatch names the inputs left without a tensor, or the
/// tensors left over.
llvm::Expected<std::vector<Tensor>>
bindInputs(mlir::func::FuncOp function, std::vector<NamedTensor> tensors) {
  unsigned count = function.getNumArguments();
  std::vector<std::optional<Tensor>> bound(count);
  std::vector<bool> used(tensors.size(), false);
  for (unsigned arg = 0; arg < count; ++arg) {
    auto name = function.getArgAttrOfType<mlir::StringAttr>(arg, "kiln.name");
    if (!name)
      continue;
    for (size_t i = 0; i < tensors.size(); ++i)
      if (!used[i] && !tensors[i].name.empty() &&
          tensors[i].name == name.getValue()) {
        bound[arg] = std::move(tensors[i].tensor);
        used[i] = true;
        break;
      }
  }
  size_t next = 0;
  for (unsigned arg = 0; arg < count; ++arg) {
    if (bound[arg])
      continue;
    while (next < tensors.size() && used[next])
      ++next;
    if (next == tensors.size())
      break;
    bound[arg] = std::move(tensors[next].tensor);
    used[next] = true;
  }
  std::string header = "the model takes " + std::to_string(count) +
                       " inputs, got " + std::to_string(tensors.size()) +
                       " tensors";
  if (tensors.size() < count) {
    std::string missing;
    for (unsigned arg = 0; arg < count; ++arg)
      if (!bound[arg])
        missing += (missing.empty() ? "" : ", ") + describeInput(function, arg);
    return llvm::createStringError(header + "; missing: " + missing);
  }
  if (tensors.size() > count) {
    std::string extra;
    for (size_t i = 0; i < tensors.size(); ++i)
      if (!used[i])
        extra += (extra.empty() ? "" : ", ") +
                 (tensors[i].name.empty() ? "#" + std::to_string(i)
                                          : "'" + tensors[i].name + "'");
    return llvm::createStringError(header + "; left over: " + extra);
  }
  std::vector<Tensor> inputs;
  for (unsigned arg = 0; arg < count; ++arg)
    inputs.push_back(
        adaptBFloat16Bits(std::move(*bound[arg]),
                          elementDType(function.getArgument(arg).getType())));
  return inputs;
}

std::string outputName(mlir::func::FuncOp function, size_t index) {
  if (auto names =
          function->getAttrOfType<mlir::ArrayAttr>("kiln.output_names"))
    if (index < names.size())
      if (auto name = mlir::dyn_cast<mlir::StringAttr>(names[index]))
        return name.getValue().str();
  return "output_" + std::to_string(index);
}

void printTensorValues(const Tensor &tensor) {
  llvm::outs() << "  values: [";
  for (int64_t i = 0; i < tensor.numElements(); ++i) {
    if (i)
      llvm::outs() << ", ";
    if (tensor.isFloat())
      llvm::outs() << llvm::format("%.9g", tensor.getDouble(i));
    else if (tensor.dtype() == DType::Bool)
      llvm::outs() << (tensor.getInt(i) ? "true" : "false");
    else if (tensor.dtype() == DType::U64)
      llvm::outs() << static_cast<uint64_t>(tensor.getInt(i));
    else
      llvm::outs() << tensor.getInt(i);
  }
  llvm::outs() << "]\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  if (!kiln::tools::parseCommandLine(
          argc, argv,
          "kiln-interpret: runs a model on kiln's CPU evaluator and compares "
          "its outputs\n"))
    return kiln::tools::kExitUsageOrFileError;

  mlir::MLIRContext context;
  LoadOptions loadOptions;
  loadOptions.inputShapes.assign(inputShapes.begin(), inputShapes.end());
  loadOptions.simplify = simplify;
  loadOptions.precision = precision;
  std::optional<StepDumpIndex> dumpIndex;
  if (!compareStepsFlag.empty()) {
    llvm::Expected<StepDumpIndex> read = readStepDumpIndex(compareStepsFlag);
    if (!read)
      return fail(llvm::toString(read.takeError()));
    dumpIndex = std::move(*read);
    // The dump's shapes (rows selected), unless given.
    if (inputShapes.empty())
      for (const DumpTensor &input : dumpIndex->inputs)
        if (!input.shape.empty())
          loadOptions.inputShapes.push_back(
              input.name + "=" +
              llvm::join(
                  llvm::map_range(input.shape,
                                  [](int64_t d) { return std::to_string(d); }),
                  "x"));
  }
  llvm::Expected<LoadedModel> model =
      loadAndPrepareModel(modelPath, context, loadOptions);
  if (!model)
    return fail(llvm::toString(model.takeError()));
  mlir::func::FuncOp function = model->function;
  bool stepTools = dumpIndex || !dumpStepsFlag.empty();
  if (stepTools || kernelNumerics)
    if (llvm::Error error = compileToKernels(*model->module))
      return fail(llvm::toString(std::move(error)));
  if (kernelNumerics)
    widenKernelIntermediates(*model->module);
  if (printIR)
    model->module->print(llvm::errs());
  if (dumpIndex) {
    llvm::Expected<int> status = compareSteps(
        *model->module, function, compareStepsFlag, *dumpIndex,
        stepTolerance >= 0 ? stepTolerance : defaultStepTolerance(precision),
        llvm::outs());
    llvm::outs().flush();
    if (!status)
      return fail(llvm::toString(status.takeError()));
    return *status;
  }

  std::vector<NamedTensor> inputTensors;
  if (!inputsFlag.empty()) {
    llvm::Expected<std::vector<NamedTensor>> read =
        readTensors(inputsFlag, "input");
    if (!read)
      return fail(llvm::toString(read.takeError()));
    inputTensors = std::move(*read);
  }
  llvm::Expected<std::vector<Tensor>> inputs =
      bindInputs(function, std::move(inputTensors));
  if (!inputs)
    return fail(llvm::toString(inputs.takeError()));

  if (!dumpStepsFlag.empty()) {
    if (llvm::Error error =
            dumpSteps(*model->module, function, *inputs, dumpStepsFlag))
      return fail(llvm::toString(std::move(error)));
    llvm::outs() << "dump: the CPU's kernel outputs in " << dumpStepsFlag
                 << "\n";
    return 0;
  }
  llvm::Expected<std::vector<Tensor>> outputs =
      kernelNumerics ? evaluateKernels(*model->module, function, *inputs)
                     : interpretFunction(function, *inputs);
  if (!outputs) // Data the evaluator rejects (an index out of range...).
    return fail(llvm::toString(outputs.takeError()));

  std::vector<NamedTensor> expected;
  if (!expectFlag.empty()) {
    llvm::Expected<std::vector<NamedTensor>> read =
        readTensors(expectFlag, "output");
    if (!read)
      return fail(llvm::toString(read.takeError()));
    expected = std::move(*read);
    if (expected.size() != outputs->size())
      return fail("the model has " + std::to_string(outputs->size()) +
                  " outputs, got " + std::to_string(expected.size()) +
                  " expected tensors");
  }

  if (!outputDir.empty())
    if (std::error_code error = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create " + outputDir + ": " + error.message());

  bool allMatch = true;
  for (size_t i = 0; i < outputs->size(); ++i) {
    const Tensor &output = (*outputs)[i];
    llvm::outs() << "output " << i << " '" << outputName(function, i)
                 << "': " << output.describe();
    if (!expected.empty()) {
      Comparison comparison = compareTensors(
          output, adaptBFloat16Bits(expected[i].tensor, output.dtype()),
          relativeTolerance, absoluteTolerance);
      llvm::outs() << llvm::format(" max_abs_error=%.3g max_rel_error=%.3g ",
                                   comparison.maxAbsError,
                                   comparison.maxRelError)
                   << (comparison.matches ? "ok" : "MISMATCH");
      if (!comparison.matches)
        llvm::outs() << " (" << comparison.message << ")";
      allMatch &= comparison.matches;
    }
    llvm::outs() << "\n";
    if (printValues)
      printTensorValues(output);
    if (!outputDir.empty()) {
      llvm::SmallString<128> path(outputDir);
      llvm::sys::path::append(path, "output_" + std::to_string(i) + ".npy");
      if (llvm::Error error = writeNpy(std::string(path), output))
        return fail(llvm::toString(std::move(error)));
    }
  }
  llvm::outs().flush();
  return allMatch ? kiln::tools::kExitOk : kiln::tools::kExitFailure;
}
