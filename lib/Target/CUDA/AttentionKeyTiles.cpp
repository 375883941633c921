// The key tiles a compile-time mask lets the flash attention kernel skip
// (GPT-2's causal mask: half of them).
//
// Algorithm:
//  1. The mask's values: a kiln.constant (in the kernel or feeding it), a
//     data-less weight computed by @kiln_init (kiln.init_result = N: its
//     return value N is evaluated instead), or a small graph of such ops and
//     kernels over constants, evaluated on the host by the CPU evaluator. A
//     mask that depends on a function argument (BERT's padding mask) has no
//     bounds.
//  2. Per row r of each batch slice of the mask, its largest entry M_r. Key
//     j is skippable for row r when mask[r][j] <= M_r - kMaskMargin (which
//     -inf always is). Why that is exact: the kernel adds the mask to fp32
//     scores scale q.k; with |scale q.k| < S the score of a skippable key is
//     below that of row r's largest-mask key by more than kMaskMargin - 2S,
//     so its weight e^(s_j - m) relative to the row's final maximum m is
//     below e^-(kMaskMargin - 2S); for S < 4900 (attention logits are O(10);
//     at thousands the f16 softmax is one-hot anyway) that is < e^-200,
//     which underflows to exactly 0 in fp32 (the smallest denormal is
//     e^-103.3). Visiting it adds 0 to the row's sum and output, or rescales
//     earlier such weights by e^(m_old - m_new) = 0 once the maximum is seen.
//     For the usual masks (0 kept; -65504, -3.4e38 or -inf masked) this is
//     "masked = -inf or <= -1e4".
//  3. A query tile visits the contiguous key tiles from the first to the
//     last that holds a key some of its rows may not skip. A row whose M_r
//     is not finite (all -inf: NaN as the decomposed softmax gives; NaN or
//     +inf entries) makes its tile visit every key tile, as does a row whose
//     entries are all alike (-65504 everywhere: uniform weights), since then
//     no key is skippable. So every row meets its largest entry.
//  4. No bounds when no tile skips anything; slices with equal bounds merge.
//  5. A causal mask whose entries on and below the diagonal are all 0 and
//     whose entries above it are all skippable (GPT-2's) need not be read:
//     the kernel adds nothing and sets the keys above the diagonal to -inf
//     in the diagonal tile, which gives their weights the same exact 0.
#include "AttentionTemplates.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Evaluator/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <deque>

using namespace mlir;

namespace kiln::cuda {
namespace {
/// How far below a row's largest mask entry a key's entry must be to skip it.
constexpr double kMaskMargin = 1e4;
/// Limits of the host evaluation: the largest tensor and the number of ops.
constexpr int64_t kMaxEvaluatedElements = int64_t(1) << 24;
constexpr int kMaxEvaluatedOps = 64;
/// The most (first, last) pairs the kernel's table may hold.
constexpr int64_t kMaxTableEntries = 4096;

/// Step 1: evaluates values computed from constants only.
class ConstantEvaluator {
public:
  explicit ConstantEvaluator(ModuleOp module) : module(module) {}

  /// The value's tensor, or nullptr when it is not computed from constants
  /// (or too large to evaluate).
  const eval::Tensor *evaluate(Value value) {
    if (!value)
      return nullptr;
    if (auto it = values.find(value); it != values.end())
      return it->second;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape() ||
        type.getNumElements() > kMaxEvaluatedElements)
      return nullptr;
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      // A kernel's body argument is the kernel's operand; a function's
      // argument is not known at compile time.
      auto kernel = dyn_cast<KernelOp>(argument.getOwner()->getParentOp());
      if (!kernel)
        return nullptr;
      return remember(value,
                      evaluate(kernel->getOperand(argument.getArgNumber())));
    }
    Operation *op = value.getDefiningOp();
    unsigned number = cast<OpResult>(value).getResultNumber();
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      if (auto init = op->getAttrOfType<IntegerAttr>(kInitResultAttr))
        return remember(value, evaluate(initResult(init.getInt())));
      llvm::Expected<eval::Tensor> tensor =
          eval::tensorFromAttr(constant.getValue());
      if (!tensor) {
        llvm::consumeError(tensor.takeError());
        return nullptr;
      }
      return remember(value, std::move(*tensor));
    }
    if (++ops > kMaxEvaluatedOps)
      return nullptr;
    if (auto kernel = dyn_cast<KernelOp>(op))
      return remember(value, evaluate(kernel.getYield().getValues()[number]));
    if (op->getNumRegions() != 0 || !eval::canEvaluate(op))
      return nullptr;
    std::vector<eval::Tensor> operands;
    for (Value operand : op->getOperands()) {
      const eval::Tensor *tensor = evaluate(operand);
      if (!tensor)
        return nullptr;
      operands.push_back(*tensor);
    }
    llvm::Expected<std::vector<eval::Tensor>> results =
        eval::evaluateOp(op, operands);
    if (!results) {
      llvm::consumeError(results.takeError());
      return nullptr;
    }
    return remember(value, std::move((*results)[number]));
  }

private:
  const eval::Tensor *remember(Value value, const eval::Tensor *tensor) {
    values[value] = tensor;
    return tensor;
  }
  const eval::Tensor *remember(Value value, eval::Tensor tensor) {
    storage.push_back(std::move(tensor));
    return remember(value, &storage.back());
  }
  /// Result |number| of @kiln_init, or null.
  Value initResult(int64_t number) {
    auto init = module ? module.lookupSymbol<func::FuncOp>(kInitFunctionName)
                       : func::FuncOp();
    if (!init || init.isExternal())
      return {};
    Operation *terminator = init.getBody().front().getTerminator();
    if (number < 0 || number >= terminator->getNumOperands())
      return {};
    return terminator->getOperand(number);
  }

  ModuleOp module;
  std::deque<eval::Tensor> storage; // Stable addresses.
  llvm::DenseMap<Value, const eval::Tensor *> values;
  int ops = 0;
};

} // namespace

std::optional<KeyTileBounds> findKeyTileBounds(KernelOp kernel, Value mask,
                                               int64_t outputRank, int64_t sq,
                                               int64_t sk, int64_t rowsPerTile,
                                               int64_t keysPerTile) {
  ConstantEvaluator evaluator(kernel->getParentOfType<ModuleOp>());
  if (!mask)
    return std::nullopt;
  const eval::Tensor *values = evaluator.evaluate(mask);
  if (!values || !values->isFloat())
    return std::nullopt;

  // The mask's [slices, maskRows, maskCols] view (rows and cols may be 1,
  // broadcast; a mask of lower rank broadcasts from the left).
  SmallVector<int64_t> shape(values->shape());
  if (static_cast<int64_t>(shape.size()) > outputRank)
    return std::nullopt;
  while (shape.size() < 2)
    shape.insert(shape.begin(), 1);
  int64_t maskRows = shape[shape.size() - 2], maskCols = shape.back();
  int64_t slices = values->numElements() / (maskRows * maskCols);
  int64_t queryTiles = (sq + rowsPerTile - 1) / rowsPerTile;
  int64_t keyTiles = (sk + keysPerTile - 1) / keysPerTile;
  if (slices * queryTiles > kMaxTableEntries)
    return std::nullopt;

  // Steps 2 and 3.
  KeyTileBounds bounds;
  bounds.slices = slices;
  bool skips = false;
  for (int64_t slice = 0; slice < slices; ++slice) {
    for (int64_t queryTile = 0; queryTile < queryTiles; ++queryTile) {
      int64_t first = keyTiles, last = -1;
      for (int64_t row = queryTile * rowsPerTile;
           row < std::min(sq, (queryTile + 1) * rowsPerTile); ++row) {
        int64_t base =
            (slice * maskRows + (maskRows == 1 ? 0 : row)) * maskCols;
        auto entry = [&](int64_t key) {
          return values->getDouble(base + (maskCols == 1 ? 0 : key));
        };
        double largest = -INFINITY;
        bool finite = true;
        for (int64_t key = 0; key < sk && finite; ++key) {
          double value = entry(key);
          finite = !std::isnan(value) && value != INFINITY;
          largest = std::max(largest, value);
        }
        if (!finite || !std::isfinite(largest)) {
          first = 0, last = keyTiles - 1;
          break;
        }
        for (int64_t key = 0; key < sk; ++key)
          if (entry(key) > largest - kMaskMargin) {
            first = std::min(first, key / keysPerTile);
            last = std::max(last, key / keysPerTile);
          }
      }
      skips |= first != 0 || last != keyTiles - 1;
      bounds.first.push_back(static_cast<int32_t>(first));
      bounds.last.push_back(static_cast<int32_t>(last));
    }
  }
  if (!skips)
    return std::nullopt;

  // Step 4.
  auto sliceEquals = [&](int64_t slice) {
    for (int64_t i = 0; i < queryTiles; ++i)
      if (bounds.first[slice * queryTiles + i] != bounds.first[i] ||
          bounds.last[slice * queryTiles + i] != bounds.last[i])
        return false;
    return true;
  };
  bool allEqual = true;
  for (int64_t slice = 1; slice < slices && allEqual; ++slice)
    allEqual = sliceEquals(slice);
  if (allEqual) {
    bounds.slices = 1;
    bounds.first.resize(queryTiles);
    bounds.last.resize(queryTiles);
  }
  bounds.causal = bounds.slices == 1;
  for (int64_t i = 0; i < queryTiles && bounds.causal; ++i)
    bounds.causal = bounds.first[i] == 0 && bounds.last[i] == i;

  // Step 5.
  bounds.zeroCausal = bounds.causal && slices == 1 && sq == sk &&
                      rowsPerTile == keysPerTile &&
                      maskRows == sq && maskCols == sk;
  for (int64_t row = 0; row < sq && bounds.zeroCausal; ++row)
    for (int64_t key = 0; key < sk && bounds.zeroCausal; ++key) {
      double value = values->getDouble(row * maskCols + key);
      bounds.zeroCausal = key <= row ? value == 0.0 : value <= -kMaskMargin;
    }
  return bounds;
}

} // namespace kiln::cuda
