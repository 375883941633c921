// Unit tests of the NVRTC driver: the prelude compiles, kernels are grouped
// into programs, cubins come back per arch, PTX on request, and errors name
// the kernel with NVRTC's log.
#include "kiln/Target/CUDA/NVRTCCompiler.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace kiln;

namespace {

EmittedKernel makeKernel(const std::string &name, const std::string &body) {
  EmittedKernel kernel;
  kernel.name = name;
  kernel.kind = "pointwise";
  kernel.origins = {"kiln.kernel \"test\""};
  kernel.source = "// " + name + "\n" + getCUDAPrelude() +
                  "extern \"C\" __global__ void " + name + "(float* out) { " +
                  body + " }\n";
  return kernel;
}

/// The bytes of section |name| of a 64-bit little-endian ELF file (a cubin),
/// or "" when it has none.
std::string elfSection(const std::string &elf, const std::string &name) {
  auto read = [&](size_t at, size_t bytes) {
    uint64_t value = 0;
    if (at + bytes <= elf.size())
      std::memcpy(&value, elf.data() + at, bytes);
    return value;
  };
  uint64_t headers = read(0x28, 8), entry = read(0x3a, 2),
           count = read(0x3c, 2), names = read(0x3e, 2);
  uint64_t nameTable = read(headers + names * entry + 0x18, 8);
  for (uint64_t s = 0; s < count; ++s) {
    uint64_t header = headers + s * entry;
    uint64_t nameAt = nameTable + read(header, 4);
    if (nameAt < elf.size() && elf.compare(nameAt, name.size() + 1,
                                           name.c_str(), name.size() + 1) == 0)
      return elf.substr(read(header + 0x18, 8), read(header + 0x20, 8));
  }
  return "";
}

/// |count| kernels, each with a global and helper of the same name as the
/// others' (which their namespaces keep apart) and a kernel of its own name.
std::vector<EmittedKernel> makeKernels(int count) {
  std::vector<EmittedKernel> kernels;
  for (int k = 0; k < count; ++k) {
    EmittedKernel kernel =
        makeKernel("k_" + std::to_string(k),
                   "out[threadIdx.x] = helper(out[threadIdx.x]) * table[0];");
    size_t at = kernel.source.find("extern");
    kernel.source.insert(at, "typedef int kiln_index_t;\n"
                             "__device__ const float table[1] = {" +
                                 std::to_string(k) +
                                 ".0f};\n"
                                 "static __device__ float helper(float x) { "
                                 "return kiln_sigmoid(x) + " +
                                 std::to_string(k) + "; }\n");
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

TEST(NVRTCCompilerTest, ParsesArchLists) {
  llvm::Expected<std::vector<std::string>> archs =
      parseGPUArchList("sm_90, sm_80,sm_90");
  ASSERT_TRUE(static_cast<bool>(archs));
  EXPECT_EQ(*archs, (std::vector<std::string>{"sm_90", "sm_80"}));
  llvm::Expected<std::vector<std::string>> bad = parseGPUArchList("hopper");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("invalid GPU arch 'hopper'"),
            std::string::npos);
}

TEST(NVRTCCompilerTest, CompilesCubinsAndPTX) {
  std::vector<EmittedKernel> kernels = {
      makeKernel("k_sigmoid",
                 "out[threadIdx.x] = kiln_sigmoid(out[threadIdx.x]);"),
      makeKernel("k_max", "out[0] = kiln_max(out[0], out[1]);")};
  NVRTCOptions options;
  options.archs = {"sm_90", "sm_80"};
  options.keepPTX = true;
  llvm::Expected<NVRTCResult> result = compileWithNVRTC(kernels, options);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  ASSERT_EQ(result->kernels.size(), 2u);
  for (auto [k, kernel] : llvm::enumerate(result->kernels)) {
    const CompiledProgram &program = result->programOf(k);
    EXPECT_EQ(program.cubins.size(), 2u);
    EXPECT_EQ(program.cubins.at("sm_90").substr(1, 3), "ELF");
    EXPECT_EQ(program.ptxArch, "compute_90");
    EXPECT_NE(program.ptx.find(".entry " + kernel.name), std::string::npos);
  }
}

// Programs hold at most kernelsPerProgram kernels, split evenly and in
// order; kernels without the shared prelude get a program each.
TEST(NVRTCCompilerTest, GroupsKernelsWithAPreludeIntoPrograms) {
  std::vector<EmittedKernel> kernels = makeKernels(11);
  kernels[4].source = "extern \"C\" __global__ void k_4(float* out) {}\n";
  std::vector<std::vector<size_t>> programs =
      groupKernelsIntoPrograms(kernels, 4);
  EXPECT_EQ(programs, (std::vector<std::vector<size_t>>{
                          {0, 1, 2}, {3, 5, 6}, {7, 8, 9, 10}, {4}}));
  EXPECT_EQ(groupKernelsIntoPrograms(kernels, 1).size(), 11u);
  EXPECT_EQ(groupKernelsIntoPrograms(kernels, 16).size(), 2u);
  // A program of one is the kernel's own source.
  EXPECT_EQ(buildProgramSource(kernels, {4}), kernels[4].source);
  std::string source = buildProgramSource(kernels, {0, 1});
  EXPECT_EQ(source.find(getCUDAPrelude()), source.rfind(getCUDAPrelude()));
  EXPECT_NE(source.find("namespace kiln_program_kernel_1 {"),
            std::string::npos);
}

// More kernels than a program holds: fewer programs than kernels, every
// kernel's symbol in its program's cubin and PTX, and its machine code the
// same as when it is compiled alone.
TEST(NVRTCCompilerTest, CompilesGroupedKernelsUnderTheirOwnSymbols) {
  std::vector<EmittedKernel> kernels = makeKernels(5);
  NVRTCOptions options;
  options.keepPTX = true;
  options.kernelsPerProgram = 2;
  llvm::Expected<NVRTCResult> grouped = compileWithNVRTC(kernels, options);
  ASSERT_TRUE(static_cast<bool>(grouped))
      << llvm::toString(grouped.takeError());
  ASSERT_EQ(grouped->kernels.size(), 5u);
  EXPECT_EQ(grouped->programs.size(), 3u);
  options.kernelsPerProgram = 1;
  llvm::Expected<NVRTCResult> alone = compileWithNVRTC(kernels, options);
  ASSERT_TRUE(static_cast<bool>(alone)) << llvm::toString(alone.takeError());
  EXPECT_EQ(alone->programs.size(), 5u);
  for (auto [k, kernel] : llvm::enumerate(grouped->kernels)) {
    EXPECT_EQ(kernel.name, kernels[k].name);
    const CompiledProgram &program = grouped->programOf(k);
    EXPECT_TRUE(llvm::is_contained(program.kernels, k));
    EXPECT_NE(program.ptx.find(".entry " + kernel.name + "("),
              std::string::npos);
    // The kernel's machine code, section .text.<symbol>: the same bytes in
    // the program's cubin as in the cubin of the kernel alone.
    std::string code =
        elfSection(program.cubins.at("sm_90"), ".text." + kernel.name);
    EXPECT_FALSE(code.empty()) << kernel.name;
    EXPECT_EQ(code, elfSection(alone->programOf(k).cubins.at("sm_90"),
                               ".text." + kernel.name))
        << kernel.name;
  }
}

// A program of several kernels that NVRTC rejects is compiled again kernel
// by kernel: the error names the kernel at fault, not its neighbours.
TEST(NVRTCCompilerTest, ErrorsInAProgramNameTheFailingKernel) {
  std::vector<EmittedKernel> kernels = makeKernels(4);
  kernels[2] = makeKernel("k_bad", "out[0] = undeclared_thing;");
  kernels[2].origins = {"kiln.kernel \"bad\" (ONNX nodes: add_7 (Add))"};
  NVRTCOptions options;
  options.kernelsPerProgram = 4;
  llvm::Expected<NVRTCResult> result = compileWithNVRTC(kernels, options);
  ASSERT_FALSE(static_cast<bool>(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_EQ(message.find("NVRTC failed to compile kernel k_bad (kiln.kernel "
                         "\"bad\" (ONNX nodes: add_7 (Add))) for sm_90: "
                         "NVRTC_ERROR_COMPILATION"),
            0u)
      << message;
  EXPECT_NE(message.find("undeclared_thing"), std::string::npos) << message;
  for (const char *neighbour : {"k_0", "k_1", "k_3"})
    EXPECT_EQ(message.find(neighbour), std::string::npos) << message;
}

// The PTX kept beside the cubins comes from the newest arch's cubin compile;
// it must be the bytes that compiling for the virtual arch gives.
TEST(NVRTCCompilerTest, PTXIsTheVirtualArchCompilesPTX) {
  std::vector<EmittedKernel> kernels = {makeKernel(
      "k_gelu", "out[threadIdx.x] = kiln_gelu(out[threadIdx.x]);")};
  NVRTCOptions options;
  options.archs = {"sm_80", "sm_90"};
  options.keepPTX = true;
  llvm::Expected<NVRTCResult> kept = compileWithNVRTC(kernels, options);
  ASSERT_TRUE(static_cast<bool>(kept)) << llvm::toString(kept.takeError());
  NVRTCOptions virtualOnly;
  virtualOnly.archs = {"compute_90"};
  llvm::Expected<NVRTCResult> reference =
      compileWithNVRTC(kernels, virtualOnly);
  ASSERT_TRUE(static_cast<bool>(reference))
      << llvm::toString(reference.takeError());
  const CompiledProgram &program = kept->programOf(0);
  EXPECT_EQ(program.ptxArch, "compute_90");
  EXPECT_EQ(program.cubins.size(), 2u);
  ASSERT_FALSE(program.ptx.empty());
  EXPECT_EQ(program.ptx, reference->programOf(0).cubins.at("compute_90"));
}

TEST(NVRTCCompilerTest, ErrorsNameTheKernelAndCarryTheLog) {
  std::vector<EmittedKernel> kernels = {
      makeKernel("k_good", "out[0] = 1.0f;"),
      makeKernel("k_bad", "out[0] = undeclared_thing;")};
  llvm::Expected<NVRTCResult> result = compileWithNVRTC(kernels, {});
  ASSERT_FALSE(static_cast<bool>(result));
  std::string message = llvm::toString(result.takeError());
  EXPECT_NE(message.find("NVRTC failed to compile kernel k_bad "
                         "(kiln.kernel \"test\") for sm_90"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("undeclared_thing"), std::string::npos) << message;
  EXPECT_EQ(message.find("k_good"), std::string::npos) << message;
}

/// k_local: an array of 256 floats, too many for registers, indexed at run
/// time, which stays in local memory at any residency.
EmittedKernel localArrayKernel() {
  return makeKernel("k_local", "float a[256], s = 0.0f;\n"
                               "for (int i = 0; i < 256; ++i) {\n"
                               "  s = s * out[i * 64 + threadIdx.x] + 1.0f;\n"
                               "  a[i] = s;\n"
                               "}\n"
                               "out[threadIdx.x] = a[(int)out[0] & 255];");
}

// A kernel whose array (of 256 floats, too many for registers) is indexed at
// run time keeps it in local memory: its cubin records a stack frame, which
// stackFrameWarnings reports with the kernel's name, ops and arch; its
// neighbour in the same program, with none, gets no warning.
TEST(NVRTCCompilerTest, WarnsOfAKernelsStackFrame) {
  std::vector<EmittedKernel> kernels = {
      makeKernel("k_plain", "out[threadIdx.x] = kiln_sigmoid(out[0]);"),
      localArrayKernel()};
  NVRTCOptions options;
  options.archs = {"sm_80", "sm_90"};
  llvm::Expected<NVRTCResult> result = compileWithNVRTC(kernels, options);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  ASSERT_EQ(result->programs.size(), 1u); // Both kernels in one cubin.
  std::vector<std::string> warnings = stackFrameWarnings(kernels, *result);
  ASSERT_EQ(warnings.size(), 2u); // One per arch.
  for (const std::string &warning : warnings) {
    EXPECT_EQ(warning.rfind("kernel k_local (kiln.kernel \"test\") keeps 1024 "
                            "bytes of stack per thread on sm_",
                            0),
              0u)
        << warning;
    EXPECT_NE(warning.find(" registers: spilled registers or an array in "
                           "local memory"),
              std::string::npos)
        << warning;
  }
  EXPECT_NE(warnings[0].find("on sm_80"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("on sm_90"), std::string::npos) << warnings[1];
}

// The residencies a spilling kernel is retried with: one block fewer than
// its registers allow each time, three at most, never below 1; none when
// one block is all its registers allow.
TEST(NVRTCCompilerTest, SpillRetriesAskForFewerResidentBlocks) {
  // Qwen2's flash kernel: 128 threads at 128 registers fit 4 blocks.
  EXPECT_EQ(spillRetryResidencies(128, 128), (std::vector<int64_t>{3, 2, 1}));
  // ConvNeXt's column mean: 64 threads at 40 registers fit 25; registers
  // are given out 8 a thread, so 37 counts as 40.
  EXPECT_EQ(spillRetryResidencies(64, 40), (std::vector<int64_t>{24, 23, 22}));
  EXPECT_EQ(spillRetryResidencies(64, 37), (std::vector<int64_t>{24, 23, 22}));
  // 256 threads at 32 registers: the thread limit (8 blocks) binds too.
  EXPECT_EQ(spillRetryResidencies(256, 32), (std::vector<int64_t>{7, 6, 5}));
  EXPECT_EQ(spillRetryResidencies(256, 128), (std::vector<int64_t>{1}));
  EXPECT_TRUE(spillRetryResidencies(256, 255).empty());
  EXPECT_TRUE(spillRetryResidencies(1024, 64).empty());
  // The arch's own limits: 32 blocks of 32 threads on sm_90 however few
  // registers; 16 on sm_86, whose 1536 threads also hold 6 blocks of 256.
  EXPECT_EQ(spillRetryResidencies(32, 16, "sm_90"),
            (std::vector<int64_t>{31, 30, 29}));
  EXPECT_EQ(spillRetryResidencies(32, 16, "sm_86"),
            (std::vector<int64_t>{15, 14, 13}));
  EXPECT_EQ(spillRetryResidencies(256, 32, "sm_86"),
            (std::vector<int64_t>{5, 4, 3}));
}

// A stack frame no residency removes (a local array indexed at run time) is
// retried (three residencies), relieves nothing and is still reported.
TEST(NVRTCCompilerTest, KeepsTheCubinWhenNoRetryRemovesTheStack) {
  std::vector<EmittedKernel> kernels = {
      makeKernel("k_plain", "out[threadIdx.x] = kiln_sigmoid(out[0]);"),
      localArrayKernel()};
  for (EmittedKernel &kernel : kernels) {
    size_t at = kernel.source.find(" void " + kernel.name + "(");
    kernel.source.insert(at + 6, "__launch_bounds__(256) ");
  }
  llvm::Expected<NVRTCResult> bounded = compileWithNVRTC(kernels, {});
  ASSERT_TRUE(static_cast<bool>(bounded))
      << llvm::toString(bounded.takeError());
  ASSERT_EQ(bounded->programs.size(), 1u);
  // k_local was found by its bound and tried three times; k_plain, with no
  // stack, never.
  EXPECT_EQ(bounded->programs[0].spillRetries, 3u);
  EXPECT_TRUE(bounded->programs[0].relieved.empty());
  std::vector<std::string> warnings = stackFrameWarnings(kernels, *bounded);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("kernel k_local ", 0), 0u) << warnings[0];
}

} // namespace
