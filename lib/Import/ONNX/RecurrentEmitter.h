// Internal: the op builder that Recurrent.cpp unrolls RNN, GRU and LSTM with,
// and the cells' `activations` attributes (RecurrentEmitter.cpp).
#ifndef KILN_LIB_IMPORT_ONNX_RECURRENTEMITTER_H
#define KILN_LIB_IMPORT_ONNX_RECURRENTEMITTER_H

#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>

namespace kiln::onnx_import {

/// One activation of the `activations` attribute with its parameters.
struct Activation {
  std::string name; // lower case
  float alpha = 0.0f;
  float beta = 0.0f;
};

/// Builds the unrolled ops. The first failure is kept and every later call
/// returns a null value, so the sequence of calls reads like the formula.
class RecurrentEmitter {
public:
  RecurrentEmitter(NodeImporter &node, mlir::Type element)
      : node(node), b(node.getBuilder()), element(element) {}

  bool failed() const { return firstError.has_value(); }
  llvm::Error takeError() {
    return firstError ? node.error(*firstError) : llvm::Error::success();
  }
  void fail(llvm::Error error) {
    std::string message = llvm::toString(std::move(error));
    if (!firstError)
      firstError = message;
  }

  template <typename OpTy, typename... Args> mlir::Value make(Args &&...args) {
    if (failed())
      return {};
    llvm::Expected<mlir::Value> value =
        node.create<OpTy>(std::forward<Args>(args)...);
    if (!value) {
      fail(value.takeError());
      return {};
    }
    return *value;
  }

  /// A float constant of the node's element type with |shape|.
  mlir::Value splat(llvm::ArrayRef<int64_t> shape, double value) {
    auto type = mlir::RankedTensorType::get(shape, element);
    auto attribute = mlir::DenseElementsAttr::get(
        type, mlir::FloatAttr::get(element, value));
    return b.create<ConstantOp>(node.getLoc(),
                                llvm::cast<mlir::ElementsAttr>(attribute));
  }
  mlir::Value scalar(double value) { return splat({}, value); }

  /// data[start:end] along |axis|.
  mlir::Value slice(mlir::Value data, int64_t axis, int64_t start,
                    int64_t end) {
    return make<SliceOp>(data, node.createIntegerConstant({start}),
                         node.createIntegerConstant({end}),
                         node.createIntegerConstant({axis}),
                         node.createIntegerConstant({1}));
  }
  /// data[index] along |axis|, with that axis removed.
  mlir::Value select(mlir::Value data, int64_t axis, int64_t index) {
    return squeeze(slice(data, axis, index, index + 1), axis);
  }
  mlir::Value squeeze(mlir::Value data, int64_t axis) {
    if (failed())
      return {};
    return make<SqueezeOp>(data, node.createIntegerConstant({axis}));
  }
  mlir::Value unsqueeze(mlir::Value data, llvm::ArrayRef<int64_t> axes) {
    if (failed())
      return {};
    return make<UnsqueezeOp>(data, node.createIntegerConstant(axes));
  }
  mlir::Value transpose(mlir::Value data, llvm::ArrayRef<int64_t> permutation) {
    return make<TransposeOp>(data, b.getDenseI64ArrayAttr(permutation));
  }
  mlir::Value concat(mlir::ValueRange values, int64_t axis) {
    if (values.size() == 1)
      return values.front();
    return make<ConcatOp>(values, b.getI64IntegerAttr(axis));
  }
  mlir::Value add(mlir::Value lhs, mlir::Value rhs) {
    if (!lhs || !rhs)
      return lhs ? lhs : rhs;
    return make<AddOp>(lhs, rhs);
  }
  mlir::Value mul(mlir::Value lhs, mlir::Value rhs) {
    return make<MulOp>(lhs, rhs);
  }
  mlir::Value sub(mlir::Value lhs, mlir::Value rhs) {
    return make<SubOp>(lhs, rhs);
  }
  /// a @ w^T (+ c): w is (out, in) as ONNX stores the gate weights.
  mlir::Value linear(mlir::Value a, mlir::Value w, mlir::Value c) {
    return make<GemmOp>(a, w, c, b.getF32FloatAttr(1.0f),
                        b.getF32FloatAttr(1.0f), b.getBoolAttr(false),
                        b.getBoolAttr(true));
  }

  /// f(x) for one entry of `activations` (after the optional clip).
  mlir::Value activate(const Activation &f, mlir::Value x);

  NodeImporter &node;
  mlir::OpBuilder &b;
  mlir::Type element;

private:
  std::optional<std::string> firstError;
};

/// The activations of every direction (|perDirection| each), from the
/// `activations`/`activation_alpha`/`activation_beta` attributes or the
/// cell's defaults.
llvm::Expected<llvm::SmallVector<Activation>>
getActivations(NodeImporter &node, llvm::ArrayRef<const char *> defaults,
               int64_t directions);

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_RECURRENTEMITTER_H
