// Comparing a kernel's output bytes with the CPU evaluator's expected bytes:
// dtype decoding (incl. f16/bf16) and the tolerances of the kernel tests.
#ifndef KILN_RUNTIME_KERNEL_TEST_COMPARE_H
#define KILN_RUNTIME_KERNEL_TEST_COMPARE_H

#include <cstddef>
#include <string>

namespace kiln::kerneltest {

/// Default tolerances, |actual - expected| <= atol + rtol * |expected|:
///   float32  rtol 1e-5, atol 1e-5: the GPU computes in float (reductions
///            accumulate in float) while the evaluator computes in double and
///            rounds once per op, so differences of a few float ulps (and
///            ~1e-5 absolute for sums that cancel) are expected;
///   float64  rtol 1e-12, atol 1e-12;
///   float16  rtol 1e-2, atol 1e-2 (the GPU keeps intermediates in float, the
///            evaluator rounds every op's result to f16);
///   bfloat16 rtol 2e-2, atol 2e-2 (the same with 8 significant bits: one
///            ulp is 0.8%, and chains of ops can differ by two);
///   integers and bool: exact.
/// NaN never passes (in the output or in the expected values); infinities
/// must match exactly.
void defaultTolerance(const std::string &dtype, double &rtol, double &atol);

struct Comparison {
  bool ok = true;
  double maxAbsError = 0, maxRelError = 0;
  size_t mismatches = 0;
  std::string message; // The first mismatch, or what was wrong.
};

/// Compares |count| elements of |dtype| (little-endian bytes).
Comparison compareBuffers(const std::string &dtype, const char *actual,
                          const char *expected, size_t count, double rtol,
                          double atol);

/// Bytes per element of a dtype name; 0 for unknown names.
size_t dtypeBytes(const std::string &dtype);

} // namespace kiln::kerneltest

#endif // KILN_RUNTIME_KERNEL_TEST_COMPARE_H
