// Maps an artifact file and checks its header, manifest and sections before
// anything uses them.
#include "artifact_reader.h"

#include "kiln/artifact_format.h"
#include "status.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::runtime {

using namespace kiln::artifact;

FileBytes::~FileBytes() {
  if (mapped)
    munmap(mapped, length);
}

kiln_status_t FileBytes::map(const std::string &path, FileBytes *out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    return Error(error == ENOENT ? KILN_STATUS_NOT_FOUND
                                 : KILN_STATUS_INVALID_ARGUMENT)
           << "cannot open '" << path << "': " << std::strerror(error);
  }
  kiln_status_t status = nullptr;
  struct stat info;
  if (fstat(fd, &info) != 0) {
    status = Error(KILN_STATUS_INVALID_ARGUMENT)
             << "cannot stat '" << path << "': " << std::strerror(errno);
  } else if (!S_ISREG(info.st_mode)) {
    status = Error(KILN_STATUS_INVALID_ARGUMENT)
             << "'" << path << "' is not a regular file";
  } else if (info.st_size > 0) {
    void *address = mmap(nullptr, static_cast<size_t>(info.st_size), PROT_READ,
                         MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED) {
      status = Error(KILN_STATUS_RESOURCE_EXHAUSTED)
               << "cannot map '" << path << "': " << std::strerror(errno);
    } else {
      out->mapped = address;
      out->bytes = static_cast<const uint8_t *>(address);
      out->length = static_cast<size_t>(info.st_size);
    }
  }
  close(fd);
  return status;
}

void FileBytes::borrow(const void *data, size_t size) {
  bytes = static_cast<const uint8_t *>(data);
  length = size;
}

const uint8_t *Artifact::sectionData(uint32_t index) const {
  return fileData + manifest->sections()->Get(index)->offset();
}

uint64_t Artifact::sectionSize(uint32_t index) const {
  return manifest->sections()->Get(index)->size();
}

/// Checks the fixed header against the real size of the bytes.
static kiln_status_t checkHeader(const uint8_t *data, size_t size,
                                 const std::string &describe,
                                 ArtifactHeader *header) {
  if (size < sizeof(ArtifactHeader))
    return Error(size >= sizeof(kMagic) &&
                         std::memcmp(data, kMagic, sizeof(kMagic)) == 0
                     ? KILN_STATUS_DATA_LOSS
                     : KILN_STATUS_INVALID_ARGUMENT)
           << describe << ": " << size
           << " bytes is too short for a kiln artifact (the "
           << "header alone is " << sizeof(ArtifactHeader) << " bytes)";
  std::memcpy(header, data, sizeof(ArtifactHeader));
  if (std::memcmp(header->magic, kMagic, sizeof(kMagic)) != 0)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << describe
           << ": not a kiln artifact (it does not start with \"KILNART\")";
  if (header->formatVersion < kFormatVersion ||
      header->formatVersion > kNewestFormatVersion)
    return Error(KILN_STATUS_INCOMPATIBLE)
           << describe << ": artifact format " << header->formatVersion
           << ", this runtime reads " << kFormatVersion << " to "
           << kNewestFormatVersion;
  if (header->headerSize != sizeof(ArtifactHeader))
    return Error(KILN_STATUS_DATA_LOSS)
           << describe << ": header size " << header->headerSize
           << ", expected " << sizeof(ArtifactHeader);
  if (header->fileSize > size)
    return Error(KILN_STATUS_DATA_LOSS)
           << describe << ": truncated: the header says " << header->fileSize
           << " bytes, there are " << size;
  if (header->fileSize < size)
    return Error(KILN_STATUS_DATA_LOSS)
           << describe << ": the header says " << header->fileSize
           << " bytes, there are " << size << " (trailing data)";
  if (header->manifestOffset < sizeof(ArtifactHeader) ||
      header->manifestOffset > size ||
      header->manifestSize > size - header->manifestOffset ||
      header->manifestSize == 0)
    return Error(KILN_STATUS_DATA_LOSS)
           << describe << ": manifest range [" << header->manifestOffset
           << ", +" << header->manifestSize << ") is outside the " << size
           << "-byte file";
  return nullptr;
}

/// Whether every [long] vector of |manifest| (the shapes of the weight
/// buffers, of each entry point's buffers and of its signatures) starts
/// 8-byte aligned. FlatBuffers' verifier checks only the 4-byte alignment of
/// a vector's length, so a damaged manifest can place 8-byte elements where
/// reading them is undefined behaviour (found by the artifact-reader fuzzer,
/// twice: first in an entry point's buffers, then in the weight buffers).
static bool shapesAligned(const Model &manifest) {
  auto aligned = [](const flatbuffers::Vector<int64_t> *shape) {
    return !shape ||
           reinterpret_cast<uintptr_t>(shape->Data()) % alignof(int64_t) == 0;
  };
  auto buffersAligned =
      [&](const flatbuffers::Vector<flatbuffers::Offset<Buffer>> *buffers) {
        if (buffers)
          for (const Buffer *buffer : *buffers)
            if (!aligned(buffer->shape()))
              return false;
        return true;
      };
  if (!buffersAligned(manifest.weight_buffers()))
    return false;
  if (!manifest.entry_points())
    return true;
  for (const EntryPoint *entry : *manifest.entry_points()) {
    if (!buffersAligned(entry->buffers()))
      return false;
    for (const auto *signatures : {entry->inputs(), entry->outputs()})
      if (signatures)
        for (const TensorSignature *signature : *signatures)
          if (!aligned(signature->shape()))
            return false;
  }
  return true;
}

/// Checks every section's bounds, alignment and hash.
static kiln_status_t checkSections(const Model &manifest, uint64_t manifestEnd,
                                   const uint8_t *data, size_t size,
                                   const std::string &describe) {
  if (!manifest.sections())
    return nullptr;
  for (uint32_t i = 0; i < manifest.sections()->size(); ++i) {
    const Section *section = manifest.sections()->Get(i);
    uint64_t offset = section->offset(), length = section->size();
    if (offset < manifestEnd || offset > size || length > size - offset)
      return Error(KILN_STATUS_DATA_LOSS)
             << describe << ": section " << i << " ('" << shownName(section->name())
             << "') range [" << offset << ", +" << length
             << ") is outside the sections of the " << size << "-byte file";
    if (offset % kSectionAlignment != 0)
      return Error(KILN_STATUS_DATA_LOSS)
             << describe << ": section " << i << " ('" << shownName(section->name())
             << "') offset " << offset << " is not " << kSectionAlignment
             << "-byte aligned";
    uint64_t hash = fnv1a64(data + offset, length);
    if (hash != section->hash())
      return Error(KILN_STATUS_DATA_LOSS)
             << describe << ": section " << i << " ('" << shownName(section->name())
             << "') is corrupted: its hash is " << std::hex << hash
             << ", the manifest says " << section->hash();
  }
  return nullptr;
}

kiln_status_t readArtifact(const uint8_t *data, size_t size,
                           const std::string &describe, Artifact *out) {
  if (!data && size > 0)
    return Error(KILN_STATUS_INVALID_ARGUMENT) << describe << ": NULL data";
  ArtifactHeader header;
  KILN_RETURN_IF_ERROR(checkHeader(data, size, describe, &header));

  const uint8_t *manifestBytes = data + header.manifestOffset;
  uint64_t hash = fnv1a64(manifestBytes, header.manifestSize);
  if (hash != header.manifestHash)
    return Error(KILN_STATUS_DATA_LOSS)
           << describe << ": the manifest is corrupted: its hash is "
           << std::hex << hash << ", the header says " << header.manifestHash;

  // FlatBuffers wants its buffer aligned as the builder aligned it: copy the
  // manifest into 8-byte aligned storage that the model keeps.
  out->manifestStorage.assign((header.manifestSize + 7) / 8, 0);
  std::memcpy(out->manifestStorage.data(), manifestBytes, header.manifestSize);
  const auto *bytes =
      reinterpret_cast<const uint8_t *>(out->manifestStorage.data());
  flatbuffers::Verifier verifier(bytes, header.manifestSize);
  if (!VerifyModelBuffer(verifier))
    return Error(KILN_STATUS_DATA_LOSS)
           << describe << ": the manifest is not a valid kiln FlatBuffer"
           << (flatbuffers::BufferHasIdentifier(bytes, ModelIdentifier())
                   ? ""
                   : " (no \"KILN\" identifier)");
  const Model *manifest = GetModel(bytes);
  if (!shapesAligned(*manifest))
    return Error(KILN_STATUS_DATA_LOSS)
           << describe << ": the manifest is not a valid kiln FlatBuffer (a "
              "shape vector is not 8-byte aligned)";
  if (manifest->format_version() != header.formatVersion)
    return Error(KILN_STATUS_DATA_LOSS)
           << describe << ": the manifest says format "
           << manifest->format_version() << ", the header "
           << header.formatVersion;
  // Format 2 is exactly the bounds-checked artifacts without ranged dims:
  // their kernels take parameters that a format-1 launch does not pass.
  // Formats 3 (ranged dims, validateDimRanges) and 4 (slice views,
  // validateManifest) may have them or not.
  if (header.formatVersion < kDynamicShapesFormatVersion &&
      manifest->bounds_checks() !=
          (header.formatVersion == kBoundsChecksFormatVersion))
    return Error(KILN_STATUS_DATA_LOSS)
           << describe << ": format " << header.formatVersion
           << (manifest->bounds_checks() ? " with" : " without")
           << " bounds-checked kernels (format " << kBoundsChecksFormatVersion
           << " has them, format " << kFormatVersion << " not)";
  KILN_RETURN_IF_ERROR(
      checkSections(*manifest, header.manifestOffset + header.manifestSize,
                    data, size, describe));
  KILN_RETURN_IF_ERROR(annotate(validateManifest(*manifest), describe));
  out->manifest = manifest;
  out->fileData = data;
  out->fileSize = size;
  return nullptr;
}

kiln_dtype_t toApiDType(DType dtype) {
  if (dtype < DType_MIN || dtype > DType_MAX)
    return KILN_DTYPE_UNSPECIFIED;
  return static_cast<kiln_dtype_t>(static_cast<int>(dtype) + 1);
}

size_t dtypeSize(DType dtype) { return kiln_dtype_size(toApiDType(dtype)); }

} // namespace kiln::runtime
