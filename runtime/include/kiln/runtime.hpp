// A thin C++ RAII wrapper over the kiln runtime's C API (kiln/runtime.h); no
// exceptions.
#ifndef KILN_RUNTIME_HPP
#define KILN_RUNTIME_HPP

#include "kiln/runtime.h"

#include <string>
#include <utility>
#include <vector>

namespace kiln {

/// Owns a kiln_status_t (empty = OK). Move-only.
class [[nodiscard]] Status {
public:
  Status() = default;
  explicit Status(kiln_status_t status) : status(status) {}
  Status(Status &&other) noexcept
      : status(std::exchange(other.status, nullptr)) {}
  Status &operator=(Status &&other) noexcept {
    std::swap(status, other.status);
    return *this;
  }
  ~Status() { kiln_status_free(status); }

  bool ok() const { return status == nullptr; }
  explicit operator bool() const { return ok(); }
  kiln_status_code_t code() const { return kiln_status_code(status); }
  std::string message() const { return kiln_status_message(status); }
  /// "DATA_LOSS: <message>", or "OK".
  std::string toString() const {
    return ok() ? "OK"
                : std::string(kiln_status_code_name(code())) + ": " + message();
  }

private:
  kiln_status_t status = nullptr;
};

/// A loaded model (see kiln_model_t). Copies share one reference-counted model.
class Model {
public:
  Model() = default;
  Model(const Model &other) : model(other.model) {
    if (model)
      retain();
  }
  Model(Model &&other) noexcept : model(std::exchange(other.model, nullptr)) {}
  Model &operator=(Model other) noexcept {
    std::swap(model, other.model);
    return *this;
  }
  ~Model() { kiln_model_release(model); }

  static Status load(const std::string &path, Model *out,
                     const kiln_load_options_t *options = nullptr) {
    kiln_model_t *loaded = nullptr;
    Status status(kiln_model_load(path.c_str(), options, &loaded));
    *out = Model(loaded);
    return status;
  }
  static Status loadFromMemory(const void *data, size_t size, Model *out,
                               const kiln_load_options_t *options = nullptr) {
    kiln_model_t *loaded = nullptr;
    Status status(kiln_model_load_from_memory(data, size, options, &loaded));
    *out = Model(loaded);
    return status;
  }

  kiln_model_t *get() const { return model; }
  std::vector<kiln_tensor_info_t> inputs(size_t entryPoint = 0) const {
    return infos(entryPoint, true);
  }
  std::vector<kiln_tensor_info_t> outputs(size_t entryPoint = 0) const {
    return infos(entryPoint, false);
  }

private:
  explicit Model(kiln_model_t *model) : model(model) {}
  void retain() { kiln_model_retain(model); }
  std::vector<kiln_tensor_info_t> infos(size_t entryPoint, bool input) const {
    std::vector<kiln_tensor_info_t> list(
        input ? kiln_model_input_count(model, entryPoint)
              : kiln_model_output_count(model, entryPoint));
    for (size_t i = 0; i < list.size(); ++i)
      Status(input ? kiln_model_input_info(model, entryPoint, i, &list[i])
                   : kiln_model_output_info(model, entryPoint, i, &list[i]));
    return list;
  }
  kiln_model_t *model = nullptr;
};

/// A session (see kiln_session_t). Move-only; not thread-safe.
class Session {
public:
  Session() = default;
  Session(Session &&other) noexcept
      : session(std::exchange(other.session, nullptr)) {}
  Session &operator=(Session &&other) noexcept {
    std::swap(session, other.session);
    return *this;
  }
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
  ~Session() { kiln_session_release(session); }

  static Status create(const Model &model, Session *out,
                       const kiln_session_options_t *options = nullptr) {
    kiln_session_t *created = nullptr;
    Status status(kiln_session_create(model.get(), options, &created));
    *out = Session();
    out->session = created;
    return status;
  }

  Status bindInput(const std::string &name, const kiln_tensor_t &tensor) {
    return Status(kiln_session_bind_input(session, name.c_str(), &tensor));
  }
  Status bindOutput(const std::string &name, const kiln_tensor_t &tensor) {
    return Status(kiln_session_bind_output(session, name.c_str(), &tensor));
  }
  Status run(cudaStream_t stream) {
    return Status(kiln_session_run(session, stream));
  }
  /// Artifacts with ranged dims: input |name|'s shape for the next runs.
  Status setInputShape(const std::string &name,
                       const std::vector<int64_t> &dims) {
    return Status(kiln_session_set_input_shape(session, name.c_str(),
                                               dims.data(), dims.size()));
  }
  /// Input or output |name|'s shape at the current input shapes.
  Status tensorShape(const std::string &name, std::vector<int64_t> *dims) {
    size_t rank = 0;
    kiln_status_t status =
        kiln_session_tensor_shape(session, name.c_str(), nullptr, 0, &rank);
    if (status && rank == 0)
      return Status(status);
    kiln_status_free(status);
    dims->assign(rank, 0);
    return Status(kiln_session_tensor_shape(session, name.c_str(),
                                            dims->data(), rank, &rank));
  }
  kiln_session_t *get() const { return session; }

private:
  kiln_session_t *session = nullptr;
};

} // namespace kiln

#endif // KILN_RUNTIME_HPP
