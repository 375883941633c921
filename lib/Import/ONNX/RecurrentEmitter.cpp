// The activations of kiln's unrolled RNN, GRU and LSTM: reading the cells'
// `activations` attributes and emitting each activation (RecurrentEmitter.h).
#include "RecurrentEmitter.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace kiln::onnx_import {

/// f(x) for one entry of `activations` (after the optional clip).
Value RecurrentEmitter::activate(const Activation &f, Value x) {
  if (failed())
    return {};
  const std::string &name = f.name;
  if (name == "sigmoid")
    return make<SigmoidOp>(x);
  if (name == "tanh")
    return make<TanhOp>(x);
  if (name == "relu")
    return make<ReluOp>(x);
  if (name == "softsign")
    return make<SoftsignOp>(x);
  if (name == "softplus")
    return make<SoftplusOp>(x);
  if (name == "affine")
    return add(mul(x, scalar(f.alpha)), scalar(f.beta));
  if (name == "scaledtanh")
    return mul(make<TanhOp>(mul(x, scalar(f.beta))), scalar(f.alpha));
  if (name == "leakyrelu")
    return make<LeakyReluOp>(x, b.getF32FloatAttr(f.alpha));
  if (name == "thresholdedrelu")
    return make<ThresholdedReluOp>(x, b.getF32FloatAttr(f.alpha));
  if (name == "elu")
    return make<EluOp>(x, b.getF32FloatAttr(f.alpha));
  if (name == "hardsigmoid")
    return make<HardSigmoidOp>(x, b.getF32FloatAttr(f.alpha),
                               b.getF32FloatAttr(f.beta));
  fail(node.error("activation '" + name + "' is not supported"));
  return {};
}

namespace {

/// ONNX's defaults for the parameters of each activation; {alpha, beta}
/// entries are consumed only by the activations that take them.
struct ActivationInfo {
  const char *name;
  int parameterCount;
  float alpha, beta;
};
constexpr ActivationInfo kActivations[] = {
    {"relu", 0, 0, 0},
    {"tanh", 0, 0, 0},
    {"sigmoid", 0, 0, 0},
    {"softsign", 0, 0, 0},
    {"softplus", 0, 0, 0},
    {"affine", 2, 1.0f, 0.0f},
    {"scaledtanh", 2, 1.0f, 1.0f},
    {"hardsigmoid", 2, 0.2f, 0.5f},
    {"leakyrelu", 1, 0.01f, 0},
    {"thresholdedrelu", 1, 1.0f, 0},
    {"elu", 1, 1.0f, 0},
};

} // namespace

/// The activations of every direction (|perDirection| each), from the
/// `activations`/`activation_alpha`/`activation_beta` attributes or the
/// cell's defaults.
llvm::Expected<SmallVector<Activation>>
getActivations(NodeImporter &node, ArrayRef<const char *> defaults,
               int64_t directions) {
  SmallVector<std::string> names;
  if (const onnx::AttributeProto *attribute =
          node.findAttribute("activations")) {
    for (const std::string &name : attribute->strings())
      names.push_back(llvm::StringRef(name).lower());
  } else {
    for (int64_t d = 0; d < directions; ++d)
      for (const char *name : defaults)
        names.push_back(name);
  }
  size_t expected = defaults.size() * directions;
  if (names.size() == defaults.size() && directions == 2)
    names.append(SmallVector<std::string>(names));
  if (names.size() != expected)
    return node.error("expected " + std::to_string(expected) +
                      " activations, got " + std::to_string(names.size()));
  SmallVector<float> alphas, betas;
  if (node.hasAttribute("activation_alpha")) {
    auto values = node.getFloats("activation_alpha");
    if (!values)
      return values.takeError();
    alphas = *values;
  }
  if (node.hasAttribute("activation_beta")) {
    auto values = node.getFloats("activation_beta");
    if (!values)
      return values.takeError();
    betas = *values;
  }
  SmallVector<Activation> result;
  size_t nextAlpha = 0, nextBeta = 0;
  for (const std::string &name : names) {
    const ActivationInfo *info = nullptr;
    for (const ActivationInfo &candidate : kActivations)
      if (name == candidate.name)
        info = &candidate;
    if (!info)
      return node.error("activation '" + name +
                        "' is not supported (kiln has Relu, Tanh, Sigmoid, "
                        "Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
                        "HardSigmoid, Elu, Softsign and Softplus)");
    Activation activation{name, info->alpha, info->beta};
    if (info->parameterCount >= 1 && nextAlpha < alphas.size())
      activation.alpha = alphas[nextAlpha++];
    if (info->parameterCount >= 2 && nextBeta < betas.size())
      activation.beta = betas[nextBeta++];
    result.push_back(activation);
  }
  return result;
}

} // namespace kiln::onnx_import
