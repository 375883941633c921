// kiln-resolve-symbolic-reshapes: reshapes whose shape is computed from
// run-time extents get a constant shape (0 copies a dim, -1 infers one).
#ifndef KILN_TRANSFORMS_RESOLVESYMBOLICRESHAPES_H
#define KILN_TRANSFORMS_RESOLVESYMBOLICRESHAPES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace kiln {

/// The pass on a func.func with ranged dims (kiln.dim_ranges): a
/// kiln.reshape whose shape operand is computed (exporters build BERT's
/// head split `[batch, seq, 12, 64]` from Shape -> Gather -> Concat) and
/// whose result extents SymbolicShapes knows becomes a reshape by a
/// constant shape: a static extent as itself, a run-time extent equal to
/// the input's extent in the same dim as 0 (copy), at most one other as
/// -1; then the function's types are refined, so the heads' 12 and the
/// merged 768 become static dims. A reshape it cannot resolve is left
/// alone. Without ranges it does nothing. (Declared here, not in
/// Passes.td, for the reason RecordDimExprs.h gives.)
std::unique_ptr<mlir::Pass> createKilnResolveSymbolicReshapes();

/// Registers the pass for kiln-opt (`--kiln-resolve-symbolic-reshapes`).
void registerKilnResolveSymbolicReshapes();

} // namespace kiln

#endif // KILN_TRANSFORMS_RESOLVESYMBOLICRESHAPES_H
