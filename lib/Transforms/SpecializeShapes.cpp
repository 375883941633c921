// kiln-specialize-shapes: fixes dynamic input dims from --input-shape values
// and records the ranges of those given as lo..hi.
#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSet.h"

#include <optional>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNSPECIALIZESHAPES
#include "kiln/Transforms/Passes.h.inc"

namespace {
/// Parses "8x128" (or "8x?x4") into dims; "?" stays dynamic.
std::optional<SmallVector<int64_t>> parseDims(StringRef text) {
  SmallVector<int64_t> dims;
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  for (StringRef part : parts) {
    part = part.trim();
    int64_t dim;
    if (part == "?")
      dims.push_back(ShapedType::kDynamic);
    else if (!part.getAsInteger(10, dim) && dim >= 0)
      dims.push_back(dim);
    else
      return std::nullopt;
  }
  return dims;
}

/// Parses a dimension's range, "lo..hi" or "lo..hi:opt" (opt defaults to
/// hi); std::nullopt with |problem| set when it is not one.
std::optional<DimRange> parseRange(StringRef text, std::string &problem) {
  auto [loText, rest] = text.split("..");
  auto [hiText, optText] = rest.split(':');
  bool hasOpt = rest.contains(':');
  DimRange range;
  if (loText.trim().getAsInteger(10, range.lo) || range.lo < 0) {
    problem = "malformed range '" + text.str() +
              "': expected lo..hi or lo..hi:opt (e.g. batch=1..64)";
    return std::nullopt;
  }
  if (hiText.trim().empty()) {
    problem = "range '" + text.str() +
              "' has no upper bound: give lo..hi (e.g. 1..64)";
    return std::nullopt;
  }
  if (hiText.trim().getAsInteger(10, range.hi) || range.hi < 0) {
    problem = "malformed range '" + text.str() +
              "': expected lo..hi or lo..hi:opt (e.g. batch=1..64)";
    return std::nullopt;
  }
  if (range.lo < 1) {
    problem = "range '" + text.str() +
              "' starts at 0: a ranged dimension is at least 1";
    return std::nullopt;
  }
  if (range.lo > range.hi) {
    problem = "range '" + text.str() + "' has lo " + std::to_string(range.lo) +
              " above hi " + std::to_string(range.hi);
    return std::nullopt;
  }
  range.opt = range.hi;
  if (hasOpt && (optText.trim().getAsInteger(10, range.opt) ||
                 range.opt < range.lo || range.opt > range.hi)) {
    problem = "range '" + text.str() + "': opt '" + optText.str() +
              "' must be a size in " + std::to_string(range.lo) + ".." +
              std::to_string(range.hi);
    return std::nullopt;
  }
  return range;
}

/// The names of |function|'s argument |i|'s named dynamic dims, quoted and
/// joined for a message ("'batch', 'seq'"), or "none".
std::string describeNamedDims(func::FuncOp function, unsigned i) {
  auto type = dyn_cast<RankedTensorType>(function.getArgument(i).getType());
  auto dimNames = function.getArgAttrOfType<ArrayAttr>(i, "kiln.dim_names");
  std::string text;
  if (type && dimNames)
    for (auto [d, dimName] : llvm::enumerate(dimNames)) {
      auto name = dyn_cast<StringAttr>(dimName);
      if (!name || name.getValue().empty() || int64_t(d) >= type.getRank() ||
          !type.isDynamicDim(d))
        continue;
      text += (text.empty() ? "'" : ", '") + name.getValue().str() + "'";
    }
  return text.empty() ? "none" : text;
}

/// Sets (|range| given) or removes |name|'s entry in |function|'s
/// kiln.dim_ranges; the attribute disappears with its last entry.
void recordDimRange(func::FuncOp function, StringRef name,
                    std::optional<DimRange> range) {
  NamedAttrList entries;
  if (auto old = function->getAttrOfType<DictionaryAttr>(kDimRangesAttrName))
    entries = NamedAttrList(old);
  Builder builder(function.getContext());
  if (range)
    entries.set(
        name, builder.getDenseI64ArrayAttr({range->lo, range->hi, range->opt}));
  else
    entries.erase(name);
  if (entries.empty())
    function->removeAttr(kDimRangesAttrName);
  else
    function->setAttr(kDimRangesAttrName,
                      entries.getDictionary(function.getContext()));
}

/// The --input-shape entries as written: the tools split the option at
/// commas, so a dim name that holds one ('a,b=4', as a hint spells it)
/// arrives as 'a' and 'b=4'; a piece without '=' is joined to the next.
static SmallVector<std::string> rejoinCommaNames(ArrayRef<std::string> pieces) {
  SmallVector<std::string> entries;
  std::optional<std::string> pending;
  for (const std::string &piece : pieces) {
    std::string joined = pending ? *pending + "," + piece : piece;
    pending.reset();
    if (StringRef(piece).contains('='))
      entries.push_back(std::move(joined));
    else
      pending = std::move(joined);
  }
  if (pending)
    entries.push_back(*pending); // Malformed: reported as it is.
  return entries;
}

struct SpecializeShapesPass
    : impl::KilnSpecializeShapesBase<SpecializeShapesPass> {
  using KilnSpecializeShapesBase::KilnSpecializeShapesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::string> pieces(shapes.begin(), shapes.end());
    llvm::StringSet<> given;
    for (const std::string &entry : rejoinCommaNames(pieces)) {
      // The last '=': a name may hold one (dims never do), so any name
      // that a hint quotes for the shell parses back.
      auto [name, value] = StringRef(entry).rsplit('=');
      if (!name.empty() && !given.insert(name).second) {
        module.emitError() << "input shape '" << entry << "' gives '" << name
                           << "' a second time";
        return signalPassFailure();
      }
      if (value.contains("..")) {
        if (failed(applyRangeEntry(module, entry, name, value)))
          return signalPassFailure();
        continue;
      }
      std::optional<SmallVector<int64_t>> dims = parseDims(value);
      if (name.empty() || value.empty() || !dims) {
        module.emitError() << "malformed input shape '" << entry
                           << "': expected name=DxD... (e.g. ids=8x128), "
                              "dim_name=D (e.g. seq=128) or dim_name=lo..hi "
                              "(e.g. seq=16..512)";
        return signalPassFailure();
      }
      bool used = false;
      for (auto function : module.getOps<func::FuncOp>())
        if (failed(apply(function, name, *dims, used)))
          return signalPassFailure();
      if (!used) {
        module.emitError() << "input shape '" << entry
                           << "' names neither a graph input nor a symbolic "
                              "dimension";
        return signalPassFailure();
      }
    }
  }

  /// `name=lo..hi[:opt]`: a degenerate range (lo == hi) fixes the size as
  /// `name=lo` does; otherwise the dims keep their `?` and the range is
  /// recorded in each function's kiln.dim_ranges.
  LogicalResult applyRangeEntry(ModuleOp module, StringRef entry,
                                StringRef name, StringRef value) {
    std::string problem;
    std::optional<DimRange> range = parseRange(value, problem);
    if (name.empty() || !range)
      return module.emitError()
             << "input shape '" << entry << "': "
             << (name.empty() ? "no dimension name before '='" : problem);
    bool used = false;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (range->lo == range->hi) {
        SmallVector<int64_t> size = {range->lo};
        if (failed(apply(function, name, size, used)))
          return failure();
        continue;
      }
      if (failed(applyRange(function, entry, name, *range, used)))
        return failure();
    }
    if (!used)
      return module.emitError()
             << "input shape '" << entry
             << "' names no symbolic dimension; a range applies to a "
                "dimension name from the model (e.g. batch=1..64)";
    return success();
  }

  LogicalResult applyRange(func::FuncOp function, StringRef entry,
                           StringRef name, const DimRange &range, bool &used) {
    bool named = false;
    for (unsigned i = 0; i < function.getNumArguments(); ++i) {
      auto type = dyn_cast<RankedTensorType>(function.getArgument(i).getType());
      auto inputName = function.getArgAttrOfType<StringAttr>(i, "kiln.name");
      StringRef input = inputName ? inputName.getValue() : StringRef();
      if (inputName && input == name)
        return function.emitError()
               << "input shape '" << entry
               << "': a range applies to a symbolic dimension, not to the "
                  "graph input '"
               << name
               << "' (its symbolic dims: " << describeNamedDims(function, i)
               << ")";
      auto dimNames = function.getArgAttrOfType<ArrayAttr>(i, "kiln.dim_names");
      if (!type || !dimNames)
        continue;
      SmallVector<int64_t> largest(type.getShape());
      for (auto [d, dimName] : llvm::enumerate(dimNames)) {
        auto text = dyn_cast<StringAttr>(dimName);
        if (!text || text.getValue() != name || int64_t(d) >= type.getRank())
          continue;
        if (!type.isDynamicDim(d))
          return function.emitError()
                 << "dimension '" << name << "' of input '" << input << "' is "
                 << type.getDimSize(d) << ", not a range "
                 << formatDimRange(range);
        largest[d] = range.hi;
        named = true;
      }
      if (std::optional<std::string> problem =
              findTensorSizeProblem(type.clone(largest)))
        return function.emitError()
               << "--input-shape " << entry << " makes input '" << input
               << "' too large at " << name << "=" << range.hi << ": "
               << *problem;
    }
    if (named)
      recordDimRange(function, name, range);
    used |= named;
    return success();
  }

  LogicalResult apply(func::FuncOp function, StringRef name,
                      ArrayRef<int64_t> dims, bool &used) {
    SmallVector<Type> argumentTypes(function.getArgumentTypes());
    for (unsigned i = 0; i < function.getNumArguments(); ++i) {
      auto type = dyn_cast<RankedTensorType>(argumentTypes[i]);
      if (!type)
        continue;
      auto inputName = function.getArgAttrOfType<StringAttr>(i, "kiln.name");
      auto dimNames = function.getArgAttrOfType<ArrayAttr>(i, "kiln.dim_names");
      SmallVector<int64_t> shape(type.getShape());
      if (inputName && inputName.getValue() == name) {
        used = true;
        if (int64_t(dims.size()) != type.getRank())
          return function.emitError()
                 << "input '" << name << "' has rank " << type.getRank()
                 << " but --input-shape gives " << dims.size() << " dims";
        for (int64_t d = 0; d < type.getRank(); ++d) {
          if (ShapedType::isDynamic(dims[d]))
            continue;
          if (!type.isDynamicDim(d) && type.getDimSize(d) != dims[d])
            return function.emitError()
                   << "input '" << name << "' dim " << d << " is "
                   << type.getDimSize(d) << ", not " << dims[d];
          shape[d] = dims[d];
        }
      } else if (dimNames && dims.size() == 1) {
        for (auto [d, dimName] : llvm::enumerate(dimNames)) {
          auto text = dyn_cast<StringAttr>(dimName);
          if (!text || text.getValue() != name || d >= shape.size())
            continue;
          used = true;
          if (!type.isDynamicDim(d) && type.getDimSize(d) != dims[0])
            return function.emitError()
                   << "dimension '" << name << "' of input '"
                   << (inputName ? inputName.getValue() : "") << "' is "
                   << type.getDimSize(d) << ", not " << dims[0];
          shape[d] = dims[0];
        }
      }
      if (ArrayRef<int64_t>(shape) != type.getShape()) {
        if (std::optional<std::string> problem =
                findTensorSizeProblem(type.clone(shape)))
          return function.emitError()
                 << "--input-shape " << name << " makes input '"
                 << (inputName ? inputName.getValue() : "")
                 << "' too large: " << *problem;
        argumentTypes[i] = type.clone(shape);
        function.getArgument(i).setType(argumentTypes[i]);
      }
    }
    function.setType(FunctionType::get(function.getContext(), argumentTypes,
                                       function.getResultTypes()));
    // A size given to a ranged dimension (a second specialisation) ends its
    // range.
    if (dims.size() == 1)
      recordDimRange(function, name, std::nullopt);
    return success();
  }
};
} // namespace
} // namespace kiln
