// Symbolic tensor extents: polynomials over named dimensions (`batch*seq`,
// `seq*12`, `seq - 1`) with their printed form, parser and arithmetic.
#ifndef KILN_DIALECT_KILN_IR_DIMEXPR_H
#define KILN_DIALECT_KILN_IR_DIMEXPR_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// An extent as a sum of terms, each an integer coefficient times a product
/// of named dimensions (the names of `kiln.dim_names`): `batch*seq*12`,
/// `seq + 1`, `768`. Kept canonical (factors sorted, like terms merged, no
/// zero terms), so two equal expressions compare equal. Arithmetic that would
/// overflow int64 or that has no polynomial result gives std::nullopt: the
/// extent is then unknown, never wrong.
class DimExpr {
public:
  /// The product of names of one term, sorted, with repeats (`seq*seq`).
  using Monomial = std::vector<std::string>;

  /// The expression 0.
  DimExpr() = default;
  static DimExpr constant(int64_t value);
  static DimExpr symbol(llvm::StringRef name);

  /// The value when the expression names no dimension.
  std::optional<int64_t> getConstant() const;
  /// The dimension names it uses, sorted, without repeats.
  std::vector<std::string> getSymbols() const;
  /// A value it cannot go below when every dimension is at least 1: its
  /// value at all dims 1 when no coefficient is negative (it only grows
  /// with each dim); std::nullopt otherwise.
  std::optional<int64_t> getLowerBound() const;

  friend std::optional<DimExpr> operator+(const DimExpr &lhs,
                                          const DimExpr &rhs);
  friend std::optional<DimExpr> operator-(const DimExpr &lhs,
                                          const DimExpr &rhs);
  friend std::optional<DimExpr> operator*(const DimExpr &lhs,
                                          const DimExpr &rhs);
  /// lhs / rhs when rhs is one term and divides every term of lhs exactly
  /// (`batch*seq*768 / (batch*768)` is `seq`); std::nullopt otherwise.
  friend std::optional<DimExpr> divideExactly(const DimExpr &lhs,
                                              const DimExpr &rhs);
  bool operator==(const DimExpr &other) const { return terms == other.terms; }
  bool operator!=(const DimExpr &other) const { return !(*this == other); }

  /// The value with every name replaced by |valueOf|(name); std::nullopt
  /// when a name has no value or the result overflows.
  template <typename ValueOf>
  std::optional<int64_t> evaluate(ValueOf valueOf) const;

  /// The printed form: terms by falling degree, factors joined by `*`, the
  /// coefficient last (`batch*seq*12 + seq - 1`); a name that is not an
  /// identifier is quoted ("\"a b\""). parse() reads it back.
  std::string str() const;
  static std::optional<DimExpr> parse(llvm::StringRef text);

  /// The expression as C++ integer arithmetic, each name spelled by
  /// |nameText|(name) and each coefficient a long long literal:
  /// `(kiln_dim0 * 72LL)`, `(kiln_dim0 * kiln_dim1 + -1LL)`. For the CUDA
  /// emitter's run-time element counts.
  std::string
  formatAsCode(llvm::function_ref<std::string(llvm::StringRef)> nameText) const;

private:
  explicit DimExpr(std::map<Monomial, int64_t> terms)
      : terms(std::move(terms)) {}

  std::map<Monomial, int64_t> terms; // Monomial {} is the constant term.
};

/// The op attribute in which kiln-record-dim-exprs writes the extents of an
/// op's result: one string per dim, `["batch*seq", "768"]`, `"?"` for an
/// extent that is not known as an expression.
inline constexpr llvm::StringLiteral kDimExprsAttrName = "kiln.dim_exprs";

/// The check of `kiln.dim_exprs` on |op|: one result, ranked, one
/// entry per dim, each `?` or an expression that parses, a static dim's entry
/// its size.
mlir::LogicalResult verifyDimExprsAttribute(mlir::Operation *op,
                                            mlir::Attribute attribute);

/// The extents |op| records in `kiln.dim_exprs` (std::nullopt entries for
/// `?`); empty when it records none.
std::vector<std::optional<DimExpr>> getRecordedDimExprs(mlir::Operation *op);

template <typename ValueOf>
std::optional<int64_t> DimExpr::evaluate(ValueOf valueOf) const {
  int64_t total = 0;
  for (const auto &[monomial, coefficient] : terms) {
    int64_t product = coefficient;
    for (const std::string &name : monomial) {
      std::optional<int64_t> value = valueOf(name);
      if (!value || __builtin_mul_overflow(product, *value, &product))
        return std::nullopt;
    }
    if (__builtin_add_overflow(total, product, &total))
      return std::nullopt;
  }
  return total;
}

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_DIMEXPR_H
