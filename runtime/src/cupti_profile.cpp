// Loading CUPTI with dlopen and collecting one profiled run's activity
// records through its Activity API (see cupti_profile.h).
#include "cupti_profile.h"
#include "options.h"

// Types, enums and the version only: every CUPTI call goes through a
// pointer from dlsym, so the runtime starts without libcupti.
#include <cupti_activity.h>
#include <cupti_result.h>
#include <cupti_version.h>

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace kiln::runtime {

namespace {

/// The CUPTI functions step timing calls.
struct CuptiFunctions {
  decltype(&cuptiGetVersion) getVersion = nullptr;
  decltype(&cuptiGetResultString) getResultString = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) registerCallbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flushAll = nullptr;
  decltype(&cuptiActivityGetNextRecord) getNextRecord = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) getNumDroppedRecords = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) pushExternalId = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) popExternalId = nullptr;
};

/// What a collection enables, in order. Kernels, copies and sets are the
/// steps' device work; the API records make CUPTI emit the external
/// correlation records that tie a launch call to its step (CUPTI writes
/// them only beside API records).
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
};
constexpr const char *kKindNames[] = {
    "RUNTIME",           "DRIVER", "EXTERNAL_CORRELATION",
    "CONCURRENT_KERNEL", "MEMCPY", "MEMSET"};
constexpr size_t kKindCount = sizeof(kKinds) / sizeof(kKinds[0]);

constexpr size_t kBufferBytes = 4 << 20;

/// The process's CUPTI state. Never destroyed: CUPTI may deliver buffers
/// from its own thread until the process exits.
struct CuptiState {
  std::once_flag loaded;
  std::string unavailable; // prepareCupti's result.
  CuptiFunctions functions;
  /// Held by the active collection.
  std::mutex collection;
  uint64_t nextId = 1; // Under |collection|.
  std::mutex recordsMutex;
  std::vector<ActivityRecord> records; // Under |recordsMutex|.
  size_t dropped = 0;                  // Under |recordsMutex|.
};

CuptiState &cuptiState() {
  static CuptiState *state = new CuptiState();
  return *state;
}

/// Sets |*slot| to |name| in |library|; names the first missing one.
template <typename Function>
void resolve(void *library, const char *name, Function *slot,
             std::string *missing) {
  void *symbol = dlsym(library, name);
  if (!symbol && missing->empty())
    *missing = name;
  *slot = reinterpret_cast<Function>(symbol);
}

/// Opens the first of |candidates| with every function; the library (NULL
/// and |*reason| when none).
void *openCupti(const std::vector<std::string> &candidates,
                CuptiFunctions *functions, std::string *reason) {
  std::string tried, incomplete;
  for (const std::string &candidate : candidates) {
    void *library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      tried += (tried.empty() ? "" : ", ") + candidate;
      continue;
    }
    std::string missing;
    CuptiFunctions &f = *functions;
    resolve(library, "cuptiGetVersion", &f.getVersion, &missing);
    resolve(library, "cuptiGetResultString", &f.getResultString, &missing);
    resolve(library, "cuptiActivityRegisterCallbacks", &f.registerCallbacks,
            &missing);
    resolve(library, "cuptiActivityEnable", &f.enable, &missing);
    resolve(library, "cuptiActivityDisable", &f.disable, &missing);
    resolve(library, "cuptiActivityFlushAll", &f.flushAll, &missing);
    resolve(library, "cuptiActivityGetNextRecord", &f.getNextRecord, &missing);
    resolve(library, "cuptiActivityGetNumDroppedRecords",
            &f.getNumDroppedRecords, &missing);
    resolve(library, "cuptiActivityPushExternalCorrelationId",
            &f.pushExternalId, &missing);
    resolve(library, "cuptiActivityPopExternalCorrelationId", &f.popExternalId,
            &missing);
    if (missing.empty())
      return library;
    dlclose(library);
    *functions = CuptiFunctions();
    if (incomplete.empty())
      incomplete = candidate + " has no " + missing;
  }
  *reason = !incomplete.empty()
                ? incomplete
                : "no CUPTI library found (tried " + tried + ")";
  return nullptr;
}

std::string resultText(CUptiResult result) {
  const char *text = nullptr;
  CuptiFunctions &f = cuptiState().functions;
  if (!f.getResultString || f.getResultString(result, &text) != CUPTI_SUCCESS ||
      !text)
    return "CUPTI error " + std::to_string(static_cast<int>(result));
  return text;
}

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size,
                              size_t *maxRecords) {
  // CUPTI wants 8-byte aligned buffers; with none it drops the records
  // and counts them as dropped.
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId,
                              uint8_t *buffer, size_t, size_t validSize) {
  CuptiState &state = cuptiState();
  std::vector<ActivityRecord> read;
  CUpti_Activity *record = nullptr;
  while (buffer && validSize > 0 &&
         state.functions.getNextRecord(buffer, validSize, &record) ==
             CUPTI_SUCCESS) {
    ActivityRecord kept;
    if (readActivityRecord(record, &kept))
      read.push_back(kept);
  }
  size_t dropped = 0;
  if (state.functions.getNumDroppedRecords(context, streamId, &dropped) !=
      CUPTI_SUCCESS)
    dropped = 0;
  std::free(buffer);
  std::lock_guard<std::mutex> lock(state.recordsMutex);
  state.records.insert(state.records.end(), read.begin(), read.end());
  state.dropped += dropped;
}

/// prepareCupti's work, once.
std::string loadCupti(CuptiState *state) {
  std::string reason;
  void *library =
      openCupti(cuptiLibraryCandidates(), &state->functions, &reason);
  if (!library)
    return reason;
  // Records come in the library's layout: only a library of the headers'
  // toolkit version (xxyy of xxyyzz) has the layout cupti_activity.cpp reads.
  uint32_t version = 0;
  CUptiResult result = state->functions.getVersion(&version);
  if (result != CUPTI_SUCCESS)
    reason = "cuptiGetVersion: " + resultText(result);
  else if (version / 100 != CUPTI_API_VERSION / 100)
    reason = "libcupti has API version " + std::to_string(version) +
             ", kiln was built with " + std::to_string(CUPTI_API_VERSION) +
             " (their activity records differ)";
  else if ((result = state->functions.registerCallbacks(
                bufferRequested, bufferCompleted)) != CUPTI_SUCCESS)
    reason = "cuptiActivityRegisterCallbacks: " + resultText(result);
  if (!reason.empty()) {
    state->functions = {};
    dlclose(library);
  }
  return reason; // On success the library stays loaded for the process.
}

} // namespace

std::vector<std::string> cuptiLibraryCandidates() {
  std::string soname =
      "libcupti.so." + std::to_string(CUPTI_API_VERSION / 10000);
  std::vector<std::string> candidates;
  if (const char *path = std::getenv("KILN_CUPTI_LIBRARY"))
    if (*path)
      candidates.push_back(path);
  candidates.push_back(soname);
  candidates.push_back("libcupti.so");
#ifdef KILN_CUDA_LIBRARY_DIR
  candidates.push_back(std::string(KILN_CUDA_LIBRARY_DIR) + "/" + soname);
#endif
  for (const char *folder :
       {"/usr/local/cuda/lib64/", "/usr/local/cuda/extras/CUPTI/lib64/"}) {
    candidates.push_back(folder + soname);
    candidates.push_back(std::string(folder) + "libcupti.so");
  }
  return candidates;
}

std::string probeCuptiLibrary(const std::vector<std::string> &candidates) {
  CuptiFunctions functions;
  std::string reason;
  if (void *library = openCupti(candidates, &functions, &reason))
    dlclose(library);
  return reason;
}

std::string prepareCupti() {
  // Checked first: KILN_CUPTI=0 keeps kiln from attaching CUPTI at all
  // (another CUPTI client in the process keeps its callbacks).
  if (!environmentFlag("KILN_CUPTI", true))
    return "KILN_CUPTI=0";
  CuptiState &state = cuptiState();
  std::call_once(state.loaded,
                 [&state] { state.unavailable = loadCupti(&state); });
  return state.unavailable;
}

StepActivityCollection::StepActivityCollection(size_t stepCount)
    : stepCount_(stepCount), launched_(stepCount, false) {
  reason_ = prepareCupti();
  if (!reason_.empty())
    return;
  CuptiState &state = cuptiState();
  lock_ = std::unique_lock<std::mutex>(state.collection);
  firstId_ = state.nextId;
  state.nextId += stepCount + 1;
  {
    std::lock_guard<std::mutex> records(state.recordsMutex);
    state.records.clear();
    state.dropped = 0;
  }
  for (; enabledKinds_ < kKindCount; ++enabledKinds_) {
    CUptiResult result = state.functions.enable(kKinds[enabledKinds_]);
    if (result != CUPTI_SUCCESS) {
      fail(std::string("cuptiActivityEnable(") + kKindNames[enabledKinds_] +
           "): " + resultText(result));
      return;
    }
  }
}

StepActivityCollection::~StepActivityCollection() { stop(); }

void StepActivityCollection::fail(const std::string &reason) {
  stop();
  if (reason_.empty())
    reason_ = reason;
}

void StepActivityCollection::stop() {
  if (!lock_.owns_lock())
    return;
  CuptiState &state = cuptiState();
  if (inStep_)
    state.functions.popExternalId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0,
                                  nullptr);
  inStep_ = false;
  for (; enabledKinds_ > 0; --enabledKinds_)
    state.functions.disable(kKinds[enabledKinds_ - 1]);
  state.functions.flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  {
    std::lock_guard<std::mutex> records(state.recordsMutex);
    state.records.clear();
    state.dropped = 0;
  }
  lock_.unlock();
}

void StepActivityCollection::beginStep(size_t index) {
  if (!active() || index >= stepCount_)
    return;
  CUptiResult result = cuptiState().functions.pushExternalId(
      CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, firstId_ + index);
  if (result != CUPTI_SUCCESS) {
    fail("cuptiActivityPushExternalCorrelationId: " + resultText(result));
    return;
  }
  inStep_ = true;
  launched_[index] = true;
}

void StepActivityCollection::endStep() {
  if (!active() || !inStep_)
    return;
  inStep_ = false;
  CUptiResult result = cuptiState().functions.popExternalId(
      CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr);
  if (result != CUPTI_SUCCESS)
    fail("cuptiActivityPopExternalCorrelationId: " + resultText(result));
}

bool StepActivityCollection::finish(std::vector<StepActivity> *steps) {
  if (!active())
    return false;
  if (inStep_)
    endStep();
  if (!active())
    return false;
  CuptiState &state = cuptiState();
  CUptiResult result =
      state.functions.flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (result != CUPTI_SUCCESS) {
    fail("cuptiActivityFlushAll: " + resultText(result));
    return false;
  }
  std::vector<ActivityRecord> records;
  size_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(state.recordsMutex);
    records.swap(state.records);
    dropped = state.dropped;
  }
  stop();
  if (dropped > 0) {
    reason_ = "CUPTI dropped " + std::to_string(dropped) + " activity records";
    return false;
  }
  std::vector<StepActivity> attributed =
      attributeActivity(records, firstId_, stepCount_);
  int64_t recorded = 0, untimed = 0;
  for (size_t i = 0; i < stepCount_; ++i) {
    recorded += launched_[i] ? attributed[i].count : 0;
    untimed += attributed[i].untimed;
  }
  bool anyLaunched = false;
  for (bool launched : launched_)
    anyLaunched = anyLaunched || launched;
  if (untimed > 0)
    reason_ = "CUPTI gave " + std::to_string(untimed) +
              " kernels or copies no timestamps";
  else if (anyLaunched && recorded == 0)
    reason_ = "CUPTI recorded none of the steps' kernels";
  if (!reason_.empty())
    return false;
  // A launched step whose records never came is unmeasured, not free.
  for (size_t i = 0; i < stepCount_; ++i)
    if (launched_[i] && attributed[i].count == 0)
      attributed[i].count = -1;
  *steps = std::move(attributed);
  return true;
}

} // namespace kiln::runtime
