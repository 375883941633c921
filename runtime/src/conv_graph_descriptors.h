// RAII ownership and checked attribute access for cuDNN's backend (graph)
// API descriptors, used by the graph path of Conv steps (conv_graph.h).
#ifndef KILN_RUNTIME_CONV_GRAPH_DESCRIPTORS_H
#define KILN_RUNTIME_CONV_GRAPH_DESCRIPTORS_H

#include "kiln/runtime.h"

#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime {

/// A cuDNN backend-API failure as a status: "<what>: <cudnnGetErrorString>
/// (<code>)", followed by cuDNN's own explanation (cudnnGetLastErrorString)
/// when it has one. NULL on success.
kiln_status_t backendStatus(cudnnStatus_t status, const std::string &what);

/// One backend descriptor, destroyed with the object (movable, not
/// copyable). Every call returns a status naming |what| the descriptor is
/// and the attribute (cudnnBackendAttributeName_t value) concerned.
class BackendDescriptor {
public:
  BackendDescriptor() = default;
  BackendDescriptor(BackendDescriptor &&other) noexcept;
  BackendDescriptor &operator=(BackendDescriptor &&other) noexcept;
  BackendDescriptor(const BackendDescriptor &) = delete;
  BackendDescriptor &operator=(const BackendDescriptor &) = delete;
  ~BackendDescriptor();

  /// cudnnBackendCreateDescriptor(|type|); |what| names it in errors.
  kiln_status_t create(cudnnBackendDescriptorType_t type, std::string what);
  cudnnBackendDescriptor_t get() const { return descriptor; }
  const std::string &name() const { return what; }

  /// cudnnBackendSetAttribute with |count| elements of |type| at |values|.
  kiln_status_t set(cudnnBackendAttributeName_t attribute,
                    cudnnBackendAttributeType_t type, int64_t count,
                    const void *values);
  kiln_status_t setInt64(cudnnBackendAttributeName_t attribute, int64_t value);
  kiln_status_t setInt64s(cudnnBackendAttributeName_t attribute,
                          const std::vector<int64_t> &values);
  kiln_status_t setDataType(cudnnBackendAttributeName_t attribute,
                            cudnnDataType_t value);
  /// One finalised descriptor (CUDNN_TYPE_BACKEND_DESCRIPTOR).
  kiln_status_t setDescriptor(cudnnBackendAttributeName_t attribute,
                              const BackendDescriptor &value);

  /// cudnnBackendGetAttribute: at most |capacity| elements into |values|,
  /// their number in |*count|.
  kiln_status_t getAttribute(cudnnBackendAttributeName_t attribute,
                             cudnnBackendAttributeType_t type, int64_t capacity,
                             int64_t *count, void *values) const;

  /// cudnnBackendFinalize.
  kiln_status_t finalize();

private:
  cudnnBackendDescriptor_t descriptor = nullptr;
  std::string what;
};

/// |count| descriptors of |type| created for cudnnBackendGetAttribute to
/// fill (the backend API wants them created, not finalised), and their raw
/// handles in |*raw|.
kiln_status_t createDescriptors(cudnnBackendDescriptorType_t type,
                                int64_t count, const std::string &what,
                                std::vector<BackendDescriptor> *descriptors,
                                std::vector<cudnnBackendDescriptor_t> *raw);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CONV_GRAPH_DESCRIPTORS_H
