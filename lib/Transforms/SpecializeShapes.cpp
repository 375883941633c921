// kiln-specialize-shapes: fixes dynamic input dims from --input-shape values.
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"

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

/// The --input-shape entries as written: the tools split the option at
/// commas, so a dim name that holds one ('a,b=4', as a hint spells it)
/// arrives as 'a' and 'b=4'; a piece without '=' is joined to the next.
static SmallVector<std::string>
rejoinCommaNames(ArrayRef<std::string> pieces) {
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
    for (const std::string &entry : rejoinCommaNames(pieces)) {
      // The last '=': a name may hold one (dims never do), so any name
      // that a hint quotes for the shell parses back.
      auto [name, value] = StringRef(entry).rsplit('=');
      std::optional<SmallVector<int64_t>> dims = parseDims(value);
      if (name.empty() || value.empty() || !dims) {
        module.emitError() << "malformed input shape '" << entry
                           << "': expected name=DxD... (e.g. ids=8x128) or "
                              "dim_name=D (e.g. seq=128)";
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
    return success();
  }
};
} // namespace
} // namespace kiln
