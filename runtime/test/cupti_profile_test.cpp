// Tests of profile mode's CUPTI timing that need no GPU: reading activity
// records, attributing them to steps, finding the library, and the API's
// argument checks.
#include "cupti_profile.h"
#include "test_util.h"

#include <cupti_activity.h>
#include <cupti_version.h>

#include <cstdlib>
#include <cstring>

using namespace kiln::runtime;
using namespace kiln::testing;

namespace {

/// A CONCURRENT_KERNEL record as CUPTI lays it out.
CUpti_ActivityKernel10 kernel(uint32_t correlationId, uint64_t start,
                              uint64_t end) {
  CUpti_ActivityKernel10 record;
  std::memset(&record, 0, sizeof(record));
  record.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  record.correlationId = correlationId;
  record.start = start;
  record.end = end;
  record.name = "kernel_0";
  return record;
}

CUpti_ActivityExternalCorrelation
correlation(uint32_t correlationId, uint64_t externalId,
            CUpti_ExternalCorrelationKind kind =
                CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
  CUpti_ActivityExternalCorrelation record;
  std::memset(&record, 0, sizeof(record));
  record.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  record.externalKind = kind;
  record.externalId = externalId;
  record.correlationId = correlationId;
  return record;
}

ActivityRecord read(const void *record) {
  ActivityRecord out;
  EXPECT_TRUE(readActivityRecord(record, &out));
  return out;
}

TEST(CuptiActivityTest, ReadsKernelsCopiesSetsAndCorrelations) {
  CUpti_ActivityKernel10 k = kernel(7, 1000, 3500);
  ActivityRecord out = read(&k);
  EXPECT_EQ(out.kind, ActivityRecord::DeviceWork);
  EXPECT_EQ(out.correlationId, 7u);
  EXPECT_EQ(out.start, 1000u);
  EXPECT_EQ(out.end, 3500u);

  CUpti_ActivityMemcpy6 copy;
  std::memset(&copy, 0, sizeof(copy));
  copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  copy.correlationId = 8;
  copy.start = 5000;
  copy.end = 5600;
  out = read(&copy);
  EXPECT_EQ(out.kind, ActivityRecord::DeviceWork);
  EXPECT_EQ(out.correlationId, 8u);
  EXPECT_EQ(out.end - out.start, 600u);

  CUpti_ActivityMemset4 set;
  std::memset(&set, 0, sizeof(set));
  set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  set.correlationId = 9;
  set.start = 6000;
  set.end = 6100;
  out = read(&set);
  EXPECT_EQ(out.correlationId, 9u);
  EXPECT_EQ(out.start, 6000u);

  CUpti_ActivityExternalCorrelation c = correlation(7, 42);
  out = read(&c);
  EXPECT_EQ(out.kind, ActivityRecord::ExternalCorrelation);
  EXPECT_EQ(out.correlationId, 7u);
  EXPECT_EQ(out.externalId, 42u);
}

TEST(CuptiActivityTest, IgnoresApiRecordsAndOtherExternalKinds) {
  CUpti_ActivityAPI api;
  std::memset(&api, 0, sizeof(api));
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  api.correlationId = 7;
  ActivityRecord out;
  EXPECT_FALSE(readActivityRecord(&api, &out));
  // Another tool's ids (CUSTOM1, OpenACC) are not steps.
  CUpti_ActivityExternalCorrelation other =
      correlation(7, 1, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1);
  EXPECT_FALSE(readActivityRecord(&other, &out));
}

std::vector<ActivityRecord> records(std::initializer_list<const void *> raw) {
  std::vector<ActivityRecord> out;
  for (const void *record : raw) {
    ActivityRecord read;
    EXPECT_TRUE(readActivityRecord(record, &read));
    out.push_back(read);
  }
  return out;
}

TEST(CuptiActivityTest, AttributesWorkToStepsByExternalId) {
  // Run ids start at 100: step 0 is id 100 (call 11), step 2 is id 102
  // (calls 13 and 14: a runtime call and the driver call inside it).
  CUpti_ActivityExternalCorrelation s0 = correlation(11, 100),
                                    s2a = correlation(13, 102),
                                    s2b = correlation(14, 102),
                                    stale = correlation(12, 42);
  // Step 2's graph ran three kernels; its records come before their
  // correlation records, as buffers may be delivered out of order.
  CUpti_ActivityKernel10 a = kernel(11, 1000, 1400), b = kernel(13, 2000, 2300),
                         c = kernel(13, 2350, 2950), d = kernel(14, 3000, 3100),
                         other = kernel(12, 500, 9000),
                         unknown = kernel(99, 0, 0);
  std::vector<StepActivity> steps = attributeActivity(
      records({&b, &c, &a, &other, &unknown, &s0, &s2a, &s2b, &d, &stale}), 100,
      3);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].count, 1);
  EXPECT_EQ(steps[0].busyNs, 400u);
  EXPECT_EQ(steps[0].firstStartNs, 1000u);
  EXPECT_EQ(steps[0].lastEndNs, 1400u);
  EXPECT_EQ(steps[1].count, 0);
  EXPECT_EQ(steps[1].busyNs, 0u);
  EXPECT_EQ(steps[1].lastEndNs, 0u);
  EXPECT_EQ(steps[2].count, 3);
  EXPECT_EQ(steps[2].busyNs, 300u + 600u + 100u);
  EXPECT_EQ(steps[2].firstStartNs, 2000u);
  EXPECT_EQ(steps[2].lastEndNs, 3100u);
  for (const StepActivity &step : steps)
    EXPECT_EQ(step.untimed, 0);
}

TEST(CuptiActivityTest, IdsOutsideTheRunAndUntimedWorkAreKeptApart) {
  // Id 103 is the next run's first step when this run has 3 steps.
  CUpti_ActivityExternalCorrelation next = correlation(20, 103),
                                    before = correlation(21, 99),
                                    step1 = correlation(22, 101);
  CUpti_ActivityKernel10 a = kernel(20, 10, 20), b = kernel(21, 10, 20),
                         untimed = kernel(22, 0, 0),
                         backwards = kernel(22, 500, 400),
                         timed = kernel(22, 600, 700);
  std::vector<StepActivity> steps = attributeActivity(
      records({&next, &before, &step1, &a, &b, &untimed, &backwards, &timed}),
      100, 3);
  EXPECT_EQ(steps[0].count + steps[2].count, 0);
  EXPECT_EQ(steps[1].count, 3);
  EXPECT_EQ(steps[1].untimed, 2);
  EXPECT_EQ(steps[1].busyNs, 100u);
  EXPECT_EQ(steps[1].firstStartNs, 600u);
}

TEST(CuptiLibraryTest, MissingLibraryNamesWhatWasTried) {
  std::string reason = probeCuptiLibrary(
      {"libkiln-no-such-cupti.so.13", "/nonexistent/libcupti.so"});
  EXPECT_NE(reason.find("no CUPTI library found"), std::string::npos) << reason;
  EXPECT_NE(reason.find("libkiln-no-such-cupti.so.13, /nonexistent/"),
            std::string::npos)
      << reason;
  // A library without CUPTI's functions is not taken for CUPTI.
  reason = probeCuptiLibrary({"libc.so.6"});
  EXPECT_EQ(reason, "libc.so.6 has no cuptiGetVersion");
}

TEST(CuptiLibraryTest, CandidatesStartWithTheSonameOfTheHeaders) {
  std::vector<std::string> candidates = cuptiLibraryCandidates();
  ASSERT_GE(candidates.size(), 4u);
  std::string soname =
      "libcupti.so." + std::to_string(CUPTI_API_VERSION / 10000);
  bool overridden = std::getenv("KILN_CUPTI_LIBRARY") != nullptr;
  EXPECT_EQ(candidates[overridden ? 1 : 0], soname);
  EXPECT_EQ(candidates.back(),
            "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so");
}

TEST(CuptiLibraryTest, DisabledCollectionSaysWhy) {
  const char *saved = std::getenv("KILN_CUPTI");
  std::string previous = saved ? saved : "";
  setenv("KILN_CUPTI", "0", 1);
  {
    StepActivityCollection collection(4);
    EXPECT_FALSE(collection.active());
    EXPECT_EQ(collection.reason(), "KILN_CUPTI=0");
    collection.beginStep(0); // Inactive: no CUPTI calls.
    collection.endStep();
    std::vector<StepActivity> steps;
    EXPECT_FALSE(collection.finish(&steps));
    EXPECT_TRUE(steps.empty());
  }
  if (saved)
    setenv("KILN_CUPTI", previous.c_str(), 1);
  else
    unsetenv("KILN_CUPTI");
}

// Without a GPU (or without libcupti) a collection falls back with a
// reason; with one it finishes with empty steps. Either way it lets the
// next collection start (a second would wait forever otherwise).
TEST(CuptiLibraryTest, CollectionsFinishOrFallBackAndReleaseCupti) {
  for (int run = 0; run < 2; ++run) {
    StepActivityCollection collection(2);
    bool active = collection.active();
    std::vector<StepActivity> steps;
    bool finished = collection.finish(&steps);
    if (active) {
      EXPECT_TRUE(finished) << collection.reason();
      ASSERT_EQ(steps.size(), 2u);
      EXPECT_EQ(steps[0].count + steps[1].count, 0);
    } else {
      EXPECT_FALSE(finished);
      EXPECT_FALSE(collection.reason().empty());
      EXPECT_TRUE(steps.empty());
    }
  }
}

TEST(ProfileSourceTest, ChecksItsArguments) {
  const char *source = "unchanged";
  EXPECT_TRUE(isError(kiln_session_profile_source(nullptr, &source),
                      KILN_STATUS_INVALID_ARGUMENT, "session is NULL"));
  EXPECT_EQ(source, nullptr);
  EXPECT_TRUE(isError(kiln_session_profile_source(nullptr, nullptr),
                      KILN_STATUS_INVALID_ARGUMENT, "out_source is NULL"));
  kiln_step_profile_t profile;
  EXPECT_TRUE(isError(kiln_session_step_profile(nullptr, 0, &profile),
                      KILN_STATUS_INVALID_ARGUMENT));
}

} // namespace
