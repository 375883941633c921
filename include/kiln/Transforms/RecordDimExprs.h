// kiln-record-dim-exprs: writes each dynamic result's extents as expressions
// of the named input dims (`kiln.dim_exprs`), from SymbolicShapes.
#ifndef KILN_TRANSFORMS_RECORDDIMEXPRS_H
#define KILN_TRANSFORMS_RECORDDIMEXPRS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace kiln {

/// The pass on a func.func: on every op whose result has a dynamic dim, the
/// result's extents as `kiln.dim_exprs = ["batch*seq", "768"]` (a static dim
/// as its size, `?` where no rule derives one). It makes the analysis
/// visible; the passes that need extents run the analysis themselves.
/// (Declared here, not in Passes.td, for now: a Passes.td change rebuilds
/// every pass's source.)
std::unique_ptr<mlir::Pass> createKilnRecordDimExprs();

/// What the pass does to |function| (after verifying its attributes); a
/// pass that adds ops with dynamic results (fusion's preparation) calls it
/// again so that every op has its extents.
void recordDimExprs(mlir::func::FuncOp function);

/// Registers the pass for kiln-opt (`--kiln-record-dim-exprs`).
void registerKilnRecordDimExprs();

} // namespace kiln

#endif // KILN_TRANSFORMS_RECORDDIMEXPRS_H
