// Internal: window-attribute reading shared by the Conv and quantisation
// importers (Conv.cpp, Quantization.cpp).
#ifndef KILN_LIB_IMPORT_ONNX_CONVIMPORTSUPPORT_H
#define KILN_LIB_IMPORT_ONNX_CONVIMPORTSUPPORT_H

#include "NodeImporter.h"

namespace kiln::onnx_import {

/// Strides, dilations and explicit pads (begins then ends) of a window op.
struct WindowAttributes {
  llvm::SmallVector<int64_t> strides, dilations, pads;
};

/// An INTS attribute of |count| values, or |count| times |defaultValue|.
llvm::Expected<llvm::SmallVector<int64_t>> getIntsOr(NodeImporter &node,
                                                     llvm::StringRef name,
                                                     size_t count,
                                                     int64_t defaultValue);
/// The `auto_pad` attribute (NOTSET when absent).
llvm::Expected<std::string> getAutoPad(NodeImporter &node);
/// Input |index| as a rank-3..5 ranked tensor type, or an error.
llvm::Expected<mlir::RankedTensorType> getWindowInputType(NodeImporter &node,
                                                          size_t index);
/// strides/dilations/pads with `auto_pad` resolved for |kernel| (SAME_UPPER
/// puts the odd padding element at the end, SAME_LOWER at the begin).
llvm::Expected<WindowAttributes>
readWindowAttributes(NodeImporter &node, mlir::RankedTensorType inputType,
                     llvm::ArrayRef<int64_t> kernel, bool ceilMode);
/// A kiln.conv (|bias| may be null).
llvm::Expected<mlir::Value> createConv(NodeImporter &node, mlir::Value input,
                                       mlir::Value weight, mlir::Value bias,
                                       const WindowAttributes &window,
                                       int64_t group);

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_CONVIMPORTSUPPORT_H
