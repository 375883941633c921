// Unit tests of the evaluator's Tensor: storage rounding, byte layout and
// conversion to and from MLIR attributes (dense, splat, dense_resource).
#include "kiln/Evaluator/Tensor.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln::eval;

namespace {

TEST(Tensor, StoresRoundedValues) {
  Tensor half(DType::F16, {3});
  half.setDouble(0, 1.0 + std::ldexp(1.0, -11)); // Tie to even: 1.
  half.setDouble(1, 70000.0);                    // Overflow: inf.
  half.setDouble(2, 0.1);
  EXPECT_EQ(half.getDouble(0), 1.0);
  EXPECT_TRUE(std::isinf(half.getDouble(1)));
  EXPECT_EQ(half.getDouble(2), 0.0999755859375);

  Tensor bytes(DType::I8, {2});
  bytes.setDouble(0, 300.9); // Truncated to 300, wrapped to 44.
  bytes.setInt(1, -129);
  EXPECT_EQ(bytes.getInt(0), 44);
  EXPECT_EQ(bytes.getInt(1), 127);

  Tensor flags(DType::Bool, {2});
  flags.setDouble(0, 0.25);
  flags.setInt(1, 0);
  EXPECT_EQ(flags.getInt(0), 1);
  EXPECT_EQ(flags.getInt(1), 0);

  Tensor wide(DType::U64, {1});
  wide.setInt(0, -1);
  EXPECT_EQ(wide.getDouble(0), 18446744073709551616.0);
}

TEST(Tensor, DescribeAndStrides) {
  Tensor tensor(DType::F32, {2, 3, 4});
  EXPECT_EQ(tensor.describe(), "float32[2x3x4]");
  EXPECT_EQ(tensor.strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(tensor.numElements(), 24);
  EXPECT_EQ(Tensor(DType::I64, {}).numElements(), 1);
}

TEST(Tensor, BytesRoundTripEveryDType) {
  for (DType dtype : {DType::Bool, DType::I8, DType::I16, DType::I32,
                      DType::I64, DType::U8, DType::U16, DType::U32, DType::U64,
                      DType::F16, DType::BF16, DType::F32, DType::F64}) {
    Tensor tensor(dtype, {4});
    for (int64_t i = 0; i < 4; ++i)
      tensor.setDouble(i, isFloat(dtype) ? -1.5 * i + 0.25 : 3 * i);
    std::vector<char> bytes = tensor.toBytes();
    ASSERT_EQ(bytes.size(), 4 * byteWidth(dtype));
    llvm::Expected<Tensor> back = Tensor::fromBytes(dtype, {4}, bytes);
    ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(back->getDouble(i), tensor.getDouble(i)) << dtypeName(dtype);
  }
}

TEST(Tensor, FromBytesRejectsWrongSize) {
  std::vector<char> bytes(7);
  llvm::Expected<Tensor> tensor = Tensor::fromBytes(DType::F32, {2}, bytes);
  ASSERT_FALSE(static_cast<bool>(tensor));
  EXPECT_NE(llvm::toString(tensor.takeError()).find("needs 8 bytes"),
            std::string::npos);
}

TEST(Tensor, HalfBytesAreIEEE) {
  Tensor tensor = Tensor::fromDoubles(DType::F16, {2}, {1.0, -2.0});
  std::vector<char> bytes = tensor.toBytes();
  EXPECT_EQ(static_cast<uint8_t>(bytes[0]), 0x00);
  EXPECT_EQ(static_cast<uint8_t>(bytes[1]), 0x3C);
  EXPECT_EQ(static_cast<uint8_t>(bytes[3]), 0xC0);
}

class TensorAttrTest : public ::testing::Test {
protected:
  mlir::MLIRContext context;
  mlir::Builder builder{&context};
};

TEST_F(TensorAttrTest, DenseAndSplat) {
  auto type = mlir::RankedTensorType::get({2, 2}, builder.getF32Type());
  auto dense = mlir::DenseElementsAttr::get(
      type, llvm::ArrayRef<float>{1.5f, -2.0f, 3.25f, 4.0f});
  llvm::Expected<Tensor> tensor = tensorFromAttr(dense);
  ASSERT_TRUE(static_cast<bool>(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->describe(), "float32[2x2]");
  EXPECT_EQ(tensor->getDouble(2), 3.25);

  auto intType = mlir::RankedTensorType::get({3}, builder.getI64Type());
  auto splat = mlir::DenseElementsAttr::get(intType, int64_t(-7));
  llvm::Expected<Tensor> ints = tensorFromAttr(splat);
  ASSERT_TRUE(static_cast<bool>(ints));
  EXPECT_EQ(ints->ints(), (std::vector<int64_t>{-7, -7, -7}));

  auto boolType = mlir::RankedTensorType::get({3}, builder.getI1Type());
  auto flags = mlir::DenseElementsAttr::get(
      boolType, llvm::ArrayRef<bool>{true, false, true});
  llvm::Expected<Tensor> bools = tensorFromAttr(flags);
  ASSERT_TRUE(static_cast<bool>(bools));
  EXPECT_EQ(bools->ints(), (std::vector<int64_t>{1, 0, 1}));

  auto unsignedType = mlir::RankedTensorType::get(
      {2}, mlir::IntegerType::get(&context, 8, mlir::IntegerType::Unsigned));
  auto bytes = mlir::DenseElementsAttr::get(unsignedType,
                                            llvm::ArrayRef<uint8_t>{200, 7});
  llvm::Expected<Tensor> u8 = tensorFromAttr(bytes);
  ASSERT_TRUE(static_cast<bool>(u8));
  EXPECT_EQ(u8->ints(), (std::vector<int64_t>{200, 7}));

  auto halfType = mlir::RankedTensorType::get({}, builder.getF16Type());
  auto halfSplat = mlir::DenseElementsAttr::get(
      halfType, llvm::APFloat(llvm::APFloat::IEEEhalf(), "0.5"));
  llvm::Expected<Tensor> half = tensorFromAttr(halfSplat);
  ASSERT_TRUE(static_cast<bool>(half));
  EXPECT_EQ(half->getDouble(0), 0.5);
}

TEST_F(TensorAttrTest, DenseResource) {
  auto type = mlir::RankedTensorType::get({3}, builder.getI32Type());
  int32_t values[3] = {10, -20, 30};
  auto blob = mlir::HeapAsmResourceBlob::allocateAndCopyInferAlign(
      llvm::ArrayRef<int32_t>(values));
  auto attr =
      mlir::DenseResourceElementsAttr::get(type, "weights", std::move(blob));
  llvm::Expected<Tensor> tensor = tensorFromAttr(attr);
  ASSERT_TRUE(static_cast<bool>(tensor)) << llvm::toString(tensor.takeError());
  EXPECT_EQ(tensor->ints(), (std::vector<int64_t>{10, -20, 30}));
}

TEST_F(TensorAttrTest, RoundTrip) {
  for (mlir::Type element :
       {mlir::Type(builder.getF16Type()), mlir::Type(builder.getBF16Type()),
        mlir::Type(builder.getF32Type()), mlir::Type(builder.getI1Type()),
        mlir::Type(builder.getI16Type()),
        mlir::Type(mlir::IntegerType::get(&context, 64,
                                          mlir::IntegerType::Unsigned))}) {
    DType dtype = *dtypeFromMlir(element);
    Tensor tensor(dtype, {2, 3});
    for (int64_t i = 0; i < 6; ++i)
      tensor.setDouble(i, isFloat(dtype) ? 0.75 * i - 2 : i % 2 + i);
    auto type = mlir::RankedTensorType::get({2, 3}, element);
    mlir::DenseElementsAttr attr = tensorToAttr(tensor, type);
    ASSERT_TRUE(static_cast<bool>(attr)) << dtypeName(dtype);
    EXPECT_EQ(attr.getType(), type);
    llvm::Expected<Tensor> back = tensorFromAttr(attr);
    ASSERT_TRUE(static_cast<bool>(back));
    for (int64_t i = 0; i < 6; ++i)
      EXPECT_EQ(back->getDouble(i), tensor.getDouble(i)) << dtypeName(dtype);
  }
  // Mismatched types give a null attribute.
  Tensor tensor(DType::F32, {2});
  EXPECT_FALSE(tensorToAttr(
      tensor, mlir::RankedTensorType::get({3}, builder.getF32Type())));
  EXPECT_FALSE(tensorToAttr(
      tensor, mlir::RankedTensorType::get({2}, builder.getF64Type())));
}

TEST_F(TensorAttrTest, EmptyTensor) {
  Tensor tensor(DType::F32, {0, 3});
  auto type = mlir::RankedTensorType::get({0, 3}, builder.getF32Type());
  mlir::DenseElementsAttr attr = tensorToAttr(tensor, type);
  ASSERT_TRUE(static_cast<bool>(attr));
  llvm::Expected<Tensor> back = tensorFromAttr(attr);
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->numElements(), 0);
}

TEST(DType, Mappings) {
  mlir::MLIRContext context;
  for (DType dtype : {DType::Bool, DType::I8, DType::I16, DType::I32,
                      DType::I64, DType::U8, DType::U16, DType::U32, DType::U64,
                      DType::F16, DType::BF16, DType::F32, DType::F64}) {
    EXPECT_EQ(dtypeFromMlir(dtypeToMlir(dtype, &context)), dtype);
    EXPECT_EQ(dtypeFromOnnx(dtypeToOnnx(dtype)), dtype);
  }
  EXPECT_FALSE(dtypeFromMlir(
      mlir::IntegerType::get(&context, 32, mlir::IntegerType::Signed)));
  EXPECT_FALSE(dtypeFromOnnx(8)); // STRING.
  EXPECT_STREQ(dtypeName(DType::BF16), "bfloat16");
}

} // namespace
