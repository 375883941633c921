// generateInput: deterministic random tensors per dtype (splitmix64, so the
// values do not depend on the C++ library's distributions).
#include "generated_inputs.h"
#include "splitmix64.h"

#include <cstring>
#include <string>

namespace kiln::run {

namespace {

/// The runtime's splitmix64 (splitmix64.h) with the values inputs need.
struct SplitMix64 : kiln::runtime::SplitMix64 {
  /// Uniform in [-1, 1), never 0.
  double signedUnit() {
    double value = static_cast<double>(next() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    return value == 0.0 ? 0.5 : value;
  }
};

template <typename T> void store(uint8_t *at, T value) {
  std::memcpy(at, &value, sizeof(T));
}

} // namespace

HostTensor generateInput(const kiln_tensor_info_t &info, uint64_t seed,
                         size_t index) {
  HostTensor tensor;
  tensor.name = info.name;
  tensor.dtype = info.dtype;
  tensor.dims.assign(info.dims, info.dims + info.rank);
  size_t count = tensor.elementCount(), size = kiln_dtype_size(info.dtype);
  SplitMix64 random{seed * 0x100000001b3ull + index};
  bool isFloat = info.dtype == KILN_DTYPE_F16 ||
                 info.dtype == KILN_DTYPE_BF16 ||
                 info.dtype == KILN_DTYPE_F32 || info.dtype == KILN_DTYPE_F64;
  if (isFloat) {
    // Drawn as f32, then rounded to the input's type.
    HostTensor wide = tensor;
    wide.dtype = KILN_DTYPE_F32;
    wide.data.resize(count * sizeof(float));
    for (size_t i = 0; i < count; ++i)
      store(wide.data.data() + i * sizeof(float),
            static_cast<float>(random.signedUnit()));
    std::string error;
    convertTensor(wide, info.dtype, &tensor, &error);
    return tensor;
  }
  tensor.data.resize(count * size);
  for (size_t i = 0; i < count; ++i) {
    uint8_t *at = tensor.data.data() + i * size;
    uint64_t value = info.dtype == KILN_DTYPE_BOOL ? random.next() >> 63
                                                   : random.next() >> 60;
    switch (size) {
    case 1:
      store(at, static_cast<uint8_t>(value));
      break;
    case 2:
      store(at, static_cast<uint16_t>(value));
      break;
    case 4:
      store(at, static_cast<uint32_t>(value));
      break;
    default:
      store(at, value);
    }
  }
  return tensor;
}

} // namespace kiln::run
