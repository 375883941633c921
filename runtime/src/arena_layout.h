// Where a session's activations and per-stream cuBLASLt workspaces lie in its
// one device allocation.
#ifndef KILN_RUNTIME_ARENA_LAYOUT_H
#define KILN_RUNTIME_ARENA_LAYOUT_H

#include "kiln/runtime.h"
#include "kiln_artifact_generated.h"

#include <cstdint>
#include <vector>

namespace kiln::runtime {

/// The session arena: activations at offset 0, then one workspace slice per
/// stream, each 256-byte aligned, so that GEMMs on concurrent streams never
/// share scratch memory.
struct ArenaLayout {
  uint64_t totalBytes = 0;                // 0: nothing to allocate.
  uint64_t workspaceBytes = 0;            // Per stream; 0: no workspace.
  std::vector<uint64_t> workspaceOffsets; // One per stream when non-zero.
};

/// Lays out |activationBytes| of activations and |streams| workspaces of
/// |workspaceBytes| each. DATA_LOSS when the sizes overflow 64 bits.
kiln_status_t computeArenaLayout(uint64_t activationBytes,
                                 uint64_t workspaceBytes, uint32_t streams,
                                 ArenaLayout *layout);

/// kiln_session_options_t.keep_step_outputs: an offset of its own for every
/// activation buffer of |entry| (in buffer order, each 256-byte aligned;
/// |offsets| is indexed by buffer id, 0 for the other kinds) and the bytes
/// they take in |activationBytes|. DATA_LOSS when the sum overflows 64 bits.
kiln_status_t privateActivationOffsets(const kiln::artifact::EntryPoint &entry,
                                       std::vector<uint64_t> *offsets,
                                       uint64_t *activationBytes);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_ARENA_LAYOUT_H
