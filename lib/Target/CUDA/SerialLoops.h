// Internal: the serial loops and the axis check shared by the CUDA models
// that loop per result element (AlongAxisModels.cpp, NormModels.cpp).
#ifndef KILN_LIB_TARGET_CUDA_SERIALLOOPS_H
#define KILN_LIB_TARGET_CUDA_SERIALLOOPS_H

#include "ElementalModels.h"

#include <algorithm>
#include <string>

namespace kiln::cuda {

inline std::string loopHeader(const std::string &var, const std::string &begin,
                              const std::string &end) {
  return "for (kiln_index_t " + var + " = " + begin + "; " + var + " < " + end +
         "; ++" + var + ")";
}

/// Opens one loop per dim of |shape| from |first| on, replacing those entries
/// of |dims| with the loop variables; returns the number of loops opened.
inline unsigned openLoops(ElementalEmitter &emitter,
                          llvm::ArrayRef<int64_t> shape, size_t first,
                          llvm::SmallVectorImpl<std::string> &dims) {
  for (size_t d = first; d < shape.size(); ++d) {
    std::string r = emitter.fresh("r");
    emitter.open(loopHeader(r, "0", std::to_string(shape[d])));
    dims[d] = r;
  }
  return shape.size() - first;
}

inline void closeLoops(ElementalEmitter &emitter, unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    emitter.close();
}

inline mlir::FailureOr<int64_t> axisOf(ElementalEmitter &emitter,
                                       mlir::Operation *op, int64_t axis,
                                       int64_t rank) {
  std::optional<int64_t> normalized =
      normalizeAxis(axis, std::max<int64_t>(rank, 1));
  if (!normalized)
    return emitter.error(op) << "has axis " << axis << " out of range";
  return *normalized;
}

} // namespace kiln::cuda

#endif // KILN_LIB_TARGET_CUDA_SERIALLOOPS_H
