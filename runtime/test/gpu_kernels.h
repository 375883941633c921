// GPU test helpers: the sample's kernels compiled with NVRTC for the device,
// and its CPU reference.
#ifndef KILN_RUNTIME_TEST_GPU_KERNELS_H
#define KILN_RUNTIME_TEST_GPU_KERNELS_H

#include "artifact_builder.h"

#include <string>
#include <vector>

namespace kiln::testing {

constexpr int kIn = kSampleM * kSampleK, kOut = kSampleM * kSampleN;

/// The device's arch ("sm_90") and a cubin of the sample kernels
/// (scale_add, make_nan, wild_write, ranged_affine...) for it, compiled once; |error| is NVRTC's log.
struct CompiledKernels {
  std::string arch, cubin, error;
};
const CompiledKernels &compiledKernels();

/// Sample options with the real cubin for this device.
SampleOptions deviceSample();

/// relu(x w + bias) * 2 + 1 on the CPU, and a deterministic non-zero input.
std::vector<float> reference(const std::vector<float> &x);
std::vector<float> sampleInput(float seed);

} // namespace kiln::testing

#endif // KILN_RUNTIME_TEST_GPU_KERNELS_H
