// The ranges of symbolic dimensions (`kiln.dim_ranges`): reading them from a
// function and verifying the attribute.
#ifndef KILN_DIALECT_KILN_IR_DIMRANGES_H
#define KILN_DIALECT_KILN_IR_DIMRANGES_H

#include "kiln/Dialect/Kiln/IR/DimExpr.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The function attribute that maps a symbolic dimension name to its range,
/// `kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}` (lo, hi, opt), written
/// by kiln-specialize-shapes for `--input-shape batch=1..64`.
inline constexpr llvm::StringLiteral kDimRangesAttrName = "kiln.dim_ranges";

/// The sizes a ranged dimension takes at run time: lo <= opt <= hi, lo >= 1.
/// `opt` is the size the compiler tunes for (TensorRT's optimisation profile).
struct DimRange {
  int64_t lo = 1;
  int64_t hi = 1;
  int64_t opt = 1;
};

/// "1..64" (with ":opt" when opt is not hi), as --input-shape spells it.
std::string formatDimRange(const DimRange &range);

/// "[batch*seq, 16]": |extents| as expressions (`?` where unknown), and
/// in |rangesText| the ranges of the names they use ("batch in 1..64"),
/// for the errors that name run-time extents.
std::string
describeExtents(llvm::ArrayRef<std::optional<DimExpr>> extents,
                const llvm::MapVector<llvm::StringRef, DimRange> &ranges,
                std::string &rangesText);

/// The largest value of |extent| over |ranges|: the largest at the corners
/// of the box of ranges (each name at its lo or hi), which is exact for the
/// extents shapes give (each name to the first power: `batch*seq*12`,
/// `seq - 1`). std::nullopt for a name without a range, an overflow, or
/// more than 16 names.
std::optional<int64_t>
maximumExtent(const DimExpr &extent,
              const llvm::MapVector<llvm::StringRef, DimRange> &ranges);
/// The smallest value of |extent| over |ranges|, at the corners as above.
std::optional<int64_t>
minimumExtent(const DimExpr &extent,
              const llvm::MapVector<llvm::StringRef, DimRange> &ranges);

/// The extents recorded for |value| outside kernel bodies: the
/// `kiln.dim_exprs` of the op that defines it, or for a function argument
/// its `kiln.dim_names` (a static dim as its size, an unnamed dynamic one
/// std::nullopt); empty when none are recorded.
std::vector<std::optional<DimExpr>> getRecordedExtents(mlir::Value value);

/// The ranges recorded on |function| (its `kiln.dim_ranges`), by name in the
/// attribute's (sorted) order; empty when there are none.
llvm::MapVector<llvm::StringRef, DimRange>
getDimRanges(mlir::Operation *function);

/// The check of `kiln.dim_ranges` on |op|: a dictionary on a
/// function, each entry `array<i64: lo, hi, opt>` with 1 <= lo <= opt <= hi,
/// naming a dimension that some argument's `kiln.dim_names` gives to a
/// dynamic dim (a specialised dim has no range).
mlir::LogicalResult verifyDimRangesAttribute(mlir::Operation *op,
                                             mlir::Attribute attribute);

/// Checks the symbolic-dimension attributes in and under |root|:
/// `kiln.dim_ranges` (verifyDimRangesAttribute) and `kiln.dim_exprs`
/// (verifyDimExprsAttribute), with a located error for the first bad one.
/// The passes that read them call it first. (Not a dialect attribute
/// verifier: that hook changes the dialect's generated class, which every
/// kiln source includes.)
mlir::LogicalResult verifySymbolicDimAttributes(mlir::Operation *root);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_DIMRANGES_H
