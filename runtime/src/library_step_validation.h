// The Gemm and Conv step checks of the manifest validator, with the buffer
// checks they share with it.
#ifndef KILN_RUNTIME_LIBRARY_STEP_VALIDATION_H
#define KILN_RUNTIME_LIBRARY_STEP_VALIDATION_H

#include "artifact_reader.h"

namespace kiln::runtime {

/// The buffer checks of one entry point (manifest_validator.cpp).
struct BufferChecks {
  const kiln::artifact::EntryPoint &entry;
  uint32_t numBuffers;

  /// DATA_LOSS unless |id| names a buffer of the entry point.
  kiln_status_t checkBuffer(int64_t id, const char *role) const;
  /// DATA_LOSS when buffer |id| (through aliases) is an input, or a weight
  /// outside the init program.
  kiln_status_t checkWritable(uint32_t id, const char *role) const;
};

/// A Gemm step's dims, strides, operand sizes, dtypes and epilogue.
kiln_status_t validateGemmStep(const BufferChecks &checks,
                               const kiln::artifact::Gemm *gemm);
/// A Conv step's dims, window, operand sizes, dtypes and epilogue.
kiln_status_t validateConvStep(const BufferChecks &checks,
                               const kiln::artifact::Conv *conv);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_LIBRARY_STEP_VALIDATION_H
