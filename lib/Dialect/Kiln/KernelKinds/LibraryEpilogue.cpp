// The library kind's epilogue: following a library kernel's body from the
// call to the yield, and the attribute that describes what it finds
// (LibraryEpilogue.h).
#include "kiln/Dialect/Kiln/KernelKinds/LibraryEpilogue.h"

#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

using namespace mlir;

namespace kiln {

bool isTransposedMatMulOperand(Operation *op) {
  auto transpose = dyn_cast_or_null<TransposeOp>(op);
  if (!transpose || !transpose->hasOneUse())
    return false;
  auto matmul = dyn_cast<MatMulOp>(*transpose->getUsers().begin());
  auto type = dyn_cast<RankedTensorType>(transpose.getType());
  auto input = dyn_cast<RankedTensorType>(transpose->getOperand(0).getType());
  if (!matmul || classifyForFusion(matmul) != FusionClass::Library || !type ||
      !input || !type.hasStaticShape() || !input.hasStaticShape() ||
      type.getRank() < 2 || matmul.getLhs() == matmul.getRhs())
    return false;
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = type.getRank();
  for (int64_t dim = 0; dim < rank - 2; ++dim)
    if (perm[dim] != dim)
      return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
}

bool isBiasRow(Value value, Value result, Value product) {
  auto row = dyn_cast<RankedTensorType>(value.getType());
  auto out = dyn_cast<RankedTensorType>(result.getType());
  auto full = dyn_cast<RankedTensorType>(product.getType());
  // The result may have a run-time extent (its rows, issue 18); the row
  // and the columns are static.
  if (!row || !out || !full || row.getRank() == 0 || out.getRank() == 0 ||
      full.getRank() == 0 || row.getRank() > out.getRank() ||
      !row.hasStaticShape() || out.isDynamicDim(out.getRank() - 1) ||
      full.isDynamicDim(full.getRank() - 1) ||
      row.getElementType() != out.getElementType() ||
      row.getShape().back() != out.getShape().back() ||
      full.getShape().back() != out.getShape().back())
    return false;
  return llvm::all_of(row.getShape().drop_back(),
                      [](int64_t dim) { return dim == 1; });
}

FailureOr<LibraryEpilogueOps> traceLibraryEpilogue(KernelOp kernel,
                                                   std::string *why) {
  LibraryEpilogueOps ops;
  ops.anchor = getKernelAnchor(kernel);
  ValueRange yielded = kernel.getYield().getValues();
  if (!ops.anchor || yielded.size() != 1) {
    *why = "it must yield one value computed from one library call";
    return failure();
  }
  bool conv = isa<ConvOp>(ops.anchor);
  ops.chain.push_back(ops.anchor);
  Value value = ops.anchor->getResult(0);
  while (value != yielded[0]) {
    if (!value.hasOneUse()) {
      *why = "the value after the library call has several users";
      return failure();
    }
    Operation *user = *value.getUsers().begin();
    auto gelu = dyn_cast<GeluOp>(user);
    bool beforeAdd = !ops.add && !ops.activation;
    if (!conv && beforeAdd &&
        isa<ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp>(user)) {
      // Views keep the element order: the library call writes them as is.
    } else if (!conv && beforeAdd && !ops.cast && isGemmOutputCast(user)) {
      ops.cast = user;
    } else if (isa<AddOp>(user) && beforeAdd) {
      ops.add = user;
      ops.addend = user->getOperand(user->getOperand(0) == value ? 1 : 0);
    } else if (!conv && isa<AddOp>(user) && ops.add && !ops.residualAdd &&
               !ops.activation) {
      // cuBLASLt adds a bias row and C in one call: (gemm + bias) + residual.
      ops.residualAdd = user;
      ops.residual = user->getOperand(user->getOperand(0) == value ? 1 : 0);
    } else if (!ops.activation &&
               (isa<ReluOp>(user) ||
                (!conv && gelu && gelu.getApproximate() == "tanh"))) {
      ops.activation = user;
    } else {
      *why = "'" + user->getName().getStringRef().str() +
             "' follows the library call but is no part of the epilogue " +
             (conv ? "cuDNN fuses (relu(conv + bias [+ residual]))"
                   : "cuBLASLt fuses (views, a cast to f32, a bias row "
                     "and/or residual add, a relu or tanh GELU)");
      return failure();
    }
    ops.chain.push_back(user);
    value = user->getResult(0);
  }
  return ops;
}

FailureOr<LibraryEpilogueAttr>
describeLibraryEpilogue(const LibraryEpilogueOps &ops, std::string *why) {
  MLIRContext *context = ops.anchor->getContext();
  auto gemm = dyn_cast<GemmOp>(ops.anchor);
  // cuBLASLt's bias epilogue, for a GEMM without one (a Gemm's C row is its
  // bias already); a row is a bias even where it also has the result's type.
  bool takesBias = !isa<ConvOp>(ops.anchor) && !(gemm && gemm.getC());
  LibraryAddend addend = LibraryAddend::None;
  if (ops.add) {
    Value result = ops.add->getResult(0);
    if (takesBias && isBiasRow(ops.addend, result, ops.anchor->getResult(0))) {
      addend = LibraryAddend::Bias;
    } else if (ops.add->getOperand(0).getType() == result.getType() &&
               ops.add->getOperand(1).getType() == result.getType()) {
      addend = LibraryAddend::Residual;
    } else {
      *why = "the add after the library call adds neither a bias row nor a "
             "residual of its result's type";
      return failure();
    }
  }
  if (ops.residualAdd) {
    // D = A·B + bias + C: the first add must be the bias epilogue's row,
    // the second a residual read as C.
    Type result = ops.residualAdd->getResult(0).getType();
    if (addend != LibraryAddend::Bias ||
        ops.residualAdd->getOperand(0).getType() != result ||
        ops.residualAdd->getOperand(1).getType() != result) {
      *why = "two adds follow the library call, but not a bias row and "
             "then a residual of the result's type";
      return failure();
    }
    addend = LibraryAddend::BiasResidual;
  }
  LibraryActivation activation = LibraryActivation::None;
  if (ops.activation)
    activation = isa<ReluOp>(ops.activation) ? LibraryActivation::Relu
                                             : LibraryActivation::GeluTanh;
  if (auto conv = dyn_cast<ConvOp>(ops.anchor)) {
    if ((ops.add || ops.activation) &&
        (!conv.getBias() || activation != LibraryActivation::Relu ||
         addend == LibraryAddend::Bias)) {
      *why = "cuDNN fuses relu(conv + bias [+ residual]) only";
      return failure();
    }
  } else if (gemm && gemm.getC()) {
    // A Gemm's C of the result's shape is the call's C already; under an
    // output cast C (or the bias) would have to be f32 like the result.
    bool fullC = cast<ShapedType>(gemm.getC().getType()).getShape() ==
                 cast<ShapedType>(gemm.getType()).getShape();
    if (ops.cast || (fullC && addend == LibraryAddend::Residual)) {
      *why = "the Gemm's C already is the library call's C, and stays in "
             "its 16-bit type under an output cast";
      return failure();
    }
  }
  return LibraryEpilogueAttr::get(context, addend, activation,
                                  ops.cast != nullptr);
}

LibraryEpilogueAttr getLibraryEpilogue(KernelOp kernel) {
  if (LibraryEpilogueAttr recorded = kernel.getEpilogueAttr())
    return recorded;
  return LibraryEpilogueAttr::get(kernel.getContext(), LibraryAddend::None,
                                  LibraryActivation::None, false);
}

} // namespace kiln
