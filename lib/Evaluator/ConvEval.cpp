// Evaluation of convolutions and pools (Conv, ConvTranspose, MaxPool and its
// indices, AveragePool): direct loops over windows; floats accumulate in
// double and round once, integers wrap. Channels-last (NHWC) ops evaluate
// their NCHW form on permuted operands.
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/WindowGeometry.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace kiln::eval {
namespace {

/// Up to three spatial dims, padded to three with size-1 dims so that every
/// loop nest below is three deep.
struct Window3 {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  int64_t padBegin[3] = {0, 0, 0}, padEnd[3] = {0, 0, 0};
  int64_t inSize() const { return in[0] * in[1] * in[2]; }
  int64_t outSize() const { return out[0] * out[1] * out[2]; }
  int64_t kernelSize() const { return kernel[0] * kernel[1] * kernel[2]; }
};

llvm::Expected<Window3> makeWindow(mlir::Operation *op, const Tensor &input,
                                   llvm::ArrayRef<int64_t> kernel,
                                   llvm::ArrayRef<int64_t> strides,
                                   llvm::ArrayRef<int64_t> pads,
                                   llvm::ArrayRef<int64_t> dilations) {
  int64_t k = input.rank() - 2;
  if (k < 1 || k > 3 || int64_t(kernel.size()) != k ||
      int64_t(strides.size()) != k || int64_t(dilations.size()) != k ||
      int64_t(pads.size()) != 2 * k)
    return opError(op, "has window attributes that do not match input " +
                           input.describe());
  Window3 w;
  for (int64_t i = 0; i < k; ++i) {
    w.in[i] = input.shape()[2 + i];
    w.kernel[i] = kernel[i];
    w.stride[i] = strides[i];
    w.dilation[i] = dilations[i];
    w.padBegin[i] = pads[i];
    w.padEnd[i] = pads[k + i];
  }
  return w;
}

/// The output shape [N, channels, out...] of |input|, with |w.out| set.
std::vector<int64_t> outputShape(const Tensor &input, int64_t channels,
                                 const Window3 &w) {
  std::vector<int64_t> shape{input.shape()[0], channels};
  for (int64_t i = 0; i < input.rank() - 2; ++i)
    shape.push_back(w.out[i]);
  return shape;
}

template <typename ConvOpT>
llvm::Expected<Tensor> convolve(ConvOpT op, llvm::ArrayRef<Tensor> operands,
                                bool transposed,
                                llvm::ArrayRef<int64_t> outputPadding = {}) {
  const Tensor &x = operands[0], &weight = operands[1];
  const Tensor *bias = operands.size() > 2 ? &operands[2] : nullptr;
  if (x.rank() != weight.rank() || x.dtype() != weight.dtype())
    return opError(op, "has mismatched input " + x.describe() + " and weight " +
                           weight.describe());
  llvm::SmallVector<int64_t> kernel(weight.shape().drop_front(2));
  auto w = makeWindow(op, x, kernel, op.getStrides(), op.getPads(),
                      op.getDilations());
  if (!w)
    return w.takeError();
  int64_t group = op.getGroup();
  int64_t n = x.shape()[0], c = x.shape()[1];
  if (group < 1 || c % group != 0)
    return opError(op, "group does not divide the input channels");
  int64_t cg = c / group, mg, m;
  if (transposed) {
    if (weight.shape()[0] != c)
      return opError(op, "weight " + weight.describe() + " does not match " +
                             x.describe());
    mg = weight.shape()[1];
    m = mg * group;
  } else {
    if (weight.shape()[1] != cg || weight.shape()[0] % group != 0)
      return opError(op, "weight " + weight.describe() + " does not match " +
                             x.describe());
    m = weight.shape()[0];
    mg = m / group;
  }
  for (int i = 0; i < 3; ++i) {
    if (transposed) {
      int64_t padding = i < int(outputPadding.size()) ? outputPadding[i] : 0;
      w->out[i] =
          i < x.rank() - 2
              ? transposedWindowSize(w->in[i], w->kernel[i], w->stride[i],
                                     w->dilation[i], w->padBegin[i],
                                     w->padEnd[i], padding)
              : 1;
    } else {
      w->out[i] = slidingWindowSize(w->in[i], w->kernel[i], w->stride[i],
                                    w->dilation[i], w->padBegin[i],
                                    w->padEnd[i], false);
    }
    if (w->out[i] < 1)
      return opError(op, "input " + x.describe() + " is too small");
  }
  if (bias && bias->numElements() != m)
    return opError(op, "bias " + bias->describe() + " does not have " +
                           std::to_string(m) + " elements");
  llvm::Expected<Tensor> result =
      makeTensor(op, x.dtype(), outputShape(x, m, *w));
  if (!result)
    return result.takeError();
  bool isFloat = x.isFloat();
  int64_t inSize = w->inSize(), outSize = w->outSize(), kSize = w->kernelSize();
  std::vector<double> accF(outSize);
  std::vector<uint64_t> accI(outSize);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oc = 0; oc < m; ++oc) {
      int64_t g = oc / mg;
      std::fill(accF.begin(), accF.end(), 0.0);
      std::fill(accI.begin(), accI.end(), 0);
      for (int64_t ic = 0; ic < cg; ++ic) {
        int64_t channel = g * cg + ic;
        int64_t xBase = (b * c + channel) * inSize;
        int64_t wBase = transposed ? (channel * mg + (oc - g * mg)) * kSize
                                   : (oc * cg + ic) * kSize;
        for (int64_t k0 = 0; k0 < w->kernel[0]; ++k0)
          for (int64_t k1 = 0; k1 < w->kernel[1]; ++k1)
            for (int64_t k2 = 0; k2 < w->kernel[2]; ++k2) {
              int64_t wIndex =
                  wBase + (k0 * w->kernel[1] + k1) * w->kernel[2] + k2;
              int64_t kk[3] = {k0, k1, k2};
              // For each output position, the input position it reads
              // (direct), or for each input position the output it feeds
              // (transposed).
              int64_t outer[3] = {transposed ? w->in[0] : w->out[0],
                                  transposed ? w->in[1] : w->out[1],
                                  transposed ? w->in[2] : w->out[2]};
              for (int64_t p0 = 0; p0 < outer[0]; ++p0)
                for (int64_t p1 = 0; p1 < outer[1]; ++p1)
                  for (int64_t p2 = 0; p2 < outer[2]; ++p2) {
                    int64_t p[3] = {p0, p1, p2}, q[3];
                    bool inside = true;
                    for (int i = 0; i < 3; ++i) {
                      q[i] = p[i] * w->stride[i] - w->padBegin[i] +
                             kk[i] * w->dilation[i];
                      int64_t limit = transposed ? w->out[i] : w->in[i];
                      inside &= q[i] >= 0 && q[i] < limit;
                    }
                    if (!inside)
                      continue;
                    const int64_t *inPos = transposed ? p : q;
                    const int64_t *outPos = transposed ? q : p;
                    int64_t xIndex =
                        xBase + (inPos[0] * w->in[1] + inPos[1]) * w->in[2] +
                        inPos[2];
                    int64_t oIndex =
                        (outPos[0] * w->out[1] + outPos[1]) * w->out[2] +
                        outPos[2];
                    if (isFloat)
                      accF[oIndex] +=
                          x.getDouble(xIndex) * weight.getDouble(wIndex);
                    else
                      accI[oIndex] += uint64_t(x.ints()[xIndex]) *
                                      uint64_t(weight.ints()[wIndex]);
                  }
            }
      }
      int64_t oBase = (b * m + oc) * outSize;
      for (int64_t i = 0; i < outSize; ++i) {
        if (isFloat)
          result->setDouble(oBase + i,
                            accF[i] + (bias ? bias->getDouble(oc) : 0.0));
        else
          result->setInt(
              oBase + i,
              int64_t(accI[i] + (bias ? uint64_t(bias->ints()[oc]) : 0)));
      }
    }
  }
  return result;
}

enum class PoolKind { Max, MaxIndices, Average };

template <typename PoolOpT>
llvm::Expected<Tensor> pool(PoolOpT op, const Tensor &x, PoolKind kind,
                            bool countIncludePad, int64_t storageOrder) {
  auto w = makeWindow(op, x, op.getKernelShape(), op.getStrides(), op.getPads(),
                      op.getDilations());
  if (!w)
    return w.takeError();
  int64_t k = x.rank() - 2;
  for (int64_t i = 0; i < k; ++i) {
    w->out[i] =
        slidingWindowSize(w->in[i], w->kernel[i], w->stride[i], w->dilation[i],
                          w->padBegin[i], w->padEnd[i], op.getCeilMode());
    if (w->out[i] < 1)
      return opError(op, "input " + x.describe() + " is too small");
  }
  DType dtype = kind == PoolKind::MaxIndices ? DType::I64 : x.dtype();
  int64_t planes = x.shape()[0] * x.shape()[1];
  llvm::Expected<Tensor> result =
      makeTensor(op, dtype, outputShape(x, x.shape()[1], *w));
  if (!result)
    return result.takeError();
  int64_t inSize = w->inSize(), outSize = w->outSize();
  for (int64_t plane = 0; plane < planes; ++plane)
    for (int64_t o0 = 0; o0 < w->out[0]; ++o0)
      for (int64_t o1 = 0; o1 < w->out[1]; ++o1)
        for (int64_t o2 = 0; o2 < w->out[2]; ++o2) {
          int64_t o[3] = {o0, o1, o2};
          double best = -INFINITY, sum = 0.0;
          int64_t bestIndex = -1, count = 0, padded = 1;
          bool haveBest = false;
          // Per dim, the window's extent inside the padded input (the
          // count_include_pad divisor never counts a ceil_mode overhang).
          for (int i = 0; i < 3; ++i) {
            int64_t start = o[i] * w->stride[i] - w->padBegin[i];
            int64_t inPadded = 0;
            for (int64_t t = 0; t < w->kernel[i]; ++t) {
              int64_t q = start + t * w->dilation[i];
              inPadded += q >= -w->padBegin[i] && q < w->in[i] + w->padEnd[i];
            }
            padded *= inPadded;
          }
          for (int64_t k0 = 0; k0 < w->kernel[0]; ++k0)
            for (int64_t k1 = 0; k1 < w->kernel[1]; ++k1)
              for (int64_t k2 = 0; k2 < w->kernel[2]; ++k2) {
                int64_t kk[3] = {k0, k1, k2}, q[3];
                bool inside = true;
                for (int i = 0; i < 3; ++i) {
                  q[i] = o[i] * w->stride[i] - w->padBegin[i] +
                         kk[i] * w->dilation[i];
                  inside &= q[i] >= 0 && q[i] < w->in[i];
                }
                if (!inside)
                  continue;
                int64_t spatial = (q[0] * w->in[1] + q[1]) * w->in[2] + q[2];
                double v = x.getDouble(plane * inSize + spatial);
                ++count;
                sum += v;
                if (!haveBest || v > best ||
                    (std::isnan(v) && !std::isnan(best))) {
                  best = v;
                  haveBest = true;
                  if (storageOrder == 1) // Column-major spatial index.
                    spatial = q[0] + w->in[0] * (q[1] + w->in[1] * q[2]);
                  bestIndex = plane * inSize + spatial;
                }
              }
          int64_t index =
              plane * outSize + (o0 * w->out[1] + o1) * w->out[2] + o2;
          if (kind == PoolKind::MaxIndices)
            result->setInt(index, bestIndex);
          else if (kind == PoolKind::Max)
            result->setDouble(index, best);
          else
            result->setDouble(index,
                              sum / double(countIncludePad ? padded : count));
        }
  return result;
}

/// |input| (4-D) with its dims permuted: result dim i is input dim perm[i].
Tensor permute4(const Tensor &input, const int64_t (&perm)[4]) {
  llvm::ArrayRef<int64_t> shape = input.shape();
  std::vector<int64_t> outShape{shape[perm[0]], shape[perm[1]], shape[perm[2]],
                                shape[perm[3]]};
  Tensor result(input.dtype(), outShape);
  std::vector<int64_t> strides = input.strides();
  int64_t index = 0;
  for (int64_t a = 0; a < outShape[0]; ++a)
    for (int64_t b = 0; b < outShape[1]; ++b)
      for (int64_t c = 0; c < outShape[2]; ++c)
        for (int64_t d = 0; d < outShape[3]; ++d, ++index) {
          int64_t source = a * strides[perm[0]] + b * strides[perm[1]] +
                           c * strides[perm[2]] + d * strides[perm[3]];
          if (input.isFloat())
            result.floats()[index] = input.floats()[source];
          else
            result.ints()[index] = input.ints()[source];
        }
  return result;
}

/// A channels-last conv: the NCHW convolution of the permuted operands,
/// permuted back.
llvm::Expected<Tensor> convolveChannelsLast(ConvOp op,
                                            llvm::ArrayRef<Tensor> operands) {
  constexpr int64_t toChannelsFirst[4] = {0, 3, 1, 2};
  constexpr int64_t toChannelsLast[4] = {0, 2, 3, 1};
  if (operands[0].rank() != 4 || operands[1].rank() != 4)
    return opError(op, "with layout NHWC needs a 4-D input and weight");
  llvm::SmallVector<Tensor, 3> channelsFirst{
      permute4(operands[0], toChannelsFirst),
      permute4(operands[1], toChannelsFirst)};
  if (operands.size() > 2)
    channelsFirst.push_back(operands[2]);
  llvm::Expected<Tensor> result = convolve(op, channelsFirst, false);
  if (!result)
    return result.takeError();
  return permute4(*result, toChannelsLast);
}

/// A channels-last max or average pool: the NCHW pool of the permuted input,
/// permuted back.
template <typename PoolOpT>
llvm::Expected<Tensor> poolChannelsLast(PoolOpT op, const Tensor &x,
                                        PoolKind kind, bool countIncludePad) {
  constexpr int64_t toChannelsFirst[4] = {0, 3, 1, 2};
  constexpr int64_t toChannelsLast[4] = {0, 2, 3, 1};
  if (x.rank() != 4)
    return opError(op,
                   "with layout NHWC needs a 4-D input, got " + x.describe());
  llvm::Expected<Tensor> result =
      pool(op, permute4(x, toChannelsFirst), kind, countIncludePad, 0);
  if (!result)
    return result.takeError();
  return permute4(*result, toChannelsLast);
}

llvm::Expected<Tensor> evaluateOne(mlir::Operation *op,
                                   llvm::ArrayRef<Tensor> operands) {
  if (operands.empty())
    return opError(op, "has no operands");
  return llvm::TypeSwitch<mlir::Operation *, llvm::Expected<Tensor>>(op)
      .Case<ConvOp>(
          [&](ConvOp conv) {
            return conv.isChannelsLast()
                       ? convolveChannelsLast(conv, operands)
                       : convolve(conv, operands, false);
          })
      .Case<ConvTransposeOp>([&](ConvTransposeOp conv) {
        return convolve(conv, operands, true, conv.getOutputPadding());
      })
      .Case<MaxPoolOp>([&](MaxPoolOp p) {
        return p.isChannelsLast()
                   ? poolChannelsLast(p, operands[0], PoolKind::Max, false)
                   : pool(p, operands[0], PoolKind::Max, false, 0);
      })
      .Case<MaxPoolIndicesOp>([&](MaxPoolIndicesOp p) {
        return pool(p, operands[0], PoolKind::MaxIndices, false,
                    p.getStorageOrder());
      })
      .Case<AveragePoolOp>([&](AveragePoolOp p) {
        return p.isChannelsLast()
                   ? poolChannelsLast(p, operands[0], PoolKind::Average,
                                      p.getCountIncludePad())
                   : pool(p, operands[0], PoolKind::Average,
                          p.getCountIncludePad(), 0);
      })
      .Default([&](mlir::Operation *other) -> llvm::Expected<Tensor> {
        return opError(other, "is not a convolution or pool");
      });
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateConvolution(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  llvm::Expected<Tensor> result = evaluateOne(op, operands);
  if (!result)
    return result.takeError();
  std::vector<Tensor> results;
  results.push_back(std::move(*result));
  return results;
}

} // namespace kiln::eval
