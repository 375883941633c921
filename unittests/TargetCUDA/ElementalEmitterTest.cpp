// Unit tests of the CUDA emitter's index arithmetic, literals and dtype
// conversions.
#include "kiln/Target/CUDA/ElementalEmitter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln;

namespace {

TEST(ElementalEmitterTest, DimsFromLinearIndex) {
  ElementalEmitter emitter{KernelOp()};
  ElementIndex index = ElementIndex::fromLinear("i");
  std::vector<int64_t> shape = {4, 1, 4097};
  EXPECT_EQ(emitter.dimOf(index, shape, 0), "(i / 4097)");
  EXPECT_EQ(emitter.dimOf(index, shape, 1), "0");
  EXPECT_EQ(emitter.dimOf(index, shape, 2), "(i % 4097)");
  EXPECT_EQ(emitter.linearOf(index, shape), "i");
}

TEST(ElementalEmitterTest, LinearFromDimsSkipsUnitDims) {
  ElementalEmitter emitter{KernelOp()};
  ElementIndex index = ElementIndex::fromDims({"a", "0", "b"});
  EXPECT_EQ(emitter.linearOf(index, std::vector<int64_t>{3, 1, 5}),
            "(a * 5 + b)");
  EXPECT_EQ(emitter.linearOf(ElementIndex::fromDims({}), {}), "0");
}

TEST(ElementalEmitterTest, BroadcastIndexDropsBroadcastDims) {
  ElementalEmitter emitter{KernelOp()};
  ElementIndex index = ElementIndex::fromLinear("i");
  ElementIndex same = emitter.broadcastIndex(index, {8, 4097}, {8, 4097});
  EXPECT_EQ(same.key(), index.key());
  ElementIndex row = emitter.broadcastIndex(index, {8, 4097}, {4097});
  EXPECT_EQ(emitter.linearOf(row, std::vector<int64_t>{4097}), "(i % 4097)");
  ElementIndex column = emitter.broadcastIndex(index, {8, 4097}, {8, 1});
  EXPECT_EQ(emitter.linearOf(column, std::vector<int64_t>{8, 1}), "(i / 4097)");
}

TEST(ElementalEmitterTest, Literals) {
  mlir::MLIRContext context;
  mlir::Builder builder(&context);
  EXPECT_EQ(ElementalEmitter::floatLiteral(builder.getF32Type(), 0.5), "0.5f");
  EXPECT_EQ(ElementalEmitter::floatLiteral(builder.getF32Type(), 3), "3.0f");
  EXPECT_EQ(ElementalEmitter::floatLiteral(builder.getF32Type(), -2),
            "(-2.0f)");
  EXPECT_EQ(ElementalEmitter::floatLiteral(builder.getF64Type(), 0.1),
            "0.10000000000000001");
  EXPECT_EQ(ElementalEmitter::floatLiteral(builder.getF32Type(), INFINITY),
            "__int_as_float(0x7f800000)");
  EXPECT_EQ(ElementalEmitter::intLiteral(INT64_MIN),
            "(-9223372036854775807LL - 1)");
}

TEST(ElementalEmitterTest, StorageAndComputeTypes) {
  mlir::MLIRContext context;
  mlir::Builder builder(&context);
  EXPECT_EQ(ElementalEmitter::storageType(builder.getF16Type()), "__half");
  EXPECT_EQ(ElementalEmitter::storageType(builder.getBF16Type()),
            "__nv_bfloat16");
  EXPECT_EQ(ElementalEmitter::computeType(builder.getBF16Type()), "float");
  EXPECT_EQ(ElementalEmitter::storageType(builder.getI1Type()),
            "unsigned char");
  EXPECT_EQ(ElementalEmitter::computeType(builder.getI1Type()), "bool");
  mlir::Type u16 =
      mlir::IntegerType::get(&context, 16, mlir::IntegerType::Unsigned);
  EXPECT_EQ(ElementalEmitter::storageType(u16), "unsigned short");
  EXPECT_EQ(ElementalEmitter::computeType(u16), "long long");
  EXPECT_EQ(ElementalEmitter::wrapInteger(u16, "x"),
            "(long long)(unsigned short)x");
  EXPECT_EQ(ElementalEmitter::loadConversion(builder.getF16Type(), "p[i]"),
            "__half2float(p[i])");
  EXPECT_EQ(ElementalEmitter::storeConversion(builder.getBF16Type(), "v"),
            "__float2bfloat16_rn(v)");
}

} // namespace
