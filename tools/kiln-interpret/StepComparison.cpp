// kiln-interpret --compare-steps / --dump-steps: kernel-by-kernel evaluation
// of the compiled entry function, comparing each kernel in isolation with a
// step dump or writing one.
#include "StepComparison.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/Locations.h"
#include "kiln/Evaluator/Interpreter.h"
#include "kiln/Evaluator/TensorIO.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdio>
#include <functional>

namespace kiln {

using eval::Tensor;

namespace {

/// Called with each kernel (and its ordinal among the entry function's
/// kernels) after the CPU evaluated it; may replace |results|, the values
/// the kernel's users then read.
using KernelHook = std::function<llvm::Error(KernelOp kernel, size_t ordinal,
                                             std::vector<Tensor> &results)>;

/// Runs |function| op by op on |inputs|; weights computed by @kiln_init come
/// from a CPU run of it. Values are released after their last reader.
llvm::Error walkKernels(mlir::ModuleOp module, mlir::func::FuncOp function,
                        llvm::ArrayRef<Tensor> inputs, const KernelHook &hook,
                        std::vector<Tensor> *outputs = nullptr) {
  std::vector<Tensor> initResults;
  if (auto init = module.lookupSymbol<mlir::func::FuncOp>(kInitFunctionName)) {
    llvm::Expected<std::vector<Tensor>> results =
        eval::interpretFunction(init, {});
    if (!results)
      return llvm::createStringError("evaluating @kiln_init: " +
                                     llvm::toString(results.takeError()));
    initResults = std::move(*results);
  }
  mlir::Block &body = function.front();
  if (inputs.size() != body.getNumArguments())
    return llvm::createStringError(
        "the model takes " + std::to_string(body.getNumArguments()) +
        " inputs, the dump has " + std::to_string(inputs.size()));
  llvm::DenseMap<mlir::Value, Tensor> values;
  for (auto [argument, input] : llvm::zip(body.getArguments(), inputs))
    values[argument] = input;
  llvm::DenseMap<mlir::Value, mlir::Operation *> lastReader;
  for (mlir::Operation &op : body)
    for (mlir::Value operand : op.getOperands())
      lastReader[operand] = &op;

  size_t ordinal = 0;
  for (mlir::Operation &op : body) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>()) {
      if (outputs)
        for (mlir::Value operand : op.getOperands()) {
          auto it = values.find(operand);
          if (it == values.end())
            return llvm::createStringError("a returned value was not computed");
          outputs->push_back(it->second);
        }
      break;
    }
    std::vector<Tensor> operands;
    for (mlir::Value operand : op.getOperands()) {
      auto it = values.find(operand);
      if (it == values.end())
        return llvm::createStringError("an operand of " +
                                       describeLocation(op.getLoc()) +
                                       " was not computed");
      operands.push_back(it->second);
    }
    std::vector<Tensor> results;
    auto constant = mlir::dyn_cast<ConstantOp>(op);
    auto kernel = mlir::dyn_cast<KernelOp>(op);
    if (constant && constant->hasAttr(kInitResultAttr)) {
      int64_t index =
          constant->getAttrOfType<mlir::IntegerAttr>(kInitResultAttr).getInt();
      if (index < 0 || index >= int64_t(initResults.size()))
        return llvm::createStringError("a weight reads @kiln_init result " +
                                       std::to_string(index) +
                                       ", which does not exist");
      results.push_back(initResults[index]);
    } else {
      llvm::Expected<std::vector<Tensor>> evaluated =
          kernel ? eval::evaluateKernel(kernel, operands)
                 : eval::evaluateOp(&op, operands);
      if (!evaluated)
        return evaluated.takeError();
      results = std::move(*evaluated);
      if (kernel)
        if (llvm::Error error = hook(kernel, ordinal++, results))
          return error;
    }
    for (auto [result, tensor] : llvm::zip(op.getResults(), results))
      values[result] = std::move(tensor);
    for (mlir::Value operand : op.getOperands())
      if (lastReader.lookup(operand) == &op)
        values.erase(operand);
  }
  return llvm::Error::success();
}

bool isKernelStep(const DumpStep &step) {
  return step.kind == "launch" || step.kind == "gemm" || step.kind == "conv";
}

/// The step kind the packager gives |kernel|.
std::string stepKind(KernelOp kernel) {
  if (kernel.getKind() != KernelKind::Library)
    return "launch";
  bool conv = false;
  kernel.getBody().walk([&](ConvOp) { conv = true; });
  return conv ? "conv" : "gemm";
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(
                        shape, [](int64_t d) { return std::to_string(d); }),
                    ", ") +
         "]";
}

/// |index| as a multi-index of |shape|.
std::string positionText(int64_t index, llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> position(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    position[d] = shape[d] ? index % shape[d] : 0;
    index = shape[d] ? index / shape[d] : index;
  }
  return shapeText(position);
}

/// How a dumped (device) tensor differs from the CPU's.
struct Difference {
  double relL2 = 0, maxAbs = 0;
  int64_t maxIndex = -1;
  int64_t nonFinite = 0;  // Elements where one side is NaN/Inf and the
                          // other is not the same value.
  int64_t mismatches = 0; // Integers: elements that differ.
  bool exceeds(double tolerance, bool isFloat) const {
    return isFloat ? nonFinite > 0 || !(relL2 <= tolerance) : mismatches > 0;
  }
};

Difference measure(const Tensor &device, const Tensor &cpu) {
  Difference result;
  double errorSquares = 0, referenceSquares = 0;
  for (int64_t i = 0; i < cpu.numElements(); ++i) {
    double a = device.getDouble(i), e = cpu.getDouble(i);
    if (!cpu.isFloat()) {
      if (device.getInt(i) != cpu.getInt(i)) {
        if (result.mismatches++ == 0)
          result.maxIndex = i;
        result.maxAbs = std::max(result.maxAbs, std::fabs(a - e));
      }
      continue;
    }
    if (!std::isfinite(a) || !std::isfinite(e)) {
      bool same = (std::isnan(a) && std::isnan(e)) || a == e;
      if (!same && result.nonFinite++ == 0)
        result.maxIndex = i;
      continue;
    }
    double error = std::fabs(a - e);
    errorSquares += error * error;
    referenceSquares += e * e;
    if (error > result.maxAbs && result.nonFinite == 0) {
      result.maxAbs = error;
      result.maxIndex = i;
    }
  }
  result.relL2 = referenceSquares > 0
                     ? std::sqrt(errorSquares / referenceSquares)
                     : std::sqrt(errorSquares);
  return result;
}

} // namespace

double defaultStepTolerance(llvm::StringRef precision) {
  if (precision == "bf16")
    return 1.6e-2;
  if (precision == "fp16" || precision == "tf32")
    return 2e-3;
  return 1e-5;
}

llvm::Error compileToKernels(mlir::ModuleOp module) {
  mlir::MLIRContext *context = module.getContext();
  std::string messages;
  mlir::ScopedDiagnosticHandler collect(context, [&](mlir::Diagnostic &diag) {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
      messages +=
          "\n  " + describeLocation(diag.getLocation()) + ": " + diag.str();
    return mlir::success();
  });
  mlir::PassManager pm(context, mlir::ModuleOp::getOperationName());
  pm.addPass(createKilnOutlineInit());
  buildKernelPipeline(pm);
  if (mlir::failed(pm.run(module)))
    return llvm::createStringError("compiling to kernels failed" + messages);
  return llvm::Error::success();
}

llvm::Expected<int> compareSteps(mlir::ModuleOp module,
                                 mlir::func::FuncOp function,
                                 const std::string &directory,
                                 const StepDumpIndex &index, double tolerance,
                                 llvm::raw_ostream &os) {
  // The dump's inputs, bound by name, else in order.
  std::vector<Tensor> inputs(function.getNumArguments());
  std::vector<bool> bound(inputs.size(), false);
  for (auto [position, input] : llvm::enumerate(index.inputs)) {
    unsigned argument = position;
    for (unsigned a = 0; a < function.getNumArguments(); ++a)
      if (auto name =
              function.getArgAttrOfType<mlir::StringAttr>(a, "kiln.name"))
        if (name.getValue() == input.name)
          argument = a;
    if (argument >= inputs.size() || bound[argument])
      return llvm::createStringError("the dump's input '" + input.name +
                                     "' matches no input of the model");
    llvm::Expected<Tensor> tensor = readDumpTensor(directory, input);
    if (!tensor)
      return tensor.takeError();
    inputs[argument] = std::move(*tensor);
    bound[argument] = true;
  }

  std::vector<const DumpStep *> steps;
  for (const DumpStep &step : index.steps)
    if (isKernelStep(step))
      steps.push_back(&step);
  os << "compare-steps: " << steps.size() << " kernel steps in " << directory;
  if (!index.rows.empty())
    os << " (rows "
       << llvm::join(
              llvm::map_range(index.rows,
                              [](int64_t r) { return std::to_string(r); }),
              ",")
       << " of batch " << index.batch << ")";
  if (index.mode == "after_run")
    os << ", read after a normal run";
  os << llvm::format(", tolerance rel-L2 %.3g\n", tolerance);
  os.flush();

  size_t compared = 0, diverged = 0;
  std::string first;
  llvm::Error walked = walkKernels(
      module, function, inputs,
      [&](KernelOp kernel, size_t ordinal,
          std::vector<Tensor> &results) -> llvm::Error {
        if (ordinal >= steps.size())
          return llvm::createStringError(
              "this compile has more kernels than the dump's " +
              std::to_string(steps.size()) + " (from kernel '" +
              kernel.getSymName().str() +
              "'): compile with the artifact's --precision and shapes");
        const DumpStep &step = *steps[ordinal];
        std::string label =
            "step " + std::to_string(step.index) + " '" + step.name + "'";
        if (step.name != kernel.getSymName() ||
            step.outputs.size() != results.size())
          return llvm::createStringError(
              label + " is kernel " + std::to_string(ordinal) +
              " of the dump, but this compile's kernel " +
              std::to_string(ordinal) + " is '" + kernel.getSymName().str() +
              "' with " + std::to_string(results.size()) +
              " outputs: compile with the artifact's --precision and shapes");
        bool dumped = false, bad = false;
        Difference worst;
        std::vector<int64_t> worstShape;
        double worstDevice = 0, worstCpu = 0;
        for (auto [o, output] : llvm::enumerate(step.outputs)) {
          if (output.file.empty())
            continue;
          llvm::Expected<Tensor> device = readDumpTensor(directory, output);
          if (!device)
            return device.takeError();
          Tensor &cpu = results[o];
          if (device->dtype() != cpu.dtype() || device->shape() != cpu.shape())
            return llvm::createStringError(
                label + ": the dump holds " + device->describe() +
                " but this compile computes " + cpu.describe() +
                (index.rows.empty()
                     ? std::string(": compile with the artifact's --precision")
                     : std::string(": with --dump-rows every tensor whose "
                                   "dim 0 is the batch must be batch-major, "
                                   "and the compile at the rows' batch must "
                                   "give the same kernels")));
          Difference difference = measure(*device, cpu);
          bool exceeds = difference.exceeds(tolerance, cpu.isFloat());
          if (!dumped || exceeds > bad ||
              (exceeds == bad && difference.relL2 > worst.relL2)) {
            worst = difference;
            worstShape.assign(cpu.shape().begin(), cpu.shape().end());
            worstDevice = difference.maxIndex >= 0
                              ? device->getDouble(difference.maxIndex)
                              : 0;
            worstCpu = difference.maxIndex >= 0
                           ? cpu.getDouble(difference.maxIndex)
                           : 0;
          }
          bad |= exceeds;
          dumped = true;
          results[o] = std::move(*device); // Later kernels read the GPU's.
        }
        if (!dumped)
          return llvm::Error::success();
        ++compared;
        os << llvm::format("step %4lld %-32s %-6s rel-L2 %.2e  max abs %.2e",
                           static_cast<long long>(step.index),
                           step.name.c_str(), step.kind.c_str(), worst.relL2,
                           worst.maxAbs);
        if (worst.nonFinite)
          os << "  " << worst.nonFinite << " NaN/Inf differ";
        if (worst.mismatches)
          os << "  " << worst.mismatches << " elements differ";
        os << (bad ? "  DIVERGES" : "  ok") << "\n";
        os.flush();
        if (!bad)
          return llvm::Error::success();
        if (diverged++ == 0) {
          llvm::raw_string_ostream text(first);
          text << "first divergent kernel: " << label << " (" << step.kind;
          if (!step.algorithm.empty())
            text << ", algorithm " << step.algorithm;
          text << "); ONNX nodes: " << llvm::join(step.onnxNodes, ", ")
               << "\n  "
               << llvm::format("rel-L2 %.3g (tolerance %.3g), max abs %.3g",
                               worst.relL2, tolerance, worst.maxAbs);
          if (worst.maxIndex >= 0)
            text << " at " << positionText(worst.maxIndex, worstShape)
                 << llvm::format(": dumped %.6g, CPU %.6g", worstDevice,
                                 worstCpu);
          text << "\n";
        }
        return llvm::Error::success();
      });
  if (walked)
    return std::move(walked);
  if (compared == 0)
    return llvm::createStringError("the dump in " + directory +
                                   " holds no kernel output to compare");
  if (diverged == 0) {
    os << "compare-steps: all " << compared
       << " dumped kernels within tolerance\n";
    return 0;
  }
  os << first << "compare-steps: " << diverged << " of " << compared
     << " dumped kernels diverge\n";
  return 1;
}

llvm::Expected<std::vector<Tensor>>
evaluateKernels(mlir::ModuleOp module, mlir::func::FuncOp function,
                llvm::ArrayRef<Tensor> inputs) {
  std::vector<Tensor> outputs;
  auto keep = [](KernelOp, size_t, std::vector<Tensor> &) {
    return llvm::Error::success();
  };
  if (llvm::Error error = walkKernels(module, function, inputs, keep, &outputs))
    return std::move(error);
  return outputs;
}

llvm::Error dumpSteps(mlir::ModuleOp module, mlir::func::FuncOp function,
                      llvm::ArrayRef<Tensor> inputs,
                      const std::string &directory) {
  for (const char *folder : {"", "/inputs", "/steps"})
    if (std::error_code error =
            llvm::sys::fs::create_directories(directory + folder))
      return llvm::createStringError("cannot create " + directory + folder +
                                     ": " + error.message());
  StepDumpIndex index;
  index.producer = "kiln-interpret";
  index.entryPoint = "main";
  if (!inputs.empty() && inputs[0].rank() > 0)
    index.batch = inputs[0].shape()[0];
  auto write = [&](const Tensor &tensor, const std::string &file,
                   DumpTensor &entry) -> llvm::Error {
    entry.dtype = dumpNameOfDType(tensor.dtype());
    entry.shape.assign(tensor.shape().begin(), tensor.shape().end());
    entry.fullShape = entry.shape;
    entry.file = file;
    return eval::writeNpy(directory + "/" + file, tensor);
  };
  for (auto [i, input] : llvm::enumerate(inputs)) {
    DumpTensor entry;
    auto name = function.getArgAttrOfType<mlir::StringAttr>(i, "kiln.name");
    entry.name = name ? name.str() : "input_" + std::to_string(i);
    if (llvm::Error error = write(
            input, "inputs/" + std::to_string(i) + "_" + entry.name + ".npy",
            entry))
      return error;
    index.inputs.push_back(std::move(entry));
  }
  llvm::Error walked = walkKernels(
      module, function, inputs,
      [&](KernelOp kernel, size_t ordinal,
          std::vector<Tensor> &results) -> llvm::Error {
        DumpStep step;
        step.index = static_cast<int64_t>(ordinal);
        step.name = kernel.getSymName().str();
        step.kind = stepKind(kernel);
        for (const OnnxNode &node : collectOnnxNodes(kernel.getLoc()))
          step.onnxNodes.push_back(node.name);
        for (auto [o, result] : llvm::enumerate(results)) {
          DumpTensor entry;
          char number[16];
          std::snprintf(number, sizeof(number), "%04zu_", ordinal);
          std::string file =
              "steps/" + std::string(number) + step.name +
              (results.size() > 1 ? "." + std::to_string(o) : "") + ".npy";
          if (llvm::Error error = write(result, file, entry))
            return error;
          step.outputs.push_back(std::move(entry));
        }
        index.steps.push_back(std::move(step));
        return llvm::Error::success();
      });
  if (walked)
    return walked;
  return writeStepDumpIndex(directory, index);
}

} // namespace kiln
