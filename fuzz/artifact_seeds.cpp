// Writes the seed corpus of kiln-fuzz-artifact-reader: small valid artifacts
// from the runtime tests' builder (a GEMM and launch, two streams, NCHW and
// NHWC convolutions with their epilogues). Usage: kiln-fuzz-artifact-seeds DIR
#include "artifact_builder.h"
#include "conv_artifact.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace kiln::testing;

namespace {

bool writeSeed(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return false;
  bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) ==
                 bytes.size();
  return std::fclose(file) == 0 && written;
}

std::vector<uint8_t> convArtifact(const ConvShape &shape) {
  ArtifactBuilder builder;
  buildConvModel(builder.model, shape);
  return builder.finish();
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  SampleOptions twoStreams;
  twoStreams.twoStreams = true;
  ConvShape plain{"conv", 1, 3, 8, 8, 4, 3, 3};
  ConvShape fused{"conv_fused", 2, 8, 6, 6, 8, 3, 3, 1, 1, 1, 1, true};
  fused.residual = fused.relu = true;
  ConvShape nhwc{"conv_nhwc", 1, 8, 5, 5, 16, 1, 1};
  nhwc.channelsLast = true;
  nhwc.dtype = kiln::artifact::DType_F16;
  ConvShape grouped{"conv_grouped", 1, 8, 7, 7, 8, 3, 3, 1, 2, 1, 4};
  const std::pair<const char *, std::vector<uint8_t>> seeds[] = {
      {"sample.kiln", sampleArtifact()},
      {"sample_two_streams.kiln", sampleArtifact(twoStreams)},
      {"conv.kiln", convArtifact(plain)},
      {"conv_fused.kiln", convArtifact(fused)},
      {"conv_nhwc_f16.kiln", convArtifact(nhwc)},
      {"conv_grouped.kiln", convArtifact(grouped)},
  };
  for (const auto &[name, bytes] : seeds)
    if (!writeSeed(dir + "/" + name, bytes)) {
      std::fprintf(stderr, "cannot write %s/%s\n", dir.c_str(), name);
      return 1;
    }
  return 0;
}
