// The operations of a Conv step in cuDNN's graph API, built without a
// handle: tensors, conv forward, and the bias / residual / relu pointwise
// epilogue. conv_graph.h turns them into an operation graph and plans.
#ifndef KILN_RUNTIME_CONV_GRAPH_OPERATIONS_H
#define KILN_RUNTIME_CONV_GRAPH_OPERATIONS_H

#include "conv_graph_descriptors.h"

#include "kiln_artifact_generated.h"

#include <array>
#include <string>
#include <vector>

namespace kiln::runtime {

/// What the graph path needs of a Conv step (artifact-independent, so that
/// tests can describe one directly).
struct ConvGraphShape {
  int64_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1;
  int64_t padH = 0, padW = 0, strideH = 1, strideW = 1;
  int64_t dilationH = 1, dilationW = 1, groups = 1;
  int64_t outH = 1, outW = 1;
  bool channelsLast = false;
  bool bias = false, residual = false, relu = false;
  /// The type of every real tensor (accumulation is always float).
  cudnnDataType_t type = CUDNN_DATA_FLOAT;

  static ConvGraphShape of(const kiln::artifact::Conv &conv,
                           kiln::artifact::DType dtype);
};

/// Dims and strides of a 4-D tensor for the backend API: dims always in
/// N, C, H, W order (cuDNN's convention for convolutions, filters included:
/// K, C, R, S), strides of how it lies in memory (NCHW or channels last).
struct GraphTensorLayout {
  std::array<int64_t, 4> dims, strides;
};
GraphTensorLayout graphTensorLayout(bool channelsLast, int64_t n, int64_t c,
                                    int64_t h, int64_t w);

/// Why the graph path does not build |shape| (a sentence), or "" when it
/// does. Grouped convolutions are declined: cuDNN's fused runtime engines
/// are for dense convs, and the legacy API runs grouped ones.
std::string graphUnsupportedReason(const ConvGraphShape &shape);

/// The unique ids of the real tensors, by which the variant pack binds
/// device pointers at execution.
enum ConvGraphTensorId : int64_t {
  kGraphX = 1,
  kGraphW = 2,
  kGraphBias = 3,
  kGraphResidual = 4,
  kGraphY = 5,
  kGraphFirstVirtual = 100,
};

/// Every finalised descriptor of the operations (tensors kept alive for
/// the operations that reference them) and the operations in order.
struct ConvOperations {
  std::vector<BackendDescriptor> tensors, descriptors, operations;
};

/// Appends y = |mode|(x, b) (b NULL for a unary mode; both scaled by 1,
/// float math) to |operations|: its pointwise descriptor and its operation,
/// finalised.
kiln_status_t
makePointwiseOperation(cudnnPointwiseMode_t mode, const std::string &what,
                       const BackendDescriptor &x, const BackendDescriptor *b,
                       const BackendDescriptor &y, ConvOperations *operations);

/// Builds and finalises the tensors, the convolution and the epilogue of
/// |shape|: conv(x, w) -> [+ bias] -> [+ residual] -> [relu] -> y, with
/// float virtual tensors between the operations (16-byte aligned real
/// tensors). Needs no handle and no GPU.
kiln_status_t buildConvOperations(const ConvGraphShape &shape,
                                  ConvOperations *operations);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CONV_GRAPH_OPERATIONS_H
