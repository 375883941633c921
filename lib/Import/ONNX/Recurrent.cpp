// Imports ONNX RNN, GRU and LSTM by unrolling them over their static sequence
// length into kiln matmul/gemm, elementwise and movement ops.
//
// The decomposition, per direction d:
//   1. XW = matmul(X, W[d]^T) + Wb (+ Rb where the cell allows), for all steps
//      at once: (seq, batch, gates * hidden).
//   2. For each step t (reversed for the backward direction), slice XW[t],
//      add gemm(H, R[d], Rb, trans_b) and apply the cell's gate activations.
//   3. Y stacks every step's H along (seq, num_directions); Y_h and Y_c are
//      the last states. layout = 1 transposes X, initial states and outputs.
//
// The op builder and the activations are in RecurrentEmitter.{h,cpp}.
#include "RecurrentEmitter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/LoopUnrolling.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

enum class CellKind { RNN, GRU, LSTM };

/// The values of a constant integer tensor, or std::nullopt when |value| is
/// computed at run time.
std::optional<SmallVector<int64_t>> getConstantIntegers(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<DenseIntElementsAttr>(constant.getValue());
  if (!elements)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : elements.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

/// The recurrent state of one direction.
struct State {
  Value hidden, cell;
};

template <CellKind kind> llvm::Error importRecurrent(NodeImporter &node) {
  constexpr int64_t gateCount = kind == CellKind::RNN   ? 1
                                : kind == CellKind::GRU ? 3
                                                        : 4;
  if (llvm::Error error =
          node.checkInputCount(3, kind == CellKind::LSTM ? 8 : 6))
    return error;
  auto hiddenOr = node.getInt("hidden_size");
  auto layoutOr = node.getInt("layout", 0);
  auto linearBeforeResetOr = node.getInt("linear_before_reset", 0);
  auto inputForgetOr = node.getInt("input_forget", 0);
  if (!hiddenOr)
    return hiddenOr.takeError();
  if (!layoutOr)
    return layoutOr.takeError();
  if (!linearBeforeResetOr)
    return linearBeforeResetOr.takeError();
  if (!inputForgetOr)
    return inputForgetOr.takeError();
  int64_t hidden = *hiddenOr, layout = *layoutOr;
  if (hidden <= 0)
    return node.error("hidden_size must be positive, got " +
                      std::to_string(hidden));
  if (layout != 0 && layout != 1)
    return node.error("layout must be 0 or 1, got " + std::to_string(layout));
  if (*inputForgetOr != 0)
    return node.error("input_forget = 1 is not supported");

  std::string direction = "forward";
  if (const onnx::AttributeProto *attribute = node.findAttribute("direction"))
    direction = attribute->s();
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return node.error("direction must be forward, reverse or bidirectional, "
                      "got '" +
                      direction + "'");
  int64_t directions = direction == "bidirectional" ? 2 : 1;

  SmallVector<const char *, 3> defaults;
  if (kind == CellKind::RNN)
    defaults = {"tanh"};
  else if (kind == CellKind::GRU)
    defaults = {"sigmoid", "tanh"};
  else
    defaults = {"sigmoid", "tanh", "tanh"};
  auto activations = getActivations(node, defaults, directions);
  if (!activations)
    return activations.takeError();

  Value x = node.getInput(0);
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  if (!xType || xType.getRank() != 3)
    return node.error("X must be a rank-3 tensor");
  int64_t seqLength = xType.getDimSize(layout == 0 ? 0 : 1);
  if (ShapedType::isDynamic(seqLength))
    return node.error("the sequence length (dimension " +
                      std::to_string(layout == 0 ? 0 : 1) +
                      " of X) must be static to unroll the recurrence");
  if (seqLength == 0)
    return node.error("the sequence length must be at least 1");
  if (seqLength > kMaxUnrolledIterations)
    return node.error("the sequence length " + std::to_string(seqLength) +
                      " is longer than the " +
                      std::to_string(kMaxUnrolledIterations) +
                      " steps kiln unrolls");
  int64_t batch = xType.getDimSize(layout == 0 ? 1 : 0);
  if (!isa<FloatType>(xType.getElementType()))
    return node.error("X must be a float tensor");

  RecurrentEmitter e(node, xType.getElementType());
  Value w = node.getInput(1), r = node.getInput(2), bias = node.getInput(3);
  Value initialH = node.getInput(5);
  Value initialC = kind == CellKind::LSTM ? node.getInput(6) : Value();
  Value peephole = kind == CellKind::LSTM ? node.getInput(7) : Value();

  // sequence_lens: a constant must equal the sequence length everywhere; a
  // run-time one masks the steps past each batch entry's length (forward).
  Value sequenceLengths = node.getInput(4);
  if (sequenceLengths) {
    if (auto values = getConstantIntegers(sequenceLengths)) {
      for (int64_t length : *values)
        if (length != seqLength)
          return node.error("sequence_lens must all equal the sequence "
                            "length " +
                            std::to_string(seqLength) + ", got " +
                            std::to_string(length));
      sequenceLengths = {};
    } else if (direction != "forward") {
      return node.error("a sequence_lens computed at run time is only "
                        "supported for the forward direction");
    }
  }

  std::optional<float> clip;
  if (node.hasAttribute("clip")) {
    auto value = node.getFloat("clip", 0.0f);
    if (!value)
      return value.takeError();
    clip = *value;
  }
  Value clipLow = clip ? e.scalar(-*clip) : Value();
  Value clipHigh = clip ? e.scalar(*clip) : Value();
  // f(clip(x)) for activation |index| of direction |d|.
  auto gate = [&](int64_t d, size_t index, Value preActivation) {
    if (clip && !e.failed())
      preActivation = e.make<ClipOp>(preActivation, clipLow, clipHigh);
    return e.activate((*activations)[d * defaults.size() + index],
                      preActivation);
  };

  // 1. Time-major X and the step mask, if any.
  if (layout == 1)
    x = e.transpose(x, {1, 0, 2});
  int64_t stateAxis = layout == 0 ? 0 : 1;
  Value zeroState =
      e.splat({ShapedType::isDynamic(batch) ? 1 : batch, hidden}, 0.0);

  SmallVector<SmallVector<Value>> stepOutputs(seqLength);
  SmallVector<State> finalStates;
  for (int64_t d = 0; d < directions; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    Value wd = e.select(w, 0, d), rd = e.select(r, 0, d);
    Value wb, rb;
    if (bias) {
      Value bd = e.select(bias, 0, d);
      wb = e.slice(bd, 0, 0, gateCount * hidden);
      rb = e.slice(bd, 0, gateCount * hidden, 2 * gateCount * hidden);
    }
    // 2. Input projections for every step: (seq, batch, gates * hidden);
    // RNN and LSTM fold Rb in here too, GRU needs it beside R.
    Value inputBias = kind == CellKind::GRU ? wb : e.add(wb, rb);
    Value projected = e.make<MatMulOp>(x, e.transpose(wd, {1, 0}));
    projected = e.add(projected, inputBias);

    State state{zeroState, zeroState};
    if (initialH)
      state.hidden = e.select(initialH, stateAxis, d);
    if (initialC)
      state.cell = e.select(initialC, stateAxis, d);
    Value peepholeInput, peepholeOutput, peepholeForget;
    if (peephole) {
      Value pd = e.select(peephole, 0, d);
      peepholeInput = e.slice(pd, 0, 0, hidden);
      peepholeOutput = e.slice(pd, 0, hidden, 2 * hidden);
      peepholeForget = e.slice(pd, 0, 2 * hidden, 3 * hidden);
    }
    // GRU splits R (and Rb) into the update/reset part and the hidden part.
    Value rUpdateReset, rHidden, rbUpdateReset, rbHidden;
    if (kind == CellKind::GRU) {
      rUpdateReset = e.slice(rd, 0, 0, 2 * hidden);
      rHidden = e.slice(rd, 0, 2 * hidden, 3 * hidden);
      if (rb) {
        rbUpdateReset = e.slice(rb, 0, 0, 2 * hidden);
        rbHidden = e.slice(rb, 0, 2 * hidden, 3 * hidden);
      }
    }

    for (int64_t step = 0; step < seqLength && !e.failed(); ++step) {
      int64_t t = reverse ? seqLength - 1 - step : step;
      Value xt = e.select(projected, 0, t);
      auto part = [&](Value v, int64_t index) {
        return e.slice(v, 1, index * hidden, (index + 1) * hidden);
      };
      State next;
      if (kind == CellKind::RNN) {
        next.hidden = gate(d, 0, e.add(xt, e.linear(state.hidden, rd, {})));
      } else if (kind == CellKind::GRU) {
        // Gates z, r, h: z and r from one gemm; h by linear_before_reset.
        Value zr = e.add(e.slice(xt, 1, 0, 2 * hidden),
                         e.linear(state.hidden, rUpdateReset, rbUpdateReset));
        Value z = gate(d, 0, part(zr, 0));
        Value reset = gate(d, 0, part(zr, 1));
        Value recurrent =
            *linearBeforeResetOr
                ? e.mul(reset, e.linear(state.hidden, rHidden, rbHidden))
                : e.linear(e.mul(reset, state.hidden), rHidden, rbHidden);
        Value candidate = gate(d, 1, e.add(part(xt, 2), recurrent));
        // H = (1 - z) * h + z * H_prev = h + z * (H_prev - h)
        next.hidden =
            e.add(candidate, e.mul(z, e.sub(state.hidden, candidate)));
      } else {
        // Gates i, o, f, c; the peepholes feed C_prev to i, f and C to o.
        Value gates = e.add(xt, e.linear(state.hidden, rd, {}));
        Value input = part(gates, 0), output = part(gates, 1),
              forget = part(gates, 2);
        if (peephole) {
          input = e.add(input, e.mul(peepholeInput, state.cell));
          forget = e.add(forget, e.mul(peepholeForget, state.cell));
        }
        Value i = gate(d, 0, input), f = gate(d, 0, forget);
        Value c = gate(d, 1, part(gates, 3));
        next.cell = e.add(e.mul(f, state.cell), e.mul(i, c));
        if (peephole)
          output = e.add(output, e.mul(peepholeOutput, next.cell));
        Value o = gate(d, 0, output);
        next.hidden = e.mul(o, gate(d, 2, next.cell));
      }
      Value stepOutput = next.hidden;
      if (sequenceLengths && !e.failed()) {
        // Steps past a batch entry's length keep its state and output 0.
        Type lengthType = getElementTypeOrSelf(sequenceLengths.getType());
        Value index = node.createIntegerConstant({t}, lengthType);
        Value active = e.unsqueeze(e.make<LessOp>(index, sequenceLengths), {1});
        next.hidden = e.make<WhereOp>(active, next.hidden, state.hidden);
        if (next.cell)
          next.cell = e.make<WhereOp>(active, next.cell, state.cell);
        stepOutput = e.make<WhereOp>(active, stepOutput, e.scalar(0.0));
      }
      state = next;
      stepOutputs[t].push_back(stepOutput);
    }
    finalStates.push_back(state);
  }
  if (e.failed())
    return e.takeError();

  // 3. Outputs: Y (seq, dirs, batch, hidden), Y_h/Y_c (dirs, batch, hidden);
  // layout 1 puts batch first.
  if (node.isOutputUsed(0)) {
    SmallVector<Value> steps;
    for (ArrayRef<Value> outputs : stepOutputs) {
      SmallVector<Value> perDirection;
      for (Value output : outputs)
        perDirection.push_back(e.unsqueeze(output, {0, 1}));
      steps.push_back(e.concat(perDirection, 1));
    }
    Value y = e.concat(steps, 0);
    if (layout == 1)
      y = e.transpose(y, {2, 0, 1, 3});
    node.setOutput(0, y);
  }
  auto stackStates = [&](size_t output, Value State::*member) {
    if (!node.isOutputUsed(output))
      return;
    SmallVector<Value> perDirection;
    for (State &state : finalStates)
      perDirection.push_back(e.unsqueeze(state.*member, {0}));
    Value stacked = e.concat(perDirection, 0);
    if (layout == 1)
      stacked = e.transpose(stacked, {1, 0, 2});
    node.setOutput(output, stacked);
  };
  stackStates(1, &State::hidden);
  if (kind == CellKind::LSTM)
    stackStates(2, &State::cell);
  return e.takeError();
}

} // namespace

void populateRecurrentImporters(OpImporterRegistry &registry) {
  registry.add("RNN", importRecurrent<CellKind::RNN>);
  registry.add("GRU", importRecurrent<CellKind::GRU>);
  registry.add("LSTM", importRecurrent<CellKind::LSTM>);
}

} // namespace kiln::onnx_import
