// Test helper: artifacts whose entry point is one cuDNN Conv step, for the
// validator tests (no GPU) and the GPU tests.
#ifndef KILN_RUNTIME_TEST_CONV_ARTIFACT_H
#define KILN_RUNTIME_TEST_CONV_ARTIFACT_H

#include "artifact_builder.h"

namespace kiln::testing {

/// One 2-D convolution: x [n, c, h, w], w [k, c / groups, r, s], bias [k]
/// (channels last: x [n, h, w, c], w [k, r, s, c / groups]).
struct ConvShape {
  const char *name;
  int64_t n, c, h, w, k, r, s;
  int64_t pad = 0, stride = 1, dilation = 1, groups = 1;
  bool bias = false;
  kiln::artifact::DType dtype = kiln::artifact::DType_F32;
  bool channelsLast = false;
  /// The fused epilogue: + z (shaped like y) before the activation, relu.
  bool residual = false, relu = false;

  int64_t outH() const {
    return (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1;
  }
  int64_t outW() const {
    return (w + 2 * pad - dilation * (s - 1) - 1) / stride + 1;
  }
};

/// Fills |model| with one entry point "main": inputs "x" (buffer 0), "w"
/// (1), with a bias "b" (2), with a residual "z" (next); output "y" (the
/// next buffer); one Conv step on stream 0 with a 4 MiB workspace.
void buildConvModel(kiln::artifact::ModelT &model, const ConvShape &shape);

} // namespace kiln::testing

#endif // KILN_RUNTIME_TEST_CONV_ARTIFACT_H
