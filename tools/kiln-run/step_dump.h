// kiln-run --dump-steps: writes every plan step's outputs (and the inputs
// used) as .npy files with an index, from a debug-mode run's step callback
// or (--dump-after-run) after a normal run, for kiln-interpret
// --compare-steps.
#ifndef KILN_RUN_STEP_DUMP_H
#define KILN_RUN_STEP_DUMP_H

#include "tensor_files.h"

#include "kiln/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::run {

struct StepDumpOptions {
  std::string directory; // --dump-steps DIR
  std::string artifact;  // The .kiln file, recorded in the index.
  /// --dump-rows: the rows of the batch dim (dim 0 of the first input) to
  /// keep of every tensor whose dim 0 is the batch; empty: whole tensors.
  std::vector<int64_t> rows;
  /// --dump-step-range FIRST:LAST: the plan steps whose outputs are written
  /// (inclusive); the others are listed in the index without files.
  int64_t firstStep = 0, lastStep = INT64_MAX;
};

/// Parses --dump-rows: "0,31", "0:4" (rows 0 to 3) or a mix ("0:2,31"),
/// increasing and without repeats.
bool parseDumpRows(const std::string &text, std::vector<int64_t> *rows,
                   std::string *error);
/// Parses --dump-step-range: "FIRST:LAST", either side may be empty.
bool parseStepRange(const std::string &text, int64_t *first, int64_t *last,
                    std::string *error);

/// One dump: begin() before the run writes the inputs, the step callback
/// writes each step's outputs right after the step (the arena reuses their
/// memory), finish() writes the index, steps.json.
class StepDump {
public:
  explicit StepDump(StepDumpOptions options) : options(std::move(options)) {}

  /// Creates the directory and writes |inputs| (in signature order, as
  /// bound). Checks the rows against the batch, dim 0 of the first input.
  bool begin(const std::vector<HostTensor> &inputs, std::string *error);
  /// Registers the callback on |session| (a debug-mode session).
  bool attach(kiln_session_t *session, std::string *error);
  /// --dump-after-run: writes every step's outputs after a whole run of
  /// |session|, copied on |stream|. An output whose memory a later step of
  /// the plan writes (all of it or a part; in a keep_step_outputs session
  /// only the same buffer can) holds that step's values, not this one's: it
  /// is listed with "overwritten_by" and no file. |run| (1-based) is
  /// recorded in the index.
  bool readAfterRun(kiln_session_t *session, cudaStream_t stream, int run,
                    std::string *error);
  /// Writes steps.json; |entry| names the entry point.
  bool finish(kiln_session_t *session, const std::string &entry,
              std::string *error);
  /// Bytes of .npy data written so far.
  uint64_t bytesWritten() const { return written; }
  /// Why the callback stopped the run (empty if it did not).
  const std::string &callbackError() const { return failure; }

private:
  /// One tensor file of the index.
  struct File {
    std::string path; // Relative to the directory; empty: not written.
    kiln_dtype_t dtype = KILN_DTYPE_UNSPECIFIED;
    std::vector<int64_t> shape, fullShape;
    uint32_t buffer = 0;
    std::string name; // Inputs only.
    int64_t overwrittenBy = -1; // --dump-after-run: the later step that
                                // writes this memory again.
  };
  struct StepRecord {
    size_t index = 0;
    std::vector<File> outputs;
  };

  static int callback(void *data, kiln_session_t *session, size_t index,
                      cudaStream_t stream);
  int dumpStep(kiln_session_t *session, size_t index, cudaStream_t stream);
  /// readAfterRun: the memory each step writes, [begin, end), in plan order.
  struct Written {
    size_t step;
    uintptr_t begin, end;
  };
  std::vector<Written> writes;
  /// readAfterRun: the first step after |index| that writes memory
  /// overlapping [data, data + bytes); -1 if none.
  int64_t overwrittenBy(size_t index, const void *data, size_t bytes) const;
  int afterRun = 0; // The run readAfterRun dumped; 0: step by step.
  /// The shape written for |dims|: rows selected when dim 0 is the batch.
  std::vector<int64_t> writtenShape(const std::vector<int64_t> &dims) const;
  bool writeFile(const File &file, const std::vector<uint8_t> &bytes,
                 std::string *error);

  StepDumpOptions options;
  int64_t batch = -1;
  std::vector<File> inputFiles;
  std::vector<StepRecord> steps;
  std::string failure; // The callback's error, reported by finish().
  uint64_t written = 0;
};

} // namespace kiln::run

#endif // KILN_RUN_STEP_DUMP_H
