// The elementwise table: one row per op kind with its CPU reference semantics.
#include "kiln/Evaluator/ScalarSemantics.h"

#include "MathSemantics.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace kiln::eval {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool isUnsignedWide(DType dtype) { return dtype == DType::U64; }

/// Integer arithmetic in uint64 so that overflow wraps instead of being UB;
/// the caller wraps the result to the dtype's width.
uint64_t asUnsigned(int64_t value) { return static_cast<uint64_t>(value); }

// Float rows.
double negF(const double *a) { return -a[0]; }
double absF(const double *a) { return std::fabs(a[0]); }
double expF(const double *a) { return std::exp(a[0]); }
double logF(const double *a) { return std::log(a[0]); }
double sqrtF(const double *a) { return std::sqrt(a[0]); }
double reciprocalF(const double *a) { return 1.0 / a[0]; }
double reluF(const double *a) { return a[0] < 0.0 ? 0.0 : a[0]; } // NaN stays.
double sigmoidF(const double *a) { return stableSigmoid(a[0]); }
double tanhF(const double *a) { return std::tanh(a[0]); }
double erfF(const double *a) { return std::erf(a[0]); }
double identityF(const double *a) { return a[0]; }
double geluF(const double *a) {
  return 0.5 * a[0] * (1.0 + std::erf(a[0] * 0.70710678118654752440));
}
double geluTanhF(const double *a) {
  const double x = a[0];
  return 0.5 * x *
         (1.0 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
double addF(const double *a) { return a[0] + a[1]; }
double subF(const double *a) { return a[0] - a[1]; }
double mulF(const double *a) { return a[0] * a[1]; }
double divF(const double *a) { return a[0] / a[1]; }
double powF(const double *a) { return std::pow(a[0], a[1]); }
double maxF(const double *a) { return nanPropagatingMax(a[0], a[1]); }
double equalF(const double *a) { return a[0] == a[1]; }
double lessF(const double *a) { return a[0] < a[1]; }
double greaterF(const double *a) { return a[0] > a[1]; }
double whereF(const double *a) { return a[0] != 0.0 ? a[1] : a[2]; }

// Integer rows.
std::optional<int64_t> negI(const int64_t *a, DType) {
  return static_cast<int64_t>(0 - asUnsigned(a[0]));
}
std::optional<int64_t> absI(const int64_t *a, DType dtype) {
  if (isUnsigned(dtype) || a[0] >= 0)
    return a[0];
  return static_cast<int64_t>(0 - asUnsigned(a[0]));
}
std::optional<int64_t> reluI(const int64_t *a, DType dtype) {
  return isUnsigned(dtype) || a[0] > 0 ? a[0] : 0;
}
std::optional<int64_t> notI(const int64_t *a, DType) { return a[0] == 0; }
std::optional<int64_t> identityI(const int64_t *a, DType) { return a[0]; }
std::optional<int64_t> addI(const int64_t *a, DType) {
  return static_cast<int64_t>(asUnsigned(a[0]) + asUnsigned(a[1]));
}
std::optional<int64_t> subI(const int64_t *a, DType) {
  return static_cast<int64_t>(asUnsigned(a[0]) - asUnsigned(a[1]));
}
std::optional<int64_t> mulI(const int64_t *a, DType) {
  return static_cast<int64_t>(asUnsigned(a[0]) * asUnsigned(a[1]));
}
std::optional<int64_t> divI(const int64_t *a, DType dtype) {
  return truncatingDivide(a[0], a[1], dtype);
}
std::optional<int64_t> powI(const int64_t *a, DType dtype) {
  return integerPower(a[0], a[1], dtype);
}
std::optional<int64_t> maxI(const int64_t *a, DType dtype) {
  if (isUnsignedWide(dtype))
    return asUnsigned(a[0]) < asUnsigned(a[1]) ? a[1] : a[0];
  return a[0] < a[1] ? a[1] : a[0];
}
std::optional<int64_t> equalI(const int64_t *a, DType) { return a[0] == a[1]; }
std::optional<int64_t> lessI(const int64_t *a, DType dtype) {
  if (isUnsignedWide(dtype))
    return asUnsigned(a[0]) < asUnsigned(a[1]);
  return a[0] < a[1];
}
std::optional<int64_t> greaterI(const int64_t *a, DType dtype) {
  if (isUnsignedWide(dtype))
    return asUnsigned(a[0]) > asUnsigned(a[1]);
  return a[0] > a[1];
}
std::optional<int64_t> whereI(const int64_t *a, DType) {
  return a[0] != 0 ? a[1] : a[2];
}

using K = ElementwiseKind;
using R = ResultElement;

// Must list the kinds in enum order; checked by getElementwiseTable.
const ElementwiseSemantics kTable[] = {
    {K::Neg, "neg", 1, R::SameAsFirstOperand, negF, negI,
     "integers wrap (-INT_MIN == INT_MIN); unsigned wrap modulo 2^n",
     "(-$0)", "kiln_ineg($0)"},
    {K::Abs, "abs", 1, R::SameAsFirstOperand, absF, absI,
     "abs(INT_MIN) wraps to INT_MIN",
     "kiln_abs($0)", "kiln_iabs($0, $U)"},
    {K::Exp, "exp", 1, R::SameAsFirstOperand, expF, nullptr, "",
     "kiln_exp($0)", nullptr},
    {K::Log, "log", 1, R::SameAsFirstOperand, logF, nullptr,
     "log(0) = -inf, log(x<0) = NaN",
     "kiln_log($0)", nullptr},
    {K::Sqrt, "sqrt", 1, R::SameAsFirstOperand, sqrtF, nullptr,
     "sqrt(x<0) = NaN",
     "kiln_sqrt($0)", nullptr},
    {K::Reciprocal, "reciprocal", 1, R::SameAsFirstOperand, reciprocalF,
     nullptr, "1/0 = inf",
     "kiln_reciprocal($0)", nullptr},
    {K::Relu, "relu", 1, R::SameAsFirstOperand, reluF, reluI,
     "relu(NaN) = NaN",
     "kiln_relu($0)", "kiln_irelu($0, $U)"},
    {K::Sigmoid, "sigmoid", 1, R::SameAsFirstOperand, sigmoidF, nullptr,
     "x >= 0: 1/(1+e^-x), else e^x/(1+e^x) (no overflow)",
     "kiln_sigmoid($0)", nullptr, "kiln_sigmoid_f16($0)"},
    {K::Tanh, "tanh", 1, R::SameAsFirstOperand, tanhF, nullptr, "",
     "kiln_tanh($0)", nullptr},
    {K::Erf, "erf", 1, R::SameAsFirstOperand, erfF, nullptr, "",
     "kiln_erf($0)", nullptr},
    {K::Not, "not", 1, R::SameAsFirstOperand, nullptr, notI, "bool only",
     nullptr, "(!$0)"},
    {K::Identity, "identity", 1, R::SameAsFirstOperand, identityF, identityI,
     "",
     "$0", "$0"},
    {K::Add, "add", 2, R::SameAsFirstOperand, addF, addI, "integers wrap",
     "($0 + $1)", "kiln_iadd($0, $1)"},
    {K::Sub, "sub", 2, R::SameAsFirstOperand, subF, subI, "integers wrap",
     "($0 - $1)", "kiln_isub($0, $1)"},
    {K::Mul, "mul", 2, R::SameAsFirstOperand, mulF, mulI, "integers wrap",
     "($0 * $1)", "kiln_imul($0, $1)"},
    {K::Div, "div", 2, R::SameAsFirstOperand, divF, divI,
     "integers truncate toward zero; integer division by zero is an error; "
     "INT_MIN / -1 wraps",
     "($0 / $1)", "kiln_idiv($0, $1, $U)"},
    {K::Pow, "pow", 2, R::SameAsFirstOperand, powF, powI,
     "result has the base's type; an integer base with a float exponent is "
     "computed in double and cast (truncated, saturated); integer x^-n is "
     "trunc(1/x^n)",
     "kiln_pow($0, $1)", "kiln_ipow($0, $1, $U)"},
    {K::Max, "max", 2, R::SameAsFirstOperand, maxF, maxI,
     "NaN if either operand is NaN",
     "kiln_max($0, $1)", "kiln_imax($0, $1, $U)"},
    {K::Equal, "equal", 2, R::Bool, equalF, equalI, "NaN == NaN is false",
     "($0 == $1)", "($0 == $1)"},
    {K::Less, "less", 2, R::Bool, lessF, lessI, "false with NaN",
     "($0 < $1)", "kiln_iless($0, $1, $U)"},
    {K::Greater, "greater", 2, R::Bool, greaterF, greaterI, "false with NaN",
     "($0 > $1)", "kiln_iless($1, $0, $U)"},
    {K::Where, "where", 3, R::SameAsValues, whereF, whereI,
     "operand 0 is the bool condition",
     "($0 ? $1 : $2)", "($0 ? $1 : $2)"},
    // Math and logic rows (functions in MathSemantics.cpp). Parameters
    // (getElementwiseParameters) follow the operands.
    {K::Min, "min", 2, R::SameAsFirstOperand, math::minF, math::minI,
     "NaN if either operand is NaN",
     "kiln_min($0, $1)", "kiln_imin($0, $1, $U)"},
    {K::Acos, "acos", 1, R::SameAsFirstOperand, math::acosF, nullptr,
     "NaN outside [-1, 1]", "kiln_acos($0)", nullptr},
    {K::Acosh, "acosh", 1, R::SameAsFirstOperand, math::acoshF, nullptr,
     "NaN below 1", "kiln_acosh($0)", nullptr},
    {K::Asin, "asin", 1, R::SameAsFirstOperand, math::asinF, nullptr,
     "NaN outside [-1, 1]", "kiln_asin($0)", nullptr},
    {K::Asinh, "asinh", 1, R::SameAsFirstOperand, math::asinhF, nullptr, "",
     "kiln_asinh($0)", nullptr},
    {K::Atan, "atan", 1, R::SameAsFirstOperand, math::atanF, nullptr, "",
     "kiln_atan($0)", nullptr},
    {K::Atanh, "atanh", 1, R::SameAsFirstOperand, math::atanhF, nullptr,
     "atanh(±1) = ±inf", "kiln_atanh($0)", nullptr},
    {K::Cos, "cos", 1, R::SameAsFirstOperand, math::cosF, nullptr, "",
     "kiln_cos($0)", nullptr},
    {K::Cosh, "cosh", 1, R::SameAsFirstOperand, math::coshF, nullptr, "",
     "kiln_cosh($0)", nullptr},
    {K::Sin, "sin", 1, R::SameAsFirstOperand, math::sinF, nullptr, "",
     "kiln_sin($0)", nullptr},
    {K::Sinh, "sinh", 1, R::SameAsFirstOperand, math::sinhF, nullptr, "",
     "kiln_sinh($0)", nullptr},
    {K::Tan, "tan", 1, R::SameAsFirstOperand, math::tanF, nullptr, "",
     "kiln_tan($0)", nullptr},
    {K::Ceil, "ceil", 1, R::SameAsFirstOperand, math::ceilF, nullptr, "",
     "kiln_ceil($0)", nullptr},
    {K::Floor, "floor", 1, R::SameAsFirstOperand, math::floorF, nullptr, "",
     "kiln_floor($0)", nullptr},
    {K::Round, "round", 1, R::SameAsFirstOperand, math::roundF, nullptr,
     "halfway cases round to even (2.5 -> 2, -0.5 -> -0)",
     "kiln_round($0)", nullptr},
    {K::Sign, "sign", 1, R::SameAsFirstOperand, math::signF, math::signI,
     "sign(±0) = ±0, sign(NaN) = NaN; unsigned: 0 or 1",
     "kiln_sign($0)", "kiln_isign($0, $U)"},
    {K::IsNaN, "is_nan", 1, R::Bool, math::isNaNF, nullptr, "",
     "($0 != $0)", nullptr},
    {K::IsInf, "is_inf", 1, R::Bool, math::isInfF, nullptr,
     "parameters detect_positive, detect_negative",
     "kiln_isinf($0, $1, $2)", nullptr},
    {K::Softplus, "softplus", 1, R::SameAsFirstOperand, math::softplusF,
     nullptr, "x > 0: x + ln(1 + e^-x), else ln(1 + e^x) (no overflow)",
     "kiln_softplus($0)", nullptr},
    {K::Softsign, "softsign", 1, R::SameAsFirstOperand, math::softsignF,
     nullptr, "", "kiln_softsign($0)", nullptr},
    {K::HardSwish, "hard_swish", 1, R::SameAsFirstOperand, math::hardSwishF,
     nullptr, "x * clamp(x / 6 + 0.5, 0, 1)", "kiln_hard_swish($0)", nullptr},
    {K::Elu, "elu", 1, R::SameAsFirstOperand, math::eluF, nullptr,
     "parameter alpha; alpha * expm1(x) for x < 0", "kiln_elu($0, $1)",
     nullptr},
    {K::Selu, "selu", 1, R::SameAsFirstOperand, math::seluF, nullptr,
     "parameters alpha, gamma", "kiln_selu($0, $1, $2)", nullptr},
    {K::Celu, "celu", 1, R::SameAsFirstOperand, math::celuF, nullptr,
     "parameter alpha; NaN stays NaN", "kiln_celu($0, $1)", nullptr},
    {K::LeakyRelu, "leaky_relu", 1, R::SameAsFirstOperand, math::leakyReluF,
     nullptr, "parameter alpha", "kiln_leaky_relu($0, $1)", nullptr},
    {K::HardSigmoid, "hard_sigmoid", 1, R::SameAsFirstOperand,
     math::hardSigmoidF, nullptr, "parameters alpha, beta; NaN stays NaN",
     "kiln_hard_sigmoid($0, $1, $2)", nullptr},
    {K::ThresholdedRelu, "thresholded_relu", 1, R::SameAsFirstOperand,
     math::thresholdedReluF, nullptr, "parameter alpha; NaN stays NaN",
     "kiln_thresholded_relu($0, $1)", nullptr},
    {K::Shrink, "shrink", 1, R::SameAsFirstOperand, math::shrinkF, nullptr,
     "parameters bias, lambd; NaN stays NaN", "kiln_shrink($0, $1, $2)",
     nullptr},
    {K::GreaterOrEqual, "greater_or_equal", 2, R::Bool, math::greaterOrEqualF,
     math::greaterOrEqualI, "false with NaN (not the negation of less)",
     "($0 >= $1)", "(!kiln_iless($0, $1, $U))"},
    {K::LessOrEqual, "less_or_equal", 2, R::Bool, math::lessOrEqualF,
     math::lessOrEqualI, "false with NaN (not the negation of greater)",
     "($0 <= $1)", "(!kiln_iless($1, $0, $U))"},
    {K::And, "and", 2, R::SameAsFirstOperand, nullptr, math::andI,
     "bool only", nullptr, "($0 && $1)"},
    {K::Or, "or", 2, R::SameAsFirstOperand, nullptr, math::orI, "bool only",
     nullptr, "($0 || $1)"},
    {K::Xor, "xor", 2, R::SameAsFirstOperand, nullptr, math::xorI,
     "bool only", nullptr, "($0 != $1)"},
    {K::PRelu, "prelu", 2, R::SameAsFirstOperand, math::preluF, math::preluI,
     "operand 1 is the slope; integers wrap",
     "kiln_prelu($0, $1)", "kiln_iprelu($0, $1, $U)"},
    {K::Mod, "mod", 2, R::SameAsFirstOperand, math::modF, math::modI,
     "the sign of the divisor (Python %); integer x % 0 is an error "
     "(0 on the GPU)",
     "kiln_mod($0, $1)", "kiln_imod($0, $1, $U)"},
    {K::FMod, "fmod", 2, R::SameAsFirstOperand, math::fmodF, math::fmodI,
     "the sign of the dividend (C fmod); integer x % 0 is an error (0 on the "
     "GPU); INT_MIN % -1 = 0",
     "kiln_fmod($0, $1)", "kiln_ifmod($0, $1, $U)"},
    {K::ShiftLeft, "shift_left", 2, R::SameAsFirstOperand, nullptr,
     math::shiftLeftI, "unsigned; shifts of 64 or more give 0",
     nullptr, "kiln_shl($0, $1)"},
    {K::ShiftRight, "shift_right", 2, R::SameAsFirstOperand, nullptr,
     math::shiftRightI, "unsigned (logical); shifts of 64 or more give 0",
     nullptr, "kiln_shr($0, $1)"},
    {K::Clip, "clip", 3, R::SameAsFirstOperand, math::clipF, math::clipI,
     "min(max(x, lo), hi); NaN x stays NaN",
     "kiln_clip($0, $1, $2)", "kiln_iclip($0, $1, $2, $U)"},
    {K::Gelu, "gelu", 1, R::SameAsFirstOperand, geluF, nullptr,
     "0.5 * x * (1 + erf(x / sqrt(2)))", "kiln_gelu($0)", nullptr},
    {K::GeluTanh, "gelu_tanh", 1, R::SameAsFirstOperand, geluTanhF, nullptr,
     "0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))",
     "kiln_gelu_tanh($0)", nullptr},
    {K::Cast, "cast", 1, R::CastTarget, nullptr, nullptr,
     "see castFloatToInt / castIntToFloat / roundToFloatDType",
     nullptr, nullptr},
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == kNumElementwiseKinds,
              "one row per ElementwiseKind");

} // namespace

double nanPropagatingMax(double lhs, double rhs) {
  if (std::isnan(lhs) || std::isnan(rhs))
    return kNaN;
  return lhs < rhs ? rhs : lhs;
}

double stableSigmoid(double x) {
  if (x >= 0.0)
    return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

std::optional<int64_t> truncatingDivide(int64_t x, int64_t y, DType dtype) {
  if (y == 0)
    return std::nullopt;
  if (dtype == DType::U64)
    return static_cast<int64_t>(asUnsigned(x) / asUnsigned(y));
  if (x == std::numeric_limits<int64_t>::min() && y == -1)
    return x;   // Wraps, as two's complement hardware does for narrower types.
  return x / y; // C++ division truncates toward zero.
}

int64_t integerPower(int64_t x, int64_t y, DType dtype) {
  if (y < 0 && !isUnsigned(dtype)) {
    if (x == 1)
      return 1;
    if (x == -1)
      return (y & 1) ? -1 : 1;
    return 0; // |1 / x^n| < 1 truncates to zero (x == 0: undefined; 0).
  }
  uint64_t base = asUnsigned(x), result = 1, exponent = asUnsigned(y);
  while (exponent) {
    if (exponent & 1)
      result *= base;
    base *= base;
    exponent >>= 1;
  }
  return wrapToIntDType(static_cast<int64_t>(result), dtype);
}

llvm::ArrayRef<ElementwiseSemantics> getElementwiseTable() {
  static const bool ordered = [] {
    for (unsigned i = 0; i < kNumElementwiseKinds; ++i)
      if (static_cast<unsigned>(kTable[i].kind) != i)
        return false;
    return true;
  }();
  (void)ordered;
  assert(ordered && "kTable rows must follow ElementwiseKind order");
  return kTable;
}

const ElementwiseSemantics &getElementwiseSemantics(ElementwiseKind kind) {
  return getElementwiseTable()[static_cast<unsigned>(kind)];
}

std::optional<ElementwiseKind> getElementwiseKind(mlir::Operation *op) {
  return llvm::TypeSwitch<mlir::Operation *, std::optional<ElementwiseKind>>(op)
      .Case([](NegOp) { return K::Neg; })
      .Case([](AbsOp) { return K::Abs; })
      .Case([](ExpOp) { return K::Exp; })
      .Case([](LogOp) { return K::Log; })
      .Case([](SqrtOp) { return K::Sqrt; })
      .Case([](ReciprocalOp) { return K::Reciprocal; })
      .Case([](ReluOp) { return K::Relu; })
      .Case([](SigmoidOp) { return K::Sigmoid; })
      .Case([](TanhOp) { return K::Tanh; })
      .Case([](ErfOp) { return K::Erf; })
      .Case([](NotOp) { return K::Not; })
      .Case([](IdentityOp) { return K::Identity; })
      .Case([](AddOp) { return K::Add; })
      .Case([](SubOp) { return K::Sub; })
      .Case([](MulOp) { return K::Mul; })
      .Case([](DivOp) { return K::Div; })
      .Case([](PowOp) { return K::Pow; })
      .Case([](EqualOp) { return K::Equal; })
      .Case([](LessOp) { return K::Less; })
      .Case([](GreaterOp) { return K::Greater; })
      .Case([](WhereOp) { return K::Where; })
      .Case([](CastOp) { return K::Cast; })
      .Case([](GeluOp gelu) {
        return gelu.getApproximate() == "tanh" ? K::GeluTanh : K::Gelu;
      })
      .Default([](mlir::Operation *other) {
        return math::getMathElementwiseKind(other);
      });
}

} // namespace kiln::eval
