// Tests of kiln-run's tensor files: .npy and TensorProto parsing (bytes from
// numpy/onnx), writing, comparison.
#include "tensor_files.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace kiln::run;

namespace {

std::vector<uint8_t> fromHex(const std::string &hex) {
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(
        static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

// Written by numpy.save and onnx's TensorProto.SerializeToString.
const std::string kNpyHeader = "934e554d5059010076007b276465736372273a20273c663"
                               "4272c2027666f727472616e5f6f72646572273a20"
                               "46616c73652c20277368617065273a2028322c2033292c2"
                               "07d20202020202020202020202020202020202020"
                               "20202020202020202020202020202020202020202020202"
                               "02020202020202020202020202020200a";
const std::string kData = "0000c03f000000c0000050400000000000008040000000bf";
const std::vector<float> kValues = {1.5f, -2.0f, 3.25f, 0.0f, 4.0f, -0.5f};

TEST(TensorFilesTest, ParsesNpy) {
  std::vector<uint8_t> bytes = fromHex(kNpyHeader + kData);
  HostTensor tensor;
  std::string error;
  ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), &tensor, &error)) << error;
  EXPECT_EQ(tensor.dtype, KILN_DTYPE_F32);
  EXPECT_EQ(tensor.dims, (std::vector<int64_t>{2, 3}));
  for (size_t i = 0; i < kValues.size(); ++i)
    EXPECT_EQ(tensor.at(i), kValues[i]);
}

TEST(TensorFilesTest, ParsesNpyScalarsAndIntegers) {
  std::vector<uint8_t> bytes =
      fromHex("934e554d5059010076007b276465736372273a20273c6632272c2027666f7274"
              "72616e5f6f72646572273a20"
              "46616c73652c20277368617065273a2028292c207d2020202020202020202020"
              "202020202020202020202020"
              "2020202020202020202020202020202020202020202020202020202020202020"
              "202020202020200a0041");
  HostTensor tensor;
  std::string error;
  ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), &tensor, &error)) << error;
  EXPECT_EQ(tensor.dtype, KILN_DTYPE_F16);
  EXPECT_TRUE(tensor.dims.empty());
  EXPECT_EQ(tensor.at(0), 2.5);
}

TEST(TensorFilesTest, RejectsDamagedNpy) {
  std::vector<uint8_t> bytes = fromHex(kNpyHeader + kData);
  HostTensor tensor;
  std::string error;
  std::vector<uint8_t> truncated(bytes.begin(), bytes.end() - 1);
  EXPECT_FALSE(parseNpy(truncated.data(), truncated.size(), &tensor, &error));
  EXPECT_NE(error.find("needs 24"), std::string::npos) << error;
  for (size_t length = 0; length < bytes.size(); ++length)
    EXPECT_FALSE(parseNpy(bytes.data(), length, &tensor, &error)) << length;
  bytes[0] = 'x';
  EXPECT_FALSE(parseNpy(bytes.data(), bytes.size(), &tensor, &error));
  EXPECT_EQ(error, "not an .npy file");
}

// Found by the tensor-file fuzzer: a header that ends right after
// 'fortran_order': threw std::out_of_range.
TEST(TensorFilesTest, RejectsNpyKeyWithoutValue) {
  std::string header = "{'descr': '<f4', 'shape': (1,), 'fortran_order':   ";
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                uint8_t(header.size()), 0};
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), 4, 0);
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(parseNpy(bytes.data(), bytes.size(), &tensor, &error));
  EXPECT_EQ(error, "malformed .npy header (fortran_order has no value)");
}

struct ProtoCase {
  const char *hex, *name;
  kiln_dtype_t dtype;
  std::vector<int64_t> dims;
  std::vector<double> values;
};

TEST(TensorFilesTest, ParsesTensorProtos) {
  const ProtoCase cases[] = {
      {"0802080310014201784a180000c03f000000c0000050400000000000008040000000bf",
       "x",
       KILN_DTYPE_F32,
       {2, 3},
       {1.5, -2.0, 3.25, 0.0, 4.0, -0.5}},
      {"08031001220c0000803f00000040000040c0420179",
       "y",
       KILN_DTYPE_F32,
       {3},
       {1, 2, -3}},
      {"0802080210073a1201feffffffffffffffff010380a0be81950142017a",
       "z",
       KILN_DTYPE_I64,
       {2, 2},
       {1, -2, 3, 40000000000.0}},
      {"0802100a2a058078808203420168", "h", KILN_DTYPE_F16, {2}, {1.0, -2.5}},
      {"080310062a0effffffffffffffffff0107a08d06420169",
       "i",
       KILN_DTYPE_I32,
       {3},
       {-1, 7, 100000}},
      {"0802100b4201645210000000000000e03f9c7500883ce437fe",
       "d",
       KILN_DTYPE_F64,
       {2},
       {0.5, -1e300}},
  };
  for (const ProtoCase &c : cases) {
    std::vector<uint8_t> bytes = fromHex(c.hex);
    HostTensor tensor;
    std::string error;
    ASSERT_TRUE(parseTensorProto(bytes.data(), bytes.size(), &tensor, &error))
        << c.name << ": " << error;
    EXPECT_EQ(tensor.name, c.name);
    EXPECT_EQ(tensor.dtype, c.dtype) << c.name;
    EXPECT_EQ(tensor.dims, c.dims) << c.name;
    ASSERT_EQ(tensor.elementCount(), c.values.size()) << c.name;
    for (size_t i = 0; i < c.values.size(); ++i)
      EXPECT_EQ(tensor.at(i), c.values[i]) << c.name << " at " << i;
    // No truncation of a valid proto crashes; most are errors.
    for (size_t length = 0; length < bytes.size(); ++length) {
      HostTensor partial;
      parseTensorProto(bytes.data(), length, &partial, &error);
    }
  }
}

TEST(TensorFilesTest, RejectsTensorProtoWithWrongCount) {
  // dims [4] but three floats.
  std::vector<uint8_t> bytes =
      fromHex("08041001220c0000803f00000040000040c0420179");
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(parseTensorProto(bytes.data(), bytes.size(), &tensor, &error));
  EXPECT_NE(error.find("3 values for dims [4]"), std::string::npos) << error;
}

// Found by the tensor-file fuzzer (CI, 2026-12-07): uint8 (typed values in
// int32_data, four bytes each) with 21 dims of 8 and no values. 8^21 values
// times 4 bytes wrapped to 0, which matched the empty field, and the resize
// to 2^63 bytes threw out of the parser.
TEST(TensorFilesTest, RejectsTensorProtoWhoseCountWraps) {
  std::string hex = "10024204001813b07869";
  for (int i = 0; i < 21; ++i)
    hex += "0808";
  std::vector<uint8_t> bytes = fromHex(hex);
  HostTensor tensor;
  std::string error;
  EXPECT_FALSE(parseTensorProto(bytes.data(), bytes.size(), &tensor, &error));
}

TEST(TensorFilesTest, WritesNpyThatReadsBack) {
  HostTensor tensor;
  tensor.name = "out";
  tensor.dtype = KILN_DTYPE_F32;
  tensor.dims = {2, 3};
  tensor.data = fromHex(kData);
  std::string path = ::testing::TempDir() + "out.npy", error;
  ASSERT_TRUE(writeNpy(path, tensor, &error)) << error;
  HostTensor back;
  ASSERT_TRUE(readTensorFile(path, &back, &error)) << error;
  EXPECT_EQ(back.name, "out");
  EXPECT_EQ(back.dims, tensor.dims);
  EXPECT_EQ(back.data, tensor.data);
  std::remove(path.c_str());
}

TEST(TensorFilesTest, ConvertsBetweenFloatTypes) {
  HostTensor tensor, half, back;
  tensor.dtype = KILN_DTYPE_F32;
  tensor.dims = {6};
  tensor.data = fromHex(kData);
  std::string error;
  ASSERT_TRUE(convertTensor(tensor, KILN_DTYPE_F16, &half, &error)) << error;
  ASSERT_TRUE(convertTensor(half, KILN_DTYPE_BF16, &back, &error)) << error;
  for (size_t i = 0; i < kValues.size(); ++i)
    EXPECT_EQ(back.at(i), kValues[i]);
  tensor.dtype = KILN_DTYPE_I32;
  EXPECT_FALSE(convertTensor(tensor, KILN_DTYPE_F32, &back, &error));
}

// ONNX's test data stores bfloat16 tensors as uint16 bit patterns.
TEST(TensorFilesTest, TakesUint16BitsAsBFloat16) {
  HostTensor bits, bf16;
  bits.dtype = KILN_DTYPE_U16;
  bits.dims = {2};
  bits.data = {0x80, 0x3f, 0x00, 0xc0}; // 1.0 and -2.0 in bfloat16
  std::string error;
  ASSERT_TRUE(convertTensor(bits, KILN_DTYPE_BF16, &bf16, &error)) << error;
  EXPECT_EQ(bf16.dtype, KILN_DTYPE_BF16);
  EXPECT_EQ(bf16.at(0), 1.0);
  EXPECT_EQ(bf16.at(1), -2.0);
  EXPECT_FALSE(convertTensor(bits, KILN_DTYPE_F16, &bf16, &error));
}

TEST(TensorFilesTest, ComparisonNeverPassesNaN) {
  HostTensor expected, actual;
  expected.dtype = actual.dtype = KILN_DTYPE_F32;
  expected.dims = actual.dims = {6};
  expected.data = fromHex(kData);
  actual = expected;
  Comparison same = compareTensors(actual, expected, 1e-4, 1e-5);
  EXPECT_EQ(same.mismatches, 0u);
  EXPECT_EQ(same.relL2, 0.0);
  float nan = NAN, off = 3.26f;
  std::memcpy(&actual.data[8], &off, 4);
  Comparison close = compareTensors(actual, expected, 1e-4, 1e-5);
  EXPECT_EQ(close.mismatches, 1u);
  EXPECT_EQ(close.firstMismatch, 2);
  EXPECT_NEAR(close.maxAbs, 0.01, 1e-6);
  EXPECT_GT(compareTensors(actual, expected, 1e-3, 0).mismatches, 0u);
  EXPECT_EQ(compareTensors(actual, expected, 1e-2, 1e-2).mismatches, 0u);
  std::memcpy(&actual.data[0], &nan, 4);
  Comparison withNaN = compareTensors(actual, expected, 1.0, 1.0);
  EXPECT_EQ(withNaN.mismatches, 1u);
  EXPECT_EQ(withNaN.nans, 1u);
  EXPECT_TRUE(std::isinf(withNaN.relL2));
  // A NaN the reference expects is a match; a number where NaN is expected
  // is not.
  HostTensor expectedNaN = expected;
  std::memcpy(&expectedNaN.data[0], &nan, 4);
  EXPECT_EQ(compareTensors(actual, expectedNaN, 1.0, 1.0).mismatches, 0u);
  EXPECT_EQ(compareTensors(expected, expectedNaN, 1.0, 1.0).mismatches, 1u);
}

HostTensor floats(const std::vector<float> &values) {
  HostTensor tensor;
  tensor.dtype = KILN_DTYPE_F32;
  tensor.dims = {static_cast<int64_t>(values.size())};
  tensor.data.resize(values.size() * 4);
  std::memcpy(tensor.data.data(), values.data(), tensor.data.size());
  return tensor;
}

// --rel-l2 bounds every element too: one element of 10000 far off passes
// rel-L2 1e-2 (its error is 5e-3) but not the peak bound of 10 L, while an
// error spread over every element, as fp16 rounding is, passes both.
TEST(TensorFilesTest, RelL2AlsoBoundsTheWorstElement) {
  std::vector<float> reference(10000);
  for (size_t i = 0; i < reference.size(); ++i)
    reference[i] = std::sin(0.37f * float(i)) + (i == 17 ? 1.0f : 0.0f);
  std::vector<float> spread = reference, oneOff = reference;
  for (size_t i = 0; i < spread.size(); ++i)
    spread[i] *= i % 2 ? 1.004f : 0.996f;
  oneOff[4321] += 0.5f;
  HostTensor expected = floats(reference);
  Tolerance relL2;
  relL2.relL2 = 1e-2;
  EXPECT_DOUBLE_EQ(peakErrorBound(relL2), 0.1);

  Comparison rounding = compareTensors(floats(spread), expected, 0, 0);
  EXPECT_LT(rounding.relL2, 5e-3);
  EXPECT_LT(rounding.peakError, 5e-3);
  EXPECT_TRUE(withinTolerance(rounding, relL2));

  HostTensor actual = floats(oneOff);
  Comparison far = compareTensors(actual, expected, 0, 0);
  EXPECT_NEAR(far.relL2, 0.5 / std::sqrt(5000.0), 1e-3);
  EXPECT_EQ(far.worst, 4321);
  EXPECT_NEAR(far.peak, 1.0 + std::sin(0.37 * 17), 1e-6);
  EXPECT_NEAR(far.peakError, 0.5 / far.peak, 1e-6);
  EXPECT_FALSE(withinTolerance(far, relL2));
  std::string miss = toleranceMiss(far, actual, expected, relL2);
  EXPECT_NE(miss.find("element 4321: "), std::string::npos) << miss;
  EXPECT_NE(miss.find("of the reference's peak"), std::string::npos) << miss;
  EXPECT_NE(miss.find("(> 0.1)"), std::string::npos) << miss;

  // --peak-error replaces the default; rel-L2 still applies.
  Tolerance loose = relL2;
  loose.peakError = 0.5;
  EXPECT_TRUE(withinTolerance(far, loose));
  loose.relL2 = 1e-3;
  EXPECT_FALSE(withinTolerance(far, loose));
  EXPECT_EQ(toleranceMiss(far, actual, expected, loose).rfind("rel-L2 ", 0),
            0u);
  // Without --rel-l2 and --peak-error the elementwise bound alone applies.
  Tolerance elementwise;
  elementwise.rtol = 0;
  elementwise.atol = 1.0;
  EXPECT_LT(peakErrorBound(elementwise), 0);
  Comparison withinAtol = compareTensors(actual, expected, 0, 1.0);
  EXPECT_TRUE(withinTolerance(withinAtol, elementwise));
  elementwise.peakError = 0.1;
  EXPECT_FALSE(withinTolerance(withinAtol, elementwise));

  // The elementwise message names the count and the first element off.
  std::string elementwiseMiss =
      toleranceMiss(compareTensors(actual, expected, 0, 0.1), actual, expected,
                    Tolerance{0, 0.1, -1, -1});
  EXPECT_EQ(elementwiseMiss.rfind("1 of 10000 elements off, 0 non-finite; "
                                  "first at 4321: ",
                                  0),
            0u)
      << elementwiseMiss;
  EXPECT_NE(elementwiseMiss.find(" expected"), std::string::npos)
      << elementwiseMiss;

  // A reference of zeros: any error is an infinite fraction of its peak.
  Comparison zeros =
      compareTensors(floats({0.0f, 1e-6f}), floats({0.0f, 0.0f}), 0, 1.0);
  EXPECT_TRUE(std::isinf(zeros.peakError));
  EXPECT_FALSE(withinTolerance(zeros, relL2));
}

} // namespace
