// libFuzzer target: tensor-file bytes through every reader: kiln-run's .npy
// and TensorProto parsers (tools/kiln-run/tensor_formats.cpp) and the
// evaluator's (lib/Evaluator/NpyIO.cpp, TensorProtoIO.cpp), which read
// files, so the bytes go through one temporary file.
#include "tensor_files.h"

#include "kiln/Evaluator/TensorIO.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// A private folder for the temporary files (tmpfs when there is one).
const std::string &folder() {
  static const std::string path = [] {
    std::string pattern = "/dev/shm/kiln-fuzz-tensor-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      pattern = "/tmp/kiln-fuzz-tensor-XXXXXX";
      if (!mkdtemp(pattern.data()))
        std::abort();
    }
    return pattern;
  }();
  return path;
}

bool writeFile(const std::string &path, const uint8_t *data, size_t size) {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return false;
  bool written = std::fwrite(data, 1, size, file) == size;
  return std::fclose(file) == 0 && written;
}

/// Reads |path| with the evaluator; touches the values so that a tensor whose
/// storage disagrees with its shape shows up under ASan.
void evaluatorRead(const std::string &path) {
  llvm::Expected<kiln::eval::NamedTensor> tensor =
      kiln::eval::readTensorFile(path);
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return;
  }
  const kiln::eval::Tensor &value = tensor->tensor;
  volatile double sum = 0;
  for (int64_t i = 0, n = value.numElements(); i < n; ++i)
    sum = sum + value.getDouble(i);
}

void runtimeRead(bool npy, const uint8_t *data, size_t size) {
  kiln::run::HostTensor tensor;
  std::string error;
  bool parsed = npy ? kiln::run::parseNpy(data, size, &tensor, &error)
                    : kiln::run::parseTensorProto(data, size, &tensor, &error);
  if (!parsed)
    return;
  volatile double sum = 0;
  for (size_t i = 0, n = tensor.elementCount(); i < n; ++i)
    sum = sum + tensor.at(i);
  kiln::run::HostTensor converted;
  if (tensor.dtype != KILN_DTYPE_F32)
    kiln::run::convertTensor(tensor, KILN_DTYPE_F32, &converted, &error);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  runtimeRead(/*npy=*/true, data, size);
  runtimeRead(/*npy=*/false, data, size);
  for (const char *extension : {".npy", ".pb"}) {
    std::string path = folder() + "/tensor" + extension;
    if (writeFile(path, data, size))
      evaluatorRead(path);
  }
  return 0;
}
