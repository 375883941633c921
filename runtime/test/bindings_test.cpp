// Tests of binding helpers without a GPU: host staging allocation that keeps
// nothing half-allocated, and the overlap check of device bindings.
#include "bindings.h"
#include "test_util.h"

#include <cstdlib>

using namespace kiln::testing;
using namespace kiln::runtime;

namespace {

/// A fake allocator: plain malloc/free, with failures on demand.
struct FakeAllocations {
  static bool failDevice, failHost;
  static int live;
  static cudaError_t alloc(void **pointer, size_t bytes, bool fail) {
    if (fail)
      return cudaErrorMemoryAllocation;
    *pointer = std::malloc(bytes);
    ++live;
    return cudaSuccess;
  }
  static cudaError_t release(void *pointer) {
    std::free(pointer);
    --live;
    return cudaSuccess;
  }
  static const StagingAllocator &allocator() {
    static const StagingAllocator fake = {
        [](void **pointer, size_t bytes) {
          return alloc(pointer, bytes, failDevice);
        },
        release,
        [](void **pointer, size_t bytes) {
          return alloc(pointer, bytes, failHost);
        },
        release};
    return fake;
  }
};
bool FakeAllocations::failDevice = false, FakeAllocations::failHost = false;
int FakeAllocations::live = 0;

TEST(BindingsTest, StagingKeepsNothingWhenPinnedAllocationFails) {
  FakeAllocations::live = 0;
  FakeAllocations::failDevice = false;
  FakeAllocations::failHost = true;
  Binding binding;
  EXPECT_TRUE(isError(
      ensureStaging(&binding, 64, "input 'x'", FakeAllocations::allocator()),
      KILN_STATUS_RESOURCE_EXHAUSTED, "staging input 'x'"));
  EXPECT_EQ(binding.deviceStaging, nullptr);
  EXPECT_EQ(binding.pinnedStaging, nullptr);
  EXPECT_EQ(FakeAllocations::live, 0) << "the device staging buffer leaked";
  // A retry allocates both.
  FakeAllocations::failHost = false;
  ASSERT_TRUE(isOk(
      ensureStaging(&binding, 64, "input 'x'", FakeAllocations::allocator())));
  EXPECT_NE(binding.deviceStaging, nullptr);
  EXPECT_NE(binding.pinnedStaging, nullptr);
  EXPECT_EQ(FakeAllocations::live, 2);
  // Already staged: nothing new.
  ASSERT_TRUE(isOk(
      ensureStaging(&binding, 64, "input 'x'", FakeAllocations::allocator())));
  EXPECT_EQ(FakeAllocations::live, 2);
  FakeAllocations::release(binding.deviceStaging);
  FakeAllocations::release(binding.pinnedStaging);
}

TEST(BindingsTest, StagingCompletesAHalfStagedBinding) {
  FakeAllocations::live = 0;
  FakeAllocations::failDevice = FakeAllocations::failHost = false;
  Binding binding;
  ASSERT_EQ(
      FakeAllocations::allocator().deviceAlloc(&binding.deviceStaging, 64),
      cudaSuccess);
  ASSERT_TRUE(isOk(
      ensureStaging(&binding, 64, "output 'y'", FakeAllocations::allocator())));
  EXPECT_NE(binding.pinnedStaging, nullptr)
      << "a binding with device staging but no pinned staging was kept";
  EXPECT_EQ(FakeAllocations::live, 2);
  FakeAllocations::release(binding.deviceStaging);
  FakeAllocations::release(binding.pinnedStaging);
}

Binding deviceBinding(uintptr_t address, size_t bytes) {
  Binding binding;
  binding.bound = true;
  binding.memory = KILN_MEMORY_DEVICE;
  binding.user = reinterpret_cast<void *>(address);
  binding.bytes = bytes;
  return binding;
}

kiln_tensor_info_t info(const char *name) {
  kiln_tensor_info_t tensor = {};
  tensor.name = name;
  return tensor;
}

TEST(BindingsTest, OverlappingDeviceBindingsAreNamed) {
  std::vector<kiln_tensor_info_t> inputInfos = {info("a"), info("b")},
                                  outputInfos = {info("y"), info("z")};
  std::vector<Binding> inputs = {deviceBinding(0x1000, 256),
                                 deviceBinding(0x1000, 256)};
  std::vector<Binding> outputs = {deviceBinding(0x2000, 256),
                                  deviceBinding(0x3000, 256)};
  // Inputs may share memory; disjoint outputs are fine; touching is not
  // overlapping.
  EXPECT_TRUE(
      isOk(checkDisjointBindings(inputs, outputs, inputInfos, outputInfos)));
  outputs[0] = deviceBinding(0x1100, 256);
  EXPECT_TRUE(
      isOk(checkDisjointBindings(inputs, outputs, inputInfos, outputInfos)));
  outputs[0] = deviceBinding(0x10f0, 256);
  EXPECT_TRUE(isError(
      checkDisjointBindings(inputs, outputs, inputInfos, outputInfos),
      KILN_STATUS_INVALID_ARGUMENT,
      "input 'a' and output 'y' are bound to overlapping device memory"));
  outputs[0] = deviceBinding(0x2f80, 256);
  EXPECT_TRUE(
      isError(checkDisjointBindings(inputs, outputs, inputInfos, outputInfos),
              KILN_STATUS_INVALID_ARGUMENT, "outputs 'y' and 'z'"));
  // Host bindings go through their own staging buffers.
  outputs[0].memory = KILN_MEMORY_HOST;
  outputs[0].user = reinterpret_cast<void *>(0x1000);
  EXPECT_TRUE(
      isOk(checkDisjointBindings(inputs, outputs, inputInfos, outputInfos)));
}

} // namespace
