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
  EXPECT_EQ(
      emitter.linearOf(ElementIndex::fromDims({}), std::vector<int64_t>{}),
      "0");
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

/// Extents of |sizes|, a run-time dim (ShapedType::kDynamic) spelled |name|.
Extents extents(std::vector<int64_t> sizes, const std::string &name) {
  Extents result;
  for (int64_t size : sizes) {
    result.sizes.push_back(size);
    result.texts.push_back(
        mlir::ShapedType::isDynamic(size) ? name : std::to_string(size));
  }
  return result;
}

TEST(ElementalEmitterTest, RunTimeExtentsByValue) {
  // [batch, 12, seq, 64] from [batch, seq, 12, 64]: seq's value divides and
  // takes remainders; a static shape's text is unchanged.
  ElementalEmitter emitter{KernelOp()};
  constexpr int64_t dynamic = mlir::ShapedType::kDynamic;
  ElementIndex index = ElementIndex::fromLinear("i");
  Extents heads = extents({dynamic, 12, dynamic, 64}, "(kiln_dim1)");
  heads.texts[0] = "(kiln_dim0)";
  EXPECT_EQ(emitter.dimOf(index, heads, 0), "(i / ((kiln_dim1) * 768))");
  EXPECT_EQ(emitter.dimOf(index, heads, 1), "((i / ((kiln_dim1) * 64)) % 12)");
  EXPECT_EQ(emitter.dimOf(index, heads, 2), "((i / 64) % (kiln_dim1))");
  Extents rows = extents({dynamic, dynamic, 12, 64}, "(kiln_dim1)");
  rows.texts[0] = "(kiln_dim0)";
  ElementIndex swapped = ElementIndex::fromDims({"b", "s", "h", "d"});
  EXPECT_EQ(emitter.linearOf(swapped, rows),
            "(((b * (kiln_dim1) + s) * 12 + h) * 64 + d)");
  // Broadcasting [1, seq, 16] to [batch, seq, 16] keeps seq's index.
  Extents result = extents({dynamic, dynamic, 16}, "(kiln_dim1)");
  result.texts[0] = "(kiln_dim0)";
  ElementIndex table = emitter.broadcastIndex(
      index, result, extents({1, dynamic, 16}, "(kiln_dim1)"));
  EXPECT_EQ(table.dims[1], "((i / 16) % (kiln_dim1))");
  // Static shapes give the same text through either form.
  std::vector<int64_t> shape = {4, 1, 4097};
  EXPECT_EQ(emitter.dimOf(index, extents(shape, ""), 2),
            emitter.dimOf(index, shape, 2));
  // A run-time dim a shape-only caller needs the value of.
  EXPECT_NE(emitter.dimOf(index, std::vector<int64_t>{4, dynamic, 8}, 1)
                .find(kUnknownExtentText.str()),
            std::string::npos);
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
