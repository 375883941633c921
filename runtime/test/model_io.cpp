// GPU test helper: the models under test and device buffers for all of a
// model's inputs and outputs, filled from the bundle's data or generated.
#include "model_io.h"
#include "artifact_builder.h"
#include "gpu_kernels.h"
#include "tensor_files.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <sys/stat.h>

namespace kiln::testing {

kiln_status_t TestModel::load(kiln_model_t **model) const {
  if (!bytes.empty())
    return kiln_model_load_from_memory(bytes.data(), bytes.size(), nullptr,
                                       model);
  return kiln_model_load(path.c_str(), nullptr, model);
}

std::vector<TestModel> testModels() {
  std::vector<TestModel> models;
  SampleOptions twoStreams = deviceSample();
  twoStreams.twoStreams = true;
  models.push_back({"sample", sampleArtifact(deviceSample()), "", ""});
  models.push_back({"sample_two_streams", sampleArtifact(twoStreams), "", ""});
  const char *dir = std::getenv("KILN_TEST_MODELS_DIR");
  if (!dir || !*dir)
    return models;
  std::vector<std::string> names;
  if (DIR *listing = opendir(dir)) {
    while (dirent *entry = readdir(listing))
      names.push_back(entry->d_name);
    closedir(listing);
  }
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) {
    std::string folder = std::string(dir) + "/" + name;
    struct stat info;
    if (name[0] == '.' || stat((folder + "/model.kiln").c_str(), &info) != 0)
      continue;
    models.push_back({name, {}, folder + "/model.kiln", folder + "/data"});
  }
  return models;
}

namespace {

/// Deterministic non-zero values of |dtype| (0/1 for integers, which index
/// any dim and divide nothing by zero).
std::vector<uint8_t> generated(const kiln_tensor_info_t &info) {
  std::vector<uint8_t> bytes(info.bytes);
  size_t size = kiln_dtype_size(info.dtype);
  for (size_t i = 0; size && i < info.bytes / size; ++i) {
    float value = std::sin(0.37f * float(i) + 0.1f) * 1.5f;
    if (std::fabs(value) < 0.05f)
      value = 0.5f;
    uint8_t *at = bytes.data() + i * size;
    switch (info.dtype) {
    case KILN_DTYPE_F32:
      std::memcpy(at, &value, 4);
      break;
    case KILN_DTYPE_F64: {
      double wide = value;
      std::memcpy(at, &wide, 8);
      break;
    }
    case KILN_DTYPE_F16: {
      __half half = __float2half(value);
      std::memcpy(at, &half, 2);
      break;
    }
    case KILN_DTYPE_BF16: {
      __nv_bfloat16 half = __float2bfloat16(value);
      std::memcpy(at, &half, 2);
      break;
    }
    default:
      at[0] = static_cast<uint8_t>(i % 2); // Little-endian 0 or 1.
      break;
    }
  }
  return bytes;
}

bool isFloat(kiln_dtype_t dtype) {
  return dtype == KILN_DTYPE_F16 || dtype == KILN_DTYPE_BF16 ||
         dtype == KILN_DTYPE_F32 || dtype == KILN_DTYPE_F64;
}

} // namespace

DeviceIO::~DeviceIO() {
  for (auto *list : {&inputs_, &outputs_})
    for (void *buffer : *list)
      cudaFree(buffer);
}

bool DeviceIO::create(const kiln_model_t *model, const std::string &dataDir,
                      std::string *error) {
  for (size_t i = 0; i < kiln_model_input_count(model, 0); ++i) {
    kiln_tensor_info_t info;
    kiln_status_t status = kiln_model_input_info(model, 0, i, &info);
    if (status) {
      *error = kiln_status_message(status);
      kiln_status_free(status);
      return false;
    }
    std::vector<uint8_t> bytes = generated(info);
    std::string file = dataDir + "/input_" + std::to_string(i) + ".pb";
    struct stat exists;
    if (!dataDir.empty() && stat(file.c_str(), &exists) == 0) {
      kiln::run::HostTensor tensor, converted;
      if (!kiln::run::readTensorFile(file, &tensor, error))
        return false;
      if (tensor.dtype != info.dtype) {
        if (!kiln::run::convertTensor(tensor, info.dtype, &converted, error))
          return false;
        tensor = std::move(converted);
      }
      if (tensor.data.size() != info.bytes) {
        *error = file + ": " + std::to_string(tensor.data.size()) +
                 " bytes, input '" + info.name + "' has " +
                 std::to_string(info.bytes);
        return false;
      }
      bytes = tensor.data;
    }
    void *buffer = nullptr;
    if (cudaMalloc(&buffer, std::max<size_t>(info.bytes, 16)) != cudaSuccess ||
        cudaMemcpy(buffer, bytes.data(), info.bytes, cudaMemcpyHostToDevice) !=
            cudaSuccess) {
      cudaFree(buffer);
      *error = std::string("allocating input '") + info.name + "'";
      return false;
    }
    inputs_.push_back(buffer);
    inputInfo_.push_back(info);
  }
  for (size_t i = 0; i < kiln_model_output_count(model, 0); ++i) {
    kiln_tensor_info_t info;
    kiln_status_t status = kiln_model_output_info(model, 0, i, &info);
    if (status) {
      *error = kiln_status_message(status);
      kiln_status_free(status);
      return false;
    }
    void *buffer = nullptr;
    if (cudaMalloc(&buffer, std::max<size_t>(info.bytes, 16)) != cudaSuccess) {
      *error = std::string("allocating output '") + info.name + "'";
      return false;
    }
    outputs_.push_back(buffer);
    outputInfo_.push_back(info);
    outputNames_.push_back(info.name);
  }
  return poisonOutputs(nullptr);
}

kiln_status_t DeviceIO::bind(kiln_session_t *session) const {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    kiln_tensor_t tensor = kiln_device_tensor(inputs_[i], inputInfo_[i].bytes);
    if (kiln_status_t status =
            kiln_session_bind_input(session, inputInfo_[i].name, &tensor))
      return status;
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    kiln_tensor_t tensor =
        kiln_device_tensor(outputs_[i], outputInfo_[i].bytes);
    if (kiln_status_t status =
            kiln_session_bind_output(session, outputInfo_[i].name, &tensor))
      return status;
  }
  return nullptr;
}

bool DeviceIO::changeInputs(std::string *error) {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const kiln_tensor_info_t &info = inputInfo_[i];
    if (!isFloat(info.dtype))
      continue;
    std::vector<uint8_t> bytes(info.bytes);
    size_t size = kiln_dtype_size(info.dtype);
    if (cudaMemcpy(bytes.data(), inputs_[i], info.bytes,
                   cudaMemcpyDeviceToHost) != cudaSuccess) {
      *error = "reading an input back";
      return false;
    }
    for (size_t at = size - 1; at < bytes.size(); at += size)
      bytes[at] ^= 0x80; // The sign bit: x -> -x.
    if (cudaMemcpy(inputs_[i], bytes.data(), info.bytes,
                   cudaMemcpyHostToDevice) != cudaSuccess) {
      *error = "writing an input";
      return false;
    }
  }
  return true;
}

bool DeviceIO::poisonOutputs(cudaStream_t stream) {
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (cudaMemsetAsync(outputs_[i], 0xff, outputInfo_[i].bytes, stream) !=
        cudaSuccess)
      return false;
  return cudaStreamSynchronize(stream) == cudaSuccess;
}

bool DeviceIO::downloadOutputs(cudaStream_t stream,
                               std::vector<std::vector<uint8_t>> *outputs) {
  if (cudaStreamSynchronize(stream) != cudaSuccess)
    return false;
  outputs->assign(outputs_.size(), {});
  for (size_t i = 0; i < outputs_.size(); ++i) {
    (*outputs)[i].resize(outputInfo_[i].bytes);
    if (cudaMemcpy((*outputs)[i].data(), outputs_[i], outputInfo_[i].bytes,
                   cudaMemcpyDeviceToHost) != cudaSuccess)
      return false;
  }
  return true;
}

std::string compareBytes(const std::vector<std::vector<uint8_t>> &actual,
                         const std::vector<std::vector<uint8_t>> &expected,
                         const std::vector<std::string> &names) {
  if (actual.size() != expected.size())
    return std::to_string(actual.size()) + " outputs, expected " +
           std::to_string(expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    const std::vector<uint8_t> &a = actual[i], &e = expected[i];
    std::string name = i < names.size() ? names[i] : std::to_string(i);
    if (a.size() != e.size())
      return "output '" + name + "': " + std::to_string(a.size()) +
             " bytes, expected " + std::to_string(e.size());
    size_t differing = 0, first = a.size();
    for (size_t b = 0; b < a.size(); ++b)
      if (a[b] != e[b]) {
        ++differing;
        first = std::min(first, b);
      }
    if (differing)
      return "output '" + name + "': " + std::to_string(differing) + " of " +
             std::to_string(a.size()) + " bytes differ, first at byte " +
             std::to_string(first);
  }
  return "";
}

} // namespace kiln::testing
