// Reading CUPTI activity records and attributing them to plan steps: pure
// functions (no CUPTI calls), so that unit tests feed them synthetic records.
#include "cupti_profile.h"

// Types and enums only: the library is never linked (cupti_profile.cpp
// loads it).
#include <cupti_activity.h>

#include <algorithm>
#include <unordered_map>

namespace kiln::runtime {

namespace {

// The record layouts of the headers this runtime is built with. CUPTI fills
// records in the layout of its own version, so cupti_profile.cpp accepts
// only a library of the headers' major version.
using KernelRecord = CUpti_ActivityKernel10; // CONCURRENT_KERNEL
using MemcpyRecord = CUpti_ActivityMemcpy6;  // MEMCPY
using MemsetRecord = CUpti_ActivityMemset4;  // MEMSET

template <typename Record> ActivityRecord deviceWork(const void *data) {
  const auto *record = static_cast<const Record *>(data);
  ActivityRecord out;
  out.kind = ActivityRecord::DeviceWork;
  out.correlationId = record->correlationId;
  out.start = record->start;
  out.end = record->end;
  return out;
}

} // namespace

bool readActivityRecord(const void *record, ActivityRecord *out) {
  switch (static_cast<const CUpti_Activity *>(record)->kind) {
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
  case CUPTI_ACTIVITY_KIND_KERNEL:
    *out = deviceWork<KernelRecord>(record);
    return true;
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    *out = deviceWork<MemcpyRecord>(record);
    return true;
  case CUPTI_ACTIVITY_KIND_MEMSET:
    *out = deviceWork<MemsetRecord>(record);
    return true;
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
    const auto *correlation =
        static_cast<const CUpti_ActivityExternalCorrelation *>(record);
    if (correlation->externalKind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
      return false;
    out->kind = ActivityRecord::ExternalCorrelation;
    out->correlationId = correlation->correlationId;
    out->externalId = correlation->externalId;
    out->start = out->end = 0;
    return true;
  }
  default:
    return false;
  }
}

std::vector<StepActivity>
attributeActivity(const std::vector<ActivityRecord> &records, uint64_t firstId,
                  size_t stepCount) {
  // CUPTI writes a correlation record before its API record, but kernels
  // complete later and buffers come back in any order: map first, then sum.
  std::unordered_map<uint32_t, size_t> stepOfCall;
  for (const ActivityRecord &record : records)
    if (record.kind == ActivityRecord::ExternalCorrelation &&
        record.externalId >= firstId && record.externalId - firstId < stepCount)
      stepOfCall[record.correlationId] =
          static_cast<size_t>(record.externalId - firstId);
  std::vector<StepActivity> steps(stepCount);
  for (const ActivityRecord &record : records) {
    if (record.kind != ActivityRecord::DeviceWork)
      continue;
    auto found = stepOfCall.find(record.correlationId);
    if (found == stepOfCall.end())
      continue;
    StepActivity &step = steps[found->second];
    ++step.count;
    // CUPTI gives start = end = 0 when it could not time the work.
    if (record.start == 0 || record.end < record.start) {
      ++step.untimed;
      continue;
    }
    step.busyNs += record.end - record.start;
    step.firstStartNs = step.firstStartNs
                            ? std::min(step.firstStartNs, record.start)
                            : record.start;
    step.lastEndNs = std::max(step.lastEndNs, record.end);
  }
  return steps;
}

} // namespace kiln::runtime
