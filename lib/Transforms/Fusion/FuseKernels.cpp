// kiln-fuse-kernels: groups ops into destination-style kiln.kernel regions.
//
// Algorithm:
//  1. Visit ops from the end of the function backwards. Each op that is not
//     yet in a group, and is neither a constant nor a view, roots a group;
//     its class gives the group's kind (pointwise, row_reduce, transpose,
//     data_movement, library, attention).
//  2. Grow the group over producers: a producer joins when every one of its
//     users is already in the group (so nothing is computed twice) and the
//     kind's contract admits it (KernelKinds.h: pointwise ops, views, data
//     movement; a row reduction joins a group of ops shaped like its result
//     whose users of it are pointwise, and becomes the anchor of a
//     row_reduce kernel). A relu rooted on a library convolution (with an
//     optional residual add between) is the convolution's epilogue: the
//     three form one library kernel; so is a bias row add, a residual add
//     (both: one call) and a relu or tanh GELU on a library GEMM, or a cast
//     of its f16/bf16 product to f32
//     (matchGemmEpilogue). The library kernel records what it fuses as its
//     `epilogue` attribute (LibraryEpilogue.h), which the packager reads.
//     A cast of a GEMM's f16/bf16 product to f32 that the GEMM can take
//     (its only user) joins the GEMM, not a consumer: cuBLASLt writes the
//     product in f32 instead of rounding it to f16 first. A transpose of a
//     MatMul operand's last two dims (its only user) joins the GEMM too,
//     which reads that operand transposed (isTransposedMatMulOperand).
//     A producer joins only while the kernel's parameters (the values it
//     reads from outside, plus its output, plus a parameter per ranged dim
//     when it has run-time extents) stay within the runtime's
//     kMaxKernelParameters (artifact_format.h); what is left out roots
//     kernels of its own, so a Max of 5,000 inputs (a tree of binary maxes)
//     becomes kernels of at most 255 inputs each.
//     An attention kernel takes only the views, transposes and slices it
//     reads q/k/v through by strides, and a transpose of its result that it
//     can write directly (AttentionLayouts.cpp).
//  3. Outline each group in program order: values from outside become
//     inputs (constants of <= 16 elements are cloned instead, and so are
//     dim values, a kiln.shape of a ranged value and small shape
//     arithmetic on it, into kernels that can all compute them from their
//     dim parameters, the shaped value an input), a kiln.empty
//     is the destination of the root's result, and the root's uses read the
//     kernel's result. Views left outside kernels stay as aliases, and so
//     does a slice of one contiguous range (an alias at a byte offset,
//     getViewByteOffset): it roots no copy, and a kernel takes it in only
//     when it is the only reader of a value computed by ops.
#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Dialect/Kiln/KernelKinds/LibraryEpilogue.h"
#include "kiln/Transforms/FusionRules.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"
#include "kiln/Transforms/RecordDimExprs.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/artifact_format.h"
#include "kiln/Dialect/Kiln/IR/StridedView.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNFUSEKERNELS
#include "kiln/Transforms/Passes.h.inc"

namespace {

/// A kernel being formed: the contract's group (kind, anchor, ops), the op
/// it is rooted at, the values it reads from outside (its inputs once
/// outlined) and, for a library call, the epilogue it fuses.
struct Group : KernelGroup {
  Operation *root = nullptr;
  llvm::SetVector<Value> inputs;
  LibraryEpilogueAttr epilogue;
  bool runTimeExtents = false; // Some op has them: the kernel takes dims.
};

bool isClonedConstant(Value value);

/// The operands of |op| that |group| would read from outside once |op| is in
/// it: not produced inside, not a constant that outlining clones.
SmallVector<Value> outsideOperands(Operation *op, const Group &group) {
  SmallVector<Value> operands;
  for (Value operand : op->getOperands()) {
    Operation *producer = operand.getDefiningOp();
    if ((producer && group.ops.contains(producer)) || isClonedConstant(operand))
      continue;
    operands.push_back(operand);
  }
  return operands;
}

/// Whether |group| with |producer| in it still fits in a kernel's
/// parameters: its inputs (less |producer|'s results, which become
/// internal, plus |producer|'s outside operands), one output and, with
/// run-time extents, up to |rangedDims| dim parameters (the loop template
/// passes the ranged dims its element count names).
bool fitsParameters(const Group &group, Operation *producer,
                    size_t rangedDims) {
  llvm::SmallSetVector<Value, 8> added;
  for (Value operand : outsideOperands(producer, group))
    if (!group.inputs.contains(operand))
      added.insert(operand);
  size_t removed = llvm::count_if(producer->getResults(), [&](Value result) {
    return group.inputs.contains(result);
  });
  size_t dims =
      group.runTimeExtents || hasRunTimeExtents(producer) ? rangedDims : 0;
  return group.inputs.size() - removed + added.size() + 1 + dims <=
         artifact::kMaxKernelParameters;
}

/// Adds |producer| to |group| by its kind's contract and updates the inputs.
void addToGroup(Group &group, Operation *producer) {
  admit(group, producer);
  group.runTimeExtents |= hasRunTimeExtents(producer);
  for (Value result : producer->getResults())
    group.inputs.remove(result);
  for (Value operand : outsideOperands(producer, group))
    group.inputs.insert(operand);
}

Type resultType(Operation *op) { return op->getResult(0).getType(); }

/// A library call fused with the epilogue rooted at |root|: its ops and the
/// epilogue attribute that describes them.
struct LibraryGroup {
  SmallVector<Operation *> members;
  LibraryEpilogueAttr epilogue;
};

/// The library call and epilogue rooted at |root|: act(gemm [+ bias]
/// [+ residual]), with an f16/bf16 -> f32 cast of the product (cuBLASLt),
/// relu(conv + bias [+ residual]) (cuDNN); none when |root| ends no such
/// epilogue.
std::optional<LibraryGroup> libraryEpilogue(Operation *root) {
  LibraryGroup group;
  MLIRContext *context = root->getContext();
  if (std::optional<GemmEpilogue> epilogue = matchGemmEpilogue(root)) {
    group.members = {epilogue->root, epilogue->gemm};
    group.members.append(epilogue->views.begin(), epilogue->views.end());
    for (Operation *member : {epilogue->add, epilogue->biasAdd, epilogue->cast})
      if (member && member != epilogue->root)
        group.members.push_back(member);
    LibraryAddend addend = epilogue->biasAdd && epilogue->add
                               ? LibraryAddend::BiasResidual
                           : epilogue->biasAdd ? LibraryAddend::Bias
                           : epilogue->add     ? LibraryAddend::Residual
                                               : LibraryAddend::None;
    LibraryActivation activation =
        !epilogue->activation                ? LibraryActivation::None
        : isa<ReluOp>(epilogue->activation) ? LibraryActivation::Relu
                                             : LibraryActivation::GeluTanh;
    group.epilogue = LibraryEpilogueAttr::get(context, addend, activation,
                                              epilogue->cast != nullptr);
    return group;
  }
  if (std::optional<ConvEpilogue> epilogue = matchConvEpilogue(root)) {
    for (Operation *member : {epilogue->relu, epilogue->add, epilogue->conv})
      if (member)
        group.members.push_back(member);
    group.epilogue = LibraryEpilogueAttr::get(
        context,
        epilogue->add ? LibraryAddend::Residual : LibraryAddend::None,
        LibraryActivation::Relu, /*output_cast=*/false);
    return group;
  }
  return std::nullopt;
}

bool allUsersIn(Operation *op, const Group &group) {
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    return group.ops.contains(user);
  });
}

/// Adds to an attention |group| the views, transposes and slices that
/// produce its q, k and v when the kernel can read them by strides. A view
/// may be shared by the operands (nn.MultiheadAttention's q, k and v are
/// slices of one transposed projection): it joins when every user of it
/// joins, and each operand's chain joins whole, or none of it.
void absorbAttentionOperands(Group &group, AttentionOp attention,
                             const DenseMap<Operation *, unsigned> &groupOf) {
  SmallVector<Value, 3> operands = {attention.getQuery(), attention.getKey(),
                                    attention.getValue()};
  SmallVector<SmallVector<Operation *>, 3> chains;
  llvm::SetVector<Operation *> candidates;
  for (Value operand : operands) {
    SmallVector<Operation *> &chain = chains.emplace_back();
    Operation *op = operand.getDefiningOp();
    while (op && isStridedViewOp(op) && !groupOf.count(op) &&
           !group.ops.contains(op) && !llvm::is_contained(chain, op)) {
      chain.push_back(op);
      candidates.insert(op);
      op = op->getOperand(0).getDefiningOp();
    }
  }
  // A candidate joins when all its users do; an operand whose views do not
  // give a strided layout keeps none of them. Both only remove candidates.
  for (bool changed = true; changed;) {
    changed = false;
    SmallVector<Operation *> previous = candidates.takeVector();
    llvm::SmallPtrSet<Operation *, 16> before(previous.begin(), previous.end());
    for (Operation *op : previous) {
      if (llvm::all_of(op->getUsers(), [&](Operation *user) {
            return group.ops.contains(user) || before.contains(user);
          }))
        candidates.insert(op);
      else
        changed = true;
    }
    for (auto [operand, chain] : llvm::zip(operands, chains)) {
      SmallVector<Operation *> views;
      for (Operation *op : chain) {
        if (!candidates.contains(op))
          break;
        views.push_back(op);
      }
      if (!views.empty() && !isStridedAttentionOperand(operand, views)) {
        for (Operation *op : chain)
          changed |= candidates.remove(op);
      }
    }
  }
  group.ops.insert(candidates.begin(), candidates.end());
}

/// A readable kernel name from the mnemonics of its ops: "add_relu_3".
std::string kernelName(ArrayRef<Operation *> ops, unsigned index) {
  std::string name;
  unsigned listed = 0;
  for (Operation *op : ops) {
    if (isa<ConstantOp>(op) || classifyForFusion(op) == FusionClass::View)
      continue;
    if (listed++ == 3) {
      name += "_etc";
      break;
    }
    if (!name.empty())
      name += "_";
    name += op->getName().stripDialect().str();
  }
  if (name.empty())
    name = "copy";
  return name + "_" + std::to_string(index);
}

bool isClonedConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant || constant->hasAttr(kInitResultAttr))
    return false; // The init program's results have no data to clone.
  auto type = cast<ShapedType>(constant.getType());
  if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
    if (dense.isSplat())
      return true;
  return type.hasStaticShape() &&
         type.getNumElements() <= kMaxClonedConstantElements;
}

/// A located error at |root| when a kernel of |kind| rooted there cannot
/// compute with its run-time extents (the contract's third question,
/// unmetRunTimeExtentRule): it names the ONNX node, the extents as
/// expressions of the ranged dims and why.
LogicalResult checkRunTimeExtents(Operation *root, KernelKind kind) {
  std::optional<std::string> why = unmetRunTimeExtentRule(kind, root);
  if (!why)
    return success();
  auto function = root->getParentOfType<func::FuncOp>();
  llvm::MapVector<StringRef, DimRange> ranges = getDimRanges(function);
  std::string sizes;
  for (const auto &entry : ranges)
    sizes += (sizes.empty() ? "" : ",") + entry.first.str() + "=N";
  std::string rangesText;
  std::vector<std::optional<DimExpr>> extents = getRecordedDimExprs(root);
  InFlightDiagnostic diag = root->emitError();
  diag << "'" << root->getName() << "'";
  if (!extents.empty()) {
    diag << " with result extents "
         << describeExtents(extents, ranges, rangesText);
    if (!rangesText.empty())
      diag << " (" << rangesText << ")";
  }
  diag << " has run-time extents and roots a " << stringifyKernelKind(kind)
       << " kernel: " << *why;
  if (!sizes.empty())
    diag << "; pass --input-shape " << sizes << " for an artifact of one size";
  return diag;
}

/// Whether |value| is computed from the dim parameters alone (a "dim
/// value"): a kiln.shape of a value with run-time extents, or a small
/// static integer result (shape arithmetic: Gather, Concat, Slice,
/// Unsqueeze, Add, Equal, Where, ... of at most kMaxClonedConstantElements
/// elements) of an op the loop template computes elementally, from dim
/// values and small constants.
bool isDimValue(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumResults() != 1)
    return false;
  if (isa<ShapeOp>(op))
    return hasRunTimeExtents(op);
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() ||
      !isa<IntegerType>(type.getElementType()) ||
      type.getNumElements() > kMaxClonedConstantElements)
    return false;
  FusionClass cls = classifyForFusion(op);
  if (cls != FusionClass::Pointwise && cls != FusionClass::View &&
      cls != FusionClass::DataMovement)
    return false;
  bool fromDims = false;
  for (Value operand : op->getOperands()) {
    if (isClonedConstant(operand))
      continue;
    if (!isDimValue(operand))
      return false;
    fromDims = true;
  }
  return fromDims;
}

/// The ops that compute the dim value |op| yields: it, and the ops of its
/// operands that are dim values, down to the kiln.shape ops.
llvm::SetVector<Operation *> dimValueOps(Operation *op) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Operation *> worklist{op};
  while (!worklist.empty()) {
    Operation *current = worklist.pop_back_val();
    if (!ops.insert(current) || isa<ShapeOp>(current))
      continue;
    for (Value operand : current->getOperands())
      if (!isClonedConstant(operand))
        worklist.push_back(operand.getDefiningOp());
  }
  return ops;
}

/// Whether every user of the dim value |op| computes it itself: a user in a
/// pointwise or data_movement kernel whose loop template takes every op of
/// it (the kiln.shape ops index run-time extents by value:
/// unmetRunTimeExtentRule, unmetByValueKernelRule), or a dim value that
/// such kernels compute already (in |cloned|; users come later in the
/// function, so their groups, or their being cloned, are decided).
bool cloneableIntoUsers(Operation *op, const std::vector<Group> &groups,
                        const DenseMap<Operation *, unsigned> &groupOf,
                        const llvm::SmallPtrSetImpl<Operation *> &cloned) {
  if (op->use_empty())
    return false;
  llvm::SetVector<Operation *> computed = dimValueOps(op);
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    if (cloned.contains(user))
      return true;
    auto found = groupOf.find(user);
    if (found == groupOf.end())
      return false;
    const Group &group = groups[found->second];
    if (group.kind != KernelKind::Pointwise &&
        group.kind != KernelKind::DataMovement)
      return false;
    SmallVector<Operation *> ops(group.ops.begin(), group.ops.end());
    for (Operation *member : computed) {
      // (The clones come first in the body: what a kiln.shape reads is an
      // input.)
      if (auto shape = dyn_cast<ShapeOp>(member))
        if (Operation *producer = shape->getOperand(0).getDefiningOp();
            producer && group.ops.contains(producer))
          return false;
      if (unmetRunTimeExtentRule(group.kind, member))
        return false;
      ops.push_back(member);
    }
    return !unmetByValueKernelRule(ops);
  });
}

/// Step 3: replaces the ops of |group| by one kiln.kernel. |clonedDimValues|:
/// the dim values that every kernel reading them computes itself.
void outline(Group &group, unsigned index,
             const llvm::SmallPtrSetImpl<Operation *> &clonedDimValues) {
  // Program order (the set was filled consumers first).
  SmallVector<Operation *> ops(group.ops.begin(), group.ops.end());
  llvm::sort(ops, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> clonedConstants, clonedOps;
  // A cloned dim value brings the ops that compute it, their constants, and
  // as inputs the values its kiln.shape ops read the extents of.
  auto addOperand = [&](Value operand) {
    Operation *producer = operand.getDefiningOp();
    if (isClonedConstant(operand)) {
      clonedConstants.insert(producer);
      return;
    }
    if (!producer || !clonedDimValues.contains(producer)) {
      inputs.insert(operand);
      return;
    }
    for (Operation *member : dimValueOps(producer)) {
      if (!clonedOps.insert(member))
        continue;
      if (isa<ShapeOp>(member)) {
        inputs.insert(member->getOperand(0));
        continue;
      }
      for (Value memberOperand : member->getOperands())
        if (isClonedConstant(memberOperand))
          clonedConstants.insert(memberOperand.getDefiningOp());
    }
  };
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && group.ops.contains(producer))
        continue;
      addOperand(operand);
    }
  SmallVector<Operation *> cloned(clonedOps.begin(), clonedOps.end());
  llvm::sort(cloned, [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  });

  Operation *root = group.root;
  OpBuilder builder(root);
  SmallVector<Location> locations;
  for (Operation *op : ops)
    locations.push_back(op->getLoc());
  Location location = builder.getFusedLoc(locations);
  auto outputType = cast<RankedTensorType>(resultType(root));
  Value destination = builder.create<EmptyOp>(root->getLoc(), outputType);
  // Run-time extents stay recorded on what the later stages read: the
  // kernel's result and its destination (memory planning, the packager).
  Attribute extents = root->getAttr(kDimExprsAttrName);
  auto kernel = builder.create<KernelOp>(
      location, TypeRange{outputType},
      builder.getStringAttr(group.kind == KernelKind::Attention
                                ? "attention_" + std::to_string(index)
                                : kernelName(ops, index)),
      KernelKindAttr::get(builder.getContext(), group.kind),
      inputs.getArrayRef(), ValueRange{destination}, nullptr, nullptr, nullptr,
      nullptr, nullptr, nullptr, nullptr, group.epilogue);
  if (extents) {
    kernel->setAttr(kDimExprsAttrName, extents);
    destination.getDefiningOp()->setAttr(kDimExprsAttrName, extents);
  }

  Block *body = builder.createBlock(&kernel.getBody());
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  body->addArgument(outputType, destination.getLoc());
  builder.setInsertionPointToStart(body);
  for (Operation *constant : clonedConstants)
    builder.clone(*constant, mapping);
  for (Operation *op : cloned)
    builder.clone(*op, mapping);
  for (Operation *op : ops)
    builder.clone(*op, mapping);
  builder.create<YieldOp>(root->getLoc(),
                          ValueRange{mapping.lookup(root->getResult(0))});

  root->getResult(0).replaceAllUsesWith(kernel.getResult(0));
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  // A dim value's ops go once no kernel reads them outside (consumers
  // first).
  for (Operation *op : llvm::reverse(cloned))
    if (op->use_empty())
      op->erase();
  for (Operation *constant : clonedConstants)
    if (constant->use_empty())
      constant->erase();
}

struct FuseKernelsPass : impl::KilnFuseKernelsBase<FuseKernelsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    prepareForFusion(function);
    // The preparation's new ops (a Gemm's C split into an add, widened
    // biases) get their run-time extents as expressions too.
    recordDimExprs(function);
    size_t rangedDims = getDimRanges(function).size();
    SmallVector<Operation *> ops;
    for (Operation &op : function.getBody().front().without_terminator())
      ops.push_back(&op);

    DenseMap<Operation *, unsigned> groupOf;
    std::vector<Group> groups;
    llvm::SmallPtrSet<Operation *, 8> clonedDimValues;
    // A root that cannot take its run-time extents is reported, and the
    // pass goes on to report every other one before it fails.
    bool refused = false;
    for (Operation *op : llvm::reverse(ops)) {
      if (groupOf.count(op) || isa<KernelOp, EmptyOp>(op))
        continue; // Already fused (the pass is idempotent).
      FusionClass cls = classifyForFusion(op);
      if (cls == FusionClass::Constant || cls == FusionClass::View)
        continue;
      // A slice of a contiguous range that no consumer took in stays a view
      // (an alias at an offset) rather than a kernel copying the range out.
      if (isa<SliceOp>(op) && isViewOp(op))
        continue;
      // A dim value (a kiln.shape of a ranged value, shape arithmetic on
      // it) is computed from the dim parameters: the kernels that read it
      // compute it themselves when they can (its users come later, so
      // their groups are formed), rather than a kernel of its own writing
      // it to memory for them.
      if (op->getNumResults() == 1 && isDimValue(op->getResult(0)) &&
          cloneableIntoUsers(op, groups, groupOf, clonedDimValues)) {
        clonedDimValues.insert(op);
        continue;
      }
      if (cls == FusionClass::Unsupported) {
        if (failed(checkRunTimeExtents(op, rootKernelKind(op)))) {
          refused = true;
          continue;
        }
        op->emitError() << "'" << op->getName()
                        << "' cannot be compiled to a GPU kernel";
        return signalPassFailure();
      }
      Group group;
      group.root = op;
      // A library call and its epilogue: one cuBLASLt or cuDNN call.
      if (std::optional<LibraryGroup> library = libraryEpilogue(op);
          library && llvm::none_of(library->members, [&](Operation *member) {
            return groupOf.count(member);
          })) {
        group.kind = KernelKind::Library;
        if (failed(checkRunTimeExtents(op, group.kind))) {
          refused = true;
          continue;
        }
        group.epilogue = library->epilogue;
        for (Operation *member : library->members) {
          group.ops.insert(member);
          groupOf[member] = groups.size();
        }
        // An operand transposed in its last two dims is read so by the call.
        for (Operation *member : library->members)
          if (isa<MatMulOp>(member))
            for (Value operand : member->getOperands())
              if (Operation *producer = operand.getDefiningOp();
                  isTransposedMatMulOperand(producer) &&
                  !groupOf.count(producer)) {
                group.ops.insert(producer);
                groupOf[producer] = groups.size();
              }
        groups.push_back(std::move(group));
        continue;
      }
      // transpose(attention): one attention kernel writing in that layout.
      if (std::optional<AttentionStore> store = matchAttentionStore(op);
          store && !groupOf.count(store->attention)) {
        group.kind = KernelKind::Attention;
        group.ops.insert(store->chain.begin(), store->chain.end());
        group.ops.insert(store->attention);
      } else {
        group.kind = rootKernelKind(op);
      }
      if (group.kind == KernelKind::Attention) {
        if (failed(checkRunTimeExtents(op, group.kind))) {
          refused = true;
          continue;
        }
        group.ops.insert(op);
        for (Operation *member : group.ops)
          if (auto attention = dyn_cast<AttentionOp>(member)) {
            absorbAttentionOperands(group, attention, groupOf);
            break;
          }
        for (Operation *member : group.ops)
          groupOf[member] = groups.size();
        groups.push_back(std::move(group));
        continue;
      }
      if (failed(checkRunTimeExtents(op, group.kind))) {
        refused = true;
        continue;
      }
      if (group.kind == KernelKind::RowReduce)
        group.anchor = op;
      group.ops.insert(op);
      group.runTimeExtents = hasRunTimeExtents(op);
      for (Value operand : outsideOperands(op, group))
        group.inputs.insert(operand);
      SmallVector<Operation *> worklist{op};
      while (!worklist.empty()) {
        Operation *current = worklist.pop_back_val();
        // A window op reads each input element many times: its producers
        // stay in kernels of their own instead of being recomputed, except
        // the stored layout of a depthwise conv's weight, which its kernel
        // reads as stored (isDepthwiseWeightLayout).
        bool window = classifyForFusion(current) == FusionClass::Window;
        for (Value operand : current->getOperands()) {
          Operation *producer = operand.getDefiningOp();
          if (window && !(producer && isDepthwiseWeightLayout(producer)))
            continue;
          if (!producer || groupOf.count(producer) ||
              group.ops.contains(producer) || !allUsersIn(producer, group))
            continue;
          // A GEMM's product widened to f32 (kiln-convert-precision's
          // softmax logits, a statistic's prologue) is left to the GEMM:
          // cuBLASLt then writes it in f32, unrounded, where this kernel
          // would read it rounded to f16.
          if (isGemmOutputCast(producer) && libraryEpilogue(producer))
            continue;
          // A slice of one contiguous range of a value that is in memory
          // anyway (an input, a weight, or read by others too: qkv's three
          // slices) stays a view (an alias at an offset): the kernel reads
          // the range at its own index, by vectors, where through the slice
          // it would index its operand. A slice of a value only it reads
          // joins, so that the value's producers can join too.
          if (isa<SliceOp>(producer) && isViewOp(producer)) {
            Value source = producer->getOperand(0);
            Operation *sourceOp = source.getDefiningOp();
            if (!sourceOp || isa<ConstantOp>(sourceOp) || !source.hasOneUse())
              continue;
          }
          if (!admits(group, producer) ||
              !fitsParameters(group, producer, rangedDims))
            continue;
          addToGroup(group, producer);
          worklist.push_back(producer);
        }
      }
      for (Operation *member : group.ops)
        groupOf[member] = groups.size();
      groups.push_back(std::move(group));
    }
    if (refused)
      return signalPassFailure();
    // Outline in program order so kernel indices read top to bottom.
    for (auto [index, group] : llvm::enumerate(llvm::reverse(groups)))
      outline(group, index, clonedDimValues);
  }
};
} // namespace
} // namespace kiln
