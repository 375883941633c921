// Internal: the CPU scalar functions of the math and logic rows of the
// elementwise table (ScalarSemantics.cpp lists the rows), and the mapping of
// the math ops (KilnMathOps.td) to their table kinds.
#ifndef KILN_LIB_EVALUATOR_MATHSEMANTICS_H
#define KILN_LIB_EVALUATOR_MATHSEMANTICS_H

#include "kiln/Evaluator/ScalarSemantics.h"

namespace kiln::eval::math {

// Float functions: |a| holds the operands, then the op's parameters
// (getElementwiseParameters).
double acosF(const double *a);
double acoshF(const double *a);
double asinF(const double *a);
double asinhF(const double *a);
double atanF(const double *a);
double atanhF(const double *a);
double cosF(const double *a);
double coshF(const double *a);
double sinF(const double *a);
double sinhF(const double *a);
double tanF(const double *a);
double ceilF(const double *a);
double floorF(const double *a);
double roundF(const double *a);
double signF(const double *a);
double isNaNF(const double *a);
double isInfF(const double *a);
double softplusF(const double *a);
double softsignF(const double *a);
double hardSwishF(const double *a);
double eluF(const double *a);
double seluF(const double *a);
double celuF(const double *a);
double leakyReluF(const double *a);
double hardSigmoidF(const double *a);
double thresholdedReluF(const double *a);
double shrinkF(const double *a);
double minF(const double *a);
double greaterOrEqualF(const double *a);
double lessOrEqualF(const double *a);
double preluF(const double *a);
double modF(const double *a);
double fmodF(const double *a);
double clipF(const double *a);

// Integer and bool functions on the evaluator's wide form.
std::optional<int64_t> signI(const int64_t *a, DType dtype);
std::optional<int64_t> minI(const int64_t *a, DType dtype);
std::optional<int64_t> greaterOrEqualI(const int64_t *a, DType dtype);
std::optional<int64_t> lessOrEqualI(const int64_t *a, DType dtype);
std::optional<int64_t> andI(const int64_t *a, DType dtype);
std::optional<int64_t> orI(const int64_t *a, DType dtype);
std::optional<int64_t> xorI(const int64_t *a, DType dtype);
std::optional<int64_t> preluI(const int64_t *a, DType dtype);
std::optional<int64_t> modI(const int64_t *a, DType dtype);
std::optional<int64_t> fmodI(const int64_t *a, DType dtype);
std::optional<int64_t> shiftLeftI(const int64_t *a, DType dtype);
std::optional<int64_t> shiftRightI(const int64_t *a, DType dtype);
std::optional<int64_t> clipI(const int64_t *a, DType dtype);

/// The kind of a math op (Mod picks Mod or FMod by `fmod`, BitShift its
/// direction), or std::nullopt for other ops.
std::optional<ElementwiseKind> getMathElementwiseKind(mlir::Operation *op);

} // namespace kiln::eval::math

#endif // KILN_LIB_EVALUATOR_MATHSEMANTICS_H
