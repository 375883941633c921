// Tests of the artifact reader: good files, truncation, corruption, foreign
// files, versions.
#include "artifact_builder.h"
#include "artifact_reader.h"
#include "test_util.h"

#include "kiln/artifact_format.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>

using namespace kiln::testing;
using namespace kiln::runtime;

namespace {

kiln_status_t read(const std::vector<uint8_t> &bytes) {
  Artifact artifact;
  return readArtifact(bytes.data(), bytes.size(), "test.kiln", &artifact);
}

uint64_t manifestSize(const std::vector<uint8_t> &bytes) {
  uint64_t size = 0;
  std::memcpy(&size, &bytes[24], sizeof(size));
  return size;
}

/// The first byte of section |index| in |bytes|.
size_t sectionOffset(const std::vector<uint8_t> &bytes, uint32_t index) {
  Artifact artifact;
  EXPECT_TRUE(
      isOk(readArtifact(bytes.data(), bytes.size(), "test.kiln", &artifact)));
  return artifact.manifest->sections()->Get(index)->offset();
}

TEST(ArtifactReaderTest, ReadsAGoodArtifact) {
  std::vector<uint8_t> bytes = sampleArtifact();
  Artifact artifact;
  ASSERT_TRUE(
      isOk(readArtifact(bytes.data(), bytes.size(), "test.kiln", &artifact)));
  const auto &manifest = *artifact.manifest;
  EXPECT_STREQ(manifest.cuda_version()->c_str(), "13.0");
  ASSERT_EQ(manifest.entry_points()->size(), 1u);
  EXPECT_STREQ(manifest.entry_points()->Get(0)->name()->c_str(), "main");
  EXPECT_EQ(manifest.sections()->size(), 3u);
  for (uint32_t i = 0; i < manifest.sections()->size(); ++i)
    EXPECT_EQ(manifest.sections()->Get(i)->offset() %
                  kiln::artifact::kSectionAlignment,
              0u);
  EXPECT_EQ(artifact.sectionSize(1), kSampleK * kSampleN * 4u);
}

TEST(ArtifactReaderTest, EveryTruncationIsAnError) {
  std::vector<uint8_t> bytes = sampleArtifact();
  for (size_t length = 0; length < bytes.size(); ++length) {
    std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + length);
    StatusHolder status(read(truncated));
    ASSERT_NE(status.status, nullptr) << "length " << length;
    if (length >= 8) {
      EXPECT_EQ(status.code(), KILN_STATUS_DATA_LOSS) << status.message();
    }
    if (length >= 64) {
      EXPECT_NE(status.message().find("truncated"), std::string::npos)
          << status.message();
    }
  }
}

TEST(ArtifactReaderTest, TrailingBytesAreAnError) {
  std::vector<uint8_t> bytes = sampleArtifact();
  bytes.push_back(0);
  EXPECT_TRUE(isError(read(bytes), KILN_STATUS_DATA_LOSS, "trailing data"));
}

TEST(ArtifactReaderTest, CorruptedManifestIsDetectedByItsHash) {
  std::vector<uint8_t> bytes = sampleArtifact();
  bytes[64 + 40] ^= 0x5a;
  EXPECT_TRUE(
      isError(read(bytes), KILN_STATUS_DATA_LOSS, "the manifest is corrupted"));
}

TEST(ArtifactReaderTest, CorruptedSectionIsNamed) {
  std::vector<uint8_t> bytes = sampleArtifact();
  bytes[sectionOffset(bytes, 1) + 3] ^= 1;
  EXPECT_TRUE(isError(read(bytes), KILN_STATUS_DATA_LOSS,
                      "section 1 ('weights:w') is corrupted"));
}

TEST(ArtifactReaderTest, EveryFlippedCoveredByteIsAnError) {
  std::vector<uint8_t> bytes = sampleArtifact();
  // Bytes covered by a check: the header up to its reserved words, the
  // manifest and the sections (not the padding between them).
  std::vector<bool> covered(bytes.size(), false);
  std::fill(covered.begin(), covered.begin() + 48, true);
  std::fill(covered.begin() + 64, covered.begin() + 64 + manifestSize(bytes),
            true);
  Artifact artifact;
  ASSERT_TRUE(
      isOk(readArtifact(bytes.data(), bytes.size(), "test.kiln", &artifact)));
  for (uint32_t s = 0; s < artifact.manifest->sections()->size(); ++s) {
    const auto *section = artifact.manifest->sections()->Get(s);
    std::fill(covered.begin() + section->offset(),
              covered.begin() + section->offset() + section->size(), true);
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (!covered[i])
      continue;
    std::vector<uint8_t> corrupted = bytes;
    corrupted[i] ^= 0x80;
    StatusHolder status(read(corrupted));
    EXPECT_NE(status.status, nullptr)
        << "flipping byte " << i << " went unnoticed";
  }
}

/// Flips manifest bytes and fixes the manifest hash, so that only the
/// FlatBuffers verifier and the index checks stand between the bytes and
/// the runtime: any outcome but a crash is fine.
TEST(ArtifactReaderTest, RehashedManifestCorruptionNeverCrashes) {
  std::vector<uint8_t> bytes = sampleArtifact();
  uint64_t size = manifestSize(bytes);
  int rejected = 0;
  for (size_t i = 0; i < size; ++i) {
    for (uint8_t flip : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
      std::vector<uint8_t> corrupted = bytes;
      corrupted[64 + i] ^= flip;
      uint64_t hash = kiln::artifact::fnv1a64(&corrupted[64], size);
      std::memcpy(&corrupted[32], &hash, 8);
      Artifact artifact;
      StatusHolder status(
          readArtifact(corrupted.data(), corrupted.size(), "x", &artifact));
      rejected += status.status != nullptr;
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST(ArtifactReaderTest, ForeignFileIsNotAnArtifact) {
  std::vector<uint8_t> onnx = {0x08, 0x07, 0x12, 0x04, 't', 'e', 's', 't'};
  onnx.resize(4096, 0x20);
  EXPECT_TRUE(
      isError(read(onnx), KILN_STATUS_INVALID_ARGUMENT, "not a kiln artifact"));
  EXPECT_TRUE(
      isError(read({'a', 'b'}), KILN_STATUS_INVALID_ARGUMENT, "too short"));
  EXPECT_TRUE(isError(read({}), KILN_STATUS_INVALID_ARGUMENT, "too short"));
}

TEST(ArtifactReaderTest, NewerFormatVersionIsAPlainMessage) {
  ArtifactBuilder builder;
  buildSample(builder);
  std::vector<uint8_t> bytes = builder.finish(5);
  EXPECT_TRUE(isError(read(bytes), KILN_STATUS_INCOMPATIBLE,
                      "artifact format 5, this runtime reads 1 to 4"));
}

// Format 2 is format 1 with bounds-checked kernels, and nothing else: a
// version and a manifest flag that disagree are damage.
TEST(ArtifactReaderTest, FormatTwoIsExactlyTheBoundsCheckedArtifacts) {
  ArtifactBuilder checked;
  buildSample(checked);
  checked.model.bounds_checks = true;
  checked.model.format_version = kiln::artifact::kBoundsChecksFormatVersion;
  Artifact artifact;
  std::vector<uint8_t> bytes =
      checked.finish(kiln::artifact::kBoundsChecksFormatVersion);
  ASSERT_TRUE(
      isOk(readArtifact(bytes.data(), bytes.size(), "test.kiln", &artifact)));
  EXPECT_TRUE(artifact.manifest->bounds_checks());

  checked.model.format_version = 1;
  EXPECT_TRUE(isError(read(checked.finish(1)), KILN_STATUS_DATA_LOSS,
                      "test.kiln: format 1 with bounds-checked kernels"));

  ArtifactBuilder unchecked;
  buildSample(unchecked);
  unchecked.model.format_version = 2;
  EXPECT_TRUE(isError(read(unchecked.finish(2)), KILN_STATUS_DATA_LOSS,
                      "test.kiln: format 2 without bounds-checked kernels"));
}

TEST(ArtifactReaderTest, ManifestVersionMustMatchTheHeader) {
  ArtifactBuilder builder;
  buildSample(builder);
  builder.model.format_version = 7;
  EXPECT_TRUE(isError(read(builder.finish()), KILN_STATUS_DATA_LOSS,
                      "the manifest says format 7"));
}

TEST(ArtifactReaderTest, PublicLoadChecksTheFileBeforeTheDevice) {
  std::vector<uint8_t> bytes = sampleArtifact();
  bytes.resize(bytes.size() - 1);
  kiln_model_t *model =
      reinterpret_cast<kiln_model_t *>(&bytes); // Must be reset to NULL.
  EXPECT_TRUE(isError(
      kiln_model_load_from_memory(bytes.data(), bytes.size(), nullptr, &model),
      KILN_STATUS_DATA_LOSS, "artifact in memory: truncated"));
  EXPECT_EQ(model, nullptr);
}

TEST(ArtifactReaderTest, PublicLoadWithoutADeviceSaysSo) {
  if (hasCudaDevice())
    GTEST_SKIP() << "a CUDA device is present";
  std::vector<uint8_t> bytes = sampleArtifact();
  kiln_model_t *model = nullptr;
  EXPECT_TRUE(isError(
      kiln_model_load_from_memory(bytes.data(), bytes.size(), nullptr, &model),
      KILN_STATUS_UNAVAILABLE, "no CUDA device"));
  EXPECT_EQ(model, nullptr);
}

TEST(ArtifactReaderTest, LoadFromPathReportsMissingAndDamagedFiles) {
  kiln_model_t *model = nullptr;
  EXPECT_TRUE(
      isError(kiln_model_load("/nonexistent/model.kiln", nullptr, &model),
              KILN_STATUS_NOT_FOUND, "/nonexistent/model.kiln"));
  std::string path = ::testing::TempDir() + "kiln_reader_test.kiln";
  std::vector<uint8_t> bytes = sampleArtifact();
  bytes[sectionOffset(bytes, 2)] ^= 1;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(isError(kiln_model_load(path.c_str(), nullptr, &model),
                      KILN_STATUS_DATA_LOSS,
                      "section 2 ('weights:bias') is corrupted"));
  std::remove(path.c_str());
}

} // namespace
