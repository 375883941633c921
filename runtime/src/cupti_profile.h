// Profile mode's exact kernel times: each step's device work from CUPTI's
// activity records. CUPTI is loaded at run time (the runtime never links it);
// when it is missing or fails, profile mode keeps its CUDA-event timing and
// says why.
#ifndef KILN_RUNTIME_CUPTI_PROFILE_H
#define KILN_RUNTIME_CUPTI_PROFILE_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::runtime {

/// What step timing keeps of one CUPTI activity record.
struct ActivityRecord {
  enum Kind { DeviceWork, ExternalCorrelation };
  Kind kind = DeviceWork;
  /// The CUDA API call that launched the work (DeviceWork), or that the
  /// external id marks (ExternalCorrelation).
  uint32_t correlationId = 0;
  uint64_t externalId = 0;     // ExternalCorrelation.
  uint64_t start = 0, end = 0; // DeviceWork: GPU timestamps in ns.
};

/// Reads the CUPTI record at |record| (a CUpti_Activity *, as the headers of
/// the build's toolkit lay it out): kernels, memcpys and memsets become
/// DeviceWork, CUSTOM0 external correlations ExternalCorrelation. False for
/// every other record (API records, other external kinds), which step timing
/// ignores.
bool readActivityRecord(const void *record, ActivityRecord *out);

/// The device work of one step in one run.
struct StepActivity {
  int64_t count = 0;   // Kernels, memcpys and memsets; -1: launched, unmeasured.
  int64_t untimed = 0; // Of those, how many CUPTI gave no valid timestamps.
  uint64_t busyNs = 0; // The sum of their durations.
  uint64_t firstStartNs = 0, lastEndNs = 0; // Their span; 0, 0 when none.
};

/// Attributes device work to steps: the external id |firstId| + i marks the
/// API calls that launched step i (i < |stepCount|). Work launched by any
/// other call (another thread's, another session's) is not counted. The
/// records may come in any order.
std::vector<StepActivity>
attributeActivity(const std::vector<ActivityRecord> &records, uint64_t firstId,
                  size_t stepCount);

/// The CUPTI libraries tried, in order: the sonames (the binary's run path
/// and the loader's), then the toolkit's usual folders.
std::vector<std::string> cuptiLibraryCandidates();

/// Opens the first of |candidates| that loads and has every function step
/// timing calls; "" on success, else why none did. Does not keep the library
/// or change CUPTI's state (for tests and diagnostics).
std::string probeCuptiLibrary(const std::vector<std::string> &candidates);

/// Loads CUPTI and registers the activity buffer callbacks, once per process
/// (later calls return the first call's result): "" when ready, else why
/// not. With KILN_CUPTI=0 in the environment it returns "KILN_CUPTI=0" and
/// leaves CUPTI alone. Profile sessions call it at creation, before capturing any graph:
/// CUPTI attaching to a process after its graphs were instantiated has made
/// their replays fail or go untraced. Thread-safe.
std::string prepareCupti();

/// Collects the device activity of one profiled run. Collections are
/// serialised in the process (a second waits for the first to end), so that
/// one run's records are never another's. A collection is used by one
/// thread.
class StepActivityCollection {
public:
  /// Enables CUPTI's activity records for |stepCount| steps; reason() says
  /// why not when CUPTI is unavailable, failed, or KILN_CUPTI=0 is set.
  explicit StepActivityCollection(size_t stepCount);
  /// Disables the records (if finish() did not) and drops them.
  ~StepActivityCollection();
  StepActivityCollection(const StepActivityCollection &) = delete;
  StepActivityCollection &operator=(const StepActivityCollection &) = delete;

  bool active() const { return reason_.empty(); }
  /// "" while active; else why the run has no CUPTI times.
  const std::string &reason() const { return reason_; }

  /// Bracket the CUDA calls that launch step |index| (on this thread): CUPTI
  /// marks them with the step's external id. A failure ends the collection.
  void beginStep(size_t index);
  void endStep();

  /// Call once the run's work completed (its stream synchronised): flushes
  /// CUPTI's buffers, disables the records and attributes them to steps.
  /// False, with reason(), when CUPTI failed or recorded none of the work.
  bool finish(std::vector<StepActivity> *steps);

private:
  void fail(const std::string &reason);
  /// Pops an open step, disables the kinds enabled, drops what CUPTI still
  /// holds and lets the next collection start.
  void stop();

  std::unique_lock<std::mutex> lock_;
  size_t stepCount_ = 0;
  uint64_t firstId_ = 0;
  size_t enabledKinds_ = 0; // A prefix of the kinds cupti_profile.cpp lists.
  bool inStep_ = false;
  std::vector<bool> launched_; // Steps that beginStep marked.
  std::string reason_;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CUPTI_PROFILE_H
