// CPU scalar semantics of the math and logic ops (trigonometry, rounding,
// activations, Mod, logic, bit shifts, Min, Clip) and their op -> kind map.
#include "MathSemantics.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace kiln::eval {
namespace math {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

uint64_t asUnsigned(int64_t value) { return static_cast<uint64_t>(value); }

/// a < b in the signedness of |dtype| (u64 values are bit patterns).
bool lessThan(int64_t a, int64_t b, DType dtype) {
  if (isUnsigned(dtype))
    return asUnsigned(a) < asUnsigned(b);
  return a < b;
}

} // namespace

double acosF(const double *a) { return std::acos(a[0]); }
double acoshF(const double *a) { return std::acosh(a[0]); }
double asinF(const double *a) { return std::asin(a[0]); }
double asinhF(const double *a) { return std::asinh(a[0]); }
double atanF(const double *a) { return std::atan(a[0]); }
double atanhF(const double *a) { return std::atanh(a[0]); }
double cosF(const double *a) { return std::cos(a[0]); }
double coshF(const double *a) { return std::cosh(a[0]); }
double sinF(const double *a) { return std::sin(a[0]); }
double sinhF(const double *a) { return std::sinh(a[0]); }
double tanF(const double *a) { return std::tan(a[0]); }
double ceilF(const double *a) { return std::ceil(a[0]); }
double floorF(const double *a) { return std::floor(a[0]); }
// The default rounding mode rounds halfway cases to even.
double roundF(const double *a) { return std::nearbyint(a[0]); }
double signF(const double *a) {
  return a[0] > 0.0 ? 1.0 : (a[0] < 0.0 ? -1.0 : a[0]); // ±0 and NaN stay.
}
double isNaNF(const double *a) { return std::isnan(a[0]); }
// Parameters: detect_positive, detect_negative (0 or 1).
double isInfF(const double *a) {
  if (!std::isinf(a[0]))
    return 0.0;
  return a[0] > 0.0 ? a[1] != 0.0 : a[2] != 0.0;
}
// ln(1 + e^x) without overflow: x + ln(1 + e^-x) for x > 0.
double softplusF(const double *a) {
  double x = a[0];
  return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
double softsignF(const double *a) { return a[0] / (1.0 + std::fabs(a[0])); }
double hardSwishF(const double *a) {
  double v = a[0] / 6.0 + 0.5;
  return a[0] * (v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v));
}
// Parameter: alpha.
double eluF(const double *a) {
  return a[0] < 0.0 ? a[1] * std::expm1(a[0]) : a[0];
}
// Parameters: alpha, gamma.
double seluF(const double *a) {
  return a[0] <= 0.0 ? a[2] * (a[1] * std::exp(a[0]) - a[1]) : a[2] * a[0];
}
// Parameter: alpha.
double celuF(const double *a) {
  double x = a[0];
  if (std::isnan(x))
    return x;
  return (x > 0.0 ? x : 0.0) + std::min(0.0, a[1] * std::expm1(x / a[1]));
}
// Parameter: alpha.
double leakyReluF(const double *a) { return a[0] < 0.0 ? a[1] * a[0] : a[0]; }
// Parameters: alpha, beta; NaN stays NaN.
double hardSigmoidF(const double *a) {
  double v = a[1] * a[0] + a[2];
  return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}
// Parameter: alpha; NaN stays NaN.
double thresholdedReluF(const double *a) { return a[0] <= a[1] ? 0.0 : a[0]; }
// Parameters: bias, lambd.
double shrinkF(const double *a) {
  if (a[0] < -a[2])
    return a[0] + a[1];
  if (a[0] > a[2])
    return a[0] - a[1];
  return std::isnan(a[0]) ? a[0] : 0.0;
}
double minF(const double *a) {
  if (std::isnan(a[0]) || std::isnan(a[1]))
    return kNaN;
  return a[1] < a[0] ? a[1] : a[0];
}
double greaterOrEqualF(const double *a) { return a[0] >= a[1]; }
double lessOrEqualF(const double *a) { return a[0] <= a[1]; }
double preluF(const double *a) { return a[0] < 0.0 ? a[1] * a[0] : a[0]; }
// The sign of the divisor, as Python's % (numpy.mod).
double modF(const double *a) {
  double r = std::fmod(a[0], a[1]);
  if (r != 0.0 && ((r < 0.0) != (a[1] < 0.0)))
    r += a[1];
  return r;
}
double fmodF(const double *a) { return std::fmod(a[0], a[1]); }
// min(max(x, lo), hi); NaN x stays NaN.
double clipF(const double *a) {
  double v = a[0] < a[1] ? a[1] : a[0];
  return v > a[2] ? a[2] : v;
}

std::optional<int64_t> signI(const int64_t *a, DType dtype) {
  if (isUnsigned(dtype))
    return a[0] != 0;
  return (a[0] > 0) - (a[0] < 0);
}
std::optional<int64_t> minI(const int64_t *a, DType dtype) {
  return lessThan(a[1], a[0], dtype) ? a[1] : a[0];
}
std::optional<int64_t> greaterOrEqualI(const int64_t *a, DType dtype) {
  return !lessThan(a[0], a[1], dtype);
}
std::optional<int64_t> lessOrEqualI(const int64_t *a, DType dtype) {
  return !lessThan(a[1], a[0], dtype);
}
std::optional<int64_t> andI(const int64_t *a, DType) {
  return a[0] != 0 && a[1] != 0;
}
std::optional<int64_t> orI(const int64_t *a, DType) {
  return a[0] != 0 || a[1] != 0;
}
std::optional<int64_t> xorI(const int64_t *a, DType) {
  return (a[0] != 0) != (a[1] != 0);
}
std::optional<int64_t> preluI(const int64_t *a, DType dtype) {
  if (isUnsigned(dtype) || a[0] >= 0)
    return a[0];
  return static_cast<int64_t>(asUnsigned(a[0]) * asUnsigned(a[1]));
}
// Truncated remainder (the sign of the dividend); INT_MIN % -1 is 0.
std::optional<int64_t> fmodI(const int64_t *a, DType dtype) {
  if (a[1] == 0)
    return std::nullopt;
  if (isUnsigned(dtype))
    return static_cast<int64_t>(asUnsigned(a[0]) % asUnsigned(a[1]));
  if (a[1] == -1)
    return 0;
  return a[0] % a[1];
}
// Floored remainder (the sign of the divisor), as Python's %.
std::optional<int64_t> modI(const int64_t *a, DType dtype) {
  std::optional<int64_t> r = fmodI(a, dtype);
  if (!r || isUnsigned(dtype))
    return r;
  if (*r != 0 && ((*r < 0) != (a[1] < 0)))
    *r += a[1];
  return r;
}
// Shifts of the value's bits; the caller wraps to the dtype's width.
std::optional<int64_t> shiftLeftI(const int64_t *a, DType) {
  uint64_t amount = asUnsigned(a[1]);
  return amount >= 64 ? 0 : static_cast<int64_t>(asUnsigned(a[0]) << amount);
}
std::optional<int64_t> shiftRightI(const int64_t *a, DType) {
  uint64_t amount = asUnsigned(a[1]);
  return amount >= 64 ? 0 : static_cast<int64_t>(asUnsigned(a[0]) >> amount);
}
std::optional<int64_t> clipI(const int64_t *a, DType dtype) {
  int64_t v = lessThan(a[0], a[1], dtype) ? a[1] : a[0];
  return lessThan(a[2], v, dtype) ? a[2] : v;
}

std::optional<ElementwiseKind> getMathElementwiseKind(mlir::Operation *op) {
  using K = ElementwiseKind;
  return llvm::TypeSwitch<mlir::Operation *, std::optional<ElementwiseKind>>(op)
      .Case([](AcosOp) { return K::Acos; })
      .Case([](AcoshOp) { return K::Acosh; })
      .Case([](AsinOp) { return K::Asin; })
      .Case([](AsinhOp) { return K::Asinh; })
      .Case([](AtanOp) { return K::Atan; })
      .Case([](AtanhOp) { return K::Atanh; })
      .Case([](CosOp) { return K::Cos; })
      .Case([](CoshOp) { return K::Cosh; })
      .Case([](SinOp) { return K::Sin; })
      .Case([](SinhOp) { return K::Sinh; })
      .Case([](TanOp) { return K::Tan; })
      .Case([](CeilOp) { return K::Ceil; })
      .Case([](FloorOp) { return K::Floor; })
      .Case([](RoundOp) { return K::Round; })
      .Case([](SignOp) { return K::Sign; })
      .Case([](IsNaNOp) { return K::IsNaN; })
      .Case([](IsInfOp) { return K::IsInf; })
      .Case([](SoftplusOp) { return K::Softplus; })
      .Case([](SoftsignOp) { return K::Softsign; })
      .Case([](HardSwishOp) { return K::HardSwish; })
      .Case([](EluOp) { return K::Elu; })
      .Case([](SeluOp) { return K::Selu; })
      .Case([](CeluOp) { return K::Celu; })
      .Case([](LeakyReluOp) { return K::LeakyRelu; })
      .Case([](HardSigmoidOp) { return K::HardSigmoid; })
      .Case([](ThresholdedReluOp) { return K::ThresholdedRelu; })
      .Case([](ShrinkOp) { return K::Shrink; })
      .Case([](MaxOp) { return K::Max; })
      .Case([](MinOp) { return K::Min; })
      .Case([](GreaterOrEqualOp) { return K::GreaterOrEqual; })
      .Case([](LessOrEqualOp) { return K::LessOrEqual; })
      .Case([](AndOp) { return K::And; })
      .Case([](OrOp) { return K::Or; })
      .Case([](XorOp) { return K::Xor; })
      .Case([](PReluOp) { return K::PRelu; })
      .Case([](ModOp mod) { return mod.getFmod() ? K::FMod : K::Mod; })
      .Case([](BitShiftOp shift) {
        return shift.getDirection() == "left" ? K::ShiftLeft : K::ShiftRight;
      })
      .Case([](ClipOp) { return K::Clip; })
      .Default([](mlir::Operation *) { return std::nullopt; });
}

} // namespace math

llvm::SmallVector<double, 2> getElementwiseParameters(mlir::Operation *op) {
  using Params = llvm::SmallVector<double, 2>;
  auto f = [](llvm::APFloat value) { return value.convertToDouble(); };
  return llvm::TypeSwitch<mlir::Operation *, Params>(op)
      .Case([&](IsInfOp o) {
        return Params{double(o.getDetectPositive()),
                      double(o.getDetectNegative())};
      })
      .Case([&](EluOp o) { return Params{f(o.getAlpha())}; })
      .Case([&](SeluOp o) {
        return Params{f(o.getAlpha()), f(o.getGamma())};
      })
      .Case([&](CeluOp o) { return Params{f(o.getAlpha())}; })
      .Case([&](LeakyReluOp o) { return Params{f(o.getAlpha())}; })
      .Case([&](HardSigmoidOp o) {
        return Params{f(o.getAlpha()), f(o.getBeta())};
      })
      .Case([&](ThresholdedReluOp o) { return Params{f(o.getAlpha())}; })
      .Case([&](ShrinkOp o) {
        return Params{f(o.getBias()), f(o.getLambd())};
      })
      .Default([](mlir::Operation *) { return Params{}; });
}

} // namespace kiln::eval
