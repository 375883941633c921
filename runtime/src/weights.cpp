// Fills the weight arena once at load, from inline sections or external files,
// checking hashes.
#include "device_memory.h"
#include "model.h"
#include "status.h"

#include "kiln/artifact_format.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

namespace kiln::runtime {

using namespace kiln::artifact;

namespace {

constexpr size_t kChunkBytes = size_t(16) << 20;

/// A pinned host buffer used to stream external weights to the device.
struct PinnedChunk {
  void *data = nullptr;
  ~PinnedChunk() {
    if (data)
      cudaFreeHost(data);
  }
};

struct FileCloser {
  int fd;
  ~FileCloser() {
    if (fd >= 0)
      close(fd);
  }
};

/// External names are relative paths below the external data directory.
bool isSafeRelativePath(const std::string &path) {
  if (path.empty() || path[0] == '/')
    return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos)
      end = path.size();
    if (path.compare(start, end - start, "..") == 0 && end - start == 2)
      return false;
    start = end + 1;
  }
  return true;
}

/// Copies [offset, +length) of |path| to |device|, hashing as it goes.
kiln_status_t uploadExternal(const std::string &path, uint64_t offset,
                             uint64_t length, uint64_t expectedHash,
                             void *device, PinnedChunk &chunk) {
  FileCloser file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0)
    return Error(errno == ENOENT ? KILN_STATUS_NOT_FOUND
                                 : KILN_STATUS_INVALID_ARGUMENT)
           << "external weight file '" << path << "': " << std::strerror(errno);
  off_t end = lseek(file.fd, 0, SEEK_END);
  if (end < 0 || offset > static_cast<uint64_t>(end) ||
      length > static_cast<uint64_t>(end) - offset)
    return Error(KILN_STATUS_DATA_LOSS)
           << "external weight file '" << path << "' has " << end
           << " bytes; the artifact reads [" << offset << ", +" << length
           << ")";
  if (!chunk.data)
    KILN_RETURN_IF_ERROR(cudaStatus(cudaMallocHost(&chunk.data, kChunkBytes),
                                    "cudaMallocHost (weight staging)"));
  uint64_t hash = 0xcbf29ce484222325ull, done = 0;
  while (done < length) {
    size_t want =
        static_cast<size_t>(std::min<uint64_t>(kChunkBytes, length - done));
    ssize_t got =
        pread(file.fd, chunk.data, want, static_cast<off_t>(offset + done));
    if (got <= 0)
      return Error(KILN_STATUS_DATA_LOSS)
             << "external weight file '" << path << "': read failed at "
             << offset + done;
    hash = fnv1a64(chunk.data, static_cast<size_t>(got), hash);
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaMemcpy(static_cast<char *>(device) + done, chunk.data,
                              static_cast<size_t>(got), cudaMemcpyHostToDevice),
                   "copying external weights"));
    done += static_cast<uint64_t>(got);
  }
  if (hash != expectedHash)
    return Error(KILN_STATUS_DATA_LOSS)
           << "external weight file '" << path
           << "' does not match the artifact: bytes [" << offset << ", +"
           << length << ") hash to " << std::hex << hash
           << ", the artifact expects " << expectedHash
           << " (a different or modified weight file?)";
  return nullptr;
}

} // namespace

kiln_status_t uploadWeights(kiln_model_s *model,
                            const std::string &externalDir) {
  const Model &manifest = model->manifest();
  uint64_t bytes = 0;
  if (!checkedAlignUp(manifest.weight_arena_bytes(), kSectionAlignment,
                      &bytes) ||
      bytes > SIZE_MAX)
    return Error(KILN_STATUS_DATA_LOSS)
           << "a weight arena of " << manifest.weight_arena_bytes()
           << " bytes is beyond the runtime's limits";
  if (bytes == 0)
    return nullptr;
  KILN_RETURN_IF_ERROR(allocateDeviceMemory(
      &model->weightArena, bytes,
      "allocating the " + std::to_string(bytes) + "-byte weight arena",
      model->device));
  KILN_RETURN_IF_ERROR(cudaStatus(cudaMemset(model->weightArena, 0, bytes),
                                  "clearing the weight arena"));
  PinnedChunk chunk;
  for (uint32_t i = 0; manifest.weights() && i < manifest.weights()->size();
       ++i) {
    const Weight &weight = *manifest.weights()->Get(i);
    const Buffer &buffer = *manifest.weight_buffers()->Get(weight.buffer());
    char *device = static_cast<char *>(model->weightArena) + buffer.offset();
    if (weight.section() >= 0) {
      uint32_t section = static_cast<uint32_t>(weight.section());
      const uint8_t *data = model->artifact.sectionData(section);
      if (fnv1a64(data, buffer.bytes()) != weight.hash())
        return Error(KILN_STATUS_DATA_LOSS)
               << "weight " << i << " (section '"
               << shownName(manifest.sections()->Get(section)->name())
               << "') does not match its weight hash";
      KILN_RETURN_IF_ERROR(cudaStatus(
          cudaMemcpy(device, data, buffer.bytes(), cudaMemcpyHostToDevice),
          "copying inline weights"));
      continue;
    }
    std::string name = str(weight.external_file());
    if (!isSafeRelativePath(name))
      return Error(KILN_STATUS_DATA_LOSS)
             << "external weight file '" << name
             << "' is not a relative path inside the model folder";
    if (externalDir.empty())
      return Error(KILN_STATUS_INVALID_ARGUMENT)
             << "weight " << i << " is in external file '" << name
             << "'; set kiln_load_options_t.external_data_dir to its folder";
    std::string path = externalDir;
    if (path.back() != '/')
      path += '/';
    path += name;
    KILN_RETURN_IF_ERROR(uploadExternal(path, weight.external_offset(),
                                        weight.external_length(), weight.hash(),
                                        device, chunk));
  }
  // A copy from pageable memory (the inline weights) may return before its
  // DMA lands, and sessions read the weights on non-blocking streams, which
  // the default stream (legacy; or per-thread, where the copies went) does
  // not order: wait for it here.
  return cudaStatus(cudaStreamSynchronize(nullptr),
                    "finishing the weight uploads");
}

} // namespace kiln::runtime
