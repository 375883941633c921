// C++ declaration of ElementalOpInterface (see ElementalInterface.td); the
// emitter and index types it uses live in kiln/Target/CUDA/ElementalEmitter.h.
#ifndef KILN_DIALECT_KILN_IR_ELEMENTALINTERFACE_H
#define KILN_DIALECT_KILN_IR_ELEMENTALINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/Support/LogicalResult.h"

#include <string>

namespace kiln {
class ElementalEmitter;
struct ElementIndex;
} // namespace kiln

#include "kiln/Dialect/Kiln/IR/ElementalInterface.h.inc"

#endif // KILN_DIALECT_KILN_IR_ELEMENTALINTERFACE_H
