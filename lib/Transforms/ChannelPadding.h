// Channel padding for kiln-assign-layout: cuDNN's NHWC tensor-core kernels
// want f16/bf16 convolutions with a multiple of 8 input channels, so a
// convolution with fewer (an RGB stem: C = 3) runs on zero-padded input and
// weight channels. Zero channels add exact zeros: the result is unchanged.
#ifndef KILN_LIB_TRANSFORMS_CHANNELPADDING_H
#define KILN_LIB_TRANSFORMS_CHANNELPADDING_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {

/// The channel multiple cuDNN's f16/bf16 NHWC tensor-core kernels want.
constexpr int64_t kChannelAlignment = 8;

/// The input channel count to pad |conv| (NCHW, before the layout change)
/// to: kChannelAlignment for an ungrouped f16/bf16 2-D convolution with
/// fewer channels, std::nullopt when it keeps its own.
std::optional<int64_t> paddedInputChannels(ConvOp conv);

/// kiln.pad of |value| with zeros after the end of dim |dim|, up to |size|.
mlir::Value padWithZeros(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value value, int64_t dim, int64_t size);

/// transpose(pad(transpose(x, q)), p) -> pad(transpose(x, q then p)) with
/// the pads permuted, so that the layout transposes around a padded
/// convolution input still cancel.
void populateChannelPaddingPatterns(mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_LIB_TRANSFORMS_CHANNELPADDING_H
