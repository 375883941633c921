// libFuzzer target: .kiln artifact bytes through the runtime's reader
// (header, manifest hash, FlatBuffers verifier, sections) and the manifest
// validator, with the hashes repaired so that mutations get past them.
#include "artifact_reader.h"
#include "status.h"

#include "kiln/artifact_format.h"

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

using namespace kiln::artifact;
using namespace kiln::runtime;

namespace {

void read(const uint8_t *data, size_t size) {
  Artifact artifact;
  kiln_status_free(readArtifact(data, size, "fuzz.kiln", &artifact));
}

/// |bytes| with the header's file size, and the manifest and section hashes
/// recomputed where the header and manifest make that possible; the header
/// is left alone when it is too short.
std::vector<uint8_t> rehashed(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  if (size < sizeof(ArtifactHeader))
    return bytes;
  ArtifactHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  header.fileSize = size;
  if (header.manifestOffset <= size && header.manifestSize > 0 &&
      header.manifestSize <= size - header.manifestOffset) {
    // Section hashes live in the manifest: rewrite them in place when it
    // verifies (a hash field left at its default stays 0).
    std::vector<uint64_t> aligned((header.manifestSize + 7) / 8);
    std::memcpy(aligned.data(), bytes.data() + header.manifestOffset,
                header.manifestSize);
    auto *manifest = reinterpret_cast<uint8_t *>(aligned.data());
    flatbuffers::Verifier verifier(manifest, header.manifestSize);
    if (VerifyModelBuffer(verifier)) {
      // Tables of a crafted manifest may overlap, so a hash written into
      // one section can rewrite another's vtable or the sections vector:
      // every address and hash is taken from the verified buffer before the
      // first write, and the writes are plain stores to verified addresses.
      std::vector<std::pair<uint8_t *, uint64_t>> writes;
      const Model *model = GetModel(manifest);
      for (uint32_t i = 0; model->sections() && i < model->sections()->size();
           ++i) {
        const Section *section = model->sections()->Get(i);
        uint64_t offset = section->offset(), length = section->size();
        if (offset > size || length > size - offset)
          continue;
        // Section derives privately from flatbuffers::Table, its only base.
        auto *table = reinterpret_cast<flatbuffers::Table *>(
            const_cast<Section *>(section));
        if (uint8_t *field = table->GetAddressOf(Section::VT_HASH))
          writes.emplace_back(field, fnv1a64(bytes.data() + offset, length));
      }
      for (auto [field, hash] : writes)
        flatbuffers::WriteScalar<uint64_t>(field, hash);
      std::memcpy(bytes.data() + header.manifestOffset, manifest,
                  header.manifestSize);
    }
    header.manifestHash =
        fnv1a64(bytes.data() + header.manifestOffset, header.manifestSize);
  }
  std::memcpy(bytes.data(), &header, sizeof(header));
  return bytes;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  read(data, size);
  std::vector<uint8_t> repaired = rehashed(data, size);
  if (size > 0 && std::memcmp(repaired.data(), data, size) != 0)
    read(repaired.data(), repaired.size());
  return 0;
}
