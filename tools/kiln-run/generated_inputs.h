// Seeded random inputs for kiln-run when no --inputs are given.
#ifndef KILN_RUN_GENERATED_INPUTS_H
#define KILN_RUN_GENERATED_INPUTS_H

#include "tensor_files.h"

#include "kiln/runtime.h"

#include <cstdint>

namespace kiln::run {

/// Input |index| of shape and dtype |info|, filled from a generator seeded
/// with |seed| and |index| (the same values on every machine and run):
/// floating types uniform in [-1, 1) (never exactly 0), integers uniform in
/// [0, 16), bools 0 or 1. Integer inputs are often indices; kiln's gathers
/// clamp an index that is out of range, so small values keep them valid.
HostTensor generateInput(const kiln_tensor_info_t &info, uint64_t seed,
                         size_t index);

} // namespace kiln::run

#endif // KILN_RUN_GENERATED_INPUTS_H
