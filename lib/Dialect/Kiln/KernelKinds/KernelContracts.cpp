// The contract of each kernel kind: admission (fusion), the anchor (tiling
// and the emitters) and verification (the kernel op's verifier). The table
// in docs/architecture.md "Kernel kinds" states the same rules.
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"

#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/StridedView.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/LibraryEpilogue.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

using namespace mlir;

namespace kiln {

namespace {

/// Whether |a| and |b| are ranked tensors of one shape.
bool haveSameShape(Type a, Type b) {
  auto x = dyn_cast<RankedTensorType>(a), y = dyn_cast<RankedTensorType>(b);
  return x && y && x.getShape() == y.getShape();
}

/// A value's element count: its static count, or with a run-time extent
/// (the outermost, RunTimeExtents.cpp) the product of its static dims times
/// that extent, printed `?*N`.
struct ElementCount {
  bool runTime = false;
  int64_t elements = 0;
  bool operator!=(const ElementCount &other) const {
    return runTime != other.runTime || elements != other.elements;
  }
  std::string str() const {
    return (runTime ? "?*" : "") + std::to_string(elements);
  }
};

ElementCount elementCount(Value value) {
  ElementCount count;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return {true, 0};
  count.elements = 1;
  for (int64_t dim : type.getShape()) {
    if (ShapedType::isDynamic(dim))
      count.runTime = true;
    else
      count.elements *= dim;
  }
  return count;
}

/// Whether the template computes |op| at its consumer's own linear index:
/// a pointwise op or a view.
bool isElementAligned(Operation *op) {
  FusionClass fusionClass = classifyForFusion(op);
  return fusionClass == FusionClass::Pointwise ||
         fusionClass == FusionClass::View;
}

/// The ops that use |value|, directly or through other ops, nearest first
/// (a yield ends the walk); only through ops |within| accepts, when given.
llvm::SetVector<Operation *>
transitiveUsers(Value value, function_ref<bool(Operation *)> within = nullptr) {
  llvm::SetVector<Operation *> users;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (Operation *user : current.getUsers())
      if (!isa<YieldOp>(user) && (!within || within(user)) &&
          users.insert(user))
        llvm::append_range(worklist, user->getResults());
  }
  return users;
}

/// The per-element epilogue of a row reduction (a normalisation: Swin-V2's
/// F.normalize, x / clip(sqrt(sum(x²))); a decomposed RMSNorm): the anchor
/// is a float sum/mean/max/min over trailing axes of a static input, and
/// every op that uses its result, through ops |within| accepts, is
///  - pointwise or a view with the anchor's element count (the row part,
///    computed once per row: sqrt, clip),
///  - an expand of such a value to the anchor input's shape, or
///  - pointwise with the anchor input's shape, its operands of that shape,
///    of one element, row broadcasts of it (rowBroadcastRun: the row
///    part read directly, [.., R, 1]), broadcasts keeping its innermost
///    dim (a scale row) or, other than the row part, broadcasts constant
///    along the rows (1 in every reduced dim: Swin-V2's per-head logit
///    scale [h, 1, 1] on the normalised q),
/// and every value in |yields| has the anchor input's shape. The template
/// computes the row part from the reduced value and each element of the
/// row's epilogue where it reads the row. An empty string when it holds,
/// else why not.
std::string unmetElementEpilogue(Operation *anchor,
                                 function_ref<bool(Operation *)> within,
                                 ValueRange yields) {
  if (!isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp>(anchor) ||
      !isRowReduction(anchor))
    return "the anchor is not a sum, mean, max or min over trailing axes";
  auto input = dyn_cast<RankedTensorType>(anchor->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(anchor->getResult(0).getType());
  if (!input || !result || !input.hasStaticShape() ||
      !result.hasStaticShape() || !isa<FloatType>(input.getElementType()))
    return "the anchor does not reduce a static float tensor";
  ArrayRef<int64_t> elementShape = input.getShape();
  int64_t rowValues = result.getNumElements();
  for (Value yielded : yields)
    if (!isa<ShapedType>(yielded.getType()) || shapeOf(yielded) != elementShape)
      return "it yields a value not of the reduced input's shape";
  // A broadcast whose value is one per row: right-aligned, 1 in every
  // reduced dim, each other dim 1 or the input's.
  int64_t firstReduced = *rowReductionFirstAxis(anchor);
  auto onePerRow = [&](ArrayRef<int64_t> shape) {
    if (shape.size() > elementShape.size())
      return false;
    int64_t offset = int64_t(elementShape.size() - shape.size());
    for (auto [d, dim] : llvm::enumerate(shape))
      if (dim != 1 && (offset + int64_t(d) >= firstReduced ||
                       dim != elementShape[offset + d]))
        return false;
    return true;
  };
  llvm::SetVector<Operation *> users =
      transitiveUsers(anchor->getResult(0), within);
  for (Operation *user : users) {
    if (user->getNumResults() != 1)
      return "'" + user->getName().getStringRef().str() + "' has " +
             std::to_string(user->getNumResults()) + " results";
    auto type = dyn_cast<RankedTensorType>(user->getResult(0).getType());
    if (!type || !type.hasStaticShape())
      return "'" + user->getName().getStringRef().str() +
             "' has no static shape";
    if (type.getNumElements() == rowValues) {
      if (isElementAligned(user))
        continue;
      return "'" + user->getName().getStringRef().str() +
             "' uses the reduced value and is neither pointwise nor a view";
    }
    if (type.getShape() != elementShape)
      return "'" + user->getName().getStringRef().str() +
             "' has neither the anchor's element count nor the reduced "
             "input's shape";
    if (isa<ExpandOp>(user)) {
      if (rowBroadcastRun(shapeOf(user->getOperand(0)), elementShape))
        continue;
      return "an expand of the reduced value that is not a row broadcast";
    }
    if (classifyForFusion(user) != FusionClass::Pointwise)
      return "'" + user->getName().getStringRef().str() +
             "' is neither pointwise nor an expand of the row";
    for (Value operand : user->getOperands()) {
      ArrayRef<int64_t> shape = shapeOf(operand);
      if (shape == elementShape || rowBroadcastRun(shape, elementShape))
        continue;
      // The reduced value and the row part are read at the element's row
      // only: as a row broadcast ([.., R, 1]), never along the row ([R]
      // under [R', R]: another row's value per element).
      Operation *producer = operand.getDefiningOp();
      bool rowPart = operand == anchor->getResult(0) ||
                     (producer && users.contains(producer));
      if (rowPart ||
          (ShapedType::getNumElements(shape) != 1 &&
           !keepsInnermostDim(shape, elementShape) && !onePerRow(shape)))
        return "'" + user->getName().getStringRef().str() + "' reads " +
               (rowPart ? "the reduced value other than as a row broadcast"
                        : "an operand that is not a row broadcast");
    }
  }
  return "";
}

using AnchorPredicate = bool (*)(Operation *);

/// The ops of |kernel|'s body that satisfy |isAnchor|.
SmallVector<Operation *> anchorCandidates(KernelOp kernel,
                                          AnchorPredicate isAnchor) {
  SmallVector<Operation *> found;
  for (Operation &op : kernel.getBody().front().without_terminator())
    if (isAnchor(&op))
      found.push_back(&op);
  return found;
}

bool isLibraryCall(Operation *op) { return isa<MatMulOp, GemmOp, ConvOp>(op); }

bool isAttention(Operation *op) { return isa<AttentionOp>(op); }

/// What makes an op the anchor of a kernel of |kind| (none for the
/// elemental kinds).
AnchorPredicate anchorPredicate(KernelKind kind) {
  switch (kind) {
  case KernelKind::RowReduce:
    return isRowReduction;
  case KernelKind::Transpose:
    return isTiledTranspose;
  case KernelKind::Attention:
    return isAttention;
  case KernelKind::Library:
    return isLibraryCall;
  case KernelKind::Pointwise:
  case KernelKind::DataMovement:
    return nullptr;
  }
  return nullptr;
}

/// What the anchor of each kind is, for error messages.
StringRef anchorDescription(KernelKind kind) {
  switch (kind) {
  case KernelKind::RowReduce:
    return "row reduction (a reduce over trailing axes, a softmax or "
           "log_softmax over the last axis, or a static layer_norm)";
  case KernelKind::Transpose:
    return "kiln.transpose that moves the innermost dim";
  case KernelKind::Attention:
    return "kiln.attention";
  case KernelKind::Library:
    return "kiln.matmul, kiln.gemm or kiln.conv";
  case KernelKind::Pointwise:
  case KernelKind::DataMovement:
    break;
  }
  return "";
}

InFlightDiagnostic contractError(KernelOp kernel) {
  return kernel.emitOpError("'") << kernel.getSymName() << "' breaks the "
                                 << stringifyKernelKind(kernel.getKind())
                                 << " kernel contract: ";
}

/// row_reduce and transpose: every op that uses the anchor's result (the
/// epilogue) is pointwise or a view with the anchor result's element count,
/// and so is every yield: the template computes the epilogue where it has
/// the anchor's value, at that value's own linear index (once per row of a
/// row reduction; per element of the tile of a transpose).
LogicalResult verifyEpilogue(KernelOp kernel, Operation *anchor) {
  ElementCount anchorValues = elementCount(anchor->getResult(0));
  // A row reduction's per-element epilogue (unmetElementEpilogue): the
  // kernel yields the reduced input's shape.
  ValueRange yields = kernel.getYield().getValues();
  if (isRowReduction(anchor) && !yields.empty() &&
      elementCount(yields.front()) != anchorValues) {
    std::string why = unmetElementEpilogue(anchor, nullptr, yields);
    if (!why.empty())
      return contractError(kernel)
             << "it yields per element of the reduced input, but " << why;
    return success();
  }
  for (Operation *user : transitiveUsers(anchor->getResult(0))) {
    if (!isElementAligned(user))
      return contractError(kernel)
             << "'" << user->getName() << "' uses the result of the anchor '"
             << anchor->getName()
             << "' but is neither pointwise nor a view; the epilogue is "
                "computed at the anchor's own index";
    if (user->getNumResults() != 1 ||
        elementCount(user->getResult(0)) != anchorValues)
      return contractError(kernel)
             << "the epilogue op '" << user->getName() << "' has "
             << elementCount(user->getResult(0)).str()
             << " elements where the anchor gives " << anchorValues.str();
  }
  for (Value value : kernel.getYield().getValues())
    if (elementCount(value) != anchorValues)
      return contractError(kernel)
             << "yields " << elementCount(value).str()
             << " elements where the anchor gives " << anchorValues.str();
  return success();
}

/// attention: the other ops are the strided views (views, transposes,
/// slices) the kernel reads q, k and v through or writes its output through,
/// and the constants they take.
LogicalResult verifyAttention(KernelOp kernel, Operation *anchor) {
  for (Operation &op : kernel.getBody().front().without_terminator())
    if (&op != anchor && !isa<ConstantOp>(op) && !isStridedViewOp(&op) &&
        classifyForFusion(&op) != FusionClass::Pointwise)
      return contractError(kernel)
             << "'" << op.getName()
             << "' is neither a strided view of an operand nor elementwise";
  return success();
}

/// library: the other ops are the epilogue the library call fuses
/// (LibraryEpilogue.h), the one the kernel records, and constants (the
/// call reads its operands from memory).
LogicalResult verifyLibrary(KernelOp kernel) {
  std::string why;
  FailureOr<LibraryEpilogueOps> ops = traceLibraryEpilogue(kernel, &why);
  if (failed(ops))
    return contractError(kernel) << why;
  for (Operation &op : kernel.getBody().front().without_terminator())
    if (!isa<ConstantOp>(op) && !llvm::is_contained(ops->chain, &op) &&
        !(isTransposedMatMulOperand(&op) &&
          *op.getUsers().begin() == ops->anchor))
      return contractError(kernel)
             << "'" << op.getName()
             << "' computes an operand of the library call, which reads "
                "its operands from memory (a MatMul operand may be "
                "transposed in its last two dims)";
  FailureOr<LibraryEpilogueAttr> computed = describeLibraryEpilogue(*ops, &why);
  if (failed(computed))
    return contractError(kernel) << why;
  LibraryEpilogueAttr recorded = getLibraryEpilogue(kernel);
  if (*computed != recorded)
    return contractError(kernel) << "it records " << recorded
                                 << " but its body computes " << *computed;
  return success();
}

/// Every op but |anchor| has an elemental form (an attention or an
/// unsupported op has none): the whole body of a pointwise or data_movement
/// kernel, the prologue and epilogue of a row_reduce or transpose kernel.
LogicalResult verifyElemental(KernelOp kernel, Operation *anchor) {
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (&op == anchor)
      continue;
    FusionClass fusionClass = classifyForFusion(&op);
    if (fusionClass == FusionClass::Attention ||
        fusionClass == FusionClass::Unsupported)
      return contractError(kernel)
             << "'" << op.getName()
             << "' has no elemental form; it needs a kernel of its own kind";
  }
  return success();
}

} // namespace

KernelKind rootKernelKind(Operation *root) {
  switch (classifyForFusion(root)) {
  case FusionClass::Library:
    return KernelKind::Library;
  case FusionClass::Attention:
    return KernelKind::Attention;
  case FusionClass::Reduction:
    return isRowReduction(root) ? KernelKind::RowReduce : KernelKind::Pointwise;
  case FusionClass::DataMovement:
    // The tiled template needs static extents; with run-time ones the
    // transpose runs in the loop template (strided, but any extent).
    return isTiledTranspose(root) && !hasRunTimeExtents(root)
               ? KernelKind::Transpose
               : KernelKind::DataMovement;
  default:
    return KernelKind::Pointwise;
  }
}

bool admits(const KernelGroup &group, Operation *producer) {
  // A library MatMul reads an operand transposed in its last two dims.
  if (group.kind == KernelKind::Library)
    return isTransposedMatMulOperand(producer) &&
           group.ops.contains(*producer->getUsers().begin());
  if (group.kind == KernelKind::Attention || producer->getNumResults() != 1)
    return false;
  if (unmetRunTimeExtentRule(group.kind, producer))
    return false;
  if (hasRunTimeExtents(producer) && (group.kind == KernelKind::Pointwise ||
                                      group.kind == KernelKind::DataMovement)) {
    SmallVector<Operation *> ops(group.ops.begin(), group.ops.end());
    ops.push_back(producer);
    if (unmetByValueKernelRule(ops))
      return false;
  }
  switch (classifyForFusion(producer)) {
  case FusionClass::Pointwise:
  case FusionClass::View:
    return true;
  case FusionClass::DataMovement:
    // Inside an elemental kernel a tiled transpose would read (or write)
    // with a stride; it roots a transpose kernel of its own, unless it has
    // run-time extents, which only the elemental kinds take, or it is the
    // stored layout of a depthwise conv's weight, which that conv's kernel
    // reads as stored.
    return !isTiledTranspose(producer) || hasRunTimeExtents(producer) ||
           (isDepthwiseWeightLayout(producer) &&
            group.kind == KernelKind::Pointwise);
  case FusionClass::Reduction: {
    // A row reduction becomes the anchor of a group whose ops all have its
    // result's shape, and whose ops that use its result (the epilogue) are
    // pointwise or views: the template computes them once per row. A
    // reduction over other axes would be recomputed per element: it stays
    // in a kernel of its own.
    if (group.anchor || !isRowReduction(producer) ||
        (group.kind != KernelKind::Pointwise &&
         group.kind != KernelKind::DataMovement))
      return false;
    auto inGroup = [&](Operation *op) { return group.ops.contains(op); };
    Type resultType = producer->getResult(0).getType();
    if (llvm::all_of(group.ops, [&](Operation *op) {
          return op->getNumResults() == 1 &&
                 haveSameShape(op->getResult(0).getType(), resultType);
        }))
      return llvm::all_of(transitiveUsers(producer->getResult(0), inGroup),
                          isElementAligned);
    // Or a pointwise group of the reduced input's shape that normalises
    // the row by it (unmetElementEpilogue), whose other ops have that
    // shape or the reduction's (the row part).
    Type inputType = producer->getOperand(0).getType();
    ElementCount rowValues = elementCount(producer->getResult(0));
    bool shaped = group.kind == KernelKind::Pointwise &&
                  llvm::all_of(group.ops, [&](Operation *op) {
                    if (op->getNumResults() != 1)
                      return false;
                    Value value = op->getResult(0);
                    return haveSameShape(value.getType(), inputType) ||
                           !(elementCount(value) != rowValues);
                  });
    SmallVector<Value> yields;
    for (Operation *op : group.ops)
      for (Operation *user : op->getResult(0).getUsers())
        if (!group.ops.contains(user)) {
          yields.push_back(op->getResult(0));
          break;
        }
    return shaped && unmetElementEpilogue(producer, inGroup, yields).empty();
  }
  case FusionClass::Window: {
    // A channels-last depthwise convolution (generated, isLibraryConvolution)
    // joins the pointwise kernel of its activation when every op there that
    // uses it, directly or not, is pointwise with its shape: each of its
    // output elements is computed once, at that element's own index. Its
    // own producers still stay out (FuseKernels: a window op reads each
    // input element once per window). Other window ops keep kernels of
    // their own (the channels-last pool template runs one pool alone).
    if (!isDepthwiseChannelsLast(producer) || group.anchor ||
        group.kind != KernelKind::Pointwise)
      return false;
    Type resultType = producer->getResult(0).getType();
    auto inGroup = [&](Operation *op) { return group.ops.contains(op); };
    return llvm::all_of(transitiveUsers(producer->getResult(0), inGroup),
                        [&](Operation *user) {
                          return classifyForFusion(user) ==
                                     FusionClass::Pointwise &&
                                 user->getNumResults() == 1 &&
                                 user->getResult(0).getType() == resultType;
                        });
  }
  default:
    return false;
  }
}

void admit(KernelGroup &group, Operation *producer) {
  group.ops.insert(producer);
  if (classifyForFusion(producer) == FusionClass::Reduction) {
    group.anchor = producer;
    group.kind = KernelKind::RowReduce;
  }
}

Operation *getKernelAnchor(KernelOp kernel) {
  AnchorPredicate isAnchor = anchorPredicate(kernel.getKind());
  if (!isAnchor)
    return nullptr;
  SmallVector<Operation *> found = anchorCandidates(kernel, isAnchor);
  return found.size() == 1 ? found.front() : nullptr;
}

namespace {
/// The body of |kernel| satisfies its kind's contract.
LogicalResult verifyKernelBody(KernelOp kernel) {
  KernelKind kind = kernel.getKind();
  AnchorPredicate isAnchor = anchorPredicate(kind);
  if (!isAnchor)
    return verifyElemental(kernel, /*anchor=*/nullptr);
  SmallVector<Operation *> found = anchorCandidates(kernel, isAnchor);
  if (found.size() != 1) {
    InFlightDiagnostic diagnostic = contractError(kernel)
                                    << "it needs exactly one "
                                    << anchorDescription(kind) << ", found "
                                    << found.size();
    for (Operation *op : found)
      diagnostic.attachNote(op->getLoc())
          << "candidate '" << op->getName() << "'";
    return diagnostic;
  }
  Operation *anchor = found.front();
  switch (kind) {
  case KernelKind::RowReduce:
  case KernelKind::Transpose:
    return failure(failed(verifyElemental(kernel, anchor)) ||
                   failed(verifyEpilogue(kernel, anchor)));
  case KernelKind::Attention:
    return verifyAttention(kernel, anchor);
  case KernelKind::Library:
    return verifyLibrary(kernel);
  case KernelKind::Pointwise:
  case KernelKind::DataMovement:
    break;
  }
  return success();
}
} // namespace

namespace {
/// Every op of |kernel|'s body can compute with its run-time extents in a
/// kernel of its kind (unmetRunTimeExtentRule).
LogicalResult verifyRunTimeExtents(KernelOp kernel) {
  SmallVector<Operation *> ops;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (std::optional<std::string> why =
            unmetRunTimeExtentRule(kernel.getKind(), &op))
      return contractError(kernel)
             << "'" << op.getName() << "' has run-time extents: " << *why;
    ops.push_back(&op);
  }
  // The loop template's kinds index by value or as a prefix, one way for
  // the whole kernel (the other kinds' templates take their extents from
  // their anchor).
  bool loop = kernel.getKind() == KernelKind::Pointwise ||
              kernel.getKind() == KernelKind::DataMovement;
  if (std::optional<std::string> why =
          loop ? unmetByValueKernelRule(ops) : std::nullopt)
    return contractError(kernel) << *why;
  return success();
}
} // namespace

LogicalResult verifyKernelContract(KernelOp kernel) {
  // The recorded configuration is checked against a body that holds.
  return failure(failed(verifyKernelBody(kernel)) ||
                 failed(verifyRunTimeExtents(kernel)) ||
                 failed(verifyKernelVariant(kernel)));
}

} // namespace kiln
