// What the importer and kiln-inline-constant-ifs both ask of an If's
// condition (kiln.if lives in KilnControlFlowOps.td).
#ifndef KILN_DIALECT_KILN_IR_CONTROLFLOWUTILS_H
#define KILN_DIALECT_KILN_IR_CONTROLFLOWUTILS_H

#include "mlir/IR/Value.h"

#include <optional>

namespace kiln {

/// The value of |condition| when it is a one-element bool kiln.constant: an
/// If with it is its taken branch.
std::optional<bool> getConstantIfCondition(mlir::Value condition);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_CONTROLFLOWUTILS_H
