// Attribute reading shared by the movement importers (Movement.cpp,
// MovementIndex.cpp).
#ifndef KILN_LIB_IMPORT_ONNX_MOVEMENTIMPORT_H
#define KILN_LIB_IMPORT_ONNX_MOVEMENTIMPORT_H

#include "NodeImporter.h"

namespace kiln::onnx_import {

/// A STRING attribute, or |defaultValue| when absent.
llvm::Expected<std::string> getString(NodeImporter &node, llvm::StringRef name,
                                      llvm::StringRef defaultValue);

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_MOVEMENTIMPORT_H
