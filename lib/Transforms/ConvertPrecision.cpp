// kiln-convert-precision: runs the entry function's f32 tensors in fp16 or
// bf16 (templates still accumulate in float), or marks fp32 GEMMs as
// allowed to use TF32.
//
// Algorithm (fp16/bf16, target type T):
//  1. Every f32 argument is cast to T on entry; its other uses read the cast.
//  2. Every f32 result of an op but index and weight arithmetic, the
//     reduction statistics and the batch norms with constant parameters
//     (below) becomes T. Small dense f32 constants (but
//     those only index or weight arithmetic reads) are rebuilt in T with their
//     values saturated to T's finite range; weights (resource blobs) are cast
//     by a kiln.cast that kiln-outline-init turns into part of the init
//     program. kiln.cast to f32 casts to T instead, and the ops whose element
//     type an attribute gives (constant_of_shape's value, eye_like's dtype)
//     take T there (their type inference reads it).
//  3. Every returned value that was f32 is cast back to f32.
// The function type keeps its f32 signature, so callers see no change.
//
// Index arithmetic stays f32 (IndexArithmetic): float ops computed only
// from integer tensors and small constants whose results end, through one
// another, in integer values (a cast to an integer type, a comparison) keep
// their f32 types, and their constants stay f32. Truncation to an integer is
// discontinuous, so fp16's relative error of 2^-11 moves a result that sits
// on an integer to the integer below: T5's relative-position bucket,
// 8 + int(log(n / 8) / log(16) * 8), took log(16) rounded to f16 (2.7734 for
// 2.7726), put the distances 16, 32 and 64 one bucket low, and the encoder's
// output missed onnxruntime by rel-L2 0.18 on the H200. The values are
// index-sized, so f32 costs nothing; a value that meets an activation or a
// weight (an attention mask added to scores) is not index arithmetic and
// becomes f16 as before.
//
// Weight arithmetic stays f32 (WeightArithmetic): ops computed only from
// constants (dense or weight blobs) and one another, which
// kiln-fold-constants evaluates at compile time or kiln-outline-init moves
// into the init program, keep their f32 types and their constants; each use
// of their results by an op outside them reads a cast to T. A folded
// BatchNorm's w * scale / sqrt(variance + epsilon) is then rounded to fp16
// once, at the end, instead of at every step (a variance plus epsilon below
// f16's smallest normal, 6.1e-5, keeps a few bits): with the zoo's unfolded
// BatchNorms at fp16 on the CPU evaluator, MobileNet-V2's rel-L2 against
// onnxruntime went from 1.45e-3 to 8.1e-4, EfficientNet-B0's from 1.08e-3 to
// 7.4e-4. It runs once, at load, so f32 costs nothing per run. (Those
// figures were not at the zoo benchmark's setup. At batch 8, 224x224, the
// bundle's inputs and statistics, the evaluator gave MobileNet-V2 1.95e-2
// without this rule, the H200's own 1.95e-2, and 1.35e-2 with it, under
// torch eager fp16's 1.71e-2; EfficientNet-B0 1.05e-2 (H200 1.09e-2) and
// 4.9e-3 (torch 6.4e-3).)
//
// An inference batch norm that no convolution absorbed computes in f32
// (ConstantBatchNorms): with parameters computed from constants it reads its
// input widened (exact), keeps its scale, bias, mean and variance f32 and is
// rounded to T once, where an op outside it reads it. kiln-assign-layout
// writes a channels-last one as (x - mean) * factor + bias, and with T
// parameters folded factor = scale / sqrt(variance + epsilon) in T, rounded
// at the parameters, + epsilon, the sqrt and the division: for DenseNet-121's
// first pre-activation norm a per-channel error of rms 2.3e-4 (9.6e-5 for
// torch's fp16 eager, which rounds only the parameters and computes in f32;
// 0 now), which every activation of the channel carries into the next
// convolution, besides the mean and bias rounded to T. The parameters are a
// channel's worth of values, read by a kernel that computes in float anyway.
// DenseNet-121 (62 such norms) at the zoo benchmark's weights and input,
// kiln-interpret --kernel-numerics against onnxruntime: rel-L2 4.88e-3 ->
// 3.84e-3 at batch 8 (4.97e-3 -> 3.86e-3 at batch 2; torch's fp16 eager,
// emulated on the CPU, 5.28e-3 at batch 8, the H200's own figure); with the
// factor rounded to f16 once and the mean and bias in f16 it would be
// 4.53e-3, with torch's f16 parameters 4.32e-3. The cost: f32 operands make
// the loop template's vectors 4 elements (16 bytes of f32) where f16 alone
// gave 8, for DenseNet's 62 concat + norm + relu kernels.
//
// Reduction statistics compute in f32 (ReductionStatistics): a sum or mean
// that is computed with further (var + eps, x - mean, e^x / sum), the
// elementwise arithmetic of such statistics alone (sqrt, 1 / x) and the
// prologue computed only for them (x^2) keep f32, reading activations
// widened (exact); an elementwise op that reads a statistic and an
// activation (x * rstd) computes in f32 and is rounded to T once. In f16,
// T5's decomposed RMSNorm mean(x^2) overflowed for a row of RMS above 256
// (x^2 > 65504: the row came out zero), and each of eps, sqrt and 1 / x
// rounded again. The statistics are a row's worth of values, so f32 costs
// 2 bytes a row. A mean read as it is (a global average pool's, by a
// flatten or a convolution) stays T: one rounding either way.
//
// A softmax reads its logits in f32 (ReductionStatistics too): exp(x - max)
// turns a logit's absolute error into its probability's relative error, and
// an f16 logit of size |x| carries |x| * 2^-11. The ops computed only for
// the softmax (T5's q kT plus position bias plus mask) compute in f32; a
// GEMM's product among them is widened by a cast that kiln-fuse-kernels
// gives to the GEMM, so cuBLASLt writes the scores in f32, unrounded. The
// probabilities are rounded to T. Cost: the scores' 2 more bytes each way
// (T5-small's encoder at 8x128: 3 MB a layer); attention that
// kiln-recognize-patterns made a kiln.attention keeps its scores on chip.
// With both rules the T5 encoder (standard size, the zoo's weights and
// input) on the evaluator computing kernels as the GPU does
// (kiln-interpret --kernel-numerics) went from rel-L2 8.25e-3 to 6.65e-3
// against onnxruntime at batch 2, 7.00e-3 at batch 8 (torch eager fp16 on
// the H200: 7.17e-3); the decoder from 5.48e-3 to 4.79e-3 at batch 2.
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNCONVERTPRECISION
#include "kiln/Transforms/Passes.h.inc"

namespace {

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

RankedTensorType withElementType(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

/// |value| converted to |target|, saturated to its largest finite value.
APFloat saturate(float value, const llvm::fltSemantics &target) {
  APFloat converted(value);
  bool lost = false;
  converted.convert(target, APFloat::rmNearestTiesToEven, &lost);
  if (converted.isInfinity() && !std::isinf(value))
    return APFloat::getLargest(target, value < 0);
  return converted;
}

/// A dense f32 constant rebuilt in |element|; nullptr for resource blobs.
DenseElementsAttr convertDense(ElementsAttr value, FloatType element) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return nullptr;
  auto type = withElementType(dense.getType(), element);
  if (dense.isSplat())
    return DenseElementsAttr::get(type, saturate(dense.getSplatValue<float>(),
                                                 element.getFloatSemantics()));
  SmallVector<APFloat> values;
  for (float v : dense.getValues<float>())
    values.push_back(saturate(v, element.getFloatSemantics()));
  return DenseElementsAttr::get(type, values);
}

/// Whether |value| is an f32 constant held in the IR (not a weight blob).
bool isDenseF32Constant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  return constant && isF32Tensor(constant.getType()) &&
         isa<DenseElementsAttr>(constant.getValue());
}

/// Whether |op| has results and none of them is a floating-point tensor (a
/// cast to an integer type, a comparison): the end of an index computation.
/// The return, without results, is not.
bool producesNoFloat(Operation *op) {
  return op->getNumResults() != 0 &&
         llvm::none_of(op->getResultTypes(), [](Type type) {
           auto tensor = dyn_cast<RankedTensorType>(type);
           return tensor && isa<FloatType>(tensor.getElementType());
         });
}

/// The index arithmetic of a block (see the file comment): the largest set
/// of ops with an f32 result each of which reads only non-float values,
/// dense f32 constants and results of the set, and each of whose users is in
/// the set or ends it.
class IndexArithmetic {
public:
  explicit IndexArithmetic(Block &body) {
    // The candidates, in one pass in program order: the f32 ops computed
    // from integers and constants only.
    SmallVector<Operation *> candidates;
    for (Operation &op : body)
      if (!isa<ConstantOp>(op) && op.getNumRegions() == 0 &&
          llvm::any_of(op.getResultTypes(), isF32Tensor) && readsIndices(&op)) {
        ops.insert(&op);
        candidates.push_back(&op);
      }
    // Dropping a candidate whose result meets other values drops the
    // candidates it reads and those that read it: repeat until nothing
    // changes.
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation *op : llvm::reverse(candidates))
        if (ops.contains(op) &&
            (!readsIndices(op) ||
             !llvm::all_of(op->getUsers(), [&](Operation *user) {
               return readsOnlyIndices(user);
             }))) {
          ops.erase(op);
          changed = true;
        }
    }
  }

  /// Whether |op| is index arithmetic (keeps its f32 results).
  bool contains(Operation *op) const { return ops.contains(op); }

  /// Whether |op| is index arithmetic or ends it: produces no float (a cast
  /// to an integer type, a comparison) from index arithmetic and constants.
  bool readsOnlyIndices(Operation *op) const {
    return ops.contains(op) || (producesNoFloat(op) && readsIndices(op));
  }

private:
  /// Whether every float operand of |op| is a dense f32 constant or a
  /// result of the set.
  bool readsIndices(Operation *op) const {
    return llvm::all_of(op->getOperands(), [&](Value operand) {
      if (!isa<FloatType>(getElementTypeOrSelf(operand.getType())) ||
          isDenseF32Constant(operand))
        return true;
      Operation *producer = operand.getDefiningOp();
      return producer && ops.contains(producer);
    });
  }

  llvm::DenseSet<Operation *> ops;
};

/// Whether |op| computes nothing, only moves values (transpose, reshape,
/// slice, concat, gather, ...): exact in any precision.
bool movesOnly(Operation *op) {
  return isa<TransposeOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp,
             ConcatOp, SliceOp, GatherOp, ExpandOp, TileOp, DepthToSpaceOp,
             SpaceToDepthOp>(op);
}

/// The weight arithmetic of a block (see the file comment): the ops each of
/// whose operands is a constant's result or a result of the set, but those
/// that only move values and feed no arithmetic of the set (a weight's
/// transpose is exact in T: cast first, and the result keeps fitting
/// kiln-fold-constants' cap as before).
class WeightArithmetic {
public:
  explicit WeightArithmetic(Block &body) {
    SmallVector<Operation *> members;
    for (Operation &op : body)
      if (!isa<ConstantOp>(op) && op.getNumRegions() == 0 &&
          op.getNumResults() != 0 && op.getNumOperands() != 0 &&
          llvm::all_of(op.getOperands(),
                       [&](Value operand) { return isWeight(operand); })) {
        ops.insert(&op);
        members.push_back(&op);
      }
    // Users come after their producers: in reverse, each user is decided.
    for (Operation *op : llvm::reverse(members))
      if (movesOnly(op) && llvm::none_of(op->getUsers(), [&](Operation *user) {
            return ops.contains(user);
          }))
        ops.erase(op);
  }

  bool contains(Operation *op) const { return ops.contains(op); }
  /// Whether |value| is a constant or a result of weight arithmetic.
  bool isWeight(Value value) const {
    Operation *producer = value.getDefiningOp();
    return producer && (isa<ConstantOp>(producer) || ops.contains(producer));
  }

private:
  llvm::DenseSet<Operation *> ops;
};

/// The inference batch norms of a block that compute in f32 (see the file
/// comment): those of an f32 activation whose scale, bias, mean and variance
/// are each a constant or weight arithmetic, which keep f32 for them.
class ConstantBatchNorms {
public:
  ConstantBatchNorms(Block &body, const WeightArithmetic &weights) {
    for (auto norm : body.getOps<BatchNormOp>())
      if (isF32Tensor(norm.getType()) && !weights.contains(norm) &&
          llvm::all_of(ValueRange{norm.getScale(), norm.getBias(),
                                  norm.getMean(), norm.getVariance()},
                       [&](Value parameter) {
                         return isF32Tensor(parameter.getType()) &&
                                weights.isWeight(parameter);
                       }))
        norms.insert(norm);
  }

  bool contains(Operation *op) const { return norms.contains(op); }

private:
  llvm::DenseSet<Operation *> norms;
};

/// Whether |op| accumulates its input (a sum, mean, product or log-sum-exp
/// reduction), so its result's range and rounding grow with the row; max
/// and min select an element, exact in any type.
bool accumulates(Operation *op) {
  return isa<ReduceSumOp, ReduceMeanOp, ReduceProdOp, ReduceLogSumExpOp>(op);
}

/// Whether |op| is an elementwise op with an f32 tensor result and no
/// region: one that can compute in f32 in place of T.
bool isF32Pointwise(Operation *op) {
  return classifyForFusion(op) == FusionClass::Pointwise &&
         op->getNumRegions() == 0 && op->getNumResults() == 1 &&
         isF32Tensor(op->getResult(0).getType());
}

/// The reduction statistics of a block (see the file comment): the ops that
/// compute in f32. A statistic is an accumulating reduction computed with
/// further, by an elementwise user (var + eps, x - mean, e^x / sum); the
/// statistics' arithmetic (elementwise ops reading only statistics and
/// constants: sqrt, 1 / x) and the views of statistics are statistics too.
/// A statistic's prologue (the elementwise ops computed only for it: x^2,
/// (x - mean)^2) computes in f32, and so does each elementwise op that reads
/// a statistic and an activation (x * rstd), which is not a statistic: its
/// result is rounded to T once. A mean read as it is (a global average
/// pool's, by a flatten or a convolution) stays T: one rounding either way.
class ReductionStatistics {
public:
  explicit ReductionStatistics(Block &body) {
    for (Operation &op : body) {
      if (isa<ConstantOp>(op) || op.getNumResults() != 1 ||
          !isF32Tensor(op.getResult(0).getType()))
        continue;
      if (accumulates(&op)) {
        if (llvm::any_of(op.getUsers(), [](Operation *user) {
              return classifyForFusion(user) == FusionClass::Pointwise;
            })) {
          statistics.insert(&op);
          computesF32.insert(&op);
          SmallVector<Operation *> prologue = prologueOf(&op);
          computesF32.insert(prologue.begin(), prologue.end());
        }
        continue;
      }
      if (isa<SoftmaxOp, LogSoftmaxOp>(op)) {
        computesF32.insert(&op);
        SmallVector<Operation *> prologue = prologueOf(&op);
        computesF32.insert(prologue.begin(), prologue.end());
        continue;
      }
      bool readsStatistic = false, readsActivation = false;
      for (Value operand : op.getOperands()) {
        if (!isa<FloatType>(getElementTypeOrSelf(operand.getType())) ||
            isDenseF32Constant(operand))
          continue;
        Operation *producer = operand.getDefiningOp();
        if (producer && statistics.contains(producer))
          readsStatistic = true;
        else
          readsActivation = true;
      }
      if (!readsStatistic || !(isF32Pointwise(&op) || movesOnly(&op)))
        continue;
      computesF32.insert(&op);
      if (!readsActivation)
        statistics.insert(&op);
    }
  }

  /// Whether |op| computes in f32 (keeps its f32 results; reads its T
  /// operands cast to f32).
  bool contains(Operation *op) const { return computesF32.contains(op); }

private:
  /// The elementwise ops that |reduction| alone reads, through one another:
  /// each has an f32 result, and every user is |reduction| or one of them.
  SmallVector<Operation *> prologueOf(Operation *reduction) const {
    SmallVector<Operation *> prologue;
    llvm::DenseSet<Operation *> members{reduction};
    SmallVector<Operation *> worklist{reduction};
    while (!worklist.empty()) {
      Operation *user = worklist.pop_back_val();
      for (Value operand : user->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || members.contains(producer) ||
            !isF32Pointwise(producer) ||
            !llvm::all_of(producer->getUsers(), [&](Operation *next) {
              return members.contains(next);
            }))
          continue;
        members.insert(producer);
        prologue.push_back(producer);
        worklist.push_back(producer);
      }
    }
    return prologue;
  }

  llvm::DenseSet<Operation *> statistics;
  llvm::DenseSet<Operation *> computesF32;
};

struct ConvertPrecisionPass
    : impl::KilnConvertPrecisionBase<ConvertPrecisionPass> {
  using KilnConvertPrecisionBase::KilnConvertPrecisionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder attrs(module.getContext());
    if (precision != "fp32" && precision != "tf32" && precision != "fp16" &&
        precision != "bf16") {
      module.emitError("kiln-convert-precision: unknown precision '")
          << precision << "'; expected fp32, tf32, fp16 or bf16";
      return signalPassFailure();
    }
    module->setAttr(kPrecisionAttr, attrs.getStringAttr(precision));
    if (precision == "fp32" || precision == "tf32")
      return;
    FloatType target =
        precision == "fp16" ? attrs.getF16Type() : attrs.getBF16Type();
    func::FuncOp function = getEntryFunction(module);
    if (!function)
      return;
    Block &body = function.getBody().front();
    OpBuilder builder(module.getContext());
    auto castTo = [&](Value value, Type element, Location loc) -> Value {
      auto type = withElementType(value.getType(), element);
      return builder.create<CastOp>(loc, type, value, TypeAttr::get(element));
    };

    // Step 1.
    builder.setInsertionPointToStart(&body);
    for (BlockArgument argument : function.getArguments()) {
      if (!isF32Tensor(argument.getType()) || argument.use_empty())
        continue;
      Value cast = castTo(argument, target, argument.getLoc());
      argument.replaceAllUsesExcept(cast, cast.getDefiningOp());
    }

    // Step 2.
    IndexArithmetic indexArithmetic(body);
    WeightArithmetic weightArithmetic(body);
    ReductionStatistics statistics(body);
    ConstantBatchNorms batchNorms(body, weightArithmetic);
    // Whether |user| reads f32 values as they are: index or weight
    // arithmetic, or an op computing in f32 for the statistics or a batch
    // norm's parameters.
    auto keepsF32 = [&](Operation *user) {
      return indexArithmetic.readsOnlyIndices(user) ||
             weightArithmetic.contains(user) || statistics.contains(user) ||
             batchNorms.contains(user);
    };
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (isa<func::ReturnOp>(op) || indexArithmetic.contains(&op))
        continue;
      bool computesF32 =
          (statistics.contains(&op) || batchNorms.contains(&op)) &&
          !weightArithmetic.contains(&op);
      if (computesF32) {
        // Its operands converted to T already are read widened (exactly),
        // by a cast of its own that fuses into its kernel.
        builder.setInsertionPoint(&op);
        for (OpOperand &operand : op.getOpOperands()) {
          auto type = dyn_cast<RankedTensorType>(operand.get().getType());
          if (type && type.getElementType() == target)
            operand.set(castTo(operand.get(), attrs.getF32Type(), op.getLoc()));
        }
      }
      if (computesF32 || weightArithmetic.contains(&op)) {
        // Its f32 results stay; the ops outside read them cast to T.
        builder.setInsertionPointAfter(&op);
        for (OpResult result : op.getResults()) {
          if (!isF32Tensor(result.getType()) ||
              llvm::all_of(result.getUsers(), [&](Operation *user) {
                return keepsF32(user) || isa<func::ReturnOp>(user);
              }))
            continue;
          Value cast = castTo(result, target, op.getLoc());
          result.replaceUsesWithIf(cast, [&](OpOperand &use) {
            Operation *user = use.getOwner();
            return user != cast.getDefiningOp() && !keepsF32(user) &&
                   !isa<func::ReturnOp>(user);
          });
        }
        continue;
      }
      if (auto constant = dyn_cast<ConstantOp>(op)) {
        if (!isF32Tensor(constant.getType()))
          continue;
        // A constant that only index or weight arithmetic reads stays f32.
        if (llvm::all_of(constant->getUsers(), keepsF32))
          continue;
        builder.setInsertionPointAfter(constant);
        Value replacement;
        if (DenseElementsAttr dense = convertDense(constant.getValue(), target))
          replacement = builder.create<ConstantOp>(constant.getLoc(), dense);
        else
          replacement = castTo(constant, target, constant.getLoc());
        constant.getResult().replaceUsesWithIf(
            replacement, [&](OpOperand &use) {
              return use.getOwner() != replacement.getDefiningOp() &&
                     !keepsF32(use.getOwner());
            });
        continue;
      }
      // Ops whose result element type an attribute gives (their type
      // inference reads it) take the target type there too.
      if (auto cast = dyn_cast<CastOp>(op); cast && cast.getTo().isF32())
        cast.setToAttr(TypeAttr::get(target));
      if (auto fill = dyn_cast<ConstantOfShapeOp>(op);
          fill && isF32Tensor(fill.getValue().getType())) {
        DenseElementsAttr value = convertDense(fill.getValue(), target);
        if (!value) {
          fill.emitError("kiln-convert-precision: the value of a "
                         "constant_of_shape must be a dense attribute");
          return signalPassFailure();
        }
        fill.setValueAttr(value);
      }
      if (auto eye = dyn_cast<EyeLikeOp>(op); eye && eye.getDtype().isF32())
        eye.setDtypeAttr(TypeAttr::get(target));
      for (OpResult result : op.getResults())
        if (isF32Tensor(result.getType()))
          result.setType(withElementType(result.getType(), target));
    }

    // Step 3.
    auto returnOp = cast<func::ReturnOp>(body.getTerminator());
    builder.setInsertionPoint(returnOp);
    for (auto [index, type] :
         llvm::enumerate(function.getFunctionType().getResults())) {
      Value value = returnOp.getOperand(index);
      if (isF32Tensor(type) && value.getType() != type)
        returnOp.setOperand(
            index, castTo(value, attrs.getF32Type(), returnOp.getLoc()));
    }
  }
};

} // namespace
} // namespace kiln
