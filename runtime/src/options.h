// Reading the caller's option structs, which can grow: struct_size says how
// many of their bytes the caller's header knows.
#ifndef KILN_RUNTIME_OPTIONS_H
#define KILN_RUNTIME_OPTIONS_H

#include "kiln/runtime.h"

namespace kiln::runtime {

/// Fills |*out| with the defaults, then with the first given->struct_size
/// bytes of |given| (NULL: the defaults only). INVALID_ARGUMENT, naming the
/// struct and the sizes this runtime reads, when struct_size is 0 (never
/// initialised), smaller than API version 1's struct or larger than this
/// runtime's (a newer header).
kiln_status_t readLoadOptions(const kiln_load_options_t *given,
                              kiln_load_options_t *out);
kiln_status_t readSessionOptions(const kiln_session_options_t *given,
                                 kiln_session_options_t *out);

/// An on/off environment variable (KILN_DEBUG, KILN_PDL, ...): |otherwise|
/// when it is unset or empty, false when it is "0", true for any other
/// value.
bool environmentFlag(const char *name, bool otherwise);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_OPTIONS_H
