// The step dump's index (DIR/steps.json), shared by kiln-run --dump-steps,
// which writes it from a GPU run, and kiln-interpret, which reads it
// (--compare-steps) and writes one from a CPU run (--dump-steps).
#ifndef KILN_TOOLS_KILN_INTERPRET_STEPDUMPINDEX_H
#define KILN_TOOLS_KILN_INTERPRET_STEPDUMPINDEX_H

#include "kiln/Evaluator/Tensor.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// One tensor file of a dump: a graph input or a step output.
struct DumpTensor {
  std::string name;  // Inputs: the graph input's name.
  std::string dtype; // The runtime's dtype name: "f32", "f16", "bf16", "i64".
  std::vector<int64_t> shape;     // As written (rows selected).
  std::vector<int64_t> fullShape; // In the run.
  std::string file; // Relative to the dump folder; empty: not written.
  int64_t buffer = -1;
};

/// One plan step that writes buffers.
struct DumpStep {
  int64_t index = 0; // In the plan (event steps count too).
  std::string name;  // The kiln.kernel's name ("copy:NAME" for copies).
  std::string kind;  // launch, gemm, conv, copy.
  std::string algorithm;
  std::vector<std::string> onnxNodes;
  std::vector<DumpTensor> outputs;
};

struct StepDumpIndex {
  std::string producer; // kiln-run or kiln-interpret.
  std::string artifact, entryPoint, convPath;
  /// How kiln-run read the outputs: "per_step" (a debug-mode run) or
  /// "after_run" (--dump-after-run: a normal run, read afterwards).
  std::string mode = "per_step";
  int64_t batch = -1;
  std::vector<int64_t> rows; // Empty: whole tensors.
  std::vector<DumpTensor> inputs;
  std::vector<DumpStep> steps;
};

/// Reads |directory|/steps.json; errors name the file and the field.
llvm::Expected<StepDumpIndex> readStepDumpIndex(const std::string &directory);
/// Writes |index| as |directory|/steps.json.
llvm::Error writeStepDumpIndex(const std::string &directory,
                               const StepDumpIndex &index);

/// The evaluator's dtype for a runtime dtype name, and back.
std::optional<eval::DType> dtypeFromDumpName(llvm::StringRef name);
const char *dumpNameOfDType(eval::DType dtype);

/// Reads |tensor|'s file as its dtype (bf16 is stored as float32, like
/// kiln-run's .npy writer) and checks its shape against the index.
llvm::Expected<eval::Tensor> readDumpTensor(const std::string &directory,
                                            const DumpTensor &tensor);

} // namespace kiln

#endif // KILN_TOOLS_KILN_INTERPRET_STEPDUMPINDEX_H
