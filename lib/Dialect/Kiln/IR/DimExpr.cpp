// Arithmetic, printing and parsing of DimExpr, the symbolic extents.
#include "kiln/Dialect/Kiln/IR/DimExpr.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

namespace kiln {

DimExpr DimExpr::constant(int64_t value) {
  DimExpr expr;
  if (value)
    expr.terms[{}] = value;
  return expr;
}

DimExpr DimExpr::symbol(llvm::StringRef name) {
  DimExpr expr;
  expr.terms[{name.str()}] = 1;
  return expr;
}

std::optional<int64_t> DimExpr::getConstant() const {
  if (terms.empty())
    return 0;
  if (terms.size() == 1 && terms.begin()->first.empty())
    return terms.begin()->second;
  return std::nullopt;
}

std::vector<std::string> DimExpr::getSymbols() const {
  std::vector<std::string> names;
  for (const auto &term : terms)
    names.insert(names.end(), term.first.begin(), term.first.end());
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::optional<int64_t> DimExpr::getLowerBound() const {
  for (const auto &term : terms)
    if (term.second < 0)
      return std::nullopt;
  return evaluate([](llvm::StringRef) { return std::optional<int64_t>(1); });
}

std::optional<DimExpr> operator+(const DimExpr &lhs, const DimExpr &rhs) {
  DimExpr sum = lhs;
  for (const auto &[monomial, coefficient] : rhs.terms) {
    int64_t &slot = sum.terms[monomial];
    if (__builtin_add_overflow(slot, coefficient, &slot))
      return std::nullopt;
    if (!slot)
      sum.terms.erase(monomial);
  }
  return sum;
}

std::optional<DimExpr> operator-(const DimExpr &lhs, const DimExpr &rhs) {
  std::optional<DimExpr> negated = rhs * DimExpr::constant(-1);
  if (!negated)
    return std::nullopt;
  return lhs + *negated;
}

std::optional<DimExpr> operator*(const DimExpr &lhs, const DimExpr &rhs) {
  DimExpr product;
  for (const auto &[left, leftCoefficient] : lhs.terms)
    for (const auto &[right, rightCoefficient] : rhs.terms) {
      DimExpr::Monomial monomial = left;
      monomial.insert(monomial.end(), right.begin(), right.end());
      llvm::sort(monomial);
      int64_t coefficient;
      if (__builtin_mul_overflow(leftCoefficient, rightCoefficient,
                                 &coefficient))
        return std::nullopt;
      std::optional<DimExpr> sum =
          product + DimExpr{std::map<DimExpr::Monomial, int64_t>{
                        {monomial, coefficient}}};
      if (!sum)
        return std::nullopt;
      product = std::move(*sum);
    }
  return product;
}

std::optional<DimExpr> divideExactly(const DimExpr &lhs, const DimExpr &rhs) {
  if (rhs.terms.size() != 1)
    return std::nullopt;
  const auto &[divisor, divisorCoefficient] = *rhs.terms.begin();
  DimExpr quotient;
  for (const auto &[monomial, coefficient] : lhs.terms) {
    if (coefficient % divisorCoefficient)
      return std::nullopt;
    // Remove the divisor's names (both sorted) from the term's.
    DimExpr::Monomial rest;
    auto next = monomial.begin();
    for (const std::string &name : divisor) {
      while (next != monomial.end() && *next < name)
        rest.push_back(*next++);
      if (next == monomial.end() || *next != name)
        return std::nullopt;
      ++next;
    }
    rest.insert(rest.end(), next, monomial.end());
    quotient.terms[rest] = coefficient / divisorCoefficient;
  }
  return quotient;
}

/// True for a name printed bare: a C identifier.
static bool isIdentifier(llvm::StringRef name) {
  return !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

std::string DimExpr::str() const {
  if (terms.empty())
    return "0";
  // Falling degree, then the names' order; the constant term last.
  std::vector<std::pair<Monomial, int64_t>> ordered(terms.begin(), terms.end());
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto &a, const auto &b) {
                     return a.first.size() > b.first.size();
                   });
  std::string text;
  for (auto [index, term] : llvm::enumerate(ordered)) {
    auto [monomial, coefficient] = term;
    if (index)
      text += coefficient < 0 ? " - " : " + ";
    else if (coefficient < 0)
      text += "-";
    uint64_t magnitude =
        coefficient < 0 ? 0 - uint64_t(coefficient) : uint64_t(coefficient);
    std::vector<std::string> factors;
    for (const std::string &name : monomial)
      factors.push_back(isIdentifier(name) ? name : "\"" + name + "\"");
    if (magnitude != 1 || monomial.empty())
      factors.push_back(std::to_string(magnitude));
    text += llvm::join(factors, "*");
  }
  return text;
}

/// One factor: an integer, an identifier or a quoted name; advances |text|.
static bool parseFactor(llvm::StringRef &text, DimExpr &factor) {
  text = text.ltrim();
  if (text.consume_front("\"")) {
    size_t end = text.find('"');
    if (end == llvm::StringRef::npos)
      return false;
    factor = DimExpr::symbol(text.take_front(end));
    text = text.drop_front(end + 1);
    return true;
  }
  if (!text.empty() && llvm::isDigit(text[0])) {
    llvm::StringRef digits = text.take_while(llvm::isDigit);
    int64_t value;
    if (digits.getAsInteger(10, value))
      return false;
    factor = DimExpr::constant(value);
    text = text.drop_front(digits.size());
    return true;
  }
  llvm::StringRef name =
      text.take_while([](char c) { return llvm::isAlnum(c) || c == '_'; });
  if (!isIdentifier(name))
    return false;
  factor = DimExpr::symbol(name);
  text = text.drop_front(name.size());
  return true;
}

std::optional<DimExpr> DimExpr::parse(llvm::StringRef text) {
  DimExpr sum;
  text = text.trim();
  bool negative = text.consume_front("-");
  while (true) {
    DimExpr term = DimExpr::constant(negative ? -1 : 1);
    do {
      DimExpr factor;
      if (!parseFactor(text, factor))
        return std::nullopt;
      std::optional<DimExpr> product = term * factor;
      if (!product)
        return std::nullopt;
      term = std::move(*product);
      text = text.ltrim();
    } while (text.consume_front("*"));
    std::optional<DimExpr> next = sum + term;
    if (!next)
      return std::nullopt;
    sum = std::move(*next);
    if (text.empty())
      return sum;
    if (text.consume_front("+"))
      negative = false;
    else if (text.consume_front("-"))
      negative = true;
    else
      return std::nullopt;
  }
}

mlir::LogicalResult verifyDimExprsAttribute(mlir::Operation *op,
                                            mlir::Attribute attribute) {
  auto entries = llvm::dyn_cast<mlir::ArrayAttr>(attribute);
  auto type =
      op->getNumResults() == 1
          ? llvm::dyn_cast<mlir::RankedTensorType>(op->getResult(0).getType())
          : nullptr;
  if (!type)
    return op->emitOpError()
           << "'" << kDimExprsAttrName << "' needs one ranked tensor result";
  if (!entries || int64_t(entries.size()) != type.getRank())
    return op->emitOpError() << "'" << kDimExprsAttrName << "' needs "
                             << type.getRank() << " strings, one per dim";
  for (auto [d, entry] : llvm::enumerate(entries)) {
    auto text = llvm::dyn_cast<mlir::StringAttr>(entry);
    if (!text)
      return op->emitOpError() << "'" << kDimExprsAttrName << "' entry " << d
                               << " is not a string";
    if (text.getValue() == "?" && type.isDynamicDim(d))
      continue;
    std::optional<DimExpr> expr = DimExpr::parse(text.getValue());
    if (!expr)
      return op->emitOpError()
             << "'" << kDimExprsAttrName << "' entry " << d << " '"
             << text.getValue() << "' is not an extent expression";
    if (!type.isDynamicDim(d) && expr->getConstant() != type.getDimSize(d))
      return op->emitOpError()
             << "'" << kDimExprsAttrName << "' entry " << d << " '"
             << text.getValue() << "' disagrees with the static size "
             << type.getDimSize(d);
  }
  return mlir::success();
}

std::string DimExpr::formatAsCode(
    llvm::function_ref<std::string(llvm::StringRef)> nameText) const {
  if (terms.empty())
    return "0LL";
  std::string text;
  for (const auto &[monomial, coefficient] : terms) {
    std::string term;
    for (const std::string &name : monomial)
      term += (term.empty() ? "" : " * ") + nameText(name);
    if (term.empty())
      term = std::to_string(coefficient) + "LL";
    else if (coefficient != 1)
      term += " * " + std::to_string(coefficient) + "LL";
    text += (text.empty() ? "" : " + ") + term;
  }
  return "(" + text + ")";
}

std::vector<std::optional<DimExpr>> getRecordedDimExprs(mlir::Operation *op) {
  std::vector<std::optional<DimExpr>> extents;
  auto entries = op->getAttrOfType<mlir::ArrayAttr>(kDimExprsAttrName);
  if (!entries)
    return extents;
  for (mlir::Attribute entry : entries) {
    auto text = llvm::dyn_cast<mlir::StringAttr>(entry);
    extents.push_back(text ? DimExpr::parse(text.getValue()) : std::nullopt);
  }
  return extents;
}

} // namespace kiln
