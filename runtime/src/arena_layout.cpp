// computeArenaLayout: overflow-checked offsets of a session's activations and
// per-stream cuBLASLt workspaces; privateActivationOffsets: the activations
// laid out without reuse, for keep_step_outputs.
#include "arena_layout.h"
#include "status.h"

#include "kiln/artifact_format.h"

#include <utility>

namespace kiln::runtime {

using kiln::artifact::checkedAlignUp;
using kiln::artifact::kSectionAlignment;

kiln_status_t computeArenaLayout(uint64_t activationBytes,
                                 uint64_t workspaceBytes, uint32_t streams,
                                 ArenaLayout *layout) {
  ArenaLayout result;
  auto tooLarge = [&]() -> kiln_status_t {
    return Error(KILN_STATUS_DATA_LOSS)
           << "an activation arena of " << activationBytes << " bytes and "
           << streams << " cuBLASLt workspaces of " << workspaceBytes
           << " bytes do not fit in 64 bits";
  };
  uint64_t cursor = 0;
  if (!checkedAlignUp(activationBytes, kSectionAlignment, &cursor))
    return tooLarge();
  if (workspaceBytes > 0) {
    uint64_t slice = 0;
    if (!checkedAlignUp(workspaceBytes, kSectionAlignment, &slice))
      return tooLarge();
    for (uint32_t stream = 0; stream < streams; ++stream) {
      result.workspaceOffsets.push_back(cursor);
      if (cursor > UINT64_MAX - slice)
        return tooLarge();
      cursor += slice;
    }
  }
  result.totalBytes = cursor;
  result.workspaceBytes = workspaceBytes;
  *layout = std::move(result);
  return nullptr;
}

kiln_status_t privateActivationOffsets(const kiln::artifact::EntryPoint &entry,
                                       std::vector<uint64_t> *offsets,
                                       uint64_t *activationBytes) {
  uint32_t count = entry.buffers() ? entry.buffers()->size() : 0;
  offsets->assign(count, 0);
  uint64_t cursor = 0;
  for (uint32_t id = 0; id < count; ++id) {
    const kiln::artifact::Buffer &buffer = *entry.buffers()->Get(id);
    if (buffer.kind() != kiln::artifact::BufferKind_Activation)
      continue;
    uint64_t bytes = 0;
    if (!checkedAlignUp(buffer.bytes(), kSectionAlignment, &bytes) ||
        cursor > UINT64_MAX - bytes)
      return Error(KILN_STATUS_DATA_LOSS)
             << "keep_step_outputs: the activation buffers of entry point '"
             << (entry.name() ? entry.name()->str() : "") << "' ("
             << count << " buffers) take more than 64 bits of bytes";
    (*offsets)[id] = cursor;
    cursor += bytes;
  }
  *activationBytes = cursor;
  return nullptr;
}

} // namespace kiln::runtime
