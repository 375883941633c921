// GEMM descriptors of `library` kernels: ONNX MatMul (NumPy batching with
// broadcast batch dims) and Gemm (transposes, alpha, beta, C) as one
// strided-batched, row-major cuBLASLt call, with the epilogue the kernel
// records (LibraryEpilogue.h: relu or tanh GELU, after the bias and a
// residual read as C). A fused cast of an f16/bf16 product to f32 needs no
// field: the step's buffers carry the dtypes (a and b f16/bf16; c, bias and
// out f32).
#include "PackageInternal.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/KernelKinds/LibraryEpilogue.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace kiln::package {

using namespace kiln::artifact;

namespace {

int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  for (int64_t dim : dims)
    result *= dim;
  return result;
}

/// The batch stride of an operand with batch dims |dims| in a call over
/// |batch| (the broadcast batch dims): a matrix per batch, or 0 when the
/// operand is broadcast over all of them; nullopt for a partial broadcast.
std::optional<int64_t> batchStride(ArrayRef<int64_t> dims,
                                   ArrayRef<int64_t> batch,
                                   int64_t matrixElements) {
  if (product(dims) == 1)
    return 0;
  SmallVector<int64_t> padded(batch.size() - dims.size(), 1);
  padded.append(dims.begin(), dims.end());
  if (ArrayRef<int64_t>(padded) != batch)
    return std::nullopt;
  return matrixElements;
}

/// The shape of |value|'s type, at the ranges' maximum with |extent|.
SmallVector<int64_t> shapeAt(Value value,
                             const std::optional<LibraryExtent> &extent) {
  if (extent)
    return extent->shapeOf(value.getType());
  return SmallVector<int64_t>(cast<ShapedType>(value.getType()).getShape());
}

LogicalResult describeMatMul(KernelOp kernel, MatMulOp matmul,
                             const std::optional<LibraryExtent> &extent,
                             BodyBufferFn bufferOf, GemmT &gemm) {
  auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(matmul.getRhs().getType());
  SmallVector<int64_t> lhsShape = shapeAt(matmul.getLhs(), extent),
                       rhsShape = shapeAt(matmul.getRhs(), extent);
  ArrayRef<int64_t> lhs = lhsShape, rhs = rhsShape;
  if (lhs.empty() || rhs.empty())
    return kernel.emitError("packager: kernel '")
           << kernel.getSymName() << "': MatMul of a scalar";
  // 1-D operands are promoted: lhs [K] -> [1, K], rhs [K] -> [K, 1].
  int64_t m = lhs.size() >= 2 ? lhs[lhs.size() - 2] : 1;
  int64_t k = lhs.back();
  int64_t n = rhs.size() >= 2 ? rhs.back() : 1;
  ArrayRef<int64_t> lhsBatch = lhs.drop_back(std::min<size_t>(lhs.size(), 2));
  ArrayRef<int64_t> rhsBatch = rhs.drop_back(std::min<size_t>(rhs.size(), 2));
  SmallVector<int64_t> batch(std::max(lhsBatch.size(), rhsBatch.size()), 1);
  for (ArrayRef<int64_t> dims : {lhsBatch, rhsBatch})
    for (auto [i, dim] : llvm::enumerate(llvm::reverse(dims)))
      if (dim != 1)
        batch[batch.size() - 1 - i] = dim;
  std::optional<int64_t> strideA = batchStride(lhsBatch, batch, m * k);
  std::optional<int64_t> strideB = batchStride(rhsBatch, batch, k * n);
  if (!strideA || !strideB)
    return kernel.emitError("packager: kernel '")
           << kernel.getSymName()
           << "': MatMul with partially broadcast batch dimensions (lhs "
           << lhsType << ", rhs " << rhsType
           << ") is not supported by the library call yet";

  // An operand transposed in its last two dims inside the kernel
  // (isTransposedMatMulOperand) is read from the transpose's input,
  // transposed by cuBLASLt.
  auto stored = [](Value operand) {
    Operation *op = operand.getDefiningOp();
    return isTransposedMatMulOperand(op) ? op->getOperand(0) : operand;
  };
  Value lhsStored = stored(matmul.getLhs()),
        rhsStored = stored(matmul.getRhs());
  FailureOr<uint32_t> a = bufferOf(lhsStored);
  FailureOr<uint32_t> b = bufferOf(rhsStored);
  if (failed(a) || failed(b))
    return failure();
  gemm.a = *a;
  gemm.b = *b;
  gemm.trans_a = lhsStored != matmul.getLhs();
  gemm.trans_b = rhsStored != matmul.getRhs();
  gemm.m = m;
  gemm.n = n;
  gemm.k = k;
  gemm.batch = product(batch);
  gemm.stride_a = *strideA;
  gemm.stride_b = *strideB;
  gemm.stride_out = m * n;
  // A batched lhs times one shared rhs is a single taller product (when the
  // lhs is stored as it is: a transposed one's rows are not contiguous).
  if (gemm.batch > 1 && gemm.stride_b == 0 && gemm.stride_a == m * k &&
      !gemm.trans_a) {
    gemm.m = m * gemm.batch;
    gemm.batch = 1;
    gemm.stride_a = gemm.m * k;
    gemm.stride_out = gemm.m * n;
  }
  return success();
}

LogicalResult describeGemmOp(KernelOp kernel, GemmOp op,
                             const std::optional<LibraryExtent> &extent,
                             BodyBufferFn bufferOf, GemmT &gemm) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto outType = cast<RankedTensorType>(op.getOutput().getType());
  SmallVector<int64_t> aShape = shapeAt(op.getA(), extent),
                       outShape = shapeAt(op.getOutput(), extent);
  if (aType.getRank() != 2 || bType.getRank() != 2 || outType.getRank() != 2)
    return kernel.emitError("packager: kernel '")
           << kernel.getSymName() << "': Gemm needs 2-D operands";
  FailureOr<uint32_t> a = bufferOf(op.getA());
  FailureOr<uint32_t> b = bufferOf(op.getB());
  if (failed(a) || failed(b))
    return failure();
  gemm.a = *a;
  gemm.b = *b;
  gemm.trans_a = op.getTransA();
  gemm.trans_b = op.getTransB();
  gemm.m = outShape[0];
  gemm.n = outShape[1];
  gemm.k = gemm.trans_a ? aShape[0] : aShape[1];
  gemm.alpha = op.getAlpha().convertToFloat();
  gemm.beta = 0.0f;
  gemm.stride_a = gemm.m * gemm.k;
  gemm.stride_b = gemm.k * gemm.n;
  gemm.stride_out = gemm.m * gemm.n;
  Value c = op.getC();
  if (!c)
    return success();
  auto cType = cast<RankedTensorType>(c.getType());
  FailureOr<uint32_t> cBuffer = bufferOf(c);
  if (failed(cBuffer))
    return failure();
  float beta = op.getBeta().convertToFloat();
  if (cType.getShape() == outType.getShape()) { // Dynamic dims alike.
    gemm.c = *cBuffer;
    gemm.beta = beta;
    gemm.stride_c = gemm.m * gemm.n;
    return success();
  }
  // C of [n] or [1, n] with beta 1 is a bias row: cuBLASLt's bias epilogue.
  bool row = cType.getNumElements() == gemm.n &&
             (cType.getRank() == 1 ||
              (cType.getRank() == 2 && cType.getDimSize(0) == 1));
  if (row && beta == 1.0f) {
    gemm.bias = *cBuffer;
    gemm.epilogue = GemmEpilogue_Bias;
    return success();
  }
  return kernel.emitError("packager: kernel '")
         << kernel.getSymName() << "': Gemm's C of type " << cType << " (beta "
         << beta << ") is broadcast to " << outType
         << "; the library call supports C of the result's shape, or a row "
            "of n with beta 1";
}

} // namespace

/// Adds |kernel|'s recorded epilogue to |gemm| (already described); |ops|
/// are its ops in the body.
LogicalResult describeEpilogue(KernelOp kernel, const LibraryEpilogueOps &ops,
                               BodyBufferFn bufferOf, GemmT &gemm) {
  LibraryEpilogueAttr epilogue = getLibraryEpilogue(kernel);
  // The bias row (cuBLASLt's bias epilogue) and the residual (C with beta 1;
  // views keep the element order, so it lies like out): D = A·B + C + bias.
  auto addBias = [&](Value row) {
    FailureOr<uint32_t> bias = bufferOf(row);
    if (failed(bias))
      return failure();
    gemm.bias = *bias;
    gemm.epilogue = GemmEpilogue_Bias;
    return success();
  };
  auto addResidual = [&](Value residual) {
    FailureOr<uint32_t> c = bufferOf(residual);
    if (failed(c))
      return failure();
    gemm.c = *c;
    gemm.beta = 1.0f;
    gemm.stride_c = gemm.stride_out;
    return success();
  };
  switch (epilogue.getAddend()) {
  case LibraryAddend::None:
    break;
  case LibraryAddend::Bias:
    if (failed(addBias(ops.addend)))
      return failure();
    break;
  case LibraryAddend::Residual:
    if (failed(addResidual(ops.addend)))
      return failure();
    break;
  case LibraryAddend::BiasResidual:
    if (failed(addBias(ops.addend)) || failed(addResidual(ops.residual)))
      return failure();
    break;
  }
  bool bias = gemm.epilogue == GemmEpilogue_Bias;
  switch (epilogue.getActivation()) {
  case LibraryActivation::None:
    break;
  case LibraryActivation::Relu:
    gemm.epilogue = bias ? GemmEpilogue_BiasRelu : GemmEpilogue_Relu;
    break;
  case LibraryActivation::GeluTanh:
    gemm.epilogue = bias ? GemmEpilogue_BiasGelu : GemmEpilogue_Gelu;
    break;
  }
  return success();
}

LogicalResult describeGemm(KernelOp kernel, BodyBufferFn bufferOf,
                           GemmT &gemm) {
  auto module = kernel->getParentOfType<ModuleOp>();
  auto precision =
      module ? module->getAttrOfType<StringAttr>(kPrecisionAttr) : nullptr;
  gemm.allow_tf32 = precision && precision.getValue() == "tf32";
  // The verifier has checked the library contract: one matmul or gemm, and
  // the epilogue the kernel records.
  std::string why;
  FailureOr<LibraryEpilogueOps> ops = traceLibraryEpilogue(kernel, &why);
  if (failed(ops))
    return kernel.emitError("packager: library kernel '")
           << kernel.getSymName() << "': " << why;
  // With a run-time extent (issue 18) the dims are those at the ranges'
  // maximum; the extent is the outermost dim of the rows of A and of the
  // result (the library contract), so M is it times the other rows.
  FailureOr<std::optional<LibraryExtent>> extent = getLibraryExtent(kernel);
  if (failed(extent))
    return failure();
  LogicalResult described = failure();
  if (auto matmul = dyn_cast<MatMulOp>(ops->anchor))
    described = describeMatMul(kernel, matmul, *extent, bufferOf, gemm);
  else if (auto op = dyn_cast<GemmOp>(ops->anchor))
    described = describeGemmOp(kernel, op, *extent, bufferOf, gemm);
  else
    return kernel.emitError("packager: library kernel '")
           << kernel.getSymName() << "' calls no kiln.matmul or kiln.gemm";
  if (failed(described))
    return failure();
  if (*extent) {
    const LibraryExtent &rows = **extent;
    std::optional<DimExpr> m =
        gemm.m % rows.largest == 0
            ? rows.extent * DimExpr::constant(gemm.m / rows.largest)
            : std::nullopt;
    if (gemm.batch != 1 || !m)
      return kernel.emitError("packager: library kernel '")
             << kernel.getSymName() << "' has the run-time extent "
             << rows.extent.str()
             << " outside the rows of one product (m = " << gemm.m
             << ", batch = " << gemm.batch
             << " at the largest shape); the library call takes a run-time "
                "extent only in M";
    gemm.m_expr = m->str();
  }
  return describeEpilogue(kernel, *ops, bufferOf, gemm);
}

} // namespace kiln::package
