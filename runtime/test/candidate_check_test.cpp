// Tests of the algorithm-choice accuracy gate's host side (no GPU): the Conv
// and Gemm references against plain loops, the comparison, the gate's
// sampled and whole-output checks, and the algorithm cache file.
#include "algorithm_cache.h"
#include "candidate_check.h"
#include "test_util.h"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace kiln::runtime;
using namespace kiln::artifact;
using kiln::testing::isError;
using kiln::testing::isOk;

namespace {

std::vector<float> ramp(size_t count, double step, double phase) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = float(std::sin(step * double(i) + phase));
  return values;
}

/// A finished flatbuffer holding one table, kept alive with its root.
template <typename T, typename Native> struct Table {
  flatbuffers::FlatBufferBuilder builder;
  explicit Table(const Native &native) {
    builder.Finish(T::Pack(builder, &native));
  }
  const T &get() const {
    return *flatbuffers::GetRoot<T>(builder.GetBufferPointer());
  }
};

ConvT sampleConv() {
  ConvT conv;
  conv.n = 2, conv.c = 4, conv.h = 7, conv.width = 6;
  conv.k = 6, conv.r = 3, conv.s = 2;
  conv.pad_h = 1, conv.pad_w = 1, conv.stride_h = 2, conv.stride_w = 1;
  conv.dilation_h = 1, conv.dilation_w = 2, conv.groups = 2;
  conv.out_h = (7 + 2 - 3) / 2 + 1;     // 4
  conv.out_w = (6 + 2 - 2 * 1 - 1) + 1; // 6
  conv.bias = 3, conv.residual = 4;
  conv.activation = ConvActivation_Relu;
  return conv;
}

TEST(CandidateCheckTest, ConvReferenceIsTheDefinition) {
  ConvT native = sampleConv();
  Table<Conv, ConvT> table(native);
  const Conv &conv = table.get();
  int64_t cpg = 2, kpg = 3, outH = 4, outW = 6;
  std::vector<float> x = ramp(2 * 4 * 7 * 6, 0.31, 0.1),
                     w = ramp(6 * 2 * 3 * 2, 0.77, 0.4),
                     bias = ramp(6, 1.3, 0.2),
                     residual = ramp(2 * 6 * outH * outW, 0.11, 0.9);
  ConvOperandValues values{x.data(), w.data(), bias.data(), residual.data()};
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t k = 0; k < 6; ++k)
      for (int64_t y = 0; y < outH; ++y)
        for (int64_t xo = 0; xo < outW; ++xo) {
          double sum = bias[k];
          for (int64_t c = 0; c < cpg; ++c)
            for (int64_t r = 0; r < 3; ++r)
              for (int64_t s = 0; s < 2; ++s) {
                int64_t iy = y * 2 - 1 + r, ix = xo - 1 + 2 * s;
                if (iy < 0 || iy >= 7 || ix < 0 || ix >= 6)
                  continue;
                int64_t channel = (k / kpg) * cpg + c;
                sum += double(x[((n * 4 + channel) * 7 + iy) * 6 + ix]) *
                       w[((k * cpg + c) * 3 + r) * 2 + s];
              }
          size_t at = size_t(((n * 6 + k) * outH + y) * outW + xo);
          sum = std::max(sum + residual[at], 0.0);
          EXPECT_NEAR(convReferenceAt(conv, values, at), sum, 1e-12) << at;
        }

  // The same values laid out channels-last give the same outputs.
  native.layout = ConvLayout_NHWC;
  Table<Conv, ConvT> nhwcTable(native);
  std::vector<float> xl(x.size()), wl(w.size()), rl(residual.size());
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t i = 0; i < 7 * 6; ++i)
        xl[(n * 7 * 6 + i) * 4 + c] = x[(n * 4 + c) * 42 + i];
  for (int64_t k = 0; k < 6; ++k)
    for (int64_t c = 0; c < cpg; ++c)
      for (int64_t i = 0; i < 6; ++i)
        wl[(k * 6 + i) * cpg + c] = w[(k * cpg + c) * 6 + i];
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t k = 0; k < 6; ++k)
      for (int64_t i = 0; i < outH * outW; ++i)
        rl[(n * outH * outW + i) * 6 + k] = residual[(n * 6 + k) * 24 + i];
  ConvOperandValues laid{xl.data(), wl.data(), bias.data(), rl.data()};
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t k = 0; k < 6; ++k)
      for (int64_t i = 0; i < outH * outW; ++i)
        EXPECT_NEAR(
            convReferenceAt(nhwcTable.get(), laid,
                            size_t((n * outH * outW + i) * 6 + k)),
            convReferenceAt(conv, values, size_t((n * 6 + k) * 24 + i)),
            1e-12);
}

TEST(CandidateCheckTest, GemmReferenceIsTheDefinition) {
  GemmT native;
  native.m = 3, native.n = 5, native.k = 4, native.batch = 2;
  native.trans_a = true, native.trans_b = true;
  native.stride_a = 12, native.stride_b = 0, native.stride_c = 15,
  native.stride_out = 16; // A gap of one element after each batch.
  native.alpha = 0.5f, native.beta = 2.0f;
  native.c = 3, native.bias = 4;
  native.epilogue = GemmEpilogue_BiasGelu;
  Table<Gemm, GemmT> table(native);
  std::vector<float> a = ramp(24, 0.5, 0.1), b = ramp(20, 0.9, 0.3),
                     c = ramp(30, 0.2, 0.7), bias = ramp(5, 1.1, 0.0);
  GemmOperandValues values{a.data(), b.data(), c.data(), bias.data()};
  for (int64_t batch = 0; batch < 2; ++batch)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < 4; ++l) // a^T is [k, m], b^T [n, k].
          sum += double(a[batch * 12 + l * 3 + i]) * b[j * 4 + l];
        sum = 0.5 * sum + 2.0 * c[batch * 15 + i * 5 + j] + bias[j];
        double gelu =
            0.5 * sum *
            (1 + std::tanh(0.7978845608028654 * (sum + 0.044715 * sum * sum * sum)));
        EXPECT_NEAR(gemmReferenceAt(table.get(), values,
                                    size_t(batch * 16 + i * 5 + j)),
                    gelu, 1e-12);
      }
}

TEST(CandidateCheckTest, ComparisonFindsSparseAndNonFiniteErrors) {
  Tolerance tolerance = toleranceFor(DType_F16, DType_F16, false);
  std::vector<float> reference = ramp(4096, 0.01, 0.0), close = reference;
  for (size_t i = 0; i < close.size(); ++i)
    close[i] += float(reference[i] * 1e-3); // One f16 rounding.
  EXPECT_TRUE(compareValues(close.data(), reference.data(), close.size(),
                            tolerance)
                  .ok);
  std::vector<float> oneWrong = close;
  oneWrong[1234] += 0.05f; // Tiny in rel-L2 (~7e-4), wrong elementwise.
  Agreement agreement = compareValues(oneWrong.data(), reference.data(),
                                      oneWrong.size(), tolerance);
  EXPECT_FALSE(agreement.ok);
  EXPECT_EQ(agreement.outside, 1u);
  EXPECT_EQ(agreement.worst, 1234u);
  std::vector<float> notANumber = close;
  notANumber[7] = NAN;
  agreement = compareValues(notANumber.data(), reference.data(),
                            notANumber.size(), tolerance);
  EXPECT_FALSE(agreement.ok);
  EXPECT_EQ(agreement.nonFinite, 1u);
  EXPECT_NE(agreement.describe().find("NaN"), std::string::npos);
}

HostOutput asOutput(const std::vector<float> &values) {
  HostOutput output;
  output.dtype = DType_F32;
  output.count = values.size();
  output.bytes.resize(values.size() * 4);
  std::memcpy(output.bytes.data(), values.data(), output.bytes.size());
  return output;
}

TEST(CandidateCheckTest, GateComparesWithTheFirstPassingCandidate) {
  std::vector<float> truth = ramp(3 << 20, 0.001, 0.5);
  std::vector<size_t> positions = samplePositions(truth.size(), 64, 9);
  std::vector<double> reference;
  for (size_t position : positions)
    reference.push_back(truth[position]);
  CandidateGate gate(truth.size(), positions, reference,
                     toleranceFor(DType_F32, DType_F32, false));
  Agreement agreement;
  EXPECT_TRUE(gate.check(asOutput(truth), &agreement));
  // Wrong only at elements the samples miss: caught by the comparison with
  // the first candidate over every stride-th element.
  std::vector<float> sparse = truth;
  for (size_t i = 0; i < sparse.size(); i += 1000)
    if (!std::binary_search(positions.begin(), positions.end(), i))
      sparse[i] += 1.0f;
  EXPECT_FALSE(gate.check(asOutput(sparse), &agreement));
  EXPECT_GT(agreement.outside, 0u);
  EXPECT_TRUE(gate.check(asOutput(truth), &agreement));
  // Wrong everywhere: caught by the samples.
  std::vector<float> scaled = truth;
  for (float &value : scaled)
    value *= 1.01f;
  EXPECT_FALSE(gate.check(asOutput(scaled), &agreement));
}

TEST(CandidateCheckTest, SamplePositionsAreStratifiedAndRepeatable) {
  std::vector<size_t> first = samplePositions(1000003, 2048, 5);
  EXPECT_EQ(first, samplePositions(1000003, 2048, 5));
  ASSERT_EQ(first.size(), 2048u);
  for (size_t i = 1; i < first.size(); ++i)
    EXPECT_LT(first[i - 1], first[i]);
  EXPECT_LT(first.back(), 1000003u);
  EXPECT_EQ(samplePositions(10, 2048, 5).size(), 10u);
}

TEST(AlgorithmCacheTest, RoundTripKeepsOtherMachines) {
  char folder[] = "/tmp/kiln-cache-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  std::string path = std::string(folder) + "/algorithms.cache";
  AlgorithmCache cache;
  ASSERT_TRUE(isOk(cache.load(path, "gpu A"))); // No file yet: empty.
  EXPECT_EQ(cache.find("conv", "1,2,3"), nullptr);
  cache.store("conv", "1,2,3", "legacy algo=1 math=1 fused=1");
  cache.store("gemm", "0/0/0/8/8", "algo=00");
  EXPECT_TRUE(cache.changed());
  ASSERT_TRUE(isOk(cache.save(path)));

  AlgorithmCache other;
  ASSERT_TRUE(isOk(other.load(path, "gpu B")));
  EXPECT_EQ(other.find("conv", "1,2,3"), nullptr); // Another machine's.
  other.store("conv", "1,2,3", "graph engine=12 knobs=3:2");
  ASSERT_TRUE(isOk(other.save(path)));

  AlgorithmCache again;
  ASSERT_TRUE(isOk(again.load(path, "gpu A")));
  ASSERT_NE(again.find("conv", "1,2,3"), nullptr);
  EXPECT_EQ(*again.find("conv", "1,2,3"), "legacy algo=1 math=1 fused=1");
  EXPECT_FALSE(again.changed());
  again.forget("gemm", "0/0/0/8/8");
  EXPECT_EQ(again.find("gemm", "0/0/0/8/8"), nullptr);
  EXPECT_TRUE(again.changed());
  AlgorithmCache machineB;
  ASSERT_TRUE(isOk(machineB.load(path, "gpu B")));
  EXPECT_EQ(*machineB.find("conv", "1,2,3"), "graph engine=12 knobs=3:2");
  std::remove(path.c_str());
  rmdir(folder);
}

TEST(AlgorithmCacheTest, MalformedFileNamesTheLine) {
  char folder[] = "/tmp/kiln-cache-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  std::string path = std::string(folder) + "/bad.cache";
  {
    std::ofstream file(path);
    file << "kiln-algorithm-cache 1\nconv\tgpu\tkey\tchoice\nonly two\tfields\n";
  }
  AlgorithmCache cache;
  EXPECT_TRUE(isError(cache.load(path, "gpu"), KILN_STATUS_INVALID_ARGUMENT,
                      "line 3"));
  {
    std::ofstream file(path);
    file << "something else\n";
  }
  EXPECT_TRUE(isError(cache.load(path, "gpu"), KILN_STATUS_INVALID_ARGUMENT,
                      "not a kiln algorithm cache"));
  std::remove(path.c_str());
  rmdir(folder);
}

} // namespace
