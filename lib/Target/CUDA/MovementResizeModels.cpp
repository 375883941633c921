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

// A literal of the resize's arithmetic type: double, or float with an f
// suffix where the taps are computed in float.
std::string real(double value, bool single = false) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), single ? "%.9g" : "%.17g", value);
  std::string text = buffer;
  if (text.find_first_of(".eEn") == std::string::npos)
    text += ".0";
  return "(" + text + (single ? "f" : "") + ")";
}

struct Tap {
  std::string index, weight;
};

FailureOr<std::string> emitResize(ResizeOp op, ElementalEmitter &e,
                                  const ElementIndex &index) {
  ArrayRef<int64_t> in = indexedShapeOf(op.getInput()),
                    out = indexedShapeOf(op.getOutput());
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
  Type type = elementTypeOf(op.getOutput());
  // An f16 or bf16 result keeps 11 or 8 bits: its coordinates, weights and
  // sum are computed in float (exact to 2^-24 of the extent), at the
  // hardware's full rate, where double costs a dozen conversions and f64
  // operations per element. f32 and f64 results keep double, and so do
  // nearest, whose rounding picks the element read, and tf_crop_and_resize,
  // whose bounds test decides between an element and the extrapolation
  // value.
  bool single =
      isa<Float16Type, BFloat16Type>(type) && mode != "nearest" && !crop;
  std::string fp = single ? "float" : "double";
  auto lit = [&](const char *literal) {
    return single ? std::string(literal) + "f" : std::string(literal);
  };
  for (size_t k = 0; k < rank; ++k) {
    if (!crop && in[k] == out[k] && scale[k] == 1.0) {
      taps[k].push_back({d[k], ""});
      continue;
    }
    std::string x = "(" + fp + ")" + d[k];
    // Dividing by the scale; in float by multiplying with its reciprocal.
    auto divide = [&](const std::string &numerator) {
      return single ? numerator + " * " + real(1.0 / scale[k], true)
                    : numerator + " / " + real(scale[k]);
    };
    double width = scale[k] * double(in[k]);
    std::string half = lit("0.5"), source;
    if (ctm == "half_pixel")
      source = divide("(" + x + " + " + half + ")") + " - " + half;
    else if (ctm == "pytorch_half_pixel")
      source = width == 1 ? "-" + half
                          : divide("(" + x + " + " + half + ")") + " - " + half;
    else if (ctm == "align_corners")
      source = width == 1
                   ? lit("0.0")
                   : x + " * " + real(double(in[k] - 1) / (width - 1), single);
    else if (ctm == "asymmetric")
      source = divide(x);
    else if (ctm == "tf_half_pixel_for_nn")
      source = divide("(" + x + " + " + half + ")");
    else {
      // x * span / (out - 1), in the evaluator's order
      // (resizeSourceCoordinate): multiplying by a rounded span / (out - 1) put
      // the last output one ulp past in - 1, outside, for in 8, out 26 and roi
      // [0, 1].
      double span = (roi[rank + k] - roi[k]) * double(in[k] - 1);
      source = (out[k] == 1 ? real(span / 2)
                            : x + " * " + real(span) + " / " +
                                  real(double(out[k] - 1))) +
               " + " + real(roi[k] * double(in[k] - 1));
    }
    std::string src = e.fresh("s"), base = e.fresh("b"), ratio = e.fresh("r");
    e.line("const " + fp + " " + src + " = " + source + ";");
    if (crop)
      outside += " || " + src + " < " + lit("0.0") + " || " + src + " > " +
                 real(in[k] - 1, single);
    if (single)
      e.line("const int " + base + " = (int)ceilf(" + src + ") - 1;");
    else
      e.line("const long long " + base + " = (long long)ceil(" + src +
             ") - 1;");
    e.line("const " + fp + " " + ratio + " = " + src + " - (" + fp + ")" +
           base + ";");
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
    std::string one = lit("1.0");
    if (mode == "linear") {
      weights = {"(" + one + " - " + ratio + ")", ratio};
    } else {
      std::string a = real(op.getCubicCoeffA().convertToDouble(), single);
      std::string two = lit("2.0"), three = lit("3.0"), four = lit("4.0"),
                  five = lit("5.0"), eight = lit("8.0");
      std::string r1 = "(" + ratio + " + " + one + ")",
                  q = "(" + one + " - " + ratio + ")",
                  q1 = "(" + q + " + " + one + ")";
      auto outer = [&](const std::string &t) {
        return "(((" + a + " * " + t + " - " + five + " * " + a + ") * " + t +
               " + " + eight + " * " + a + ") * " + t + " - " + four + " * " +
               a + ")";
      };
      auto inner = [&](const std::string &t) {
        return "(((" + a + " + " + two + ") * " + t + " - (" + a + " + " +
               three + ")) * " + t + " * " + t + " + " + one + ")";
      };
      weights = {outer(r1), inner(ratio), inner(q), outer(q1)};
    }
    SmallVector<std::string> names;
    for (auto [j, weight] : llvm::enumerate(weights)) {
      std::string w = e.fresh("w");
      std::string raw = "(" + base + " + " + str(first + int64_t(j)) + ")";
      std::string keep = op.getExcludeOutside()
                             ? "(" + raw + " >= 0 && " + raw + " < " +
                                   str(in[k]) + ")"
                             : "true";
      e.line(fp + " " + w + " = " + keep + " ? " + weight + " : " + lit("0.0") +
             ";");
      names.push_back(w);
    }
    if (op.getExcludeOutside()) {
      std::string total = e.fresh("t");
      e.line("const " + fp + " " + total + " = " + llvm::join(names, " + ") +
             ";");
      for (const std::string &w : names)
        e.line(w + " = " + total + " != " + lit("0.0") + " ? " + w + " / " +
               total + " : " + lit("0.0") + ";");
    }
    for (auto [j, w] : llvm::enumerate(names))
      taps[k].push_back({clampIndex(first + int64_t(j)), w});
  }
  std::string sum = e.fresh("sum");
  e.line(fp + " " + sum + " = " + lit("0.0") + ";");
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
    factors.push_back("(" + fp + ")" + *value);
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
    ranks.push_back(indexedShapeOf(input).size());
    shapes.push_back(indexedShapeOf(input));
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
  Dims d = e.dimsOf(index, indexedShapeOf(op.getOutput()));
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
    for (auto [label, dim] : llvm::zip(labels, indexedShapeOf(input)))
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
