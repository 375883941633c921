// Unit tests of the checked element counts, byte sizes and limits of
// TensorLimits.h.
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <limits>

using namespace mlir;
using namespace kiln;

namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

TEST(TensorSize, ElementCountIsChecked) {
  EXPECT_EQ(getStaticElementCount({2, 3, 4}), 24);
  EXPECT_EQ(getStaticElementCount({}), 1);
  EXPECT_EQ(getStaticElementCount({0, kInt64Max}), 0);
  EXPECT_EQ(getStaticElementCount({kInt64Max}), kInt64Max);
  EXPECT_EQ(getStaticElementCount({int64_t(1) << 62, 4, 5}), std::nullopt);
  EXPECT_EQ(getStaticElementCount({ShapedType::kDynamic, 4}), std::nullopt);
}

TEST(TensorSize, ByteSizeIsChecked) {
  MLIRContext context;
  Type f32 = Float32Type::get(&context);
  Type i1 = IntegerType::get(&context, 1);
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get({4, 5}, f32)), 80);
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get({3}, i1)), 3);
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get({kInt64Max}, f32)),
            std::nullopt);
  EXPECT_EQ(getStaticByteSize(RankedTensorType::get({kInt64Max}, i1)),
            kInt64Max);
}

TEST(TensorSize, ProblemsAreDescribed) {
  MLIRContext context;
  Type f32 = Float32Type::get(&context);
  EXPECT_EQ(findTensorSizeProblem(RankedTensorType::get({4, 5}, f32)),
            std::nullopt);
  EXPECT_EQ(
      findTensorSizeProblem(
          RankedTensorType::get({int64_t(1) << 62, 4, 5}, f32)),
      "a tensor of shape [4611686018427387904x4x5] has more than 2^63 - 1 "
      "elements");
  EXPECT_EQ(findTensorSizeProblem(RankedTensorType::get({kInt64Max}, f32)),
            "a tensor of shape [9223372036854775807] and 4-byte elements has "
            "more than 2^63 - 1 bytes");
  // Dynamic dims are skipped: the static part must fit on its own.
  EXPECT_EQ(findTensorSizeProblem(RankedTensorType::get(
                {ShapedType::kDynamic, int64_t(1) << 62, 4}, f32)),
            "a tensor of shape [?x4611686018427387904x4] has more than 2^63 - "
            "1 elements");
  EXPECT_EQ(findTensorSizeProblem(RankedTensorType::get(
                SmallVector<int64_t>(kMaxRank + 1, 1), f32)),
            "a tensor of rank 65 is beyond kiln's limit of rank 64");
  EXPECT_EQ(findTensorSizeProblem(UnrankedTensorType::get(f32)), std::nullopt);
}

} // namespace
