// cuDNN backend descriptors: ownership, checked set/get/finalise, and error
// messages that carry cuDNN's own explanation of what it refused.
#include "conv_graph_descriptors.h"
#include "status.h"

#include <utility>

namespace kiln::runtime {

kiln_status_t backendStatus(cudnnStatus_t status, const std::string &what) {
  if (status == CUDNN_STATUS_SUCCESS)
    return nullptr;
  // The backend API's codes say little ("BAD_PARAM"); its last-error string
  // says which attribute or engine limit was the reason. Reading it clears
  // it, so later errors do not repeat it.
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof(detail));
  std::string message = what;
  if (detail[0])
    message += std::string(" [") + detail + "]";
  return cudnnStatus(status, message);
}

BackendDescriptor::BackendDescriptor(BackendDescriptor &&other) noexcept
    : descriptor(std::exchange(other.descriptor, nullptr)),
      what(std::move(other.what)) {}

BackendDescriptor &
BackendDescriptor::operator=(BackendDescriptor &&other) noexcept {
  if (this != &other) {
    if (descriptor)
      cudnnBackendDestroyDescriptor(descriptor);
    descriptor = std::exchange(other.descriptor, nullptr);
    what = std::move(other.what);
  }
  return *this;
}

BackendDescriptor::~BackendDescriptor() {
  if (descriptor)
    cudnnBackendDestroyDescriptor(descriptor);
}

kiln_status_t BackendDescriptor::create(cudnnBackendDescriptorType_t type,
                                        std::string name) {
  what = std::move(name);
  if (descriptor) {
    cudnnBackendDestroyDescriptor(descriptor);
    descriptor = nullptr;
  }
  return backendStatus(cudnnBackendCreateDescriptor(type, &descriptor),
                       "creating the cuDNN descriptor of " + what);
}

kiln_status_t BackendDescriptor::set(cudnnBackendAttributeName_t attribute,
                                     cudnnBackendAttributeType_t type,
                                     int64_t count, const void *values) {
  return backendStatus(
      cudnnBackendSetAttribute(descriptor, attribute, type, count, values),
      "setting attribute " + std::to_string(int(attribute)) + " of " + what);
}

kiln_status_t BackendDescriptor::setInt64(cudnnBackendAttributeName_t attribute,
                                          int64_t value) {
  return set(attribute, CUDNN_TYPE_INT64, 1, &value);
}

kiln_status_t
BackendDescriptor::setInt64s(cudnnBackendAttributeName_t attribute,
                             const std::vector<int64_t> &values) {
  return set(attribute, CUDNN_TYPE_INT64, int64_t(values.size()),
             values.data());
}

kiln_status_t
BackendDescriptor::setDataType(cudnnBackendAttributeName_t attribute,
                               cudnnDataType_t value) {
  return set(attribute, CUDNN_TYPE_DATA_TYPE, 1, &value);
}

kiln_status_t
BackendDescriptor::setDescriptor(cudnnBackendAttributeName_t attribute,
                                 const BackendDescriptor &value) {
  cudnnBackendDescriptor_t raw = value.get();
  return set(attribute, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
}

kiln_status_t BackendDescriptor::getAttribute(
    cudnnBackendAttributeName_t attribute, cudnnBackendAttributeType_t type,
    int64_t capacity, int64_t *count, void *values) const {
  *count = 0;
  return backendStatus(cudnnBackendGetAttribute(descriptor, attribute, type,
                                                capacity, count, values),
                       "reading attribute " + std::to_string(int(attribute)) +
                           " of " + what);
}

kiln_status_t BackendDescriptor::finalize() {
  return backendStatus(cudnnBackendFinalize(descriptor), "finalising " + what);
}

kiln_status_t createDescriptors(cudnnBackendDescriptorType_t type,
                                int64_t count, const std::string &what,
                                std::vector<BackendDescriptor> *descriptors,
                                std::vector<cudnnBackendDescriptor_t> *raw) {
  descriptors->clear();
  raw->clear();
  descriptors->resize(size_t(count));
  for (BackendDescriptor &descriptor : *descriptors) {
    KILN_RETURN_IF_ERROR(descriptor.create(type, what));
    raw->push_back(descriptor.get());
  }
  return nullptr;
}

} // namespace kiln::runtime
