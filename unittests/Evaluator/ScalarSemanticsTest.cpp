// Unit tests of the scalar-semantics table: float rounding, integer wrapping,
// Cast saturation, integer division and the per-op CPU functions.
#include "kiln/Evaluator/ScalarSemantics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>

using namespace kiln::eval;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(HalfRounding, ExactValues) {
  EXPECT_EQ(doubleToHalfBits(1.0), 0x3C00);
  EXPECT_EQ(doubleToHalfBits(-2.0), 0xC000);
  EXPECT_EQ(doubleToHalfBits(65504.0), 0x7BFF);
  EXPECT_EQ(doubleToHalfBits(0.0), 0x0000);
  EXPECT_EQ(doubleToHalfBits(-0.0), 0x8000);
  EXPECT_EQ(doubleToHalfBits(std::ldexp(1.0, -14)), 0x0400); // Min normal.
  EXPECT_EQ(doubleToHalfBits(std::ldexp(1.0, -24)), 0x0001); // Min subnormal.
  EXPECT_EQ(halfBitsToDouble(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(halfBitsToDouble(0x7BFF), 65504.0);
  EXPECT_EQ(halfBitsToDouble(0xC000), -2.0);
}

TEST(HalfRounding, TiesGoToEven) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: even is 1.
  EXPECT_EQ(doubleToHalfBits(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  // 1 + 3 * 2^-11 lies between 0x3C01 and 0x3C02: even is 0x3C02.
  EXPECT_EQ(doubleToHalfBits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);
  // Just above a tie rounds up.
  EXPECT_EQ(doubleToHalfBits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)),
            0x3C01);
  // Subnormal ties: 2^-25 -> 0 (even), 3 * 2^-25 -> 2 * 2^-24.
  EXPECT_EQ(doubleToHalfBits(std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(doubleToHalfBits(-std::ldexp(1.0, -25)), 0x8000);
  EXPECT_EQ(doubleToHalfBits(std::ldexp(1.0, -25) * 1.000001), 0x0001);
  EXPECT_EQ(doubleToHalfBits(3 * std::ldexp(1.0, -25)), 0x0002);
  // The largest subnormal plus half an ulp rounds up into the normals.
  EXPECT_EQ(doubleToHalfBits(std::ldexp(1.0, -14) - std::ldexp(1.0, -25)),
            0x0400);
  EXPECT_EQ(doubleToHalfBits(std::ldexp(1.0, -40)), 0x0000);
}

TEST(HalfRounding, Overflow) {
  // 65520 is halfway between 65504 and 65536 (not representable): inf.
  EXPECT_EQ(doubleToHalfBits(65520.0), 0x7C00);
  EXPECT_EQ(doubleToHalfBits(65519.99), 0x7BFF);
  EXPECT_EQ(doubleToHalfBits(-1e6), 0xFC00);
  EXPECT_EQ(doubleToHalfBits(kInf), 0x7C00);
  EXPECT_EQ(doubleToHalfBits(1e300), 0x7C00);
  EXPECT_EQ(doubleToHalfBits(kNaN) & 0x7E00, 0x7E00);
  EXPECT_TRUE(std::isnan(halfBitsToDouble(0x7E00)));
  EXPECT_EQ(halfBitsToDouble(0xFC00), -kInf);
}

// Every pair of neighbouring finite halves: values just inside the interval
// go to the nearer one, and the midpoint goes to the even one.
TEST(HalfRounding, ExhaustiveMidpoints) {
  for (uint32_t bits = 0; bits < 0x7BFF; ++bits) {
    double low = halfBitsToDouble(bits), high = halfBitsToDouble(bits + 1);
    double middle = (low + high) / 2;
    ASSERT_EQ(doubleToHalfBits(low), bits);
    ASSERT_EQ(doubleToHalfBits(std::nextafter(middle, low)), bits);
    ASSERT_EQ(doubleToHalfBits(std::nextafter(middle, high)), bits + 1);
    ASSERT_EQ(doubleToHalfBits(middle), (bits & 1) ? bits + 1 : bits)
        << "bits " << bits;
    ASSERT_EQ(doubleToHalfBits(-middle),
              0x8000 | ((bits & 1) ? bits + 1 : bits));
  }
}

TEST(BFloat16Rounding, Values) {
  EXPECT_EQ(doubleToBFloat16Bits(1.0), 0x3F80);
  EXPECT_EQ(doubleToBFloat16Bits(1.0 + std::ldexp(1.0, -8)), 0x3F80); // Tie.
  EXPECT_EQ(doubleToBFloat16Bits(1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82);
  EXPECT_EQ(doubleToBFloat16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(doubleToBFloat16Bits(std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(doubleToBFloat16Bits(std::ldexp(1.0, -134)), 0x0000); // Tie.
  EXPECT_EQ(bfloat16BitsToDouble(0x7F7F), 0x1.FEp127);
  EXPECT_EQ(bfloat16BitsToDouble(0xC0A0), -5.0);
}

// bf16 is the top half of a float32: compare with the classic bit trick for
// round-to-nearest-even on random finite floats.
TEST(BFloat16Rounding, MatchesFloatBitTrick) {
  std::mt19937 random(7);
  for (int i = 0; i < 200000; ++i) {
    uint32_t bits = random();
    float value;
    std::memcpy(&value, &bits, 4);
    if (std::isnan(value))
      continue;
    uint32_t rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16;
    ASSERT_EQ(doubleToBFloat16Bits(value), rounded) << value;
  }
}

TEST(FloatRounding, Float32) {
  EXPECT_EQ(roundToFloatDType(1.0 + std::ldexp(1.0, -24), DType::F32), 1.0);
  EXPECT_EQ(roundToFloatDType(1.0 + 3 * std::ldexp(1.0, -24), DType::F32),
            1.0 + std::ldexp(1.0, -22));
  EXPECT_EQ(roundToFloatDType(1e39, DType::F32), kInf);
  EXPECT_EQ(roundToFloatDType(std::ldexp(1.0, -149), DType::F32),
            std::ldexp(1.0, -149));
  EXPECT_EQ(roundToFloatDType(0.1, DType::F64), 0.1);
  EXPECT_EQ(roundToFloatDType(65520.0, DType::F16), kInf);
}

TEST(IntegerWrapping, Widths) {
  EXPECT_EQ(wrapToIntDType(300, DType::I8), 44);
  EXPECT_EQ(wrapToIntDType(-129, DType::I8), 127);
  EXPECT_EQ(wrapToIntDType(65541, DType::U16), 5);
  EXPECT_EQ(wrapToIntDType(-1, DType::U32), 4294967295LL);
  EXPECT_EQ(wrapToIntDType(2147483648LL, DType::I32), -2147483648LL);
  EXPECT_EQ(wrapToIntDType(7, DType::Bool), 1);
}

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  EXPECT_EQ(castFloatToInt(2.7, DType::I32), 2);
  EXPECT_EQ(castFloatToInt(-2.7, DType::I32), -2);
  EXPECT_EQ(castFloatToInt(kNaN, DType::I32), 0);
  EXPECT_EQ(castFloatToInt(1e10, DType::I32), 2147483647);
  EXPECT_EQ(castFloatToInt(-1e10, DType::I32), -2147483648LL);
  EXPECT_EQ(castFloatToInt(kInf, DType::I8), 127);
  EXPECT_EQ(castFloatToInt(-kInf, DType::I8), -128);
  EXPECT_EQ(castFloatToInt(300.5, DType::U8), 255);
  EXPECT_EQ(castFloatToInt(-5.0, DType::U8), 0);
  EXPECT_EQ(castFloatToInt(1e30, DType::I64),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(castFloatToInt(-1e30, DType::I64),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(static_cast<uint64_t>(castFloatToInt(1e30, DType::U64)),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(static_cast<uint64_t>(castFloatToInt(1e19, DType::U64)),
            10000000000000000000ULL);
}

TEST(Cast, ToBoolTestsNonZero) {
  EXPECT_EQ(castFloatToInt(0.5, DType::Bool), 1);
  EXPECT_EQ(castFloatToInt(-0.0, DType::Bool), 0);
  EXPECT_EQ(castFloatToInt(kNaN, DType::Bool), 1);
}

TEST(Cast, IntToFloat) {
  EXPECT_EQ(castIntToFloat(16777217, DType::I64, DType::F32), 16777216.0);
  EXPECT_EQ(castIntToFloat(-1, DType::U64, DType::F64), 18446744073709551616.0);
  EXPECT_EQ(castIntToFloat(65519, DType::I32, DType::F16), 65504.0);
  EXPECT_EQ(castIntToFloat(70000, DType::I32, DType::F16), kInf);
}

TEST(IntegerDivision, TruncatesTowardZero) {
  EXPECT_EQ(truncatingDivide(7, 2, DType::I32), 3);
  EXPECT_EQ(truncatingDivide(-7, 2, DType::I32), -3);
  EXPECT_EQ(truncatingDivide(7, -2, DType::I32), -3);
  EXPECT_EQ(truncatingDivide(-7, -2, DType::I32), 3);
  EXPECT_FALSE(truncatingDivide(7, 0, DType::I32).has_value());
  EXPECT_EQ(
      truncatingDivide(std::numeric_limits<int64_t>::min(), -1, DType::I64),
      std::numeric_limits<int64_t>::min());
  // u64 divides unsigned: (2^64 - 2) / 2 = 2^63 - 1.
  EXPECT_EQ(truncatingDivide(-2, 2, DType::U64),
            std::numeric_limits<int64_t>::max());
}

TEST(Power, Integers) {
  EXPECT_EQ(integerPower(2, 10, DType::I32), 1024);
  EXPECT_EQ(integerPower(3, -1, DType::I32), 0);
  EXPECT_EQ(integerPower(-1, -3, DType::I32), -1);
  EXPECT_EQ(integerPower(1, -3, DType::I32), 1);
  EXPECT_EQ(integerPower(2, 8, DType::I8), 0); // 256 wraps.
  EXPECT_EQ(integerPower(-3, 3, DType::I64), -27);
  EXPECT_EQ(integerPower(5, 0, DType::I64), 1);
}

const ElementwiseSemantics &row(ElementwiseKind kind) {
  return getElementwiseSemantics(kind);
}

TEST(ElementwiseTable, OneRowPerKindInOrder) {
  std::set<std::string> names;
  auto table = getElementwiseTable();
  ASSERT_EQ(table.size(), kNumElementwiseKinds);
  for (unsigned i = 0; i < table.size(); ++i) {
    EXPECT_EQ(static_cast<unsigned>(table[i].kind), i);
    EXPECT_TRUE(names.insert(table[i].name).second) << table[i].name;
    EXPECT_GE(table[i].arity, 1u);
    EXPECT_LE(table[i].arity, 3u);
  }
}

TEST(ElementwiseTable, FloatFunctions) {
  double nanAndOne[2] = {kNaN, 1.0}, oneAndNaN[2] = {1.0, kNaN};
  EXPECT_TRUE(std::isnan(row(ElementwiseKind::Max).cpuFloat(nanAndOne)));
  EXPECT_TRUE(std::isnan(row(ElementwiseKind::Max).cpuFloat(oneAndNaN)));
  double pair[2] = {-3.0, 2.0};
  EXPECT_EQ(row(ElementwiseKind::Max).cpuFloat(pair), 2.0);
  EXPECT_EQ(row(ElementwiseKind::Pow).cpuFloat(pair), 9.0);
  EXPECT_EQ(row(ElementwiseKind::Less).cpuFloat(pair), 1.0);
  EXPECT_EQ(row(ElementwiseKind::Equal).cpuFloat(nanAndOne), 0.0);
  double nan[1] = {kNaN}, negative[1] = {-4.0};
  EXPECT_TRUE(std::isnan(row(ElementwiseKind::Relu).cpuFloat(nan)));
  EXPECT_EQ(row(ElementwiseKind::Relu).cpuFloat(negative), 0.0);
  EXPECT_TRUE(std::isnan(row(ElementwiseKind::Sqrt).cpuFloat(negative)));
  double big[1] = {-1000.0}, huge[1] = {1000.0}, zero[1] = {0.0};
  EXPECT_EQ(row(ElementwiseKind::Sigmoid).cpuFloat(big), 0.0);
  EXPECT_EQ(row(ElementwiseKind::Sigmoid).cpuFloat(huge), 1.0);
  EXPECT_EQ(row(ElementwiseKind::Sigmoid).cpuFloat(zero), 0.5);
  EXPECT_GT(stableSigmoid(-700.0), 0.0);
  double one[1] = {1.0};
  EXPECT_NEAR(row(ElementwiseKind::Erf).cpuFloat(one), 0.8427007929497149,
              1e-15);
  double select[3] = {0.0, 5.0, 6.0};
  EXPECT_EQ(row(ElementwiseKind::Where).cpuFloat(select), 6.0);
  // GELU: x * Phi(x) exactly, and its tanh approximation.
  EXPECT_NEAR(row(ElementwiseKind::Gelu).cpuFloat(one), 0.8413447460685429,
              1e-15);
  EXPECT_NEAR(row(ElementwiseKind::GeluTanh).cpuFloat(one),
              0.8411919906082768, 1e-15);
}

TEST(ElementwiseTable, IntegerFunctions) {
  int64_t divideByZero[2] = {5, 0};
  EXPECT_FALSE(row(ElementwiseKind::Div).cpuInt(divideByZero, DType::I32));
  int64_t minimum[1] = {std::numeric_limits<int64_t>::min()};
  EXPECT_EQ(*row(ElementwiseKind::Abs).cpuInt(minimum, DType::I64),
            std::numeric_limits<int64_t>::min());
  // u64 compares unsigned: 2^64 - 1 > 1.
  int64_t unsignedPair[2] = {-1, 1};
  EXPECT_EQ(*row(ElementwiseKind::Greater).cpuInt(unsignedPair, DType::U64), 1);
  EXPECT_EQ(*row(ElementwiseKind::Greater).cpuInt(unsignedPair, DType::I64), 0);
  int64_t overflow[2] = {std::numeric_limits<int64_t>::max(), 1};
  EXPECT_EQ(*row(ElementwiseKind::Add).cpuInt(overflow, DType::I64),
            std::numeric_limits<int64_t>::min());
  int64_t truth[1] = {1};
  EXPECT_EQ(*row(ElementwiseKind::Not).cpuInt(truth, DType::Bool), 0);
  EXPECT_EQ(row(ElementwiseKind::Exp).cpuInt, nullptr);
  EXPECT_EQ(row(ElementwiseKind::Not).cpuFloat, nullptr);
}

} // namespace
