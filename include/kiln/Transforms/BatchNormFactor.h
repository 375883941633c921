// The per-channel factor of an inference batch norm, scale / sqrt(variance +
// epsilon), built as kiln ops on its parameters; shared by
// kiln-fold-batch-norm (which scales a convolution's weights by it) and
// kiln-assign-layout (which turns a channels-last batch norm into
// pointwise ops).
#ifndef KILN_TRANSFORMS_BATCHNORMFACTOR_H
#define KILN_TRANSFORMS_BATCHNORMFACTOR_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"

namespace kiln {

/// scale / sqrt(variance + epsilon) of |norm|, of its scale's type ([C]),
/// built at |builder|'s insertion point.
mlir::Value buildBatchNormFactor(mlir::OpBuilder &builder, mlir::Location loc,
                                 BatchNormOp norm);

} // namespace kiln

#endif // KILN_TRANSFORMS_BATCHNORMFACTOR_H
