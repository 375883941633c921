// The accuracy gate of library algorithm candidates at session creation:
// seeded random operands, a host reference computed in double precision at
// sampled output elements, and the comparison of a candidate's output with
// that reference and with the whole output of the first candidate that
// matched it. A candidate competes on time only after it passes.
#ifndef KILN_RUNTIME_CANDIDATE_CHECK_H
#define KILN_RUNTIME_CANDIDATE_CHECK_H

#include "kiln_artifact_generated.h"
#include "kiln/runtime.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln::runtime {

/// How far a candidate's output may be from the reference, by the output
/// dtype's precision: |candidate - reference| <= absolute * rms(reference) +
/// relative * |reference| at every element, and rel-L2 <= relL2.
struct Tolerance {
  double relative = 0, absolute = 0, relL2 = 0;
};

/// The tolerance of a library step writing |out| values computed from
/// |inputs| values: a few roundings of the coarser of the two (f16: 2^-10,
/// bf16: 2^-7, f32: 1e-5, f32 with TF32 allowed: TF32's 2^-10).
Tolerance toleranceFor(kiln::artifact::DType inputs, kiln::artifact::DType out,
                       bool allowTf32);

/// How a candidate's output compares with a reference.
struct Agreement {
  double relL2 = 0;   // ||candidate - reference|| / ||reference||.
  double maxError = 0; // max |candidate - reference|.
  size_t worst = 0;    // Index of the element of maxError.
  size_t outside = 0;  // Elements beyond the elementwise tolerance.
  size_t nonFinite = 0; // NaN/Inf where the reference is finite.
  bool ok = false;
  /// "rel_l2=1.2e-04 max_err=3.1e-03 at 17" and the failures.
  std::string describe() const;
};

/// Compares |candidate| with |reference| (|count| values each).
Agreement compareValues(const float *candidate, const float *reference,
                        size_t count, const Tolerance &tolerance);

// The operands, the poison and the download are ordered on the candidates'
// own |stream|, never on the legacy default stream: a session's streams are
// non-blocking, so work on the default stream (another session's, say)
// would not be ordered with the candidates. A poison queued there behind
// other sessions' uploads could land after the candidate wrote its output
// and fail a correct candidate (a cached choice then re-timed).

/// |count| values uniform in [-scale, scale] from |seed|, rounded to |dtype|
/// (so the host copy is exactly what the device holds), written to |device|
/// on |stream|, which this waits for; the values in |*host|.
kiln_status_t uploadRandom(void *device, size_t count,
                           kiln::artifact::DType dtype, uint64_t seed,
                           double scale, std::vector<float> *host,
                           cudaStream_t stream);

/// Fills |bytes| of |device| with all-ones bits (NaN in every float type) on
/// |stream|, so that an element a candidate does not write fails the check.
kiln_status_t poison(void *device, size_t bytes, cudaStream_t stream);

/// A candidate's output copied to the host, read as floats.
struct HostOutput {
  std::vector<uint8_t> bytes;
  kiln::artifact::DType dtype = kiln::artifact::DType_F32;
  size_t count = 0;
  float at(size_t index) const;
};

/// |count| values of |dtype| at |device|, copied on |stream| after what is
/// queued there (synchronous).
kiln_status_t downloadOutput(const void *device, size_t count,
                             kiln::artifact::DType dtype, HostOutput *output,
                             cudaStream_t stream);

/// |samples| distinct output indices below |count| (all of them when
/// count <= samples), in increasing order, deterministic in |seed|.
std::vector<size_t> samplePositions(size_t count, size_t samples,
                                    uint64_t seed);

/// Host references, in double precision, of one output element (its index
/// in the output's memory order), from the operands' host values.
struct ConvOperandValues {
  const float *x, *w, *bias, *residual; // bias/residual NULL when absent.
};
double convReferenceAt(const kiln::artifact::Conv &conv,
                       const ConvOperandValues &values, size_t index);

struct GemmOperandValues {
  const float *a, *b, *c, *bias; // c/bias NULL when absent.
};
double gemmReferenceAt(const kiln::artifact::Gemm &gemm,
                       const GemmOperandValues &values, size_t index);

/// The gate's state for one library step: the host reference at sampled
/// positions, then the output of the first candidate that matched it, at
/// every |stride|-th element (at most kWholeCompared of them; the stride is
/// prime to 2, 3, 5 and 7, so it does not keep to one channel or column).
class CandidateGate {
public:
  /// |reference[i]| is the reference of output element |positions[i]| of an
  /// output of |count| elements.
  CandidateGate(size_t count, std::vector<size_t> positions,
                std::vector<double> reference, Tolerance tolerance);

  /// Checks a candidate's whole output: against the sampled reference,
  /// then against the first passing candidate's output (which a passing
  /// first candidate becomes). |*agreement| is the worse of the two.
  bool check(const HostOutput &output, Agreement *agreement);

private:
  std::vector<size_t> positions;
  std::vector<float> sampledReference;
  Tolerance tolerance;
  size_t count = 0, stride = 1;
  std::vector<float> firstPassing;
};

/// Outputs sampled against the host reference per library step, and the
/// most compared with the first passing candidate.
constexpr size_t kCheckedSamples = 2048;
constexpr size_t kWholeCompared = size_t(1) << 20;

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CANDIDATE_CHECK_H
