// embed.cpp: runs a .kiln artifact through the kiln runtime's C++ wrapper
// (kiln/runtime.hpp: RAII handles, kiln::Status), with device buffers the
// program allocates. It fills inputs and prints outputs as embed.c does, so
// the two print the same lines for the same artifact.
//   embed_cpp MODEL.kiln      embed_cpp --version
#include <kiln/runtime.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// 3 for no device, 2 for a missing or damaged file, else 1 (as kiln-run).
int exitCode(const kiln::Status &status, const char *what) {
  std::fprintf(stderr, "embed_cpp: %s: %s\n", what, status.toString().c_str());
  switch (status.code()) {
  case KILN_STATUS_UNAVAILABLE:
    return 3;
  case KILN_STATUS_NOT_FOUND:
  case KILN_STATUS_DATA_LOSS:
    return 2;
  default:
    return 1;
  }
}

/// Owns one cudaMalloc'ed buffer.
struct DeviceBuffer {
  void *data = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { cudaFree(data); }
};

template <typename T> void store(char *at, T value) {
  std::memcpy(at, &value, sizeof(T));
}
template <typename T> double load(const char *at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return double(value);
}

/// The input pattern of embed.c, as host bytes of |info|'s dtype.
bool fillInput(const kiln_tensor_info_t &info, std::vector<char> *bytes) {
  size_t count = info.bytes / kiln_dtype_size(info.dtype);
  bytes->assign(info.bytes, 0);
  for (size_t i = 0; i < count; ++i) {
    double value = double((i * 7) % 19 + 1) / 20.0 - 0.5;
    char *at = bytes->data() + i * kiln_dtype_size(info.dtype);
    switch (info.dtype) {
    case KILN_DTYPE_F32:
      store(at, float(value));
      break;
    case KILN_DTYPE_F64:
      store(at, value);
      break;
    case KILN_DTYPE_I32:
      store(at, int32_t(i % 4));
      break;
    case KILN_DTYPE_I64:
      store(at, int64_t(i % 4));
      break;
    case KILN_DTYPE_BOOL:
      store(at, uint8_t(i % 2));
      break;
    default:
      return false;
    }
  }
  return true;
}

double element(const std::vector<char> &bytes, kiln_dtype_t dtype, size_t i) {
  const char *at = bytes.data() + i * kiln_dtype_size(dtype);
  switch (dtype) {
  case KILN_DTYPE_F32:
    return load<float>(at);
  case KILN_DTYPE_F64:
    return load<double>(at);
  case KILN_DTYPE_I32:
    return load<int32_t>(at);
  case KILN_DTYPE_I64:
    return load<int64_t>(at);
  default:
    return 0;
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("kiln runtime %s, API %u (header %d), artifact format %u\n",
                kiln_runtime_version(), kiln_runtime_api_version(),
                KILN_RUNTIME_API_VERSION,
                kiln_runtime_artifact_format_version());
    return 0;
  }
  if (argc != 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: embed_cpp MODEL.kiln | --version\n");
    return 2;
  }

  kiln::Model model;
  if (kiln::Status status = kiln::Model::load(argv[1], &model); !status)
    return exitCode(status, "loading the model");
  kiln::Session session;
  if (kiln::Status status = kiln::Session::create(model, &session); !status)
    return exitCode(status, "creating a session");

  std::vector<kiln_tensor_info_t> inputs = model.inputs(),
                                  outputs = model.outputs();
  std::vector<DeviceBuffer> buffers(inputs.size() + outputs.size());
  std::vector<char> host;
  for (size_t i = 0; i < inputs.size() + outputs.size(); ++i) {
    bool input = i < inputs.size();
    const kiln_tensor_info_t &info =
        input ? inputs[i] : outputs[i - inputs.size()];
    if (cudaMalloc(&buffers[i].data, info.bytes ? info.bytes : 1) !=
        cudaSuccess) {
      std::fprintf(stderr, "embed_cpp: cudaMalloc failed\n");
      return 1;
    }
    if (input) {
      if (!fillInput(info, &host)) {
        std::fprintf(stderr,
                     "embed_cpp: '%s' is %s; this example fills f32, f64, "
                     "i32, i64 and bool inputs\n",
                     info.name, kiln_dtype_name(info.dtype));
        return 1;
      }
      if (cudaMemcpy(buffers[i].data, host.data(), info.bytes,
                     cudaMemcpyHostToDevice) != cudaSuccess) {
        std::fprintf(stderr, "embed_cpp: cudaMemcpy failed\n");
        return 1;
      }
    }
    // Device memory: bound as is (16-byte aligned, as cudaMalloc's is).
    kiln_tensor_t tensor = kiln_device_tensor(buffers[i].data, info.bytes);
    kiln::Status status = input ? session.bindInput(info.name, tensor)
                                : session.bindOutput(info.name, tensor);
    if (!status)
      return exitCode(status, "binding");
  }

  cudaStream_t stream = nullptr;
  if (cudaStreamCreate(&stream) != cudaSuccess) {
    std::fprintf(stderr, "embed_cpp: cudaStreamCreate failed\n");
    return 1;
  }
  kiln::Status status = session.run(stream);
  bool finished = status && cudaStreamSynchronize(stream) == cudaSuccess;
  cudaStreamDestroy(stream);
  if (!status)
    return exitCode(status, "running");
  if (!finished) {
    std::fprintf(stderr, "embed_cpp: the run failed on the GPU\n");
    return 1;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const kiln_tensor_info_t &info = outputs[i];
    host.resize(info.bytes);
    if (cudaMemcpy(host.data(), buffers[inputs.size() + i].data, info.bytes,
                   cudaMemcpyDeviceToHost) != cudaSuccess) {
      std::fprintf(stderr, "embed_cpp: cudaMemcpy failed\n");
      return 1;
    }
    double sum = 0, squares = 0;
    for (size_t e = 0; e < info.bytes / kiln_dtype_size(info.dtype); ++e) {
      double value = element(host, info.dtype, e);
      sum += value;
      squares += value * value;
    }
    std::printf("output '%s' %s[", info.name, kiln_dtype_name(info.dtype));
    for (size_t d = 0; d < info.rank; ++d)
      std::printf("%s%lld", d ? "x" : "", static_cast<long long>(info.dims[d]));
    std::printf("]: sum %.9g, sum of squares %.9g\n", sum, squares);
  }
  return 0;
}
