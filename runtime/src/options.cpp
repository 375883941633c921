// Reading option structs of any size a caller's header may declare (the
// fields it knows over the defaults of the ones it does not), and on/off
// environment variables.
#include "options.h"
#include "status.h"

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace kiln::runtime {

namespace {

/// The smallest struct each option type had: its fields in API version 1.
/// Fields appended later are read only from callers whose struct_size
/// covers them.
constexpr size_t kLoadOptionsVersion1Size =
    offsetof(kiln_load_options_t, external_data_dir) + sizeof(const char *);
constexpr size_t kSessionOptionsVersion1Size =
    offsetof(kiln_session_options_t, profile) + sizeof(int);

template <typename Options>
kiln_status_t readOptions(const Options *given, void (*init)(Options *),
                          size_t minimumSize, const char *type,
                          const char *initName, Options *out) {
  init(out);
  if (!given)
    return nullptr;
  if (given->struct_size < minimumSize || given->struct_size > sizeof(Options))
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << type << ".struct_size is " << given->struct_size
           << ", but this runtime reads " << minimumSize << " to "
           << sizeof(Options) << " bytes"
           << (given->struct_size == 0
                   ? " (fill the struct with " + std::string(initName) +
                         " before setting fields)"
               : given->struct_size > sizeof(Options)
                   ? " (the program was built with a newer kiln "
                     "runtime header than this library)"
                   : "");
  std::memcpy(static_cast<void *>(out), given, given->struct_size);
  out->struct_size = sizeof(Options);
  return nullptr;
}

} // namespace

kiln_status_t readLoadOptions(const kiln_load_options_t *given,
                              kiln_load_options_t *out) {
  return readOptions(given, kiln_load_options_init, kLoadOptionsVersion1Size,
                     "kiln_load_options_t", "kiln_load_options_init", out);
}

kiln_status_t readSessionOptions(const kiln_session_options_t *given,
                                 kiln_session_options_t *out) {
  return readOptions(given, kiln_session_options_init,
                     kSessionOptionsVersion1Size, "kiln_session_options_t",
                     "kiln_session_options_init", out);
}

bool environmentFlag(const char *name, bool otherwise) {
  const char *value = std::getenv(name);
  if (!value || value[0] == '\0')
    return otherwise;
  return std::strcmp(value, "0") != 0;
}

} // namespace kiln::runtime
