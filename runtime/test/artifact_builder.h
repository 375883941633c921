// Test helper: writes .kiln artifacts (header, FlatBuffers manifest, aligned
// sections) for runtime tests.
#ifndef KILN_RUNTIME_TEST_ARTIFACT_BUILDER_H
#define KILN_RUNTIME_TEST_ARTIFACT_BUILDER_H

#include "kiln_artifact_generated.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::testing {

/// Fill |model| (the FlatBuffers object API), add sections, then finish().
class ArtifactBuilder {
public:
  ArtifactBuilder();
  /// Adds a section; returns its index. Offsets and hashes are set by finish().
  uint32_t addSection(const std::string &name,
                      const std::vector<uint8_t> &bytes);
  /// Lays out header, manifest and sections; returns the file's bytes.
  std::vector<uint8_t> finish(uint32_t formatVersion = 1);

  kiln::artifact::ModelT model;

private:
  std::vector<std::vector<uint8_t>> sections;
};

/// A buffer of the object API.
std::unique_ptr<kiln::artifact::BufferT>
makeBuffer(kiln::artifact::BufferKind kind, std::vector<int64_t> shape,
           uint64_t offset = 0, uint32_t ioIndex = 0);

struct SampleOptions {
  std::string cubin = "not really a cubin";
  std::string arch = "sm_90";
  std::string kernelSymbol = "scale_add";
  bool twoStreams = false; // The launch on stream 1, after an event.
};

/// Sizes of the sample: y = relu(x[M,K] w[K,N] + bias[N]) * 2 + 1.
constexpr int kSampleM = 4, kSampleK = 8, kSampleN = 16;
/// The sample's weights: w[k][n] and bias[n] (deterministic, non-zero).
float sampleWeight(int k, int n);
float sampleBias(int n);

/// A valid model: input "x" [4,8] f32; weights w [8,16] and bias [16]
/// inline; a Gemm step (BiasRelu) into activation h [4,16]; a Launch of
/// |kernelSymbol|(h, y) with grid (1, 1) and block 64; output "y" [4,16].
void buildSample(ArtifactBuilder &builder, const SampleOptions &options = {});
std::vector<uint8_t> sampleArtifact(const SampleOptions &options = {});

} // namespace kiln::testing

#endif // KILN_RUNTIME_TEST_ARTIFACT_BUILDER_H
