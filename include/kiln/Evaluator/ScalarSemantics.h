// The one table of kiln's scalar semantics: float rounding, integer wrapping,
// ONNX Cast rules and the per-element function of every elementwise op kind,
// shared by the CPU evaluator and (later) the CUDA emitter.
#ifndef KILN_EVALUATOR_SCALARSEMANTICS_H
#define KILN_EVALUATOR_SCALARSEMANTICS_H

#include "kiln/Evaluator/Tensor.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace kiln::eval {

//===----------------------------------------------------------------------===//
// Storing values in a dtype
//===----------------------------------------------------------------------===//

/// IEEE binary16 bits of |value|, rounded to nearest even; overflow gives
/// infinity, tiny values give subnormals or signed zero, NaN a quiet NaN.
uint16_t doubleToHalfBits(double value);
double halfBitsToDouble(uint16_t bits);
/// bfloat16 bits of |value| with the same rounding rules.
uint16_t doubleToBFloat16Bits(double value);
double bfloat16BitsToDouble(uint16_t bits);

/// |value| rounded to the nearest value of float dtype |dtype| (ties to even).
double roundToFloatDType(double value, DType dtype);
/// |value| wrapped to the width of integer dtype |dtype| (two's complement;
/// bool becomes 0/1). u64 values are kept as their bit pattern in an int64.
int64_t wrapToIntDType(int64_t value, DType dtype);

/// The smallest and largest values of integer dtype |dtype| as doubles.
double intDTypeMin(DType dtype);
double intDTypeMax(DType dtype);

//===----------------------------------------------------------------------===//
// ONNX Cast
//===----------------------------------------------------------------------===//
//
// float -> integer: truncates toward zero, then saturates to the target's
//   range (ONNX leaves out-of-range values undefined; kiln saturates, and the
//   CUDA emitter must do the same). NaN converts to 0.
// float -> bool: x != 0 (NaN is true).
// float -> float: rounds to nearest even; overflow gives infinity.
// integer -> integer: wraps (two's complement), as NumPy's astype.
// integer/bool -> float: the nearest representable value.
// anything -> bool: x != 0; bool -> anything: 0 or 1.

/// A float value converted to integer dtype |to| (truncate, saturate, NaN->0).
int64_t castFloatToInt(double value, DType to);
/// An integer of dtype |from| converted to float dtype |to|.
double castIntToFloat(int64_t value, DType from, DType to);

//===----------------------------------------------------------------------===//
// The elementwise table
//===----------------------------------------------------------------------===//

/// Every elementwise operation kind that kiln evaluates or generates code for.
enum class ElementwiseKind : uint8_t {
  Neg,
  Abs,
  Exp,
  Log,
  Sqrt,
  Reciprocal,
  Relu,
  Sigmoid,
  Tanh,
  Erf,
  Not,
  Identity,
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Max, // NaN-propagating; the combiner of ReduceMax.
  Equal,
  Less,
  Greater,
  Where,
  // Math and logic (KilnMathOps.td; CPU functions in MathSemantics.cpp).
  Min, // NaN-propagating.
  Acos,
  Acosh,
  Asin,
  Asinh,
  Atan,
  Atanh,
  Cos,
  Cosh,
  Sin,
  Sinh,
  Tan,
  Ceil,
  Floor,
  Round,
  Sign,
  IsNaN,
  IsInf,
  Softplus,
  Softsign,
  HardSwish,
  Elu,
  Selu,
  Celu,
  LeakyRelu,
  HardSigmoid,
  ThresholdedRelu,
  Shrink,
  GreaterOrEqual,
  LessOrEqual,
  And,
  Or,
  Xor,
  PRelu,
  Mod,  // Sign of the divisor (Mod with fmod = 0).
  FMod, // Sign of the dividend (Mod with fmod = 1).
  ShiftLeft,
  ShiftRight,
  Clip,
  Gelu,     // Exact: 0.5 x (1 + erf(x / sqrt 2)).
  GeluTanh, // kiln.gelu with approximate = "tanh".
  Cast,
};
constexpr unsigned kNumElementwiseKinds =
    static_cast<unsigned>(ElementwiseKind::Cast) + 1;

/// What the element type of the result is.
enum class ResultElement : uint8_t {
  SameAsFirstOperand, // Arithmetic; Pow keeps the base's type.
  Bool,               // Comparisons.
  SameAsValues,       // Where: the type of x and y (operands 1 and 2).
  CastTarget,         // Cast: the op's `to` attribute.
};

/// Float semantics: operands and result in double; the caller rounds the
/// result to the dtype when storing it. |args| holds |arity| values.
using FloatScalarFn = double (*)(const double *args);
/// Integer and bool semantics on the evaluator's wide form (int64; u64 as its
/// bit pattern); |dtype| is the operands' dtype (signedness and width). The
/// caller wraps the result to the result dtype. std::nullopt means the value
/// is undefined (integer division by zero) and is reported as an error.
using IntScalarFn = std::optional<int64_t> (*)(const int64_t *args,
                                               DType dtype);

/// One row of the table: the CPU reference and, next to it, the CUDA C++
/// expression template that the CUDA emitter instantiates, so both read the
/// same semantics. In a template `$0`, `$1`, `$2` are the operands (already
/// in the computation type: float for f16/bf16/f32, double for f64,
/// long long for integers, bool for i1) and `$U` is `true` when the operands
/// are unsigned (u64 values are held as their bit pattern). The kiln_* device
/// functions are defined in the CUDA prelude (lib/Target/CUDA/Prelude.cpp)
/// with exactly the CPU functions' edge cases; integer results are wrapped
/// to the result dtype by the emitter, as the evaluator wraps on store.
struct ElementwiseSemantics {
  ElementwiseKind kind;
  const char *name; // The kiln op mnemonic ("add"), or the combiner name.
  unsigned arity;
  ResultElement result;
  FloatScalarFn cpuFloat; // nullptr: not defined on float dtypes.
  IntScalarFn cpuInt;     // nullptr: not defined on integer/bool dtypes.
  const char *notes;      // Edge cases every implementation must match.
  const char *cudaFloat = nullptr; // CUDA template on float operands.
  const char *cudaInt = nullptr;   // CUDA template on integer/bool operands.
  // CUDA template for an f16 result (nullptr: cudaFloat): it may use the
  // hardware approximations (__expf, __fdividef) when they stay within a
  // few ulp of f32 over the f16 range, which rounding to f16's 11 bits
  // hides but for rare elements one f16 ulp apart; it keeps cudaFloat's
  // edge cases (NaN, infinities).
  const char *cudaHalf = nullptr;
};

/// The table, indexed by ElementwiseKind.
llvm::ArrayRef<ElementwiseSemantics> getElementwiseTable();
const ElementwiseSemantics &getElementwiseSemantics(ElementwiseKind kind);
/// The kind of an elementwise kiln op, or std::nullopt for other ops.
std::optional<ElementwiseKind> getElementwiseKind(mlir::Operation *op);
/// The attribute parameters of an elementwise op (Elu's alpha, Shrink's bias
/// and lambd, IsInf's detect flags as 0/1...), empty for most ops. They follow
/// the operands: in |args| of the CPU float function and as the next
/// placeholders of the CUDA template (`$1`, `$2` for a unary op), where the
/// emitter writes them as literals of the computation type.
llvm::SmallVector<double, 2> getElementwiseParameters(mlir::Operation *op);

/// Direct entry points used by reductions and unit tests.
double nanPropagatingMax(double lhs, double rhs);
double stableSigmoid(double x);
/// Integer x / y truncating toward zero for |dtype|; std::nullopt if y == 0.
std::optional<int64_t> truncatingDivide(int64_t x, int64_t y, DType dtype);
/// Integer x ^ y for |dtype| (wrapping); negative exponents give 1 / x^-y
/// truncated (0 unless |x| == 1).
int64_t integerPower(int64_t x, int64_t y, DType dtype);

} // namespace kiln::eval

#endif // KILN_EVALUATOR_SCALARSEMANTICS_H
