// The bounds-check prelude: its kiln_bounds_record is written from the
// runtime's field list (KILN_BOUNDS_RECORD_FIELDS), in order, and the
// prelude with a kernel that checks an index compiles with NVRTC.
#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/Target/CUDA/NVRTCCompiler.h"
#include "kiln/artifact_format.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <string>

using namespace kiln;

namespace {

TEST(BoundsCheckPreludeTest, RecordIsTheRuntimesAndCompiles) {
  std::string prelude = getCUDABoundsCheckPrelude();
  std::string expected = "struct kiln_bounds_record {\n"
                         "  unsigned int flag;\n"
                         "  unsigned int site;\n"
                         "  unsigned long long step;\n"
                         "  long long index;\n"
                         "  long long bound;\n"
                         "  long long axis;\n"
                         "  long long reserved;\n"
                         "};\n";
  EXPECT_NE(prelude.find(expected), std::string::npos) << prelude;
  EXPECT_EQ(sizeof(kiln::artifact::BoundsFaultRecord), 48u);

  EmittedKernel kernel;
  kernel.name = "k_bounds_checked";
  kernel.kind = "data_movement";
  kernel.origins = {"kiln.kernel \"bounds_checked\""};
  kernel.source = std::string(getCUDAPrelude()) + prelude +
                  "extern \"C\" __global__ void k_bounds_checked(long long "
                  "*out, kiln_bounds_record *record) { out[0] = "
                  "kiln_checked_index(out[0], 4, 0, 1u, record, 0ull); }\n";
  NVRTCOptions options;
  options.archs = {"sm_90"};
  llvm::Expected<NVRTCResult> result = compileWithNVRTC({kernel}, options);
  EXPECT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
}

} // namespace
