// Parsing, checking and evaluating the run-time extents of a format-3
// manifest: the grammar of the compiler's DimExpr::str (terms joined by
// + and -, factors by *, names bare or in double quotes, integers).
#include "dim_exprs.h"
#include "status.h"

#include "kiln/artifact_format.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace kiln::runtime {

using namespace kiln::artifact;

namespace {
template <typename T> uint32_t count(const flatbuffers::Vector<T> *vector) {
  return vector ? vector->size() : 0;
}

void skipSpaces(std::string_view &text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
}

bool isNameStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
} // namespace

std::optional<DimExpression>
DimExpression::parse(std::string_view text,
                     const std::vector<std::string> &rangeNames,
                     std::string *why) {
  auto fail = [&](const std::string &reason) -> std::optional<DimExpression> {
    if (why)
      *why = reason;
    return std::nullopt;
  };
  DimExpression expression;
  skipSpaces(text);
  bool negative = !text.empty() && text.front() == '-';
  if (negative)
    text.remove_prefix(1);
  while (true) {
    Term term;
    term.coefficient = negative ? -1 : 1;
    while (true) {
      skipSpaces(text);
      if (text.empty())
        return fail("a factor is missing");
      if (std::isdigit(static_cast<unsigned char>(text.front()))) {
        int64_t value = 0;
        while (!text.empty() &&
               std::isdigit(static_cast<unsigned char>(text.front()))) {
          if (__builtin_mul_overflow(value, 10, &value) ||
              __builtin_add_overflow(value, text.front() - '0', &value))
            return fail("an integer overflows");
          text.remove_prefix(1);
        }
        if (__builtin_mul_overflow(term.coefficient, value, &term.coefficient))
          return fail("a coefficient overflows");
      } else {
        std::string name;
        if (text.front() == '"') {
          size_t end = text.find('"', 1);
          if (end == std::string_view::npos)
            return fail("a quoted name is not closed");
          name = std::string(text.substr(1, end - 1));
          text.remove_prefix(end + 1);
        } else if (isNameStart(text.front())) {
          size_t end = 1;
          while (end < text.size() && isNameChar(text[end]))
            ++end;
          name = std::string(text.substr(0, end));
          text.remove_prefix(end);
        } else {
          return fail(std::string("unexpected '") + text.front() + "'");
        }
        auto found = std::find(rangeNames.begin(), rangeNames.end(), name);
        if (found == rangeNames.end())
          return fail("'" + name + "' is not a ranged dim");
        term.dims.push_back(uint32_t(found - rangeNames.begin()));
      }
      skipSpaces(text);
      if (text.empty() || text.front() != '*')
        break;
      text.remove_prefix(1);
    }
    std::sort(term.dims.begin(), term.dims.end());
    expression.terms.push_back(std::move(term));
    if (text.empty())
      return expression;
    if (text.front() != '+' && text.front() != '-')
      return fail(std::string("unexpected '") + text.front() + "'");
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
}

DimExpression DimExpression::constant(int64_t value) {
  DimExpression expression;
  expression.terms.push_back(Term{value, {}});
  return expression;
}

std::optional<int64_t>
DimExpression::evaluate(const std::vector<int64_t> &dims) const {
  int64_t total = 0;
  for (const Term &term : terms) {
    int64_t product = term.coefficient;
    for (uint32_t dim : term.dims)
      if (dim >= dims.size() || __builtin_mul_overflow(product, dims[dim],
                                                       &product))
        return std::nullopt;
    if (__builtin_add_overflow(total, product, &total))
      return std::nullopt;
  }
  return total;
}

std::vector<uint32_t> DimExpression::dimsUsed() const {
  std::set<uint32_t> used;
  for (const Term &term : terms)
    used.insert(term.dims.begin(), term.dims.end());
  return std::vector<uint32_t>(used.begin(), used.end());
}

std::optional<uint32_t> DimExpression::asDim() const {
  if (terms.size() == 1 && terms[0].coefficient == 1 &&
      terms[0].dims.size() == 1)
    return terms[0].dims[0];
  return std::nullopt;
}

std::vector<std::string> dimRangeNames(const Model &model) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < count(model.dim_ranges()); ++i) {
    const flatbuffers::String *name = model.dim_ranges()->Get(i)->name();
    names.push_back(name ? name->str() : std::string());
  }
  return names;
}

namespace {
/// Each ranged dim at its hi, for the largest extents.
std::vector<int64_t> largestDims(const Model &model) {
  std::vector<int64_t> dims;
  for (uint32_t i = 0; i < count(model.dim_ranges()); ++i)
    dims.push_back(model.dim_ranges()->Get(i)->hi());
  return dims;
}
} // namespace

kiln_status_t validateDimRanges(const Model &model) {
  // Format 3 is the ranged artifacts without slice views; format 4 (slice
  // views) may have ranged dims or not; formats 1 and 2 have none.
  bool ranged = count(model.dim_ranges()) > 0;
  uint32_t format = model.format_version();
  if (format < kSliceViewsFormatVersion &&
      ranged != (format == kDynamicShapesFormatVersion))
    return Error(KILN_STATUS_DATA_LOSS)
           << "format " << format << (ranged ? " with" : " without")
           << " ranged dims (format " << kDynamicShapesFormatVersion
           << " has them, formats " << kFormatVersion << " and "
           << kBoundsChecksFormatVersion << " not)";
  std::set<std::string> seen;
  for (uint32_t i = 0; i < count(model.dim_ranges()); ++i) {
    const DimRange &range = *model.dim_ranges()->Get(i);
    std::string name = range.name() ? range.name()->str() : std::string();
    if (name.empty() || !seen.insert(name).second)
      return Error(KILN_STATUS_DATA_LOSS)
             << "ranged dim " << i << " has "
             << (name.empty() ? "no name" : "the name of another");
    if (range.lo() < 1 || range.lo() > range.opt() || range.opt() > range.hi())
      return Error(KILN_STATUS_DATA_LOSS)
             << "ranged dim '" << name << "': " << range.lo() << ".."
             << range.hi() << ":" << range.opt()
             << " is not 1 <= lo <= opt <= hi";
  }
  return nullptr;
}

kiln_status_t validateDimExprs(
    const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *exprs,
    const flatbuffers::Vector<int64_t> *shape, const Model &model,
    const std::string &what) {
  if (count(exprs) == 0)
    return nullptr;
  if (count(exprs) != count(shape))
    return Error(KILN_STATUS_DATA_LOSS)
           << what << ": " << count(exprs) << " dim expressions for "
           << count(shape) << " dims";
  std::vector<std::string> names = dimRangeNames(model);
  std::vector<int64_t> largest = largestDims(model);
  for (uint32_t d = 0; d < exprs->size(); ++d) {
    std::string text = exprs->Get(d)->str(), why;
    std::optional<DimExpression> expression =
        DimExpression::parse(text, names, &why);
    if (!expression)
      return Error(KILN_STATUS_DATA_LOSS)
             << what << ": dim " << d << " '" << text
             << "' is not an extent of the ranged dims: " << why;
    std::optional<int64_t> size = expression->evaluate(largest);
    bool isStatic = expression->dimsUsed().empty();
    if (!size || *size < 0 || *size > shape->Get(d) ||
        (isStatic && *size != shape->Get(d)))
      return Error(KILN_STATUS_DATA_LOSS)
             << what << ": dim " << d << " '" << text << "' does not fit "
             << "its size " << shape->Get(d) << " at the ranges' maximum";
  }
  return nullptr;
}

kiln_status_t validateLaunchExtents(const Step &step, const Model &model) {
  const LaunchExtents *extents = step.run_time_extents();
  if (!extents)
    return nullptr;
  if (!extents->element_count())
    return Error(KILN_STATUS_DATA_LOSS) << "run-time extents without an "
                                           "element_count";
  std::vector<std::string> names = dimRangeNames(model);
  std::string text = extents->element_count()->str(), why;
  std::optional<DimExpression> expression =
      DimExpression::parse(text, names, &why);
  if (!expression)
    return Error(KILN_STATUS_DATA_LOSS)
           << "element_count '" << text
           << "' is not an extent of the ranged dims: " << why;
  // dim_args: distinct ranged dims in manifest order, every dim the count
  // names among them (the compiler passes every ranged dim, so that a
  // kernel can index any extent).
  std::vector<uint32_t> args;
  for (uint32_t i = 0; i < count(extents->dim_args()); ++i) {
    auto found = std::find(names.begin(), names.end(),
                           extents->dim_args()->Get(i)->str());
    if (found == names.end() ||
        (!args.empty() && uint32_t(found - names.begin()) <= args.back()))
      return Error(KILN_STATUS_DATA_LOSS)
             << "dim_args are not distinct ranged dims in manifest order";
    args.push_back(uint32_t(found - names.begin()));
  }
  for (uint32_t dim : expression->dimsUsed())
    if (std::find(args.begin(), args.end(), dim) == args.end())
      return Error(KILN_STATUS_DATA_LOSS)
             << "dim_args do not hold every ranged dim element_count '" << text
             << "' names";
  std::vector<uint32_t> used = args;
  if (extents->units_per_block() == 0)
    return Error(KILN_STATUS_DATA_LOSS) << "units_per_block is 0";
  if (count(step.args()) + used.size() > kMaxKernelParameters)
    return Error(KILN_STATUS_DATA_LOSS)
           << count(step.args()) << " buffers and " << used.size()
           << " dim parameters";
  return nullptr;
}

kiln_status_t validateLibraryExtent(const Step &step, const Model &model) {
  bool gemm = step.kind() == StepKind_Gemm;
  const flatbuffers::String *text =
      gemm ? (step.gemm() ? step.gemm()->m_expr() : nullptr)
           : (step.conv() ? step.conv()->n_expr() : nullptr);
  if (!text)
    return nullptr;
  const char *what = gemm ? "m_expr" : "n_expr";
  std::string why;
  std::optional<DimExpression> expression =
      DimExpression::parse(text->str(), dimRangeNames(model), &why);
  if (!expression)
    return Error(KILN_STATUS_DATA_LOSS)
           << what << " '" << text->str()
           << "' is not an extent of the ranged dims: " << why;
  int64_t size = gemm ? step.gemm()->m() : step.conv()->n();
  std::optional<int64_t> largest = expression->evaluate(largestDims(model));
  if (!largest || *largest != size)
    return Error(KILN_STATUS_DATA_LOSS)
           << what << " '" << text->str() << "' is not " << size
           << " at the ranges' maximum";
  if (gemm && step.gemm()->batch() != 1)
    return Error(KILN_STATUS_DATA_LOSS)
           << "a gemm with m_expr '" << text->str() << "' has batch "
           << step.gemm()->batch() << " (a run-time M needs one product)";
  return nullptr;
}

} // namespace kiln::runtime
