// Run-time extents (format version 3): the ranged dims of an artifact, the
// printed extent expressions its manifest carries (`batch*seq*12 + 4`, as
// the compiler's DimExpr prints them), and their checks and evaluation.
#ifndef KILN_RUNTIME_DIM_EXPRS_H
#define KILN_RUNTIME_DIM_EXPRS_H

#include "kiln_artifact_generated.h"

#include "kiln/runtime.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::runtime {

/// An extent: a sum of terms, each a coefficient times a product of
/// ranged-dim indices (into Model.dim_ranges).
class DimExpression {
public:
  /// Parses |text| with the names of |rangeNames|; std::nullopt (and the
  /// reason in |why|) for a malformed expression or a name not among them.
  static std::optional<DimExpression>
  parse(std::string_view text, const std::vector<std::string> &rangeNames,
        std::string *why);
  /// A static extent.
  static DimExpression constant(int64_t value);

  /// The value for |dims| (one per ranged dim); std::nullopt on overflow.
  std::optional<int64_t> evaluate(const std::vector<int64_t> &dims) const;
  /// The ranged dims it names, ascending, without repeats.
  std::vector<uint32_t> dimsUsed() const;
  /// The ranged dim it is, when it is exactly one (`batch`).
  std::optional<uint32_t> asDim() const;

private:
  struct Term {
    int64_t coefficient = 1;
    std::vector<uint32_t> dims;
  };
  std::vector<Term> terms;
};

/// The names of |model|'s ranged dims, in manifest order.
std::vector<std::string> dimRangeNames(const kiln::artifact::Model &model);

/// DATA_LOSS unless |model|'s ranges are well formed (names non-empty and
/// distinct, 1 <= lo <= opt <= hi) and present exactly in format version 3.
kiln_status_t validateDimRanges(const kiln::artifact::Model &model);

/// DATA_LOSS unless |exprs| is empty or has one parseable expression of
/// the ranged dims per dim of |shape|, a static one equal to its size and a
/// run-time one at most its size at the ranges' maximum.
kiln_status_t validateDimExprs(
    const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *exprs,
    const flatbuffers::Vector<int64_t> *shape,
    const kiln::artifact::Model &model, const std::string &what);

/// DATA_LOSS unless a launch's run-time extents (when it has them) are well
/// formed: an element count over the ranged dims, dim_args distinct ranged
/// dims in manifest order that hold every dim it names, and
/// units_per_block >= 1.
kiln_status_t validateLaunchExtents(const kiln::artifact::Step &step,
                                    const kiln::artifact::Model &model);

/// DATA_LOSS unless a Gemm's m_expr or a Conv's n_expr (when the step has
/// one) is an extent of the ranged dims whose value at the ranges' maximum
/// is the step's m or n, and a Gemm with one is a single product (batch 1).
kiln_status_t validateLibraryExtent(const kiln::artifact::Step &step,
                                    const kiln::artifact::Model &model);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_DIM_EXPRS_H
