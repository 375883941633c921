// Tests of kiln-run's --dump-rows and --dump-step-range parsing and of the
// bitwise output comparison behind --sessions; no GPU needed.
#include "repeatability.h"
#include "step_dump.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace kiln::run;

namespace {

TEST(StepDumpTest, ParsesRowLists) {
  std::vector<int64_t> rows;
  std::string error;
  ASSERT_TRUE(parseDumpRows("0,31", &rows, &error)) << error;
  EXPECT_EQ(rows, (std::vector<int64_t>{0, 31}));
  ASSERT_TRUE(parseDumpRows("0:3,8", &rows, &error)) << error;
  EXPECT_EQ(rows, (std::vector<int64_t>{0, 1, 2, 8}));
  EXPECT_FALSE(parseDumpRows("3,1", &rows, &error));
  EXPECT_NE(error.find("rows must increase"), std::string::npos) << error;
  EXPECT_FALSE(parseDumpRows("2:2", &rows, &error));
  EXPECT_FALSE(parseDumpRows("x", &rows, &error));
  EXPECT_FALSE(parseDumpRows("-1", &rows, &error));
  EXPECT_FALSE(parseDumpRows("", &rows, &error));
}

TEST(StepDumpTest, ParsesStepRanges) {
  int64_t first = -1, last = -1;
  std::string error;
  ASSERT_TRUE(parseStepRange("4:9", &first, &last, &error)) << error;
  EXPECT_EQ(first, 4);
  EXPECT_EQ(last, 9);
  ASSERT_TRUE(parseStepRange(":9", &first, &last, &error)) << error;
  EXPECT_EQ(first, 0);
  ASSERT_TRUE(parseStepRange("12:", &first, &last, &error)) << error;
  EXPECT_EQ(last, INT64_MAX);
  ASSERT_TRUE(parseStepRange("7", &first, &last, &error)) << error;
  EXPECT_EQ(first, 7);
  EXPECT_EQ(last, 7);
  EXPECT_FALSE(parseStepRange("9:4", &first, &last, &error));
  EXPECT_FALSE(parseStepRange("a:b", &first, &last, &error));
}

std::vector<uint8_t> floatBytes(const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(RepeatabilityTest, FindsTheFirstDifferingElement) {
  std::vector<kiln_dtype_t> dtypes = {KILN_DTYPE_F32, KILN_DTYPE_F32};
  std::vector<std::vector<uint8_t>> a = {floatBytes({1, 2, 3}),
                                         floatBytes({4, 5, 6, 7})};
  EXPECT_EQ(firstDifference(a, a, dtypes).output, -1);
  std::vector<std::vector<uint8_t>> b = {floatBytes({1, 2, 3}),
                                         floatBytes({4, 5.5f, 6, 7.25f})};
  OutputDifference difference = firstDifference(a, b, dtypes);
  EXPECT_EQ(difference.output, 1);
  EXPECT_EQ(difference.element, 1);
  EXPECT_EQ(difference.differing, 2u);
  EXPECT_EQ(difference.first, 5.0);
  EXPECT_EQ(difference.second, 5.5);
  // Bitwise: -0 and +0 differ, so does one NaN payload from another.
  std::vector<std::vector<uint8_t>> zero = {floatBytes({0.0f})},
                                    negative = {floatBytes({-0.0f})};
  EXPECT_EQ(firstDifference(zero, negative, {KILN_DTYPE_F32}).output, 0);
}

} // namespace
