// Reading and verifying `kiln.dim_ranges`, the ranges of symbolic dimensions,
// and the check of every symbolic-dimension attribute.
#include "kiln/Dialect/Kiln/IR/DimRanges.h"

#include "kiln/Dialect/Kiln/IR/DimExpr.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

namespace kiln {

std::string formatDimRange(const DimRange &range) {
  std::string text = std::to_string(range.lo) + ".." + std::to_string(range.hi);
  if (range.opt != range.hi)
    text += ":" + std::to_string(range.opt);
  return text;
}

std::string describeExtents(ArrayRef<std::optional<DimExpr>> extents,
                            const llvm::MapVector<StringRef, DimRange> &ranges,
                            std::string &rangesText) {
  std::string text = "[";
  std::vector<std::string> names;
  for (auto [d, extent] : llvm::enumerate(extents)) {
    text += (d ? ", " : "") + (extent ? extent->str() : std::string("?"));
    if (extent)
      for (const std::string &name : extent->getSymbols())
        if (!llvm::is_contained(names, name))
          names.push_back(name);
  }
  for (const std::string &name : names) {
    auto range = ranges.find(name);
    if (range == ranges.end())
      continue;
    rangesText += (rangesText.empty() ? "" : ", ") + name + " in " +
                  formatDimRange(range->second);
  }
  return text + "]";
}

/// The largest (|largest|) or smallest value of |extent| at the corners of
/// the box of |ranges|: every name at its lo or hi.
static std::optional<int64_t>
cornerExtent(const DimExpr &extent,
             const llvm::MapVector<StringRef, DimRange> &ranges, bool largest) {
  std::vector<std::string> names = extent.getSymbols();
  for (const std::string &name : names)
    if (!ranges.count(name))
      return std::nullopt;
  // Every corner of the box of ranges (2^names, names are few).
  if (names.size() > 16)
    return std::nullopt;
  std::optional<int64_t> best;
  for (uint64_t corner = 0; corner < (uint64_t(1) << names.size()); ++corner) {
    std::optional<int64_t> value = extent.evaluate(
        [&](const std::string &name) -> std::optional<int64_t> {
          size_t bit = llvm::find(names, name) - names.begin();
          const DimRange &range = ranges.find(name)->second;
          return (corner >> bit) & 1 ? range.lo : range.hi;
        });
    if (!value)
      return std::nullopt;
    best = !best     ? *value
           : largest ? std::max(*best, *value)
                     : std::min(*best, *value);
  }
  return best;
}

std::optional<int64_t>
maximumExtent(const DimExpr &extent,
              const llvm::MapVector<StringRef, DimRange> &ranges) {
  return cornerExtent(extent, ranges, /*largest=*/true);
}

std::optional<int64_t>
minimumExtent(const DimExpr &extent,
              const llvm::MapVector<StringRef, DimRange> &ranges) {
  return cornerExtent(extent, ranges, /*largest=*/false);
}

llvm::MapVector<StringRef, DimRange> getDimRanges(Operation *function) {
  llvm::MapVector<StringRef, DimRange> ranges;
  auto dictionary = function->getAttrOfType<DictionaryAttr>(kDimRangesAttrName);
  if (!dictionary)
    return ranges;
  for (NamedAttribute entry : dictionary) {
    auto values = dyn_cast<DenseI64ArrayAttr>(entry.getValue());
    if (values && values.size() == 3)
      ranges[entry.getName().getValue()] =
          DimRange{values[0], values[1], values[2]};
  }
  return ranges;
}

/// Whether some argument of |function| names a dim |name|, and whether every
/// dim of that name is dynamic (|staticDim| set to the first static one).
static bool findNamedDim(FunctionOpInterface function, StringRef name,
                         std::string &staticDim) {
  bool found = false;
  for (unsigned i = 0; i < function.getNumArguments(); ++i) {
    auto dimNames = function.getArgAttrOfType<ArrayAttr>(i, "kiln.dim_names");
    auto type = dyn_cast<RankedTensorType>(function.getArgument(i).getType());
    if (!dimNames || !type)
      continue;
    for (auto [d, dimName] : llvm::enumerate(dimNames)) {
      auto text = dyn_cast<StringAttr>(dimName);
      if (!text || text.getValue() != name || int64_t(d) >= type.getRank())
        continue;
      found = true;
      if (!type.isDynamicDim(d) && staticDim.empty())
        staticDim = "argument " + std::to_string(i) + " dim " +
                    std::to_string(d) + " is " +
                    std::to_string(type.getDimSize(d));
    }
  }
  return found;
}

LogicalResult verifyDimRangesAttribute(Operation *op, Attribute attribute) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitOpError()
           << "'" << kDimRangesAttrName << "' belongs on a function";
  auto dictionary = dyn_cast<DictionaryAttr>(attribute);
  if (!dictionary)
    return op->emitOpError() << "'" << kDimRangesAttrName
                             << "' must be a dictionary of dimension ranges";
  for (NamedAttribute entry : dictionary) {
    StringRef name = entry.getName().getValue();
    auto values = dyn_cast<DenseI64ArrayAttr>(entry.getValue());
    if (!values || values.size() != 3)
      return op->emitOpError()
             << "range of dimension '" << name
             << "' must be array<i64: lo, hi, opt>, not " << entry.getValue();
    int64_t lo = values[0], hi = values[1], opt = values[2];
    if (lo < 1 || lo > hi || opt < lo || opt > hi)
      return op->emitOpError()
             << "range of dimension '" << name << "' needs 1 <= lo <= opt <= "
             << "hi, not lo " << lo << ", hi " << hi << ", opt " << opt;
    std::string staticDim;
    if (!findNamedDim(function, name, staticDim))
      return op->emitOpError() << "range of dimension '" << name
                               << "': no argument has a dimension of that name";
    if (!staticDim.empty())
      return op->emitOpError()
             << "range of dimension '" << name << "' on a static dimension ("
             << staticDim << ")";
  }
  return success();
}

LogicalResult verifySymbolicDimAttributes(Operation *root) {
  WalkResult result = root->walk([](Operation *op) {
    if (Attribute ranges = op->getAttr(kDimRangesAttrName))
      if (failed(verifyDimRangesAttribute(op, ranges)))
        return WalkResult::interrupt();
    if (Attribute exprs = op->getAttr(kDimExprsAttrName))
      if (failed(verifyDimExprsAttribute(op, exprs)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

std::vector<std::optional<DimExpr>> getRecordedExtents(mlir::Value value) {
  auto argument = llvm::dyn_cast_or_null<mlir::BlockArgument>(value);
  if (!argument)
    return value && value.getDefiningOp()
               ? getRecordedDimExprs(value.getDefiningOp())
               : std::vector<std::optional<DimExpr>>();
  auto function = llvm::dyn_cast_or_null<mlir::FunctionOpInterface>(
      argument.getOwner()->getParentOp());
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(argument.getType());
  if (!function || !type)
    return {};
  auto names = function.getArgAttrOfType<mlir::ArrayAttr>(
      argument.getArgNumber(), "kiln.dim_names");
  std::vector<std::optional<DimExpr>> extents;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    auto name = names && d < int64_t(names.size())
                    ? llvm::dyn_cast<mlir::StringAttr>(names[d])
                    : mlir::StringAttr();
    if (!type.isDynamicDim(d))
      extents.push_back(DimExpr::constant(type.getDimSize(d)));
    else if (name && !name.getValue().empty())
      extents.push_back(DimExpr::symbol(name.getValue()));
    else
      extents.push_back(std::nullopt);
  }
  return extents;
}

} // namespace kiln
