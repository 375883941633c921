// Compiling generated CUDA kernels with NVRTC: kernels grouped into programs,
// a cubin per program and requested arch (and optionally PTX), programs in
// parallel, with per-program timing.
#ifndef KILN_TARGET_CUDA_NVRTCCOMPILER_H
#define KILN_TARGET_CUDA_NVRTCCOMPILER_H

#include "kiln/Target/CUDA/CUDAEmitter.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

struct NVRTCOptions {
  /// Real architectures to build cubins for ("sm_90", "sm_80").
  std::vector<std::string> archs = {"sm_90"};
  /// Also keep PTX for the newest arch (compute_XX), which newer GPUs can
  /// JIT; read from that arch's cubin compile (the same bytes a compute_XX
  /// compile gives), so it costs no extra NVRTC compile.
  bool keepPTX = false;
  /// The CUDA toolkit include dir NVRTC needs for cuda_fp16.h; empty: the
  /// KILN_CUDA_INCLUDE_DIR environment variable, else the build's toolkit.
  std::string cudaIncludeDir;
  /// Worker threads; 0: std::thread::hardware_concurrency().
  unsigned threads = 0;
  /// The most kernels one NVRTC program compiles (kernels whose sources
  /// start with the same prelude, getCUDAPrelude() and, with bounds checks,
  /// getCUDABoundsCheckPrelude(), which the program parses once); 1 compiles
  /// each kernel alone. DenseNet-121's 102 kernels took 20.7 CPU s of NVRTC
  /// alone, 12.4 in programs of 4, 9.3 of 8 and 10.5 of 16, every kernel's
  /// SASS unchanged (benchmarks/README.md, "Compile time").
  unsigned kernelsPerProgram = 8;
  /// Test hook: appends an invalid line to every source so that the error
  /// path can be tested without a GPU.
  bool injectError = false;
};

/// One NVRTC program: its cubins and PTX hold the code of every one of its
/// kernels, each under the kernel's own symbol.
struct CompiledProgram {
  /// The kernel's name for a program of one, else "<first kernel>+<others>".
  std::string name;
  std::vector<size_t> kernels;               // Indices into the input kernels.
  std::map<std::string, std::string> cubins; // arch -> cubin bytes
  std::string ptx;                           // empty unless keepPTX
  std::string ptxArch;                       // compute_XX
  double milliseconds = 0;                   // Sum over its NVRTC compiles.
  /// Kernels recompiled with a residency bound (relieveSpills), one line
  /// each: "kiln_x on sm_90: __launch_bounds__(128, 3), 148 registers and
  /// no stack (was 128 registers, 8 bytes)".
  std::vector<std::string> relieved;
  /// Compiles relieveSpills ran for this program (each retry of each arch),
  /// and their part of |milliseconds| (they run after the pool, one at a
  /// time).
  unsigned spillRetries = 0;
  double spillRetryMilliseconds = 0;
};

struct CompiledKernel {
  std::string name;
  size_t program = 0; // Index into NVRTCResult::programs.
};

struct NVRTCResult {
  std::vector<CompiledKernel> kernels; // In the order of the input kernels.
  std::vector<CompiledProgram> programs;
  double wallMilliseconds = 0;
  unsigned threads = 0;

  /// The program whose cubins and PTX hold kernel |kernel|.
  const CompiledProgram &programOf(size_t kernel) const {
    return programs[kernels[kernel].program];
  }
};

/// Parses "sm_90,sm_80" into a list, or an error naming the bad entry.
llvm::Expected<std::vector<std::string>> parseGPUArchList(llvm::StringRef list);

/// The include dir NVRTC is given (see NVRTCOptions::cudaIncludeDir).
std::string getCUDAIncludeDir(const NVRTCOptions &options);

/// "13.0".
std::string getNVRTCVersion();

/// Groups |kernels| into programs of at most |kernelsPerProgram| kernels with
/// the same prelude (a kernel whose source holds no prelude gets a program of
/// its own), in order: each group of n kernels is split into
/// ceil(n / kernelsPerProgram) programs of nearly equal size. Returns the
/// kernel indices of each program. It depends only on the kernels, never on
/// the machine, so an artifact's sections do not either.
std::vector<std::vector<size_t>>
groupKernelsIntoPrograms(llvm::ArrayRef<EmittedKernel> kernels,
                         unsigned kernelsPerProgram);

/// The CUDA source of one program: a kernel's own source when it is alone,
/// else the shared prelude once and each kernel's rest (its typedefs,
/// globals and __global__ function, whose extern "C" symbol is unchanged)
/// in a namespace of its own.
std::string buildProgramSource(llvm::ArrayRef<EmittedKernel> kernels,
                               llvm::ArrayRef<size_t> program);

/// Compiles every kernel for every arch, grouped into programs
/// (groupKernelsIntoPrograms), the programs in parallel. A failure names each
/// kernel that NVRTC rejected, the arch and NVRTC's log: when a program of
/// several kernels fails, each of them is compiled alone to find which.
/// A kernel whose cubin has a stack frame is then recompiled with a
/// residency bound (relieveSpills).
llvm::Expected<NVRTCResult>
compileWithNVRTC(llvm::ArrayRef<EmittedKernel> kernels,
                 const NVRTCOptions &options);

/// The register file of an SM on every arch kiln builds for (sm_80 ... sm_90).
constexpr int64_t kRegistersPerMultiprocessor = 65536;

/// The residency bounds to retry a kernel of |block| threads with, which
/// compiled to |registers| registers and a stack frame: ptxas's default
/// aims at an occupancy of its own and spills to reach it (the flash kernel
/// of Qwen2 and Llama-GQA at 8 x 128 tokens: 128 registers and 8 bytes of
/// stack under __launch_bounds__(128), where 148 registers need none).
/// `__launch_bounds__(block, m)` lets it use up to 65536 / (block m)
/// registers: m from the residency its registers give on |arch| ("sm_90":
/// also at most the arch's resident threads and blocks per SM, 2048 and 32
/// on sm_80 and sm_90, 1536 and 16 on sm_86/sm_87, 1536 and 24 on sm_89)
/// less one, down by one, at most three tries and at least 1. Empty when
/// it already allows one block only.
std::vector<int64_t> spillRetryResidencies(int64_t block, int64_t registers,
                                           const std::string &arch = "sm_90");

/// One warning per kernel and arch whose cubin gives the kernel a stack
/// frame (cubinResources): ptxas spilled registers to local memory or put
/// an array there, which every access then reads or writes through the
/// caches. Each names the kernel, its kiln.kernel ops' ONNX nodes, the arch,
/// the stack bytes per thread and the registers. kiln's templates keep their
/// arrays in registers; a kernel that spills shows here first, without a
/// GPU (docs/planning-and-packaging.md lists the zoo's kernels that do).
std::vector<std::string>
stackFrameWarnings(llvm::ArrayRef<EmittedKernel> kernels,
                   const NVRTCResult &compiled);

} // namespace kiln

#endif // KILN_TARGET_CUDA_NVRTCCOMPILER_H
