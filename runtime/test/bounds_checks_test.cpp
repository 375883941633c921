// Tests of the bounds-check fault message (no GPU): what a record names for
// a step of the plan, for each op site, and for a step the plan lacks.
#include "bounds_checks.h"
#include "session.h"

#include <gtest/gtest.h>

#include <cstddef>

using namespace kiln::runtime;
using kiln::artifact::BoundsCheckSite;
using kiln::artifact::BoundsFaultRecord;

namespace {

std::vector<PreparedStep> plan() {
  std::vector<PreparedStep> steps(13);
  for (size_t i = 0; i < steps.size(); ++i) {
    steps[i].name = "kernel_" + std::to_string(i);
    steps[i].kindName = "launch";
  }
  steps[12].name = "gather_3";
  steps[12].onnxNodes = "/embeddings/Gather";
  steps[12].symbol = "kiln_data_movement_0123456789abcdef";
  return steps;
}

BoundsFaultRecord record(BoundsCheckSite site, uint64_t step, int64_t index,
                         int64_t bound, int64_t axis) {
  BoundsFaultRecord fault{};
  fault.flag = 1;
  fault.site = static_cast<uint32_t>(site);
  fault.step = step;
  fault.index = index;
  fault.bound = bound;
  fault.axis = axis;
  return fault;
}

TEST(BoundsChecksTest, NamesTheStepKernelNodesIndexBoundAndAxis) {
  EXPECT_EQ(describeBoundsFault(
                record(BoundsCheckSite::Gather, 12, 50321, 30522, 0), plan()),
            "step 12 'gather_3' (launch; ONNX nodes: /embeddings/Gather) "
            "in CUDA kernel kiln_data_movement_0123456789abcdef: "
            "Gather index 50321 out of range [-30522, 30522) on axis 0");
}

TEST(BoundsChecksTest, NamesEachSiteAndNegativeIndices) {
  std::vector<PreparedStep> steps = plan();
  struct Case {
    BoundsCheckSite site;
    const char *name;
  } cases[] = {{BoundsCheckSite::GatherElements, "GatherElements"},
               {BoundsCheckSite::GatherND, "GatherND"},
               {BoundsCheckSite::ScatterElements, "ScatterElements"},
               {BoundsCheckSite::ScatterND, "ScatterND"}};
  for (const Case &c : cases)
    EXPECT_EQ(describeBoundsFault(record(c.site, 3, -9, 8, 2), steps),
              "step 3 'kernel_3' (launch): " + std::string(c.name) +
                  " index -9 out of range [-8, 8) on axis 2");
}

// A damaged record or a kernel of another plan: said, never indexed past
// the steps.
TEST(BoundsChecksTest, StepOutsideThePlanIsSaid) {
  BoundsFaultRecord fault = record(BoundsCheckSite::Gather, 99, 7, 4, 1);
  fault.site = 77;
  EXPECT_EQ(describeBoundsFault(fault, plan()),
            "step 99 (not a step of this entry point): an indexing op index 7 "
            "out of range [-4, 4) on axis 1");
}

TEST(BoundsChecksTest, RecordLayoutMatchesThePrelude) {
  // kiln_bounds_record in lib/Target/CUDA/Prelude.cpp: two 32-bit words,
  // then 64-bit fields.
  EXPECT_EQ(offsetof(BoundsFaultRecord, site), 4u);
  EXPECT_EQ(offsetof(BoundsFaultRecord, step), 8u);
  EXPECT_EQ(offsetof(BoundsFaultRecord, index), 16u);
  EXPECT_EQ(offsetof(BoundsFaultRecord, bound), 24u);
  EXPECT_EQ(offsetof(BoundsFaultRecord, axis), 32u);
}

} // namespace
