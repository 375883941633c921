// Unit tests of tensor files (.npy, TensorProto .pb, directories) and of the
// allclose comparison.
#include "kiln/Evaluator/TensorIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

using namespace kiln::eval;

namespace {

class TensorIOTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("kiln-tensorio", dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  std::string path(llvm::StringRef name) {
    llvm::SmallString<128> result(dir);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
  void writeProto(const std::string &file, const onnx::TensorProto &proto) {
    std::ofstream os(file, std::ios::binary);
    proto.SerializeToOstream(&os);
  }
  llvm::SmallString<128> dir;
};

TEST_F(TensorIOTest, NpyRoundTrip) {
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{}, std::vector<int64_t>{3},
        std::vector<int64_t>{2, 3}}) {
    for (DType dtype : {DType::F32, DType::F16, DType::I64, DType::Bool,
                        DType::U8, DType::F64}) {
      Tensor tensor(dtype, shape);
      for (int64_t i = 0; i < tensor.numElements(); ++i)
        tensor.setDouble(i, isFloat(dtype) ? 0.5 * i - 1 : i % 3);
      std::string file = path("t.npy");
      ASSERT_FALSE(static_cast<bool>(writeNpy(file, tensor)));
      llvm::Expected<NamedTensor> back = readTensorFile(file);
      ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
      EXPECT_EQ(back->tensor.describe(), tensor.describe());
      for (int64_t i = 0; i < tensor.numElements(); ++i)
        EXPECT_EQ(back->tensor.getDouble(i), tensor.getDouble(i));
    }
  }
}

TEST_F(TensorIOTest, NpyHeaderIsAligned) {
  std::string file = path("a.npy");
  ASSERT_FALSE(static_cast<bool>(writeNpy(file, Tensor(DType::F32, {7}))));
  uint64_t size;
  ASSERT_FALSE(llvm::sys::fs::file_size(file, size));
  EXPECT_EQ((size - 7 * 4) % 64, 0u);
}

TEST_F(TensorIOTest, NpyRejectsGarbage) {
  std::ofstream(path("bad.npy")) << "not numpy";
  llvm::Expected<NamedTensor> tensor = readNpy(path("bad.npy"));
  ASSERT_FALSE(static_cast<bool>(tensor));
  EXPECT_NE(llvm::toString(tensor.takeError()).find("no NUMPY magic"),
            std::string::npos);
}

TEST_F(TensorIOTest, TensorProtoRawAndTypedFields) {
  NamedTensor named{"x", Tensor::fromDoubles(DType::F32, {2}, {1.5, -3})};
  ASSERT_FALSE(static_cast<bool>(writeTensorProto(path("raw.pb"), named)));
  llvm::Expected<NamedTensor> raw = readTensorProto(path("raw.pb"));
  ASSERT_TRUE(static_cast<bool>(raw)) << llvm::toString(raw.takeError());
  EXPECT_EQ(raw->name, "x");
  EXPECT_EQ(raw->tensor.getDouble(1), -3.0);

  onnx::TensorProto half;
  half.set_name("h");
  half.set_data_type(onnx::TensorProto::FLOAT16);
  half.add_dims(2);
  half.add_int32_data(0x3C00); // 1.0
  half.add_int32_data(0xC000); // -2.0
  writeProto(path("half.pb"), half);
  llvm::Expected<NamedTensor> halfBack = readTensorProto(path("half.pb"));
  ASSERT_TRUE(static_cast<bool>(halfBack));
  EXPECT_EQ(halfBack->tensor.describe(), "float16[2]");
  EXPECT_EQ(halfBack->tensor.getDouble(1), -2.0);

  onnx::TensorProto ints;
  ints.set_data_type(onnx::TensorProto::INT8);
  ints.add_dims(1);
  ints.add_dims(2);
  ints.add_int32_data(-5);
  ints.add_int32_data(100);
  writeProto(path("ints.pb"), ints);
  llvm::Expected<NamedTensor> intsBack = readTensorProto(path("ints.pb"));
  ASSERT_TRUE(static_cast<bool>(intsBack));
  EXPECT_EQ(intsBack->tensor.ints(), (std::vector<int64_t>{-5, 100}));

  onnx::TensorProto wrongCount;
  wrongCount.set_name("w");
  wrongCount.set_data_type(onnx::TensorProto::FLOAT);
  wrongCount.add_dims(3);
  wrongCount.add_float_data(1);
  writeProto(path("wrong.pb"), wrongCount);
  llvm::Expected<NamedTensor> wrong = readTensorProto(path("wrong.pb"));
  ASSERT_FALSE(static_cast<bool>(wrong));
  EXPECT_NE(llvm::toString(wrong.takeError()).find("1 values in float_data"),
            std::string::npos);
}

TEST_F(TensorIOTest, DirectoryIsNumericallyOrdered) {
  for (int n : {10, 2, 0, 1})
    ASSERT_FALSE(static_cast<bool>(
        writeTensorProto(path("input_" + std::to_string(n) + ".pb"),
                         NamedTensor{"in" + std::to_string(n),
                                     Tensor::fromInts(DType::I64, {}, {n})})));
  ASSERT_FALSE(static_cast<bool>(
      writeNpy(path("output_0.npy"), Tensor(DType::F32, {1}))));
  llvm::Expected<std::vector<NamedTensor>> inputs =
      readTensorDirectory(std::string(dir), "input");
  ASSERT_TRUE(static_cast<bool>(inputs)) << llvm::toString(inputs.takeError());
  ASSERT_EQ(inputs->size(), 4u);
  EXPECT_EQ((*inputs)[0].name, "in0");
  EXPECT_EQ((*inputs)[2].name, "in2");
  EXPECT_EQ((*inputs)[3].tensor.getInt(0), 10);
  llvm::Expected<std::vector<NamedTensor>> none =
      readTensorDirectory(std::string(dir), "missing");
  ASSERT_TRUE(static_cast<bool>(none));
  EXPECT_TRUE(none->empty());
  llvm::Expected<std::vector<NamedTensor>> notDirectory =
      readTensorDirectory(path("nowhere"), "input");
  EXPECT_FALSE(static_cast<bool>(notDirectory));
  llvm::consumeError(notDirectory.takeError());
}

TEST(CompareTensors, AllcloseSemantics) {
  Tensor expected = Tensor::fromDoubles(DType::F32, {4}, {1, NAN, INFINITY, 0});
  Tensor same =
      Tensor::fromDoubles(DType::F32, {4}, {1.0005, NAN, INFINITY, 5e-8});
  Comparison ok = compareTensors(same, expected, 1e-3, 1e-7);
  EXPECT_TRUE(ok.matches) << ok.message;
  EXPECT_NEAR(ok.maxAbsError, 5e-4, 1e-6);
  EXPECT_NEAR(ok.maxRelError, 5e-4, 1e-6);

  Tensor off = Tensor::fromDoubles(DType::F32, {4}, {1.01, 1, -INFINITY, 0});
  Comparison bad = compareTensors(off, expected, 1e-3, 1e-7);
  EXPECT_FALSE(bad.matches);
  EXPECT_EQ(bad.mismatches, 3);
  EXPECT_NE(bad.message.find("3 of 4 elements differ; first at [0]"),
            std::string::npos)
      << bad.message;
}

TEST(CompareTensors, ShapeAndDTypeMustAgree) {
  Comparison shape = compareTensors(Tensor(DType::F32, {2, 3}),
                                    Tensor(DType::F32, {3, 2}), 1e-3, 1e-7);
  EXPECT_FALSE(shape.matches);
  EXPECT_NE(shape.message.find("shape float32[2x3], expected float32[3x2]"),
            std::string::npos);
  Comparison dtype = compareTensors(Tensor(DType::F64, {2}),
                                    Tensor(DType::F32, {2}), 1e-3, 1e-7);
  EXPECT_FALSE(dtype.matches);
  EXPECT_NE(dtype.message.find("dtype double, expected float32"),
            std::string::npos);
}

} // namespace
