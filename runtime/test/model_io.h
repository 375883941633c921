// GPU test helper: the models the session-wide GPU tests run (the sample
// artifacts, and the GPU bundle's models when KILN_TEST_MODELS_DIR names
// them) and device buffers for all of a model's inputs and outputs.
#ifndef KILN_RUNTIME_TEST_MODEL_IO_H
#define KILN_RUNTIME_TEST_MODEL_IO_H

#include "kiln/runtime.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::testing {

/// A model under test: artifact bytes in memory, or a .kiln file with its
/// data folder (input_N.pb) beside it.
struct TestModel {
  std::string name;
  std::vector<uint8_t> bytes; // Empty: load |path|.
  std::string path, dataDir;

  kiln_status_t load(kiln_model_t **model) const;
};

/// The sample (one GEMM and one kernel) on one and on two streams, then every
/// KILN_TEST_MODELS_DIR/*/model.kiln (scripts/gpu-test.sh sets it to the
/// bundle's models/).
std::vector<TestModel> testModels();

/// Device buffers for every input and output of |model|'s first entry point.
/// Inputs hold DATA/input_N.pb when the model has it, else deterministic
/// non-zero values; outputs start poisoned (NaN-like 0xff bytes).
class DeviceIO {
public:
  DeviceIO() = default;
  DeviceIO(const DeviceIO &) = delete;
  DeviceIO &operator=(const DeviceIO &) = delete;
  ~DeviceIO();

  /// Allocates and fills; false with |*error| on failure.
  bool create(const kiln_model_t *model, const std::string &dataDir,
              std::string *error);
  /// Binds every buffer to |session|.
  kiln_status_t bind(kiln_session_t *session) const;
  /// A second input set: every floating input's bytes change (x -> -1.5 x,
  /// exact in every float type), others stay.
  bool changeInputs(std::string *error);
  bool poisonOutputs(cudaStream_t stream);
  /// Waits for |stream| and copies every output to the host.
  bool downloadOutputs(cudaStream_t stream,
                       std::vector<std::vector<uint8_t>> *outputs);

  const std::vector<std::string> &outputNames() const { return outputNames_; }

private:
  std::vector<kiln_tensor_info_t> inputInfo_, outputInfo_;
  std::vector<void *> inputs_, outputs_;
  std::vector<std::string> outputNames_;
};

/// "" when |actual| and |expected| are byte-identical, else where they first
/// differ ("output 'y': 3 of 64 bytes differ, first at byte 12").
std::string compareBytes(const std::vector<std::vector<uint8_t>> &actual,
                         const std::vector<std::vector<uint8_t>> &expected,
                         const std::vector<std::string> &names);

} // namespace kiln::testing

#endif // KILN_RUNTIME_TEST_MODEL_IO_H
