// kiln-pack-depthwise-weights: stores the constant weights of channels-last
// depthwise convolutions channels innermost, [R, S, 1, C].
#ifndef KILN_TRANSFORMS_PACKDEPTHWISEWEIGHTS_H
#define KILN_TRANSFORMS_PACKDEPTHWISEWEIGHTS_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace kiln {

/// The pass on the module: every channels-last depthwise kiln.conv with one
/// output per input channel whose weight [C, R, S, 1] is a kiln.constant
/// (read by nothing else) reads it as
/// `kiln.transpose %w_rsc {perm = [3, 0, 1, 2]}` of a constant stored
/// [R, S, 1, C] (isDepthwiseWeightLayout), so that the conv's kernel reads
/// 16-byte vectors of channels per window cell. A constant with data is
/// transposed here, at compile time; a result of @kiln_init is transposed at
/// the end of the init program. It runs after kiln-outline-init, since
/// folding would put the constant back in the conv's own layout. (Declared
/// here, not in Passes.td, for now: a Passes.td change rebuilds every pass's
/// source.)
std::unique_ptr<mlir::Pass> createKilnPackDepthwiseWeights();

/// Registers the pass for kiln-opt (`--kiln-pack-depthwise-weights`).
void registerKilnPackDepthwiseWeights();

} // namespace kiln

#endif // KILN_TRANSFORMS_PACKDEPTHWISEWEIGHTS_H
