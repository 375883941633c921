// The accuracy gate of library algorithm candidates (candidate_check.h):
// random operands, host references of Conv and Gemm outputs, comparisons.
#include "candidate_check.h"
#include "float_formats.h"
#include "splitmix64.h"
#include "status.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace kiln::runtime {

using namespace kiln::artifact;

namespace {
/// The spacing of values near 1 (machine epsilon) of a dtype's rounding.
double epsilonOf(DType dtype, bool allowTf32) {
  switch (dtype) {
  case DType_F16:
    return 1.0 / 1024;
  case DType_BF16:
    return 1.0 / 128;
  default:
    // f32 accumulation over K terms: relative errors of ~2^-24 * sqrt(K),
    // a few 1e-6 at the K of real models.
    return allowTf32 ? 1.0 / 1024 : 1e-5;
  }
}

/// splitmix64.h with the values the check operands need.
struct Random : SplitMix64 {
  /// Uniform in [-1, 1).
  double uniform() { return double(next() >> 11) * 0x1.0p-52 - 1.0; }
};
} // namespace

Tolerance toleranceFor(DType inputs, DType out, bool allowTf32) {
  double epsilon =
      std::max(epsilonOf(inputs, allowTf32), epsilonOf(out, allowTf32));
  // An unfused epilogue rounds up to four times (conv, + bias, + residual,
  // activation); the reference rounds once more when it is a candidate.
  Tolerance tolerance;
  tolerance.relative = 4 * epsilon;
  tolerance.absolute = 4 * epsilon;
  tolerance.relL2 = 2 * epsilon;
  return tolerance;
}

std::string Agreement::describe() const {
  char text[160];
  std::snprintf(text, sizeof(text), "rel_l2=%.3g max_err=%.3g at %zu", relL2,
                maxError, worst);
  std::string result = text;
  if (outside)
    result += ", " + std::to_string(outside) + " element(s) out of tolerance";
  if (nonFinite)
    result += ", " + std::to_string(nonFinite) + " NaN/Inf";
  return result;
}

Agreement compareValues(const float *candidate, const float *reference,
                        size_t count, const Tolerance &tolerance) {
  Agreement agreement;
  double referenceSquares = 0;
  for (size_t i = 0; i < count; ++i)
    if (std::isfinite(reference[i]))
      referenceSquares += double(reference[i]) * reference[i];
  double rms = count ? std::sqrt(referenceSquares / double(count)) : 0;
  double errorSquares = 0;
  for (size_t i = 0; i < count; ++i) {
    double want = reference[i], got = candidate[i];
    if (!std::isfinite(want))
      continue;
    if (!std::isfinite(got)) {
      ++agreement.nonFinite;
      continue;
    }
    double error = std::fabs(got - want);
    errorSquares += error * error;
    if (error > agreement.maxError) {
      agreement.maxError = error;
      agreement.worst = i;
    }
    if (error > tolerance.absolute * rms + tolerance.relative * std::fabs(want))
      ++agreement.outside;
  }
  agreement.relL2 = referenceSquares > 0
                        ? std::sqrt(errorSquares / referenceSquares)
                        : std::sqrt(errorSquares);
  agreement.ok = agreement.nonFinite == 0 && agreement.outside == 0 &&
                 agreement.relL2 <= tolerance.relL2;
  return agreement;
}

kiln_status_t uploadRandom(void *device, size_t count, DType dtype,
                           uint64_t seed, double scale,
                           std::vector<float> *host, cudaStream_t stream) {
  Random random{seed};
  host->resize(count);
  size_t element = dtype == DType_F32 ? 4 : 2;
  std::vector<uint8_t> bytes(count * element);
  for (size_t i = 0; i < count; ++i) {
    float value = float(random.uniform() * scale);
    if (dtype == DType_F16) {
      uint16_t bits = floatToHalf(value);
      std::memcpy(&bytes[2 * i], &bits, 2);
      value = halfToFloat(bits);
    } else if (dtype == DType_BF16) {
      uint16_t bits = floatToBf16(value);
      std::memcpy(&bytes[2 * i], &bits, 2);
      value = bf16ToFloat(bits);
    } else {
      std::memcpy(&bytes[4 * i], &value, 4);
    }
    (*host)[i] = value;
  }
  // |bytes| is pageable and goes out of scope: wait for the copy.
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaMemcpyAsync(device, bytes.data(), bytes.size(),
                                 cudaMemcpyHostToDevice, stream),
                 "uploading random operands of an algorithm check"));
  return cudaStatus(cudaStreamSynchronize(stream),
                    "uploading random operands of an algorithm check");
}

kiln_status_t poison(void *device, size_t bytes, cudaStream_t stream) {
  return cudaStatus(cudaMemsetAsync(device, 0xff, bytes, stream),
                    "poisoning a candidate's output");
}

float HostOutput::at(size_t index) const {
  if (dtype == DType_F32) {
    float value;
    std::memcpy(&value, &bytes[4 * index], 4);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, &bytes[2 * index], 2);
  return dtype == DType_F16 ? halfToFloat(bits) : bf16ToFloat(bits);
}

kiln_status_t downloadOutput(const void *device, size_t count, DType dtype,
                             HostOutput *output, cudaStream_t stream) {
  output->dtype = dtype;
  output->count = count;
  output->bytes.resize(count * (dtype == DType_F32 ? 4 : 2));
  KILN_RETURN_IF_ERROR(cudaStatus(
      cudaMemcpyAsync(output->bytes.data(), device, output->bytes.size(),
                      cudaMemcpyDeviceToHost, stream),
      "reading a candidate's output"));
  return cudaStatus(cudaStreamSynchronize(stream),
                    "reading a candidate's output");
}

std::vector<size_t> samplePositions(size_t count, size_t samples,
                                    uint64_t seed) {
  std::vector<size_t> positions;
  if (count <= samples) {
    for (size_t i = 0; i < count; ++i)
      positions.push_back(i);
    return positions;
  }
  // One position in each of |samples| equal strata: every region of the
  // output (every image, every channel block) is looked at.
  Random random{seed};
  for (size_t i = 0; i < samples; ++i) {
    size_t begin = count * i / samples, end = count * (i + 1) / samples;
    positions.push_back(begin + size_t(random.next() % (end - begin)));
  }
  return positions;
}

double convReferenceAt(const Conv &conv, const ConvOperandValues &values,
                       size_t index) {
  const bool nhwc = conv.layout() == ConvLayout_NHWC;
  const int64_t k = conv.k(), outH = conv.out_h(), outW = conv.out_w();
  const int64_t channelsPerGroup = conv.c() / conv.groups();
  const int64_t outputsPerGroup = k / conv.groups();
  int64_t rest = int64_t(index), n, channel, y, x;
  if (nhwc) {
    channel = rest % k;
    rest /= k;
    x = rest % outW;
    rest /= outW;
    y = rest % outH;
    n = rest / outH;
  } else {
    x = rest % outW;
    rest /= outW;
    y = rest % outH;
    rest /= outH;
    channel = rest % k;
    n = rest / k;
  }
  const int64_t group = channel / outputsPerGroup;
  double sum = 0;
  for (int64_t r = 0; r < conv.r(); ++r) {
    int64_t inY = y * conv.stride_h() - conv.pad_h() + r * conv.dilation_h();
    if (inY < 0 || inY >= conv.h())
      continue;
    for (int64_t s = 0; s < conv.s(); ++s) {
      int64_t inX =
          x * conv.stride_w() - conv.pad_w() + s * conv.dilation_w();
      if (inX < 0 || inX >= conv.width())
        continue;
      for (int64_t c = 0; c < channelsPerGroup; ++c) {
        int64_t inC = group * channelsPerGroup + c;
        size_t xAt =
            nhwc ? size_t(((n * conv.h() + inY) * conv.width() + inX) *
                              conv.c() +
                          inC)
                 : size_t(((n * conv.c() + inC) * conv.h() + inY) *
                              conv.width() +
                          inX);
        size_t wAt =
            nhwc ? size_t(((channel * conv.r() + r) * conv.s() + s) *
                              channelsPerGroup +
                          c)
                 : size_t(((channel * channelsPerGroup + c) * conv.r() + r) *
                              conv.s() +
                          s);
        sum += double(values.x[xAt]) * values.w[wAt];
      }
    }
  }
  if (values.bias)
    sum += values.bias[channel];
  if (values.residual)
    sum += values.residual[index];
  if (conv.activation() == ConvActivation_Relu)
    sum = std::max(sum, 0.0);
  return sum;
}

double gemmReferenceAt(const Gemm &gemm, const GemmOperandValues &values,
                       size_t index) {
  const int64_t m = gemm.m(), n = gemm.n(), k = gemm.k();
  // Batches lie stride_out apart; rows n apart within one.
  int64_t batch = gemm.batch() > 1 && gemm.stride_out()
                      ? int64_t(index) / gemm.stride_out()
                      : 0;
  int64_t within = int64_t(index) - batch * gemm.stride_out();
  int64_t row = within / n, column = within % n;
  const float *a = values.a + batch * gemm.stride_a();
  const float *b = values.b + batch * gemm.stride_b();
  double sum = 0;
  for (int64_t i = 0; i < k; ++i) {
    double left = gemm.trans_a() ? a[i * m + row] : a[row * k + i];
    double right = gemm.trans_b() ? b[column * k + i] : b[i * n + column];
    sum += left * right;
  }
  sum *= gemm.alpha();
  if (values.c)
    sum += double(gemm.beta()) *
           values.c[batch * gemm.stride_c() + row * n + column];
  GemmEpilogue epilogue = gemm.epilogue();
  if (values.bias && (epilogue == GemmEpilogue_Bias ||
                      epilogue == GemmEpilogue_BiasRelu ||
                      epilogue == GemmEpilogue_BiasGelu))
    sum += values.bias[column];
  if (epilogue == GemmEpilogue_Relu || epilogue == GemmEpilogue_BiasRelu)
    sum = std::max(sum, 0.0);
  if (epilogue == GemmEpilogue_Gelu || epilogue == GemmEpilogue_BiasGelu) {
    // cuBLASLt's GELU is the tanh approximation.
    const double kAlpha = 0.7978845608028654; // sqrt(2 / pi)
    sum = 0.5 * sum *
          (1 + std::tanh(kAlpha * (sum + 0.044715 * sum * sum * sum)));
  }
  return sum;
}

CandidateGate::CandidateGate(size_t count, std::vector<size_t> positions,
                             std::vector<double> reference, Tolerance tolerance)
    : positions(std::move(positions)), tolerance(tolerance), count(count) {
  sampledReference.assign(reference.begin(), reference.end());
  stride = std::max<size_t>(1, (count + kWholeCompared - 1) / kWholeCompared);
  while (stride > 1 && (stride % 2 == 0 || stride % 3 == 0 ||
                        stride % 5 == 0 || stride % 7 == 0))
    ++stride;
}

bool CandidateGate::check(const HostOutput &output, Agreement *agreement) {
  std::vector<float> sampled;
  sampled.reserve(positions.size());
  for (size_t position : positions)
    sampled.push_back(output.at(position));
  *agreement = compareValues(sampled.data(), sampledReference.data(),
                             sampled.size(), tolerance);
  if (agreement->worst < positions.size())
    agreement->worst = positions[agreement->worst];
  if (!agreement->ok)
    return false;
  std::vector<float> strided;
  strided.reserve(count / stride + 1);
  for (size_t i = 0; i < count; i += stride)
    strided.push_back(output.at(i));
  if (firstPassing.empty()) {
    firstPassing = std::move(strided);
    return true;
  }
  Agreement whole = compareValues(strided.data(), firstPassing.data(),
                                  strided.size(), tolerance);
  whole.worst *= stride;
  if (!whole.ok || whole.relL2 > agreement->relL2)
    *agreement = whole;
  return whole.ok;
}

} // namespace kiln::runtime
