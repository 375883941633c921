// Shape arithmetic shared by kiln's type inference, folding and evaluator:
// NumPy broadcasting, axis normalisation and reading constant operands.
#ifndef KILN_DIALECT_KILN_IR_SHAPEUTILS_H
#define KILN_DIALECT_KILN_IR_SHAPEUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace kiln {

/// True when every pair of types is a tensor with the same element type and
/// compatible shapes (a dynamic dimension or an unranked tensor matches any).
bool areCompatibleTensorTypes(mlir::TypeRange lhs, mlir::TypeRange rhs);

/// NumPy broadcast of two shapes; dynamic dims stay dynamic unless the other
/// side fixes them. Returns std::nullopt when two static dims differ and
/// neither is 1.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs);

/// Result type of an elementwise op with NumPy broadcasting: checks that all
/// |operands| share one element type and pushes the broadcast shape with
/// |resultElement| (or that element type when null); an error at |location|
/// when the shapes do not broadcast.
mlir::LogicalResult
inferSameElementBroadcast(std::optional<mlir::Location> location,
                          mlir::ValueRange operands, mlir::Type resultElement,
                          llvm::SmallVectorImpl<mlir::Type> &inferred);

/// Result type of a reduction of |data| over the 1-D |axes| operand (null:
/// every axis, or none with |noopWithEmptyAxes|), with ONNX opset-18
/// semantics; dims are dynamic where the axes are not constant. An error at
/// |location| for an axis out of range or repeated.
mlir::LogicalResult inferReductionType(std::optional<mlir::Location> location,
                                       mlir::Value data, mlir::Value axes,
                                       bool keepDims, bool noopWithEmptyAxes,
                                       llvm::SmallVectorImpl<mlir::Type> &inferred);

/// Maps a possibly negative axis into [0, rank); std::nullopt if out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// |axes| normalised against |rank|, in their order; std::nullopt when one
/// is out of range or two name the same dim, with *|problem| (when given)
/// saying which: "axis A is out of range for rank R" or "axis A is listed
/// more than once" (A as listed). Pad's axes in type inference, folds and
/// the evaluator.
std::optional<llvm::SmallVector<int64_t>>
normalizeDistinctAxes(llvm::ArrayRef<int64_t> axes, int64_t rank,
                      std::string *problem = nullptr);

/// The integer values of a constant operand (kiln.constant or any ConstantLike
/// op holding integer elements), or std::nullopt if it is not constant.
std::optional<llvm::SmallVector<int64_t>> getConstantIntegers(mlir::Value value);

/// The values of a 1-D i64 shape-like operand where known, with
/// ShapedType::kDynamic for entries that are only known at run time. Looks
/// through constants, kiln.shape (static dims of its input), kiln.concat,
/// kiln.unsqueeze / kiln.reshape of scalars and kiln.gather of a shape, so a
/// shape built from a partly dynamic tensor still yields its static entries.
std::optional<llvm::SmallVector<int64_t>> getPartialIntegers(mlir::Value value);

/// The integer values of an integer ElementsAttr (dense or dense_resource).
std::optional<llvm::SmallVector<int64_t>>
getIntegerElements(mlir::ElementsAttr attr);

/// The raw little-endian bytes of a dense_resource or non-splat dense
/// attribute; empty for splats and unavailable blobs.
llvm::ArrayRef<char> getRawElementBytes(mlir::ElementsAttr attr);

/// |value|'s type, a tensor type (every kiln value is a tensor).
inline mlir::TensorType tensorOf(mlir::Value value) {
  return llvm::cast<mlir::TensorType>(value.getType());
}

/// The shape of |value|'s type (ranked). The CUDA target's indexedShapeOf
/// differs: it collapses run-time prefixes as the templates index them.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value value) {
  return llvm::cast<mlir::ShapedType>(value.getType()).getShape();
}

/// A rank-|rank| tensor type of dynamic dims, or unranked when |rank| is
/// unknown: the result type of an op whose shape operand is not known yet.
mlir::Type dynamicTensor(std::optional<int64_t> rank, mlir::Type element);

/// Length of a 1-D value whose size is static (a shape or axes list).
std::optional<int64_t> staticLength(mlir::Value value);

/// Product of the dims, or std::nullopt if any is dynamic.
std::optional<int64_t> getStaticElementCount(llvm::ArrayRef<int64_t> shape);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_SHAPEUTILS_H
