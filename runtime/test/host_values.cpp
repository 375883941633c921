// Test helper: host bytes of float values in an artifact dtype.
#include "host_values.h"
#include "tensor_files.h"

#include <cstring>
#include <string>

namespace kiln::testing {

kiln_dtype_t toApi(kiln::artifact::DType dtype) {
  return static_cast<kiln_dtype_t>(int(dtype) + 1);
}

std::vector<uint8_t> encode(const std::vector<float> &values,
                            kiln::artifact::DType dtype) {
  kiln::run::HostTensor f32, out;
  f32.dtype = KILN_DTYPE_F32;
  f32.dims = {int64_t(values.size())};
  f32.data.resize(values.size() * 4);
  std::memcpy(f32.data.data(), values.data(), f32.data.size());
  std::string error;
  kiln::run::convertTensor(f32, toApi(dtype), &out, &error);
  return out.data;
}

} // namespace kiln::testing
