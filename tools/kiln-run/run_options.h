// kiln-run's command line: the options, their strict parsing and the usage
// text.
#ifndef KILN_RUN_RUN_OPTIONS_H
#define KILN_RUN_RUN_OPTIONS_H

#include "tensor_files.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::run {

struct RunOptions {
  std::string model, profile, entry, saveOutputs, json;
  /// --algo-cache FILE (kiln_session_options_t.algorithm_cache_path).
  std::string algorithmCache;
  std::vector<std::string> inputs, expect;
  /// --shapes NAME=DIMS,...: the entry point whose inputs have these shapes.
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  /// --rtol, --atol, --rel-l2, --peak-error.
  Tolerance tolerance;
  int device = 0;
  bool debug = false, checkNan = false;
  /// --algo-log: print the session's algorithm log.
  bool algorithmLog = false;
  /// Seed of the generated inputs (when --inputs is not given).
  uint64_t seed = 1;
  /// The benchmark runs when a timing flag or --json is given, or when the
  /// inputs are generated (there is nothing to check then).
  bool benchmark = false;
  int warmup = 10;
  int iterations = 100;
  double durationSeconds = 0;
  /// --sessions N: N fresh sessions must give bit-identical outputs.
  int sessions = 0;
  /// --replays N: N more runs of the session must give the first run's bits.
  int replays = 0;
  /// --dump-steps DIR, with --dump-rows (parsed; empty: whole tensors) and
  /// --dump-step-range FIRST:LAST (inclusive plan steps).
  std::string dumpSteps;
  std::vector<int64_t> dumpRows;
  int64_t dumpFirstStep = 0, dumpLastStep = INT64_MAX;
  /// --dump-after-run N: the dump is read after a normal run (CUDA graph,
  /// streams; no debug-mode synchronisation between steps) of a session
  /// whose activations keep memory of their own (keep_step_outputs); with
  /// --expect, up to N runs, and the first whose outputs miss it is dumped.
  /// 0: the debug-mode dump, step by step.
  int dumpAfterRun = 0;
  /// --dump-plan-memory: with --dump-after-run, the session keeps the memory
  /// plan's reuse (no keep_step_outputs): only outputs no later step
  /// overwrites are dumped, but a race that needs the reuse can show.
  bool dumpPlanMemory = false;
  /// --dump-rows worst: the one row (dim 0) of the first output farthest
  /// from --expect (largest rel-L2) in the dumped run.
  bool dumpWorstRow = false;
  /// The command line as given, for --json.
  std::vector<std::string> commandLine;
};

enum class ParseResult { Run, Help, Version, UsageError };

/// Parses kiln-run's arguments into |*options|. Numbers are parsed strictly:
/// "--bench abc" or "--device 1x" is a usage error whose |*error| names the
/// flag.
ParseResult parseRunOptions(int argc, const char *const *argv,
                            RunOptions *options, std::string *error);

/// kiln-run --help.
extern const char *const kRunUsage;

} // namespace kiln::run

#endif // KILN_RUN_RUN_OPTIONS_H
