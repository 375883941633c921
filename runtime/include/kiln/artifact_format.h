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
/// Format version 2 is version 1 plus bounds-checked kernels
/// (Model.bounds_checks, kiln-compile --bounds-checks): every generated
/// kernel takes two more parameters, which a version-1 runtime would not
/// pass. The packager writes it only for such artifacts, so artifacts
/// without checks stay version 1; the runtime reads both.
constexpr uint32_t kBoundsChecksFormatVersion = 2;
/// Format version 3 adds run-time extents (Model.dim_ranges non-empty,
/// issue 18): buffers and I/O with dims as expressions of ranged dims, and
/// launches whose grid and trailing `long long` dim parameters the runtime
/// computes per shape. Written only for artifacts compiled with a range (with
/// or without bounds checks, which Model.bounds_checks says), so static
/// artifacts keep version 1 or 2; the runtime reads all three.
constexpr uint32_t kDynamicShapesFormatVersion = 3;
/// Format version 4 adds slice views: an Alias buffer with a non-zero
/// `offset` views a range of another buffer (a static slice of one
/// contiguous, 256-byte-aligned range), which a runtime before version 4
/// would read at the viewed buffer's start. Written only for artifacts that
/// hold one (with or without bounds checks and ranged dims, which
/// Model.bounds_checks and Model.dim_ranges say), so the others keep
/// versions 1 to 3; the runtime reads all four.
constexpr uint32_t kSliceViewsFormatVersion = 4;
/// The newest format version the runtime reads.
constexpr uint32_t kNewestFormatVersion = kSliceViewsFormatVersion;
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

/// Bounds-checked kernels (format version 2) take, after their buffers, a
/// BoundsFaultRecord* and the launching step's index (an unsigned 64-bit
/// value): a data-dependent index outside its range is recorded there, and
/// the kernel reads index 0 in its place. The record is the prelude's
/// kiln_bounds_record, byte for byte (lib/Target/CUDA/Prelude.cpp).
constexpr uint32_t kBoundsCheckParameters = 2;
///
/// The fields, once for both sides: X(host type, CUDA type, name). The CUDA
/// prelude's kiln_bounds_record is written from this list
/// (getCUDABoundsCheckPrelude), so the two layouts cannot drift apart.
///   flag:  0: no fault; set to 1 by the first fault (atomicCAS).
///   site:  the BoundsCheckSite of the op that checked the index.
///   step:  the launching step's index in its entry point.
///   index: the index as the data held it (before wrapping).
///   bound: the size of the dimension it indexes.
///   axis:  that dimension of the indexed tensor.
#define KILN_BOUNDS_RECORD_FIELDS(X)                                           \
  X(uint32_t, "unsigned int", flag)                                            \
  X(uint32_t, "unsigned int", site)                                            \
  X(uint64_t, "unsigned long long", step)                                      \
  X(int64_t, "long long", index)                                               \
  X(int64_t, "long long", bound)                                               \
  X(int64_t, "long long", axis)                                                \
  X(int64_t, "long long", reserved)
struct BoundsFaultRecord {
#define KILN_BOUNDS_RECORD_FIELD(host, cuda, name) host name;
  KILN_BOUNDS_RECORD_FIELDS(KILN_BOUNDS_RECORD_FIELD)
#undef KILN_BOUNDS_RECORD_FIELD
};
static_assert(sizeof(BoundsFaultRecord) == 48, "the record is 48 bytes");
// The CUDA types have the host types' sizes (LP64 hosts and the device).
static_assert(sizeof(unsigned int) == 4 && sizeof(unsigned long long) == 8 &&
                  sizeof(long long) == 8,
              "CUDA and host integer sizes agree");

/// The ops whose data-dependent indices are checked, as BoundsFaultRecord
/// stores them.
enum class BoundsCheckSite : uint32_t {
  Gather = 1,
  GatherElements = 2,
  GatherND = 3,
  ScatterElements = 4,
  ScatterND = 5,
};

/// The ONNX op type of |site| ("Gather"); "an indexing op" for a value no
/// compiler writes.
inline const char *boundsCheckSiteName(uint32_t site) {
  switch (static_cast<BoundsCheckSite>(site)) {
  case BoundsCheckSite::Gather:
    return "Gather";
  case BoundsCheckSite::GatherElements:
    return "GatherElements";
  case BoundsCheckSite::GatherND:
    return "GatherND";
  case BoundsCheckSite::ScatterElements:
    return "ScatterElements";
  case BoundsCheckSite::ScatterND:
    return "ScatterND";
  }
  return "an indexing op";
}

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
