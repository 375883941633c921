// Unit tests of evaluateOp / interpretFunction on small kiln functions parsed
// from IR strings: values, broadcasting, and located error messages.
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Evaluator/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kiln::eval;

namespace {

class OpEvaluationTest : public ::testing::Test {
protected:
  OpEvaluationTest() {
    context.loadDialect<kiln::KilnDialect, mlir::func::FuncDialect>();
  }

  /// Parses |ir| (one func.func) and runs it on |inputs|.
  llvm::Expected<std::vector<Tensor>> run(llvm::StringRef ir,
                                          std::vector<Tensor> inputs) {
    module = mlir::parseSourceString<mlir::ModuleOp>(ir, &context);
    if (!module)
      return llvm::createStringError("cannot parse the test IR");
    auto function = *module->getOps<mlir::func::FuncOp>().begin();
    return interpretFunction(function, inputs);
  }

  /// Runs |ir| expecting success and one result.
  Tensor runOne(llvm::StringRef ir, std::vector<Tensor> inputs) {
    llvm::Expected<std::vector<Tensor>> results = run(ir, std::move(inputs));
    if (!results) {
      ADD_FAILURE() << llvm::toString(results.takeError());
      return Tensor();
    }
    EXPECT_EQ(results->size(), 1u);
    return results->front();
  }

  /// Runs |ir| expecting an error and returns its message.
  std::string runError(llvm::StringRef ir, std::vector<Tensor> inputs) {
    llvm::Expected<std::vector<Tensor>> results = run(ir, std::move(inputs));
    if (results) {
      ADD_FAILURE() << "expected an error";
      return "";
    }
    return llvm::toString(results.takeError());
  }

  static std::vector<double> values(const Tensor &tensor) {
    std::vector<double> result;
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      result.push_back(tensor.getDouble(i));
    return result;
  }
  static std::vector<int64_t> shape(const Tensor &tensor) {
    return {tensor.shape().begin(), tensor.shape().end()};
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

using Doubles = std::vector<double>;
using Shape = std::vector<int64_t>;

TEST_F(OpEvaluationTest, BroadcastingAdd) {
  Tensor result = runOne(R"(
    func.func @f(%a: tensor<2x1xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
      %0 = kiln.add %a, %b : tensor<2x1xf32>, tensor<3xf32> -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    })",
                         {Tensor::fromDoubles(DType::F32, {2, 1}, {10, 20}),
                          Tensor::fromDoubles(DType::F32, {3}, {1, 2, 3})});
  EXPECT_EQ(shape(result), (Shape{2, 3}));
  EXPECT_EQ(values(result), (Doubles{11, 12, 13, 21, 22, 23}));
}

TEST_F(OpEvaluationTest, BroadcastMismatchIsLocatedError) {
  std::string message =
      runError(R"(
    func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
      %0 = kiln.mul %a, %b : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> loc(fused<"Mul">["Mul_7"])
      return %0 : tensor<?xf32>
    })",
               {Tensor(DType::F32, {2}), Tensor(DType::F32, {3})});
  EXPECT_NE(message.find("kiln.mul at node 'Mul_7' (Mul)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("[2] and [3] do not broadcast"), std::string::npos)
      << message;
}

TEST_F(OpEvaluationTest, IntegerDivisionTruncatesAndRejectsZero) {
  const char *ir = R"(
    func.func @f(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
      %0 = kiln.div %a, %b : tensor<3xi32>, tensor<3xi32> -> tensor<3xi32>
      return %0 : tensor<3xi32>
    })";
  Tensor result = runOne(ir, {Tensor::fromInts(DType::I32, {3}, {7, -7, 9}),
                              Tensor::fromInts(DType::I32, {3}, {2, 2, -4})});
  EXPECT_EQ(result.ints(), (std::vector<int64_t>{3, -3, -2}));
  std::string message =
      runError(ir, {Tensor::fromInts(DType::I32, {3}, {7, 1, 1}),
                    Tensor::fromInts(DType::I32, {3}, {1, 0, 1})});
  EXPECT_NE(message.find("kiln.div"), std::string::npos) << message;
  EXPECT_NE(message.find("division by zero at element [1]"), std::string::npos)
      << message;
}

TEST_F(OpEvaluationTest, Float16ArithmeticRoundsPerOp) {
  // 1 + 2^-11 is a tie in f16 (rounds to 1); 2048 + 1 rounds to 2048.
  Tensor result = runOne(
      R"(
    func.func @f(%a: tensor<2xf16>, %b: tensor<2xf16>) -> tensor<2xf16> {
      %0 = kiln.add %a, %b : tensor<2xf16>, tensor<2xf16> -> tensor<2xf16>
      return %0 : tensor<2xf16>
    })",
      {Tensor::fromDoubles(DType::F16, {2}, {1.0, 2048.0}),
       Tensor::fromDoubles(DType::F16, {2}, {std::ldexp(1.0, -11), 1.0})});
  EXPECT_EQ(values(result), (Doubles{1.0, 2048.0}));
}

TEST_F(OpEvaluationTest, CastSaturatesAndRounds) {
  Tensor ints = runOne(
      R"(
    func.func @f(%a: tensor<4xf32>) -> tensor<4xi8> {
      %0 = kiln.cast %a {to = i8} : tensor<4xf32> -> tensor<4xi8>
      return %0 : tensor<4xi8>
    })",
      {Tensor::fromDoubles(DType::F32, {4}, {-2.9, 1000.0, NAN, -1000.0})});
  EXPECT_EQ(ints.ints(), (std::vector<int64_t>{-2, 127, 0, -128}));
  Tensor bools = runOne(R"(
    func.func @f(%a: tensor<3xf32>) -> tensor<3xi1> {
      %0 = kiln.cast %a {to = i1} : tensor<3xf32> -> tensor<3xi1>
      return %0 : tensor<3xi1>
    })",
                        {Tensor::fromDoubles(DType::F32, {3}, {0.0, -0.5, 2})});
  EXPECT_EQ(bools.ints(), (std::vector<int64_t>{0, 1, 1}));
}

TEST_F(OpEvaluationTest, WhereAndComparisons) {
  Tensor result = runOne(R"(
    func.func @f(%x: tensor<3xi64>, %y: tensor<i64>) -> tensor<3xi64> {
      %c = kiln.less %x, %y : tensor<3xi64>, tensor<i64> -> tensor<3xi1>
      %0 = kiln.where %c, %x, %y : tensor<3xi1>, tensor<3xi64>, tensor<i64> -> tensor<3xi64>
      return %0 : tensor<3xi64>
    })",
                         {Tensor::fromInts(DType::I64, {3}, {1, 5, 3}),
                          Tensor::fromInts(DType::I64, {}, {4})});
  EXPECT_EQ(result.ints(), (std::vector<int64_t>{1, 4, 3}));
}

TEST_F(OpEvaluationTest, PowWithMixedTypes) {
  Tensor result = runOne(R"(
    func.func @f(%x: tensor<3xi32>, %e: tensor<3xf32>) -> tensor<3xi32> {
      %0 = kiln.pow %x, %e : tensor<3xi32>, tensor<3xf32> -> tensor<3xi32>
      return %0 : tensor<3xi32>
    })",
                         {Tensor::fromInts(DType::I32, {3}, {1, 2, 3}),
                          Tensor::fromDoubles(DType::F32, {3}, {4, 5, 0.5})});
  EXPECT_EQ(result.ints(), (std::vector<int64_t>{1, 32, 1}));
}

TEST_F(OpEvaluationTest, ReshapeReadsRuntimeShape) {
  const char *ir = R"(
    func.func @f(%x: tensor<2x3x4xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
      %0 = kiln.reshape %x, %s : tensor<2x3x4xf32>, tensor<2xi64> -> tensor<?x?xf32>
      return %0 : tensor<?x?xf32>
    })";
  Tensor data(DType::F32, {2, 3, 4});
  for (int64_t i = 0; i < 24; ++i)
    data.setDouble(i, i);
  Tensor result =
      runOne(ir, {data, Tensor::fromInts(DType::I64, {2}, {0, -1})});
  EXPECT_EQ(shape(result), (Shape{2, 12}));
  EXPECT_EQ(result.getDouble(23), 23.0);
  std::string message =
      runError(ir, {data, Tensor::fromInts(DType::I64, {2}, {5, 5})});
  EXPECT_NE(message.find("cannot reshape float32[2x3x4] (24 elements) to "
                         "[5, 5]"),
            std::string::npos)
      << message;
}

TEST_F(OpEvaluationTest, GatherNegativeAndOutOfRange) {
  const char *ir = R"(
    func.func @f(%t: tensor<3x2xf32>, %i: tensor<2xi64>) -> tensor<2x2xf32> {
      %0 = kiln.gather %t, %i {axis = 0 : i64} : tensor<3x2xf32>, tensor<2xi64> -> tensor<2x2xf32> loc(fused<"Gather">["Gather_3"])
      return %0 : tensor<2x2xf32>
    })";
  Tensor table = Tensor::fromDoubles(DType::F32, {3, 2}, {0, 1, 2, 3, 4, 5});
  Tensor result =
      runOne(ir, {table, Tensor::fromInts(DType::I64, {2}, {-1, 1})});
  EXPECT_EQ(values(result), (Doubles{4, 5, 2, 3}));
  std::string message =
      runError(ir, {table, Tensor::fromInts(DType::I64, {2}, {0, 3})});
  EXPECT_NE(message.find("kiln.gather at node 'Gather_3' (Gather): index 3 "
                         "is out of range for axis 0"),
            std::string::npos)
      << message;
}

TEST_F(OpEvaluationTest, SliceWithNegativeStep) {
  Tensor result = runOne(
      R"(
    func.func @f(%x: tensor<2x5xi32>) -> tensor<2x2xi32> {
      %s = kiln.constant dense<[-1]> : tensor<1xi64>
      %e = kiln.constant dense<[-9223372036854775807]> : tensor<1xi64>
      %a = kiln.constant dense<[1]> : tensor<1xi64>
      %p = kiln.constant dense<[-3]> : tensor<1xi64>
      %0 = kiln.slice %x, %s, %e, %a, %p : tensor<2x5xi32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x2xi32>
      return %0 : tensor<2x2xi32>
    })",
      {Tensor::fromInts(DType::I32, {2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9})});
  EXPECT_EQ(result.ints(), (std::vector<int64_t>{4, 1, 9, 6}));
}

TEST_F(OpEvaluationTest, TransposeConcatUnsqueeze) {
  Tensor result =
      runOne(R"(
    func.func @f(%x: tensor<2x3xf32>) -> tensor<1x6x2xf32> {
      %t = kiln.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
      %c = kiln.concat %t, %t {axis = 0 : i64} : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<6x2xf32>
      %a = kiln.constant dense<[0]> : tensor<1xi64>
      %u = kiln.unsqueeze %c, %a : tensor<6x2xf32>, tensor<1xi64> -> tensor<1x6x2xf32>
      return %u : tensor<1x6x2xf32>
    })",
             {Tensor::fromDoubles(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(shape(result), (Shape{1, 6, 2}));
  EXPECT_EQ(values(result), (Doubles{1, 4, 2, 5, 3, 6, 1, 4, 2, 5, 3, 6}));
}

TEST_F(OpEvaluationTest, BatchedMatMulWithVector) {
  Tensor result =
      runOne(R"(
    func.func @f(%a: tensor<2x2x3xf32>, %b: tensor<3xf32>) -> tensor<2x2xf32> {
      %0 = kiln.matmul %a, %b : tensor<2x2x3xf32>, tensor<3xf32> -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    })",
             {Tensor::fromDoubles(DType::F32, {2, 2, 3},
                                  {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 0, 1}),
              Tensor::fromDoubles(DType::F32, {3}, {1, 10, 100})});
  EXPECT_EQ(shape(result), (Shape{2, 2}));
  EXPECT_EQ(values(result), (Doubles{321, 654, 1, 100}));
}

TEST_F(OpEvaluationTest, GemmTransposedWithBias) {
  Tensor result =
      runOne(R"(
    func.func @f(%a: tensor<2x2xf32>, %b: tensor<3x2xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
      %0 = kiln.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32, trans_b = true} : tensor<2x2xf32>, tensor<3x2xf32>, tensor<3xf32> -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    })",
             {Tensor::fromDoubles(DType::F32, {2, 2}, {1, 2, 3, 4}),
              Tensor::fromDoubles(DType::F32, {3, 2}, {1, 0, 0, 1, 1, 1}),
              Tensor::fromDoubles(DType::F32, {3}, {2, 4, 6})});
  EXPECT_EQ(values(result), (Doubles{3, 6, 9, 7, 10, 17}));
}

TEST_F(OpEvaluationTest, ReductionsAndSoftmax) {
  Tensor mean =
      runOne(R"(
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
      %a = kiln.constant dense<[-1]> : tensor<1xi64>
      %0 = kiln.reduce_mean %x, %a {keepdims = true} : tensor<2x3xf32>, tensor<1xi64> -> tensor<2x1xf32>
      return %0 : tensor<2x1xf32>
    })",
             {Tensor::fromDoubles(DType::F32, {2, 3}, {1, 2, 6, -1, -2, -6})});
  EXPECT_EQ(values(mean), (Doubles{3, -3}));

  Tensor max =
      runOne(R"(
    func.func @f(%x: tensor<2x2xf32>) -> tensor<f32> {
      %0 = kiln.reduce_max %x {keepdims = false} : tensor<2x2xf32> -> tensor<f32>
      return %0 : tensor<f32>
    })",
             {Tensor::fromDoubles(DType::F32, {2, 2}, {1, NAN, 3, 2})});
  EXPECT_TRUE(std::isnan(max.getDouble(0)));

  Tensor softmax =
      runOne(R"(
    func.func @f(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %0 = kiln.softmax %x {axis = 0 : i64} : tensor<2x2xf32> -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    })",
             {Tensor::fromDoubles(DType::F32, {2, 2}, {1000, 0, 1000, 0})});
  EXPECT_EQ(values(softmax), (Doubles{0.5, 0.5, 0.5, 0.5}));
}

TEST_F(OpEvaluationTest, ReduceAxesOutOfRange) {
  std::string message = runError(
      R"(
    func.func @f(%x: tensor<2x3xf32>, %a: tensor<1xi64>) -> tensor<*xf32> {
      %0 = kiln.reduce_sum %x, %a : tensor<2x3xf32>, tensor<1xi64> -> tensor<*xf32>
      return %0 : tensor<*xf32>
    })",
      {Tensor(DType::F32, {2, 3}), Tensor::fromInts(DType::I64, {1}, {2})});
  EXPECT_NE(message.find("axis 2 is out of range for rank 2"),
            std::string::npos)
      << message;
}

// Pad's axes from a run-time tensor (type inference could not check them):
// a repeat is an error, as onnxruntime makes it, not a pad sized by both
// entries and offset by one.
TEST_F(OpEvaluationTest, PadAxesRepeatedOrOutOfRange) {
  const char *program = R"(
    func.func @f(%x: tensor<2x3xf32>, %p: tensor<4xi64>, %a: tensor<2xi64>) -> tensor<*xf32> {
      %0 = kiln.pad %x, %p axes %a : tensor<2xi64> : tensor<2x3xf32>, tensor<4xi64> -> tensor<*xf32>
      return %0 : tensor<*xf32>
    })";
  Tensor pads = Tensor::fromInts(DType::I64, {4}, {0, 0, 1, 0});
  std::string repeated =
      runError(program, {Tensor(DType::F32, {2, 3}), pads,
                         Tensor::fromInts(DType::I64, {2}, {1, -1})});
  EXPECT_NE(repeated.find("axis -1 is listed more than once"),
            std::string::npos)
      << repeated;
  std::string outside =
      runError(program, {Tensor(DType::F32, {2, 3}), pads,
                         Tensor::fromInts(DType::I64, {2}, {0, 2})});
  EXPECT_NE(outside.find("axis 2 is out of range for rank 2"),
            std::string::npos)
      << outside;
  Tensor padded = runOne(
      program, {Tensor::fromDoubles(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                pads, Tensor::fromInts(DType::I64, {2}, {0, -1})});
  EXPECT_EQ(padded.shape().vec(), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(values(padded), (Doubles{1, 2, 3, 4, 5, 6, 0, 0, 0}));
}

TEST_F(OpEvaluationTest, ShapeExpandSqueeze) {
  Tensor result = runOne(R"(
    func.func @f(%x: tensor<3x1xi64>) -> tensor<3xi64> {
      %s = kiln.shape %x : tensor<3x1xi64> -> tensor<2xi64>
      %e = kiln.expand %x, %s : tensor<3x1xi64>, tensor<2xi64> -> tensor<3x1xi64>
      %q = kiln.squeeze %e : tensor<3x1xi64> -> tensor<3xi64>
      %0 = kiln.add %q, %q : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
      return %0 : tensor<3xi64>
    })",
                         {Tensor::fromInts(DType::I64, {3, 1}, {1, 2, 3})});
  EXPECT_EQ(result.ints(), (std::vector<int64_t>{2, 4, 6}));
}

TEST_F(OpEvaluationTest, InputCheckNamesTheInput) {
  std::string message = runError(R"(
    func.func @f(%x: tensor<?x4xf32> {kiln.name = "pixels"}) -> tensor<?x4xf32> {
      return %x : tensor<?x4xf32>
    })",
                                 {Tensor(DType::F32, {2, 5})});
  EXPECT_NE(message.find("input 'pixels' (argument 0)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("got float32[2x5]"), std::string::npos) << message;
}

TEST_F(OpEvaluationTest, InputDTypeIsChecked) {
  std::string message = runError(R"(
    func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
      %0 = kiln.neg %x : tensor<?xf32> -> tensor<?xf32>
      return %0 : tensor<?xf32>
    })",
                                 {Tensor(DType::F64, {2})});
  EXPECT_NE(message.find("argument 0 of @f expects tensor<?xf32>, got "
                         "double[2]"),
            std::string::npos)
      << message;
}

TEST_F(OpEvaluationTest, ResultTypeIsChecked) {
  std::string message = runError(
      R"(
    func.func @f(%x: tensor<6xf32>, %s: tensor<2xi64>) -> tensor<3x2xf32> {
      %0 = kiln.reshape %x, %s : tensor<6xf32>, tensor<2xi64> -> tensor<3x2xf32>
      return %0 : tensor<3x2xf32>
    })",
      {Tensor(DType::F32, {6}), Tensor::fromInts(DType::I64, {2}, {2, 3})});
  EXPECT_NE(message.find("computed float32[2x3] but the result type is "
                         "tensor<3x2xf32>"),
            std::string::npos)
      << message;
}

} // namespace
