// The file layout of a .kiln artifact: the 64-byte header, the FlatBuffers
// manifest and the 256-byte-aligned, FNV-1a-hashed sections after it.
#include "PackageInternal.h"

#include "kiln/artifact_format.h"

#include <cstring>

namespace kiln::package {

using namespace kiln::artifact;

uint32_t SectionList::add(std::string name, llvm::ArrayRef<char> borrowed) {
  names.push_back(std::move(name));
  bytes.push_back(borrowed);
  return names.size() - 1;
}

uint32_t SectionList::addOwned(std::string name, std::vector<char> data) {
  owned.push_back(std::move(data));
  return add(std::move(name), owned.back());
}

namespace {

/// Packs |model| with every scalar written (ForceDefaults), so that the
/// manifest's size does not depend on the section offsets it contains.
void packManifest(const ModelT &model, flatbuffers::FlatBufferBuilder &fbb) {
  fbb.Clear();
  fbb.ForceDefaults(true);
  FinishModelBuffer(fbb, Model::Pack(fbb, &model));
}

} // namespace

std::string writeArtifactFile(ModelT &model, const SectionList &sections) {
  // Section offsets relative to the first section; hashes once.
  std::vector<uint64_t> relative;
  uint64_t cursor = 0;
  model.sections.clear();
  for (size_t i = 0; i < sections.size(); ++i) {
    llvm::ArrayRef<char> bytes = sections.getBytes(i);
    cursor = alignUp(cursor, kSectionAlignment);
    relative.push_back(cursor);
    auto section = std::make_unique<SectionT>();
    section->name = sections.getName(i);
    section->size = bytes.size();
    section->hash = fnv1a64(bytes.data(), bytes.size());
    model.sections.push_back(std::move(section));
    cursor += bytes.size();
  }

  // The sections start after the manifest; its size does not depend on the
  // offsets (every field is written), but iterate in case it ever does.
  flatbuffers::FlatBufferBuilder fbb;
  uint64_t base = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    for (size_t i = 0; i < relative.size(); ++i)
      model.sections[i]->offset = base + relative[i];
    packManifest(model, fbb);
    uint64_t needed =
        alignUp(sizeof(ArtifactHeader) + fbb.GetSize(), kSectionAlignment);
    if (base >= needed && base - needed < kSectionAlignment)
      break;
    base = needed;
  }

  uint64_t manifestSize = fbb.GetSize();
  uint64_t fileSize =
      sections.size() ? base + cursor : sizeof(ArtifactHeader) + manifestSize;
  std::string file(fileSize, '\0');
  ArtifactHeader header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.formatVersion = model.format_version;
  header.headerSize = sizeof(ArtifactHeader);
  header.manifestOffset = sizeof(ArtifactHeader);
  header.manifestSize = manifestSize;
  header.manifestHash = fnv1a64(fbb.GetBufferPointer(), manifestSize);
  header.fileSize = fileSize;
  std::memcpy(file.data(), &header, sizeof(header));
  std::memcpy(file.data() + sizeof(header), fbb.GetBufferPointer(),
              manifestSize);
  for (size_t i = 0; i < sections.size(); ++i) {
    llvm::ArrayRef<char> bytes = sections.getBytes(i);
    if (!bytes.empty())
      std::memcpy(file.data() + model.sections[i]->offset, bytes.data(),
                  bytes.size());
  }
  return file;
}

} // namespace kiln::package
