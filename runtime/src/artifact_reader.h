// Reading a .kiln artifact: mapping the file and checking header, manifest,
// sections and indices.
#ifndef KILN_RUNTIME_ARTIFACT_READER_H
#define KILN_RUNTIME_ARTIFACT_READER_H

#include "kiln/escaped_text.h"
#include "kiln/runtime.h"
#include "kiln_artifact_generated.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime {

/// A read-only mapping of a whole file (or, for kiln_model_load_from_memory,
/// a borrowed range). Unmapped by its destructor.
class FileBytes {
public:
  FileBytes() = default;
  FileBytes(const FileBytes &) = delete;
  FileBytes &operator=(const FileBytes &) = delete;
  ~FileBytes();

  /// Maps |path|; a missing file is KILN_STATUS_NOT_FOUND.
  static kiln_status_t map(const std::string &path, FileBytes *out);
  /// Borrows |size| bytes at |data| (not owned).
  void borrow(const void *data, size_t size);

  const uint8_t *data() const { return bytes; }
  size_t size() const { return length; }

private:
  const uint8_t *bytes = nullptr;
  size_t length = 0;
  void *mapped = nullptr; // Set when |bytes| is an mmap of |length| bytes.
};

/// A checked artifact: the manifest (copied into aligned memory it owns) and
/// the file's bytes, whose sections have been checked against their hashes.
struct Artifact {
  std::vector<uint64_t> manifestStorage;
  const kiln::artifact::Model *manifest = nullptr;
  const uint8_t *fileData =
      nullptr; // Not owned: valid while the FileBytes lives.
  size_t fileSize = 0;

  /// The bytes of section |index| (checked by readArtifact).
  const uint8_t *sectionData(uint32_t index) const;
  uint64_t sectionSize(uint32_t index) const;
};

/// Checks |size| bytes of an artifact completely: header (magic, format
/// version, sizes against |size|), manifest hash, FlatBuffers verification,
/// every section's bounds, alignment and hash, and every index in the
/// manifest (validateManifest). Errors are statuses with a message; nothing in
/// the bytes can crash it. |describe| names the artifact in messages.
kiln_status_t readArtifact(const uint8_t *data, size_t size,
                           const std::string &describe, Artifact *out);

/// Checks every index and size in a verified manifest: sections, kernels,
/// weights, and each entry point's signature, buffers (shapes, byte sizes
/// with checked arithmetic, ranges inside their arenas) and steps (CUDA's
/// grid and block limits, one argument count per kernel). The one artifact
/// validator: the runtime runs it at load and kiln-inspect before printing.
kiln_status_t validateManifest(const kiln::artifact::Model &manifest);
/// Whether an entry point of |manifest| holds a slice view (an Alias buffer
/// at a non-zero offset), which format kSliceViewsFormatVersion adds.
bool hasSliceViews(const kiln::artifact::Model &manifest);

/// kernelParameterCounts' entry for a kernel that no step launches.
constexpr uint32_t kNotLaunched = UINT32_MAX;

/// Each kernel's parameter count as the manifest gives it: the arguments its
/// launch steps pass (validateManifest checks that they all pass the same
/// number), or kNotLaunched. The runtime never probes the cubin for it.
std::vector<uint32_t>
kernelParameterCounts(const kiln::artifact::Model &manifest);

/// The C API dtype of a schema dtype, and bytes per element (0 if invalid).
kiln_dtype_t toApiDType(kiln::artifact::DType dtype);
size_t dtypeSize(kiln::artifact::DType dtype);

/// A flatbuffers string, or "" when absent.
inline const char *str(const flatbuffers::String *value) {
  return value ? value->c_str() : "";
}

/// A name from the artifact (all its bytes, NULs included) as a message
/// shows it: escaped and cut (kiln::text::escapeName).
inline std::string shownName(const flatbuffers::String *value) {
  return value ? text::escapeName(value->string_view()) : std::string();
}

} // namespace kiln::runtime

#endif // KILN_RUNTIME_ARTIFACT_READER_H
