// Checks of what the ONNX spec fixes for a whole model or node before any op
// is imported: IR and opset versions, and attributes an op does not define.
#ifndef KILN_LIB_IMPORT_ONNX_MODELCHECKS_H
#define KILN_LIB_IMPORT_ONNX_MODELCHECKS_H

#include "llvm/Support/Error.h"

#include "onnx/onnx_pb.h"

namespace kiln::onnx_import {

/// The newest ONNX release kiln's importers are written against (1.18):
/// its IR version and its default-domain ('ai.onnx') opset.
constexpr int64_t kMaxIrVersion = 11;
constexpr int64_t kMaxDefaultOpset = 23;

/// An error unless |model|'s ir_version is in [1, kMaxIrVersion] and every
/// opset it imports is at least 1, the default domain's at most
/// kMaxDefaultOpset.
llvm::Error checkModelVersions(const onnx::ModelProto &model);

/// An error naming the first attribute of |node| (default domain) that ONNX
/// does not define for its op at |opset|, with the ones it does define. Ops
/// and opsets that the linked ONNX library has no schema for are not
/// checked (its newest opset is ONNX's at the library's release).
llvm::Error checkNodeAttributes(const onnx::NodeProto &node, int64_t opset);

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_MODELCHECKS_H
