// Einsum equation parsing and Resize's coordinate rules, shared by type
// inference, the CPU evaluator and the CUDA models.
#include "kiln/Dialect/Kiln/IR/MovementSemantics.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <map>

namespace kiln {
namespace {
constexpr int kEllipsisBase = 64;

int letterId(char c) {
  if (c >= 'a' && c <= 'z')
    return c - 'a';
  if (c >= 'A' && c <= 'Z')
    return 26 + (c - 'A');
  return -1;
}

/// Labels of one term; |ellipsisRank| dims for `...` (std::nullopt if the
/// term has none).
bool parseTerm(llvm::StringRef term, llvm::SmallVector<int, 4> &labels,
               int &ellipsisAt, std::string &error) {
  ellipsisAt = -1;
  for (size_t i = 0; i < term.size();) {
    if (term.substr(i).starts_with("...")) {
      if (ellipsisAt >= 0) {
        error = "more than one '...' in term '" + term.str() + "'";
        return false;
      }
      ellipsisAt = labels.size();
      i += 3;
      continue;
    }
    int id = letterId(term[i]);
    if (id < 0) {
      error = "unexpected character '" + std::string(1, term[i]) +
              "' in equation";
      return false;
    }
    labels.push_back(id);
    ++i;
  }
  return true;
}
} // namespace

std::optional<EinsumSpec> parseEinsum(llvm::StringRef equation,
                                      llvm::ArrayRef<int64_t> ranks,
                                      std::string &error) {
  std::string compact;
  for (char c : equation)
    if (c != ' ')
      compact += c;
  llvm::StringRef text(compact);
  auto [lhs, rhs] = text.split("->");
  bool explicitOutput = text.contains("->");
  llvm::SmallVector<llvm::StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ranks.size()) {
    error = "equation has " + std::to_string(terms.size()) + " terms for " +
            std::to_string(ranks.size()) + " inputs";
    return std::nullopt;
  }
  EinsumSpec spec;
  int64_t ellipsisRank = 0;
  std::map<int, int> counts;
  for (auto [term, rank] : llvm::zip(terms, ranks)) {
    llvm::SmallVector<int, 4> labels;
    int at;
    if (!parseTerm(term, labels, at, error))
      return std::nullopt;
    int64_t extra = rank - int64_t(labels.size());
    if (extra < 0 || (at < 0 && extra != 0)) {
      error = "term '" + term.str() + "' does not match an input of rank " +
              std::to_string(rank);
      return std::nullopt;
    }
    if (at >= 0) {
      llvm::SmallVector<int, 4> expanded(labels.begin(), labels.begin() + at);
      for (int64_t k = 0; k < extra; ++k)
        expanded.push_back(kEllipsisBase + 32 - extra + k);
      expanded.append(labels.begin() + at, labels.end());
      labels = expanded;
      ellipsisRank = std::max(ellipsisRank, extra);
    }
    for (int label : labels)
      ++counts[label];
    spec.inputs.push_back(labels);
  }
  if (explicitOutput) {
    int at;
    if (!parseTerm(rhs, spec.output, at, error))
      return std::nullopt;
    if (at >= 0) {
      llvm::SmallVector<int, 4> expanded(spec.output.begin(),
                                         spec.output.begin() + at);
      for (int64_t k = 0; k < ellipsisRank; ++k)
        expanded.push_back(kEllipsisBase + 32 - ellipsisRank + k);
      expanded.append(spec.output.begin() + at, spec.output.end());
      spec.output = expanded;
    }
    for (int label : spec.output)
      if (!counts.count(label)) {
        error = "output label not present in any input";
        return std::nullopt;
      }
  } else {
    for (int64_t k = 0; k < ellipsisRank; ++k)
      spec.output.push_back(kEllipsisBase + 32 - ellipsisRank + k);
    for (auto [label, count] : counts)
      if (label < kEllipsisBase && count == 1)
        spec.output.push_back(label);
  }
  for (const auto &labels : spec.inputs)
    for (int label : labels)
      if (!llvm::is_contained(spec.output, label) &&
          !llvm::is_contained(spec.reduced, label))
        spec.reduced.push_back(label);
  return spec;
}

std::optional<llvm::SmallVector<int64_t>>
einsumLabelSizes(const EinsumSpec &spec,
                 llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                 std::string &error) {
  llvm::SmallVector<int64_t> sizes(kEllipsisBase + 32, 1);
  llvm::SmallVector<bool> known(kEllipsisBase + 32, false);
  for (auto [labels, shape] : llvm::zip(spec.inputs, shapes))
    for (auto [label, dim] : llvm::zip(labels, shape)) {
      if (dim < 0) {
        if (!known[label])
          sizes[label] = -1;
        continue;
      }
      if (dim == 1 && known[label])
        continue;
      if (known[label] && sizes[label] != 1 && sizes[label] != dim) {
        error = "dimension sizes " + std::to_string(sizes[label]) + " and " +
                std::to_string(dim) + " of one label differ";
        return std::nullopt;
      }
      sizes[label] = dim;
      known[label] = true;
    }
  return sizes;
}

std::optional<double> resizeSourceCoordinate(llvm::StringRef mode, double x,
                                             double scale, int64_t inputLength,
                                             int64_t outputLength,
                                             double roiStart, double roiEnd) {
  double outputWidth = scale * double(inputLength);
  if (mode == "half_pixel")
    return (x + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel")
    return outputWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (mode == "align_corners")
    return outputWidth == 1 ? 0.0
                            : x * double(inputLength - 1) / (outputWidth - 1);
  if (mode == "asymmetric")
    return x / scale;
  if (mode == "tf_half_pixel_for_nn")
    return (x + 0.5) / scale;
  if (mode == "tf_crop_and_resize") {
    double span = (roiEnd - roiStart) * double(inputLength - 1);
    double value = outputLength == 1 ? span / 2
                                     : x * span / double(outputLength - 1);
    return value + roiStart * double(inputLength - 1);
  }
  return std::nullopt;
}

void resizeCubicWeights(double r, double a, double w[4]) {
  w[0] = ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a;
  w[1] = ((a + 2) * r - (a + 3)) * r * r + 1;
  w[2] = ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1;
  w[3] = ((a * ((1 - r) + 1) - 5 * a) * ((1 - r) + 1) + 8 * a) * ((1 - r) + 1) -
         4 * a;
}

bool isSupportedResizeMode(llvm::StringRef mode) {
  return mode == "nearest" || mode == "linear" || mode == "cubic";
}
bool isSupportedCoordinateMode(llvm::StringRef mode) {
  return resizeSourceCoordinate(mode, 0, 1, 2, 2, 0, 1).has_value();
}
bool isSupportedNearestMode(llvm::StringRef mode) {
  return mode == "round_prefer_floor" || mode == "round_prefer_ceil" ||
         mode == "floor" || mode == "ceil";
}

} // namespace kiln
