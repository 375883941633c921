// What ptxas gave a kernel, read from its cubin (an ELF64 file): registers
// per thread and stack frame bytes, so that kiln-inspect shows them and
// kiln-compile warns of a stack frame, without a GPU or cuobjdump (NVRTC and
// nvcc can differ: the flash attention kernel took 175 registers from NVRTC
// where nvcc's build of the same source took 128, which only ncu showed
// until then). No MLIR: kiln-inspect links it alone.
#ifndef KILN_TARGET_CUDA_CUBINRESOURCES_H
#define KILN_TARGET_CUDA_CUBINRESOURCES_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

struct KernelResources {
  uint32_t registers = 0;
  /// The stack frame (spills and local arrays), when the cubin records it.
  std::optional<uint32_t> frameBytes;
};

/// The resources of kernel |symbol| in the cubin |data| (|size| bytes): the
/// EIATTR_REGCOUNT and EIATTR_FRAME_SIZE records of its `.nv.info` section,
/// which name the kernel by symbol index. std::nullopt when |data| is not a
/// little-endian ELF64 file, any offset leaves it, or the kernel has no
/// register record. Reads nothing outside [data, data + size).
std::optional<KernelResources> cubinResources(const uint8_t *data, size_t size,
                                              const std::string &symbol);

} // namespace kiln

#endif // KILN_TARGET_CUDA_CUBINRESOURCES_H
