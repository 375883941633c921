// Internal: the per-family attach functions of the CUDA elemental models and
// the helpers they share.
#ifndef KILN_LIB_TARGET_CUDA_ELEMENTALMODELS_H
#define KILN_LIB_TARGET_CUDA_ELEMENTALMODELS_H

#include "kiln/Target/CUDA/ElementalEmitter.h"

#include "mlir/IR/MLIRContext.h"

namespace kiln::cuda {

void attachElementwiseModels(mlir::MLIRContext &context);
void attachShapeModels(mlir::MLIRContext &context);
void attachReductionModels(mlir::MLIRContext &context);
void attachMovementModels(mlir::MLIRContext &context);
void attachNormModels(mlir::MLIRContext &context);
void attachConvModels(mlir::MLIRContext &context);
void attachQuantModels(mlir::MLIRContext &context);
void attachMathModels(mlir::MLIRContext &context);
void attachContractionModels(mlir::MLIRContext &context);

/// The CUDA expression converting |value| (computation type of |from|) to
/// the computation type of |to| with ONNX Cast semantics as the scalar table
/// defines them (truncate + saturate float->int, NaN->0, RNE float->float,
/// wrap int->int, x != 0 for bool).
std::string castExpression(mlir::Type from, mlir::Type to,
                           const std::string &value);

/// A scalar-table CUDA template with $0..$9 replaced by |values| (operands,
/// then parameters) and $U by whether the operands are unsigned.
std::string instantiateTemplate(llvm::StringRef pattern,
                                llvm::ArrayRef<std::string> values,
                                bool isUnsigned);

/// Every operand of |op| at the index that broadcasting to the result at
/// |index| reads.
mlir::FailureOr<llvm::SmallVector<std::string>>
emitBroadcastOperands(mlir::Operation *op, ElementalEmitter &emitter,
                      const ElementIndex &index);

/// An op with a scalar-table row: the row's CUDA template (cudaHalf for an
/// f16 result where the row has one) on the operands broadcast to |index|,
/// then the op's parameters as literals of the operands' computation type.
mlir::FailureOr<std::string> emitTableOp(mlir::Operation *op,
                                         ElementalEmitter &emitter,
                                         const ElementIndex &index);

/// The elemental model of an op with a scalar-table row (emitTableOp).
template <typename OpT>
struct TableModel
    : public ElementalOpInterface::ExternalModel<TableModel<OpT>, OpT> {
  mlir::FailureOr<std::string> emitElement(mlir::Operation *op,
                                           ElementalEmitter &emitter,
                                           const ElementIndex &index) const {
    return emitTableOp(op, emitter, index);
  }
};

/// Operand |operand| of |op| as constant integers, or a located error.
mlir::FailureOr<llvm::SmallVector<int64_t>>
constantIntegers(ElementalEmitter &emitter, mlir::Operation *op,
                 unsigned operand, llvm::StringRef what);

/// An ElementalOpInterface external model that forwards to |Emit|.
template <typename OpT, mlir::FailureOr<std::string> (*Emit)(
                            OpT, ElementalEmitter &, const ElementIndex &)>
struct FunctionModel
    : public ElementalOpInterface::ExternalModel<FunctionModel<OpT, Emit>,
                                                 OpT> {
  mlir::FailureOr<std::string> emitElement(mlir::Operation *op,
                                           ElementalEmitter &emitter,
                                           const ElementIndex &index) const {
    return Emit(mlir::cast<OpT>(op), emitter, index);
  }
};

} // namespace kiln::cuda

#endif // KILN_LIB_TARGET_CUDA_ELEMENTALMODELS_H
