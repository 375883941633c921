// The fixed header of a .kiln artifact and the hash its sections use. Shared,
// header-only, by the compiler's packager and the runtime's reader; the
// manifest that follows the header is runtime/schema/kiln_artifact.fbs.
#ifndef KILN_ARTIFACT_FORMAT_H
#define KILN_ARTIFACT_FORMAT_H

#include <cstddef>
#include <cstdint>

namespace kiln::artifact {

/// "KILNART" followed by a NUL: the first 8 bytes of every artifact.
constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'A', 'R', 'T', '\0'};
/// Bumped on any incompatible change to the header, manifest or sections.
constexpr uint32_t kFormatVersion = 1;
/// Sections start at multiples of this (cubins load, weights map, aligned).
constexpr uint64_t kSectionAlignment = 256;
/// The largest arena or workspace (256 TiB): beyond it is damage, not a
/// model. The memory plan refuses larger arenas and the runtime's validator
/// rejects them; the cap keeps every align-up and sum of offsets far from
/// overflow.
constexpr uint64_t kMaxArenaBytes = uint64_t(1) << 48;

/// Most parameters (all pointers: inputs, then outputs) a generated kernel
/// takes. Fusion keeps every kernel within it and the runtime's validator
/// rejects a launch with more.
constexpr uint32_t kMaxKernelParameters = 256;

/// The entry point the runtime runs once at load, after uploading the
/// weights: the init program that writes the derived weights.
constexpr const char *kInitEntryPoint = "kiln_init";

/// Little-endian, 64 bytes, at offset 0.
struct ArtifactHeader {
  char magic[8];
  uint32_t formatVersion;
  uint32_t headerSize;      // sizeof(ArtifactHeader)
  uint64_t manifestOffset;  // Start of the FlatBuffer manifest.
  uint64_t manifestSize;
  uint64_t manifestHash;    // fnv1a64 of the manifest bytes.
  uint64_t fileSize;        // The whole artifact; a shorter file is truncated.
  uint64_t reserved[2];
};
static_assert(sizeof(ArtifactHeader) == 64, "the header is 64 bytes");

/// 64-bit FNV-1a: cheap, and enough to detect corruption and mismatched
/// external weight files (it is not a cryptographic hash).
inline uint64_t fnv1a64(const void *data, size_t size,
                        uint64_t hash = 0xcbf29ce484222325ull) {
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

inline uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// |value| rounded up to a multiple of |alignment| in |*out|; false (and
/// |*out| untouched) when the result does not fit in 64 bits.
inline bool checkedAlignUp(uint64_t value, uint64_t alignment, uint64_t *out) {
  uint64_t remainder = value % alignment;
  if (remainder == 0) {
    *out = value;
    return true;
  }
  uint64_t padding = alignment - remainder;
  if (value > UINT64_MAX - padding)
    return false;
  *out = value + padding;
  return true;
}

} // namespace kiln::artifact

#endif // KILN_ARTIFACT_FORMAT_H
