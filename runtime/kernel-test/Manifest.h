// The kernel-test case manifest (written by kiln-translate
// --kernel-test-bundle): buffers, cubins, launches in order and checks.
#ifndef KILN_RUNTIME_KERNEL_TEST_MANIFEST_H
#define KILN_RUNTIME_KERNEL_TEST_MANIFEST_H

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::kerneltest {

struct BufferSpec {
  int id = 0;
  std::string dtype; // float32, float16, bfloat16, float64, int64, bool, ...
  std::string shape; // 4x4097, or "scalar"
  size_t bytes = 0;
  std::string init; // "file:NAME", "poison" (0xFF bytes) or "view:ID:OFFSET"
  // A view (a slice view outside kernels: kiln's alias at a byte offset)
  // allocates nothing: buffer |viewOf| from |viewOffset| bytes on.
  int viewOf = -1;
  size_t viewOffset = 0;
};

struct KernelFile {
  std::string name, arch, file;
};

struct LaunchSpec {
  std::string kernel;
  unsigned grid = 0, block = 0, sharedBytes = 0;
  std::vector<int> arguments; // Buffer ids, in parameter order.
  // The values of the kernel's `long long kiln_dim<i>` parameters (issue 18:
  // a kernel with run-time extents), after the buffers.
  std::vector<long long> dims;
  std::string comment; // The kiln.kernel op's name.
};

struct CheckSpec {
  int buffer = 0;
  std::string dtype;
  size_t count = 0;
  std::string file; // Expected values, raw little-endian.
};

struct CaseSpec {
  std::string directory, name;
  std::string skipReason;      // Non-empty: the case is skipped.
  double rtol = -1, atol = -1; // Negative: the dtype's default.
  std::vector<BufferSpec> buffers;
  std::vector<KernelFile> kernels;
  std::vector<LaunchSpec> launches;
  std::vector<CheckSpec> checks;
};

/// Reads |directory|/manifest.txt; returns false with |error| set on a bad
/// file.
bool readManifest(const std::string &directory, CaseSpec &spec,
                  std::string &error);

/// Reads a whole file; false when it cannot be read.
bool readFile(const std::string &path, std::string &contents);

} // namespace kiln::kerneltest

#endif // KILN_RUNTIME_KERNEL_TEST_MANIFEST_H
