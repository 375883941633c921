// Semantics shared by the movement ops' type inference, CPU evaluator and CUDA
// models: Einsum equation parsing and Resize's per-dim sampling rule.
#ifndef KILN_DIALECT_KILN_IR_MOVEMENTSEMANTICS_H
#define KILN_DIALECT_KILN_IR_MOVEMENTSEMANTICS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

/// A parsed Einsum equation: each dim of each input and of the output gets a
/// label id; equal ids are one index. Letters are ids 0..51, the dims under
/// `...` are ids 64 + k (right-aligned across inputs, broadcasting).
struct EinsumSpec {
  llvm::SmallVector<llvm::SmallVector<int, 4>> inputs;
  llvm::SmallVector<int, 4> output;
  /// Labels summed over (in no output position), in first-seen order.
  llvm::SmallVector<int, 4> reduced;
};

/// Parses |equation| for inputs of |ranks|; std::nullopt with |error| set
/// when it is malformed or does not match the ranks.
std::optional<EinsumSpec> parseEinsum(llvm::StringRef equation,
                                      llvm::ArrayRef<int64_t> ranks,
                                      std::string &error);

/// The size of every label (|shapes| are the inputs' shapes, -1 = dynamic);
/// a size-1 dim broadcasts. std::nullopt with |error| when sizes conflict.
std::optional<llvm::SmallVector<int64_t>>
einsumLabelSizes(const EinsumSpec &spec,
                 llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                 std::string &error);

/// Resize's source coordinate for output position |x| of one dim
/// (ONNX's coordinate_transformation_mode); |scale| is the dim's scale
/// (output / input length when sizes were given), |roiStart|/|roiEnd| are
/// read by tf_crop_and_resize. std::nullopt for an unknown mode.
std::optional<double> resizeSourceCoordinate(llvm::StringRef mode, double x,
                                             double scale, int64_t inputLength,
                                             int64_t outputLength,
                                             double roiStart, double roiEnd);

/// The cubic convolution weights for the 4 points base-1..base+2 at
/// fractional offset |ratio| in (0, 1] (ONNX's reference with coefficient a).
void resizeCubicWeights(double ratio, double a, double weights[4]);

/// True when a Resize mode string is one kiln implements.
bool isSupportedResizeMode(llvm::StringRef mode);
bool isSupportedCoordinateMode(llvm::StringRef mode);
bool isSupportedNearestMode(llvm::StringRef mode);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_MOVEMENTSEMANTICS_H
