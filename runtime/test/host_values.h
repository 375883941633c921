// Test helper: host bytes of float values in an artifact dtype, for the
// library-step GPU tests (conv_test, gemm_test).
#ifndef KILN_RUNTIME_TEST_HOST_VALUES_H
#define KILN_RUNTIME_TEST_HOST_VALUES_H

#include "kiln_artifact_generated.h"
#include "kiln/runtime.h"

#include <cstdint>
#include <vector>

namespace kiln::testing {

/// The C API's dtype for an artifact dtype (the enums are offset by one).
kiln_dtype_t toApi(kiln::artifact::DType dtype);

/// |values| converted to |dtype| (round to nearest even), as raw bytes.
std::vector<uint8_t> encode(const std::vector<float> &values,
                            kiln::artifact::DType dtype);

} // namespace kiln::testing

#endif // KILN_RUNTIME_TEST_HOST_VALUES_H
