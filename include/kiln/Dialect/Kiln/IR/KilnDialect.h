// The kiln dialect's C++ declaration.
#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_H
#define KILN_DIALECT_KILN_IR_KILNDIALECT_H

#include "mlir/IR/Dialect.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h.inc"

namespace kiln {

/// On the module (importer): the weights that came from ONNX external data,
/// blob key -> [location, offset, length], so that kiln-compile
/// --external-weights can leave them in that file.
constexpr const char *kExternalDataAttr = "kiln.external_data";

/// The function that kiln-outline-init builds from the weight transforms
/// (casts, transposes, folds of large weights): it runs once on the GPU at
/// load and writes its results into the weight arena.
constexpr const char *kInitFunctionName = "kiln_init";

/// On a kiln.constant of the entry function: the weight is result N of
/// @kiln_init. It has no data at compile time (a dense_resource without a
/// blob), so nothing may fold it.
constexpr const char *kInitResultAttr = "kiln.init_result";

/// On the module (kiln-convert-precision): the precision the model was
/// compiled for, "fp32" | "tf32" | "fp16" | "bf16".
constexpr const char *kPrecisionAttr = "kiln.precision";

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_H
