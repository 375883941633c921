// Elemental CUDA models of kiln.resize (per-dim taps from constant scales,
// summed over every tap combination) and kiln.einsum (a serial loop nest
// over the summed labels per output element).
#include "ElementalModels.h"

#include "kiln/Dialect/Kiln/IR/MovementSemantics.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"

#include <cstdio>
#include <map>

using namespace mlir;

namespace kiln::cuda {
namespace {
using Dims = SmallVector<std::string, 4>;
std::string str(int64_t v) { return std::to_string(v); }

std::string real(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  std::string text = buffer;
  if (text.find_first_of(".eEn") == std::string::npos)
    text += ".0";
  return "(" + text + ")";
}

struct Tap {
  std::string index, weight;
};

FailureOr<std::string> emitResize(ResizeOp op, ElementalEmitter &e,
                                  const ElementIndex &index) {
  ArrayRef<int64_t> in = shapeOf(op.getInput()), out = shapeOf(op.getOutput());
  size_t rank = in.size();
  SmallVector<double> scale(rank), roi;
  if (op.getScales()) {
    DenseElementsAttr attr;
    if (!matchPattern(op.getScales(), m_Constant(&attr)))
      return e.error(op) << "needs constant 'scales' inside the kernel";
    size_t k = 0;
    for (APFloat v : attr.getValues<APFloat>())
      if (k < rank)
        scale[k++] = v.convertToDouble();
  } else {
    for (size_t k = 0; k < rank; ++k)
      scale[k] = double(out[k]) / double(in[k]);
  }
  StringRef ctm = op.getCoordinateTransformationMode();
  bool crop = ctm == "tf_crop_and_resize";
  if (crop) {
    DenseElementsAttr attr;
    if (!op.getRoi() || !matchPattern(op.getRoi(), m_Constant(&attr)))
      return e.error(op) << "needs a constant 'roi' inside the kernel";
    for (APFloat v : attr.getValues<APFloat>())
      roi.push_back(v.convertToDouble());
    if (roi.size() != 2 * rank)
      return e.error(op) << "has a roi of the wrong length";
  }
  Dims d = e.dimsOf(index, out);
  std::string outside = "false";
  SmallVector<SmallVector<Tap>> taps(rank);
  StringRef mode = op.getMode();
  for (size_t k = 0; k < rank; ++k) {
    if (!crop && in[k] == out[k] && scale[k] == 1.0) {
      taps[k].push_back({d[k], ""});
      continue;
    }
    std::string x = "(double)" + d[k], s = real(scale[k]);
    double width = scale[k] * double(in[k]);
    std::string source;
    if (ctm == "half_pixel")
      source = "(" + x + " + 0.5) / " + s + " - 0.5";
    else if (ctm == "pytorch_half_pixel")
      source = width == 1 ? "-0.5" : "(" + x + " + 0.5) / " + s + " - 0.5";
    else if (ctm == "align_corners")
      source = width == 1 ? "0.0" : x + " * " + real(double(in[k] - 1) / (width - 1));
    else if (ctm == "asymmetric")
      source = x + " / " + s;
    else if (ctm == "tf_half_pixel_for_nn")
      source = "(" + x + " + 0.5) / " + s;
    else {
      double span = (roi[rank + k] - roi[k]) * double(in[k] - 1);
      source = (out[k] == 1 ? real(span / 2)
                            : x + " * " + real(span / double(out[k] - 1))) +
               " + " + real(roi[k] * double(in[k] - 1));
    }
    std::string src = e.fresh("s"), base = e.fresh("b"), ratio = e.fresh("r");
    e.line("const double " + src + " = " + source + ";");
    if (crop)
      outside += " || " + src + " < 0.0 || " + src + " > " + real(in[k] - 1);
    e.line("const long long " + base + " = (long long)ceil(" + src + ") - 1;");
    e.line("const double " + ratio + " = " + src + " - (double)" + base + ";");
    auto clampIndex = [&](int64_t offset) {
      std::string name = e.fresh("q");
      std::string raw = "(" + base + " + " + str(offset) + ")";
      e.line("const kiln_index_t " + name + " = " + raw + " < 0 ? 0 : (" + raw +
             " > " + str(in[k] - 1) + " ? " + str(in[k] - 1) + " : " + raw +
             ");");
      return name;
    };
    if (mode == "nearest") {
      StringRef rounding = op.getNearestMode();
      std::string up = rounding == "floor"   ? "false"
                       : rounding == "ceil"  ? "true"
                       : rounding == "round_prefer_ceil"
                           ? ratio + " >= 0.5"
                           : ratio + " > 0.5";
      std::string name = e.fresh("q");
      std::string raw = "(" + base + " + ((" + ratio + " == 1.0 || " + up +
                        ") ? 1 : 0))";
      e.line("const kiln_index_t " + name + " = " + raw + " < 0 ? 0 : (" + raw +
             " > " + str(in[k] - 1) + " ? " + str(in[k] - 1) + " : " + raw +
             ");");
      taps[k].push_back({name, ""});
      continue;
    }
    SmallVector<std::string> weights;
    int64_t first = mode == "linear" ? 0 : -1;
    if (mode == "linear") {
      weights = {"(1.0 - " + ratio + ")", ratio};
    } else {
      std::string a = real(op.getCubicCoeffA().convertToDouble());
      std::string r1 = "(" + ratio + " + 1.0)", q = "(1.0 - " + ratio + ")",
                  q1 = "(" + q + " + 1.0)";
      weights = {"(((" + a + " * " + r1 + " - 5.0 * " + a + ") * " + r1 +
                     " + 8.0 * " + a + ") * " + r1 + " - 4.0 * " + a + ")",
                 "(((" + a + " + 2.0) * " + ratio + " - (" + a + " + 3.0)) * " +
                     ratio + " * " + ratio + " + 1.0)",
                 "(((" + a + " + 2.0) * " + q + " - (" + a + " + 3.0)) * " + q +
                     " * " + q + " + 1.0)",
                 "(((" + a + " * " + q1 + " - 5.0 * " + a + ") * " + q1 +
                     " + 8.0 * " + a + ") * " + q1 + " - 4.0 * " + a + ")"};
    }
    SmallVector<std::string> names;
    for (auto [j, weight] : llvm::enumerate(weights)) {
      std::string w = e.fresh("w");
      std::string raw = "(" + base + " + " + str(first + int64_t(j)) + ")";
      std::string keep = op.getExcludeOutside()
                             ? "(" + raw + " >= 0 && " + raw + " < " +
                                   str(in[k]) + ")"
                             : "true";
      e.line("double " + w + " = " + keep + " ? " + weight + " : 0.0;");
      names.push_back(w);
    }
    if (op.getExcludeOutside()) {
      std::string total = e.fresh("t");
      e.line("const double " + total + " = " + llvm::join(names, " + ") + ";");
      for (const std::string &w : names)
        e.line(w + " = " + total + " != 0.0 ? " + w + " / " + total + " : 0.0;");
    }
    for (auto [j, w] : llvm::enumerate(names))
      taps[k].push_back({clampIndex(first + int64_t(j)), w});
  }
  std::string sum = e.fresh("sum");
  e.line("double " + sum + " = 0.0;");
  SmallVector<size_t> counter(rank, 0);
  while (true) {
    Dims source;
    SmallVector<std::string> factors;
    for (size_t k = 0; k < rank; ++k) {
      const Tap &tap = taps[k][counter[k]];
      source.push_back(tap.index);
      if (!tap.weight.empty())
        factors.push_back(tap.weight);
    }
    auto value = e.emit(op.getInput(), ElementIndex::fromDims(source));
    if (failed(value))
      return failure();
    factors.push_back("(double)" + *value);
    e.line(sum + " += " + llvm::join(factors, " * ") + ";");
    int64_t k = int64_t(rank) - 1;
    for (; k >= 0; --k) {
      if (++counter[k] < taps[k].size())
        break;
      counter[k] = 0;
    }
    if (k < 0)
      break;
  }
  Type type = elementTypeOf(op.getOutput());
  std::string cast = "(" + ElementalEmitter::computeType(type) + ")";
  std::string value = isa<FloatType>(type) ? cast + sum
                                           : "(long long)rint(" + sum + ")";
  if (crop)
    return "((" + outside + ") ? " + cast +
           real(op.getExtrapolationValue().convertToDouble()) + " : " + value +
           ")";
  return value;
}

FailureOr<std::string> emitEinsum(EinsumOp op, ElementalEmitter &e,
                                  const ElementIndex &index) {
  SmallVector<int64_t> ranks;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value input : op.getInputs()) {
    ranks.push_back(shapeOf(input).size());
    shapes.push_back(shapeOf(input));
  }
  std::string error;
  std::optional<EinsumSpec> spec = parseEinsum(op.getEquation(), ranks, error);
  std::optional<SmallVector<int64_t>> sizes;
  if (spec)
    sizes = einsumLabelSizes(*spec, shapes, error);
  if (!spec || !sizes)
    return e.error(op) << "has an invalid equation: " << error;
  Type type = elementTypeOf(op.getOutput());
  bool isFloat = isa<FloatType>(type);
  Dims d = e.dimsOf(index, shapeOf(op.getOutput()));
  std::map<int, std::string> variable;
  for (auto [label, dim] : llvm::zip(spec->output, d))
    variable[label] = dim;
  std::string acc = e.fresh("acc");
  e.line(std::string(isFloat ? "double " : "long long ") + acc + " = 0;");
  for (int label : spec->reduced) {
    std::string r = e.fresh("e");
    e.open("for (kiln_index_t " + r + " = 0; " + r + " < " +
           str((*sizes)[label]) + "; ++" + r + ")");
    variable[label] = r;
  }
  std::string product;
  for (auto [labels, input] : llvm::zip(spec->inputs, op.getInputs())) {
    Dims at;
    for (auto [label, dim] : llvm::zip(labels, shapeOf(input)))
      at.push_back(dim == 1 ? std::string("0") : variable[label]);
    auto value = e.emit(input, ElementIndex::fromDims(at));
    if (failed(value))
      return failure();
    std::string factor = isFloat ? "(double)" + *value : *value;
    product = product.empty() ? factor
              : isFloat       ? product + " * " + factor
                              : "kiln_imul(" + product + ", " + factor + ")";
  }
  e.line(acc + (isFloat ? " += " + product + ";"
                        : " = kiln_iadd(" + acc + ", " + product + ");"));
  for (size_t i = 0; i < spec->reduced.size(); ++i)
    e.close();
  return isFloat ? "(" + ElementalEmitter::computeType(type) + ")" + acc
                 : ElementalEmitter::wrapInteger(type, acc);
}
} // namespace

void attachResizeEinsumModels(MLIRContext &context) {
  ResizeOp::attachInterface<FunctionModel<ResizeOp, emitResize>>(context);
  EinsumOp::attachInterface<FunctionModel<EinsumOp, emitEinsum>>(context);
}

} // namespace kiln::cuda
