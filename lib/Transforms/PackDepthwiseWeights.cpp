// kiln-pack-depthwise-weights: stores depthwise conv weights channels
// innermost (PackDepthwiseWeights.h).
//
// Algorithm, per channels-last depthwise kiln.conv (isDepthwiseChannelsLast)
// with as many output as input channels whose weight w [C, R, S, 1] is a
// kiln.constant that only such convs read:
//  1. A constant with data (dense or a resource blob) is replaced by one
//     holding the same values stored [R, S, 1, C] (a byte permutation).
//  2. A data-less result N of @kiln_init (kiln.init_result = N) becomes
//     transpose(result, [1, 2, 3, 0]) at the end of the init program, and
//     the entry function's constant takes the new type.
//  3. Each conv reads the stored constant through
//     transpose(stored, [3, 0, 1, 2]) (kDepthwiseWeightPerm), which its
//     kernel takes in (kiln-fuse-kernels, isDepthwiseWeightLayout).
// Anything else (a computed weight, a constant another op reads) is left:
// its kernel runs the loop template, reading the weight as it is.
#include "kiln/Transforms/PackDepthwiseWeights.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SetVector.h"

#include <cstring>

using namespace mlir;

namespace kiln {
namespace {

/// [C, R, S, 1] -> [R, S, 1, C] as a transpose's perm.
constexpr int64_t kToChannelsInnermost[] = {1, 2, 3, 0};

RankedTensorType storedType(RankedTensorType type) {
  return RankedTensorType::get(
      {type.getDimSize(1), type.getDimSize(2), 1, type.getDimSize(0)},
      type.getElementType());
}

/// Step 1: the values of |attr| ([C, R, S, 1]) stored [R, S, 1, C];
/// null when the data is not at hand (an init result) or not bytes.
ElementsAttr packData(ElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  RankedTensorType packed = storedType(type);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return dense.resizeSplat(packed);
  }
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return nullptr;
  ArrayRef<char> data;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    data = dense.getRawData();
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return nullptr;
    data = blob->getData();
  } else {
    return nullptr;
  }
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t channels = type.getDimSize(0),
          cells = type.getDimSize(1) * type.getDimSize(2);
  if (int64_t(data.size()) != channels * cells * bytes)
    return nullptr;
  std::vector<char> stored(data.size());
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t cell = 0; cell < cells; ++cell)
      std::memcpy(&stored[(cell * channels + c) * bytes],
                  &data[(c * cells + cell) * bytes], bytes);
  if (isa<DenseElementsAttr>(attr))
    return DenseElementsAttr::getFromRawBuffer(packed, stored);
  return DenseResourceElementsAttr::get(
      packed, "depthwise_weight",
      HeapAsmResourceBlob::allocateAndCopyWithAlign(stored, /*align=*/64));
}

/// Step 2: makes result |index| of @kiln_init its transpose to [R, S, 1, C].
LogicalResult packInitResult(ModuleOp module, int64_t index) {
  auto init = module.lookupSymbol<func::FuncOp>(kInitFunctionName);
  if (!init || init.getBody().empty())
    return failure();
  Operation *terminator = init.getBody().front().getTerminator();
  if (index < 0 || index >= int64_t(terminator->getNumOperands()))
    return failure();
  OpBuilder builder(terminator);
  Value result = terminator->getOperand(index);
  Value packed = builder.create<TransposeOp>(
      result.getLoc(), result,
      builder.getDenseI64ArrayAttr(kToChannelsInnermost));
  terminator->setOperand(index, packed);
  init.setFunctionType(builder.getFunctionType(
      {}, ValueRange(terminator->getOperands()).getTypes()));
  return success();
}

struct PackDepthwiseWeightsPass
    : PassWrapper<PackDepthwiseWeightsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PackDepthwiseWeightsPass)

  StringRef getArgument() const final { return "kiln-pack-depthwise-weights"; }
  StringRef getDescription() const final {
    return "Stores the constant weights of channels-last depthwise "
           "convolutions channels innermost, read through a transpose.";
  }

  /// Whether every user of |constant| reads it as the weight of a
  /// channels-last depthwise conv.
  static bool onlyDepthwiseWeight(ConstantOp constant) {
    return !constant->use_empty() &&
           llvm::all_of(constant->getUses(), [](OpOperand &use) {
             auto conv = dyn_cast<ConvOp>(use.getOwner());
             return conv && use.getOperandNumber() == 1 &&
                    isDepthwiseChannelsLast(conv);
           });
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::SetVector<ConstantOp> weights;
    module.walk([&](ConvOp conv) {
      // One output channel per input channel: what the channels-last window
      // template runs (a channel multiplier keeps the loop template).
      auto input = cast<RankedTensorType>(conv.getInput().getType());
      auto weight = cast<RankedTensorType>(conv.getWeight().getType());
      int64_t group = int64_t(conv.getGroup());
      if (!isDepthwiseChannelsLast(conv) || input.getDimSize(3) != group ||
          weight.getDimSize(0) != group)
        return;
      auto constant = conv.getWeight().getDefiningOp<ConstantOp>();
      if (constant && onlyDepthwiseWeight(constant))
        weights.insert(constant);
    });
    for (ConstantOp constant : weights) {
      auto type = cast<RankedTensorType>(constant.getType());
      ElementsAttr stored;
      if (auto index = constant->getAttrOfType<IntegerAttr>(kInitResultAttr)) {
        auto resource =
            dyn_cast<DenseResourceElementsAttr>(constant.getValue());
        if (!resource || failed(packInitResult(module, index.getInt())))
          continue;
        stored = DenseResourceElementsAttr::get(storedType(type),
                                                resource.getRawHandle());
      } else {
        stored = packData(constant.getValue());
        if (!stored)
          continue;
      }
      OpBuilder builder(constant);
      auto packed = cast<ConstantOp>(builder.clone(*constant));
      packed.setValueAttr(stored);
      packed.getResult().setType(cast<RankedTensorType>(stored.getType()));
      Value weight = builder.create<TransposeOp>(
          constant.getLoc(), packed.getResult(),
          builder.getDenseI64ArrayAttr(kDepthwiseWeightPerm));
      constant.getResult().replaceAllUsesWith(weight);
      constant.erase();
    }
  }
};

} // namespace

std::unique_ptr<Pass> createKilnPackDepthwiseWeights() {
  return std::make_unique<PackDepthwiseWeightsPass>();
}

void registerKilnPackDepthwiseWeights() {
  PassRegistration<PackDepthwiseWeightsPass>();
}

} // namespace kiln
