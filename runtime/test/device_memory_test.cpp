// Tests of allocateDeviceMemory's out-of-memory status: the bytes asked for
// and the bytes free (no GPU needed for the message; with one, a real
// impossible allocation).
#include "device_memory.h"
#include "test_util.h"

#include <cuda_runtime_api.h>

using namespace kiln::runtime;
using namespace kiln::testing;

namespace {

TEST(DeviceMemoryTest, OutOfMemoryNamesRequestedAndFreeBytes) {
  EXPECT_TRUE(isError(
      outOfMemoryStatus("allocating the 1125899906842624-byte activation "
                        "arena",
                        uint64_t(1) << 50, true, uint64_t(3) << 30,
                        uint64_t(141) << 30, 0),
      KILN_STATUS_RESOURCE_EXHAUSTED,
      "allocating the 1125899906842624-byte activation arena: out of memory "
      "on device 0: asked for 1125899906842624 bytes (1.0 PiB), 3221225472 "
      "bytes (3.0 GiB) free of 151397597184 (141.0 GiB)"));
  EXPECT_TRUE(isError(outOfMemoryStatus("the weight arena", 512, false, 0, 0, 2),
                      KILN_STATUS_RESOURCE_EXHAUSTED,
                      "the weight arena: out of memory on device 2: asked for "
                      "512 bytes (512 B), free memory unknown"));
}

TEST(DeviceMemoryTest, HumanBytes) {
  EXPECT_EQ(humanBytes(0), "0 B");
  EXPECT_EQ(humanBytes(1023), "1023 B");
  EXPECT_EQ(humanBytes(1536), "1.5 KiB");
  EXPECT_EQ(humanBytes(uint64_t(5) << 40), "5.0 TiB");
  EXPECT_EQ(humanBytes(UINT64_MAX), "16.0 EiB");
}

TEST(DeviceMemoryTest, ImpossibleAllocation) {
  void *pointer = reinterpret_cast<void *>(1);
  kiln_status_t status = allocateDeviceMemory(&pointer, uint64_t(1) << 50,
                                              "a 1 PiB test buffer", 0);
  EXPECT_EQ(pointer, nullptr);
  if (!hasCudaDevice()) {
    EXPECT_TRUE(isError(status, KILN_STATUS_UNAVAILABLE, "a 1 PiB test buffer"));
    return;
  }
  EXPECT_TRUE(isError(status, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "a 1 PiB test buffer: out of memory on device 0: asked "
                      "for 1125899906842624 bytes (1.0 PiB), "));
  // Not sticky: the device still allocates.
  ASSERT_TRUE(isOk(allocateDeviceMemory(&pointer, 4096, "4 KiB", 0)));
  EXPECT_NE(pointer, nullptr);
  EXPECT_EQ(cudaFree(pointer), cudaSuccess);
}

} // namespace
