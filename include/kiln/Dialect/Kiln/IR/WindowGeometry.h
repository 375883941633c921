// Output-size arithmetic of sliding windows (convolutions and pools), shared by
// type inference, the importer, the CPU evaluator and the CUDA models.
#ifndef KILN_DIALECT_KILN_IR_WINDOWGEOMETRY_H
#define KILN_DIALECT_KILN_IR_WINDOWGEOMETRY_H

#include <cstdint>

namespace kiln {

/// The span a dilated kernel covers: dilation * (kernel - 1) + 1.
inline int64_t dilatedKernelSize(int64_t kernel, int64_t dilation) {
  return dilation * (kernel - 1) + 1;
}

/// Output size of a window sliding over |input| elements with the given
/// padding: floor (or ceil) of (input + pads - span) / stride, plus one. With
/// |ceilMode| a last window that would start inside the end padding is
/// dropped (ONNX MaxPool/AveragePool). Returns a negative size when the
/// window does not fit.
inline int64_t slidingWindowSize(int64_t input, int64_t kernel, int64_t stride,
                                 int64_t dilation, int64_t padBegin,
                                 int64_t padEnd, bool ceilMode) {
  int64_t span =
      input + padBegin + padEnd - dilatedKernelSize(kernel, dilation);
  if (span < 0)
    return -1;
  int64_t size = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceilMode && (size - 1) * stride >= input + padBegin)
    --size;
  return size;
}

/// Output size of a transposed convolution (ONNX ConvTranspose).
inline int64_t transposedWindowSize(int64_t input, int64_t kernel,
                                    int64_t stride, int64_t dilation,
                                    int64_t padBegin, int64_t padEnd,
                                    int64_t outputPadding) {
  return stride * (input - 1) + outputPadding +
         dilatedKernelSize(kernel, dilation) - padBegin - padEnd;
}

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_WINDOWGEOMETRY_H
