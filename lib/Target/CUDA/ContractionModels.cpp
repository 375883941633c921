// Elemental CUDA models of MatMul and Gemm: one dot product per element, a
// serial loop over the contraction dim. Float MatMul/Gemm of f16/bf16/f32 run
// as cuBLASLt library calls; these models serve the dtypes cuBLASLt lacks
// (integers, f64), which fusion classifies as their own kernels.
#include "ElementalModels.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

/// acc = acc + a * b in the computation type of |type| (integers wrap).
std::string multiplyAdd(Type type, const std::string &acc, const std::string &a,
                        const std::string &b) {
  if (type.isIntOrIndex())
    return "kiln_iadd(" + acc + ", kiln_imul(" + a + ", " + b + "))";
  return acc + " + " + a + " * " + b;
}

std::string zero(Type type) {
  return type.isIntOrIndex() ? "0LL" : ElementalEmitter::floatLiteral(type, 0.0);
}

/// The index of an operand's batch dims for result batch dims |batch|
/// (right-aligned NumPy broadcasting; size-1 dims read index 0).
SmallVector<std::string> batchIndex(ArrayRef<std::string> batch,
                                    ArrayRef<int64_t> operandBatch) {
  SmallVector<std::string> dims;
  size_t offset = batch.size() - operandBatch.size();
  for (auto [i, dim] : llvm::enumerate(operandBatch))
    dims.push_back(dim == 1 ? std::string("0") : batch[offset + i]);
  return dims;
}

FailureOr<std::string> emitMatMul(MatMulOp op, ElementalEmitter &emitter,
                                  const ElementIndex &index) {
  ArrayRef<int64_t> lhs = indexedShapeOf(op.getLhs()),
                    rhs = indexedShapeOf(op.getRhs());
  ArrayRef<int64_t> out = indexedShapeOf(op.getOutput());
  Type type = elementTypeOf(op.getLhs());
  bool lhsVector = lhs.size() == 1, rhsVector = rhs.size() == 1;
  SmallVector<std::string> dims = emitter.dimsOf(index, out);
  size_t batchRank = dims.size() - (lhsVector ? 0 : 1) - (rhsVector ? 0 : 1);
  ArrayRef<std::string> batch = ArrayRef<std::string>(dims).take_front(batchRank);
  std::string m = lhsVector ? "" : dims[batchRank];
  std::string n = rhsVector ? "" : dims.back();

  std::string acc = emitter.fresh("acc");
  emitter.line(ElementalEmitter::computeType(type) + " " + acc + " = " +
               zero(type) + ";");
  std::string k = emitter.fresh("k");
  emitter.open("for (kiln_index_t " + k + " = 0; " + k + " < " +
               std::to_string(lhs.back()) + "; ++" + k + ")");
  SmallVector<std::string> lhsIndex =
      lhsVector ? SmallVector<std::string>{}
                : batchIndex(batch, lhs.drop_back(2));
  if (!lhsVector)
    lhsIndex.push_back(m);
  lhsIndex.push_back(k);
  SmallVector<std::string> rhsIndex =
      rhsVector ? SmallVector<std::string>{}
                : batchIndex(batch, rhs.drop_back(2));
  rhsIndex.push_back(k);
  if (!rhsVector)
    rhsIndex.push_back(n);
  FailureOr<std::string> a =
      emitter.emit(op.getLhs(), ElementIndex::fromDims(lhsIndex));
  if (failed(a))
    return failure();
  FailureOr<std::string> b =
      emitter.emit(op.getRhs(), ElementIndex::fromDims(rhsIndex));
  if (failed(b))
    return failure();
  emitter.line(acc + " = " + multiplyAdd(type, acc, *a, *b) + ";");
  emitter.close();
  return ElementalEmitter::wrapInteger(type, acc);
}

FailureOr<std::string> emitGemm(GemmOp op, ElementalEmitter &emitter,
                                const ElementIndex &index) {
  Type type = elementTypeOf(op.getA());
  if (type.isIntOrIndex())
    return emitter.error(op) << "integer Gemm (float alpha/beta) has no GPU "
                                "code yet";
  ArrayRef<int64_t> out = indexedShapeOf(op.getOutput());
  SmallVector<std::string> dims = emitter.dimsOf(index, out);
  int64_t depth = indexedShapeOf(op.getA())[op.getTransA() ? 0 : 1];
  std::string acc = emitter.fresh("acc");
  emitter.line(ElementalEmitter::computeType(type) + " " + acc + " = " +
               zero(type) + ";");
  std::string k = emitter.fresh("k");
  emitter.open("for (kiln_index_t " + k + " = 0; " + k + " < " +
               std::to_string(depth) + "; ++" + k + ")");
  SmallVector<std::string> aIndex{dims[0], k}, bIndex{k, dims[1]};
  if (op.getTransA())
    std::swap(aIndex[0], aIndex[1]);
  if (op.getTransB())
    std::swap(bIndex[0], bIndex[1]);
  FailureOr<std::string> a = emitter.emit(op.getA(), ElementIndex::fromDims(aIndex));
  if (failed(a))
    return failure();
  FailureOr<std::string> b = emitter.emit(op.getB(), ElementIndex::fromDims(bIndex));
  if (failed(b))
    return failure();
  emitter.line(acc + " = " + multiplyAdd(type, acc, *a, *b) + ";");
  emitter.close();
  std::string result =
      ElementalEmitter::floatLiteral(type, op.getAlpha().convertToDouble()) +
      " * " + acc;
  if (Value c = op.getC()) {
    FailureOr<std::string> cValue =
        emitter.emit(c, emitter.broadcastIndex(index, out, indexedShapeOf(c)));
    if (failed(cValue))
      return failure();
    result += " + " +
              ElementalEmitter::floatLiteral(type, op.getBeta().convertToDouble()) +
              " * " + *cValue;
  }
  return result;
}

} // namespace

void attachContractionModels(MLIRContext &context) {
  MatMulOp::attachInterface<FunctionModel<MatMulOp, emitMatMul>>(context);
  GemmOp::attachInterface<FunctionModel<GemmOp, emitGemm>>(context);
}

} // namespace kiln::cuda
