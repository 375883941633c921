// The limits kiln puts on tensor types and the checked arithmetic of their
// element counts and byte sizes, shared by type inference, the importer, the
// graph passes and the memory plan.
#ifndef KILN_DIALECT_KILN_IR_TENSORLIMITS_H
#define KILN_DIALECT_KILN_IR_TENSORLIMITS_H

#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

/// The largest tensor rank kiln accepts. ONNX sets none; a longer shape
/// operand is damage (or an attack), and every pass is linear in the rank.
constexpr int64_t kMaxRank = 64;

/// An error at |location| when |rank| is known and beyond kMaxRank.
mlir::LogicalResult checkRank(std::optional<mlir::Location> location,
                              std::optional<int64_t> rank);

/// The product of |dims| with checked arithmetic: std::nullopt when a dim is
/// negative or dynamic or the product overflows int64.
std::optional<int64_t> checkedElementCount(llvm::ArrayRef<int64_t> dims);

/// Bytes of a statically shaped tensor of integer or float elements (i1 as
/// one byte), or std::nullopt when it is dynamic, of another element type,
/// or when its element count or byte size overflows int64.
std::optional<int64_t> getStaticByteSize(mlir::Type type);

/// Why a ranked tensor |type| is too large for kiln, or std::nullopt when it
/// is not: a rank beyond kMaxRank, a negative dim, or a product of its static
/// dims or its size in bytes beyond int64 ("a tensor of shape [...] has more
/// than 2^63 - 1 bytes"). Dynamic dims are ignored: the known part must fit.
/// Every type that a model can choose (graph inputs, op results,
/// --input-shape) is checked with it before any size is computed from it.
std::optional<std::string> findTensorSizeProblem(mlir::Type type);

/// findTensorSizeProblem as an error at |location|.
mlir::LogicalResult checkTensorSize(std::optional<mlir::Location> location,
                                    mlir::Type type);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_TENSORLIMITS_H
