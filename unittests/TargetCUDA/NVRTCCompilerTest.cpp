// Unit tests of the NVRTC driver: the prelude compiles, cubins come back per
// arch, PTX on request, and errors name the kernel with NVRTC's log.
#include "kiln/Target/CUDA/NVRTCCompiler.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {

EmittedKernel makeKernel(const std::string &name, const std::string &body) {
  EmittedKernel kernel;
  kernel.name = name;
  kernel.kind = "pointwise";
  kernel.origins = {"kiln.kernel \"test\""};
  kernel.source = std::string(getCUDAPrelude()) +
                  "extern \"C\" __global__ void " + name + "(float* out) { " +
                  body + " }\n";
  return kernel;
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
  for (const CompiledKernel &kernel : result->kernels) {
    EXPECT_EQ(kernel.cubins.size(), 2u);
    EXPECT_EQ(kernel.cubins.at("sm_90").substr(1, 3), "ELF");
    EXPECT_EQ(kernel.ptxArch, "compute_90");
    EXPECT_NE(kernel.ptx.find(".entry " + kernel.name), std::string::npos);
  }
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
  const CompiledKernel &kernel = kept->kernels.at(0);
  EXPECT_EQ(kernel.ptxArch, "compute_90");
  EXPECT_EQ(kernel.cubins.size(), 2u);
  ASSERT_FALSE(kernel.ptx.empty());
  EXPECT_EQ(kernel.ptx, reference->kernels.at(0).cubins.at("compute_90"));
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

} // namespace
