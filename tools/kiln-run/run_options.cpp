// kiln-run's options: a table of flags, strict number parsing (the whole
// text, in range), --flag=value, and the usage text.
#include "run_options.h"
#include "step_dump.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>

namespace kiln::run {

const char *const kRunUsage =
    "usage: kiln-run MODEL.kiln [options]\n"
    "Runs a .kiln artifact with the kiln runtime: checks its outputs, "
    "benchmarks it\nand profiles it.\n"
    "\n"
    "Inputs and outputs:\n"
    "  --inputs DIR|FILE...     input tensors (.npy or TensorProto .pb); "
    "without it\n"
    "                           kiln-run generates seeded random inputs and "
    "benchmarks\n"
    "  --seed N                 seed of the generated inputs (default 1)\n"
    "  --shapes NAME=DIMS,...   run the entry point compiled for these input "
    "shapes\n"
    "                           (e.g. x=8x128), or one whose ranged dims take "
    "them\n"
    "                           (kiln-compile --input-shape batch=1..64); an "
    "error if none\n"
    "                           does\n"
    "  --entry NAME             run this entry point (default: the first)\n"
    "  --expect DIR|FILE...     expected outputs to compare with\n"
    "  --rtol R, --atol A       elementwise tolerance: |actual - expected| <= "
    "A + R*|expected|\n"
    "                           (defaults 1e-4, 1e-5)\n"
    "  --rel-l2 L               instead: the relative L2 error at most L, and "
    "every\n"
    "                           element within 10 L of the reference's peak\n"
    "  --peak-error P           every element within P of the reference's "
    "peak:\n"
    "                           |actual - expected| <= P * max|expected| "
    "(with --rel-l2,\n"
    "                           in place of 10 L)\n"
    "  --save-outputs DIR       write each output as DIR/NAME.npy\n"
    "  Files bind by name (NAME.npy, NAME.pb or a TensorProto's name), then "
    "by position\n"
    "  (input_K.pb / output_K.pb in a directory, or the order given). NaN "
    "passes only\n"
    "  where the reference is NaN.\n"
    "\n"
    "Benchmark (runs when one of these is given, or with generated inputs):\n"
    "  --warmup N               untimed runs first (default 10)\n"
    "  --iterations N           timed runs, at least (default 100)\n"
    "  --duration S             and for at least S seconds (default 0)\n"
    "  --bench N                the same as --iterations N\n"
    "  --json FILE              write the results as JSON: command, device, "
    "versions,\n"
    "                           inputs, output checks, latency statistics, "
    "throughput\n"
    "  Latency: CUDA events around each run on the stream; throughput: runs "
    "per second\n"
    "  of GPU time from the first timed run's start to the last one's end.\n"
    "\n"
    "Debugging:\n"
    "  --profile TRACE.json     per-step times (CUPTI kernel times when it "
    "loads) as a\n"
    "                           table and a Chrome trace\n"
    "  --debug                  run step by step, naming a failing step\n"
    "  --check-nan              --debug, and fail on NaN/Inf in a step's "
    "output\n"
    "  --algo-cache FILE        the algorithm cache: session creation takes "
    "its Conv/Gemm\n"
    "                           choices from FILE (checked) and writes the "
    "ones it makes\n"
    "                           (default: $KILN_ALGO_CACHE, else none)\n"
    "  --algo-log               print the library candidates checked and "
    "chosen\n"
    "  --device N               the CUDA device (default 0)\n"
    "\n"
    "Numerics (docs/testing.md):\n"
    "  --sessions N             N fresh sessions must give bit-identical "
    "outputs\n"
    "  --replays N              N more runs of the session must give the first "
    "run's bits\n"
    "  --dump-steps DIR         a debug-mode run writes every step's outputs "
    "and\n"
    "                           steps.json, for kiln-interpret "
    "--compare-steps\n"
    "  --dump-after-run N       the dump is read after a normal run "
    "(graph, streams)\n"
    "                           of a session whose activations keep their "
    "own memory;\n"
    "                           with --expect, of the first of up to N runs "
    "that misses it\n"
    "  --dump-plan-memory       with --dump-after-run: keep the memory "
    "plan's reuse (only\n"
    "                           outputs no later step overwrites are "
    "dumped)\n"
    "  --dump-rows 0,31         only these rows of tensors whose dim 0 is the "
    "batch\n"
    "                           (worst: with --dump-after-run, the row of the "
    "first\n"
    "                           output farthest from --expect)\n"
    "  --dump-step-range A:B    only these plan steps' outputs\n"
    "\n"
    "  --help, --version\n"
    "\n"
    "Exit status: 0 pass, 1 a mismatch or a runtime failure, 2 a usage or "
    "file error\n"
    "(a missing, unreadable or damaged file), 3 no CUDA device.\n";

namespace {

/// |text| as a whole integer in [minimum, maximum].
bool parseInteger(const std::string &flag, const std::string &text,
                  long long minimum, long long maximum, long long *out,
                  std::string *error) {
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE ||
      std::isspace(static_cast<unsigned char>(text[0]))) {
    *error = flag + ": '" + text + "' is not an integer";
    return false;
  }
  if (value < minimum || value > maximum) {
    *error = flag + ": " + text + " is out of range (" +
             std::to_string(minimum) + " to " + std::to_string(maximum) + ")";
    return false;
  }
  *out = value;
  return true;
}

/// |text| as a whole finite number of at least |minimum|.
bool parseNumber(const std::string &flag, const std::string &text,
                 double minimum, double *out, std::string *error) {
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE ||
      !std::isfinite(value) ||
      std::isspace(static_cast<unsigned char>(text[0]))) {
    *error = flag + ": '" + text + "' is not a number";
    return false;
  }
  if (value < minimum) {
    *error = flag + ": " + text + " is below " + std::to_string(minimum);
    return false;
  }
  *out = value;
  return true;
}

/// "x=8x128,mask=8x1x1x128" -> [(x, [8, 128]), ...].
bool parseShapes(const std::string &text,
                 std::vector<std::pair<std::string, std::vector<int64_t>>> *out,
                 std::string *error) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string entry = text.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0 ||
        equals + 1 == entry.size()) {
      *error = "--shapes: '" + entry + "' is not NAME=DIMS (e.g. x=8x128)";
      return false;
    }
    std::vector<int64_t> dims;
    std::string dimsText = entry.substr(equals + 1);
    size_t at = 0;
    while (at <= dimsText.size()) {
      size_t x = dimsText.find('x', at);
      std::string dim = dimsText.substr(
          at, x == std::string::npos ? std::string::npos : x - at);
      long long value = 0;
      if (!parseInteger("--shapes " + entry.substr(0, equals), dim, 0,
                        INT64_MAX, &value, error))
        return false;
      dims.push_back(value);
      if (x == std::string::npos)
        break;
      at = x + 1;
    }
    out->emplace_back(entry.substr(0, equals), std::move(dims));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return true;
}

} // namespace

ParseResult parseRunOptions(int argc, const char *const *argv,
                            RunOptions *options, std::string *error) {
  options->commandLine.assign(argv, argv + argc);
  std::vector<std::string> *list = nullptr;
  bool inputsGiven = false, timingGiven = false, dumpSubsetGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h")
      return ParseResult::Help;
    if (arg == "--version")
      return ParseResult::Version;
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      if (arg == "--") {
        *error = "unexpected argument '--'";
        return ParseResult::UsageError;
      }
      if (list) {
        list->push_back(arg);
      } else if (options->model.empty()) {
        options->model = arg;
      } else {
        *error = "unexpected argument '" + arg + "'";
        return ParseResult::UsageError;
      }
      continue;
    }
    list = nullptr;
    // --flag=value or --flag value.
    std::string flag = arg, inlineValue;
    bool hasInlineValue = false;
    if (size_t equals = arg.find('='); equals != std::string::npos) {
      flag = arg.substr(0, equals);
      inlineValue = arg.substr(equals + 1);
      hasInlineValue = true;
    }
    auto value = [&](std::string *out) {
      if (hasInlineValue) {
        *out = inlineValue;
        return true;
      }
      if (i + 1 >= argc) {
        *error = flag + " needs a value";
        return false;
      }
      *out = argv[++i];
      return true;
    };
    auto noValue = [&]() {
      if (hasInlineValue)
        *error = flag + " takes no value";
      return !hasInlineValue;
    };
    std::string text;
    long long integer = 0;
    bool ok = true;
    if (flag == "--inputs" || flag == "--expect") {
      list = flag == "--inputs" ? &options->inputs : &options->expect;
      inputsGiven |= flag == "--inputs";
      if (hasInlineValue)
        list->push_back(inlineValue);
    } else if (flag == "--rtol" || flag == "--atol" || flag == "--rel-l2" ||
               flag == "--peak-error") {
      Tolerance &tolerance = options->tolerance;
      ok = value(&text) &&
           parseNumber(flag, text, 0,
                       flag == "--rtol"     ? &tolerance.rtol
                       : flag == "--atol"   ? &tolerance.atol
                       : flag == "--rel-l2" ? &tolerance.relL2
                                            : &tolerance.peakError,
                       error);
    } else if (flag == "--duration") {
      ok = value(&text) &&
           parseNumber(flag, text, 0, &options->durationSeconds, error);
      timingGiven = true;
    } else if (flag == "--bench" || flag == "--iterations") {
      ok = value(&text) &&
           parseInteger(flag, text, 1, 100000000, &integer, error);
      options->iterations = static_cast<int>(integer);
      timingGiven = true;
    } else if (flag == "--warmup") {
      ok = value(&text) &&
           parseInteger(flag, text, 0, 100000000, &integer, error);
      options->warmup = static_cast<int>(integer);
      timingGiven = true;
    } else if (flag == "--device") {
      ok = value(&text) && parseInteger(flag, text, 0, 1023, &integer, error);
      options->device = static_cast<int>(integer);
    } else if (flag == "--seed") {
      ok = value(&text) &&
           parseInteger(flag, text, 0, INT64_MAX, &integer, error);
      options->seed = static_cast<uint64_t>(integer);
    } else if (flag == "--shapes") {
      ok = value(&text) && parseShapes(text, &options->shapes, error);
    } else if (flag == "--profile" || flag == "--entry" ||
               flag == "--save-outputs" || flag == "--json" ||
               flag == "--algo-cache") {
      ok = value(flag == "--profile"      ? &options->profile
                 : flag == "--entry"      ? &options->entry
                 : flag == "--json"       ? &options->json
                 : flag == "--algo-cache" ? &options->algorithmCache
                                          : &options->saveOutputs);
      if (ok && flag == "--json")
        timingGiven = true;
    } else if (flag == "--sessions" || flag == "--replays") {
      ok = value(&text) && parseInteger(flag, text, 1, 1000, &integer, error);
      (flag == "--sessions" ? options->sessions : options->replays) =
          static_cast<int>(integer);
    } else if (flag == "--dump-steps") {
      ok = value(&options->dumpSteps);
    } else if (flag == "--dump-rows") {
      ok = value(&text);
      options->dumpWorstRow = ok && text == "worst";
      ok = ok && (options->dumpWorstRow ||
                  parseDumpRows(text, &options->dumpRows, error));
      dumpSubsetGiven = true;
    } else if (flag == "--dump-plan-memory") {
      ok = noValue();
      options->dumpPlanMemory = true;
    } else if (flag == "--dump-after-run") {
      ok = value(&text) && parseInteger(flag, text, 1, 100000, &integer, error);
      options->dumpAfterRun = static_cast<int>(integer);
      dumpSubsetGiven = true;
    } else if (flag == "--dump-step-range") {
      ok = value(&text) && parseStepRange(text, &options->dumpFirstStep,
                                          &options->dumpLastStep, error);
      dumpSubsetGiven = true;
    } else if (flag == "--algo-log") {
      ok = noValue();
      options->algorithmLog = true;
    } else if (flag == "--debug" || flag == "--check-nan") {
      ok = noValue();
      options->debug = true;
      options->checkNan |= flag == "--check-nan";
    } else {
      *error = "unknown option '" + flag + "'";
      return ParseResult::UsageError;
    }
    if (!ok)
      return ParseResult::UsageError;
  }
  if (options->model.empty()) {
    *error = "no model: give MODEL.kiln";
    return ParseResult::UsageError;
  }
  if (inputsGiven && options->inputs.empty()) {
    *error = "--inputs needs at least one DIR or FILE";
    return ParseResult::UsageError;
  }
  if (!options->expect.empty() && options->inputs.empty()) {
    *error = "--expect needs --inputs (generated inputs have no expected "
             "outputs)";
    return ParseResult::UsageError;
  }
  if (dumpSubsetGiven && options->dumpSteps.empty()) {
    *error = "--dump-rows, --dump-step-range and --dump-after-run go with "
             "--dump-steps DIR";
    return ParseResult::UsageError;
  }
  if (options->dumpPlanMemory && options->dumpAfterRun == 0) {
    *error = "--dump-plan-memory goes with --dump-after-run N";
    return ParseResult::UsageError;
  }
  if (options->dumpWorstRow &&
      (options->dumpAfterRun == 0 || options->expect.empty())) {
    *error = "--dump-rows worst needs --dump-after-run N and --expect (it "
             "picks the row farthest from the expected outputs)";
    return ParseResult::UsageError;
  }
  if (options->dumpAfterRun > 1 && options->expect.empty()) {
    *error = "--dump-after-run N with N > 1 needs --expect (the dump is of "
             "the first run that misses it)";
    return ParseResult::UsageError;
  }
  if (options->dumpAfterRun > 0 && options->debug) {
    *error = "--dump-after-run reads the dump after a normal run; --debug "
             "and --check-nan make it a debug-mode run (leave them out, or "
             "drop --dump-after-run for the step-by-step dump)";
    return ParseResult::UsageError;
  }
  if (!options->profile.empty() && options->profile == options->json) {
    *error = "--profile and --json name the same file";
    return ParseResult::UsageError;
  }
  options->benchmark = timingGiven || options->inputs.empty();
  return ParseResult::Run;
}

} // namespace kiln::run
