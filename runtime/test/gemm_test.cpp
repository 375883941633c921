// GPU tests of Gemm steps through cuBLASLt: transposes, batches with strides,
// beta*C, epilogues, f16/bf16, and f16/bf16 a and b with an f32 out (a fused
// cast: c, bias and out in f32).
#include "artifact_builder.h"
#include "host_values.h"
#include "tensor_files.h"
#include "test_util.h"

#include <cmath>
#include <optional>

using namespace kiln::testing;
using namespace kiln::artifact;

namespace {

struct GemmCase {
  const char *name;
  bool transA, transB;
  int64_t batch, strideB; // strideB 0: b broadcast over the batch.
  bool withC;
  GemmEpilogue epilogue;
  DType dtype;                  // Of a and b.
  std::optional<DType> outType; // Of c, bias and out; unset: dtype.
};

constexpr int64_t M = 5, N = 12, K = 7; // Odd sizes: no alignment luck.

class GemmTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmTest, MatchesTheCpu) {
  if (!hasCudaDevice())
    GTEST_SKIP() << "no CUDA device";
  const GemmCase &c = GetParam();
  DType outType = c.outType.value_or(c.dtype);
  int64_t sizeA = M * K, sizeB = K * N, sizeC = M * N;
  int64_t countB = c.strideB ? c.batch : 1;
  std::vector<float> a(c.batch * sizeA), b(countB * sizeB),
      cIn(c.batch * sizeC), bias(N);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = std::round(8 * std::sin(0.3 * i + 1)) / 8;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = std::round(8 * std::cos(0.7 * i)) / 8;
  for (size_t i = 0; i < cIn.size(); ++i)
    cIn[i] = 0.25f * float(i % 5) - 0.5f;
  for (int64_t n = 0; n < N; ++n)
    bias[n] = 0.5f - 0.125f * float(n);
  // Reference (row-major; stored a is [K, M] when transposed, b [N, K]).
  std::vector<float> expected(c.batch * sizeC);
  for (int64_t p = 0; p < c.batch; ++p)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double sum = 0;
        for (int64_t k = 0; k < K; ++k) {
          float av = a[p * sizeA + (c.transA ? k * M + m : m * K + k)];
          float bv = b[(c.strideB ? p : 0) * sizeB +
                       (c.transB ? n * K + k : k * N + n)];
          sum += double(av) * bv;
        }
        sum *= 0.5; // alpha
        if (c.withC)
          sum += 2.0 * cIn[p * sizeC + m * N + n];
        if (c.epilogue == GemmEpilogue_Bias ||
            c.epilogue == GemmEpilogue_BiasRelu ||
            c.epilogue == GemmEpilogue_BiasGelu)
          sum += bias[n];
        if (c.epilogue == GemmEpilogue_Relu ||
            c.epilogue == GemmEpilogue_BiasRelu)
          sum = std::max(sum, 0.0);
        if (c.epilogue == GemmEpilogue_Gelu ||
            c.epilogue == GemmEpilogue_BiasGelu) // The tanh form.
          sum = 0.5 * sum *
                (1 + std::tanh(0.7978845608028654 *
                               (sum + 0.044715 * sum * sum * sum)));
        expected[p * sizeC + m * N + n] = float(sum);
      }

  ArtifactBuilder builder;
  ModelT &model = builder.model;
  auto entry = std::make_unique<EntryPointT>();
  entry->name = "main";
  const char *names[] = {"a", "b", "c", "bias"};
  std::vector<int64_t> lengths = {int64_t(a.size()), int64_t(b.size()),
                                  int64_t(cIn.size()), N};
  for (uint32_t i = 0; i < 4; ++i) {
    DType type = i < 2 ? c.dtype : outType;
    auto buffer = makeBuffer(BufferKind_Input, {lengths[i]}, 0, i);
    buffer->dtype = type;
    buffer->bytes = uint64_t(lengths[i]) * kiln_dtype_size(toApi(type));
    auto signature = std::make_unique<TensorSignatureT>();
    signature->name = names[i];
    signature->dtype = type;
    signature->shape = {lengths[i]};
    signature->buffer = i;
    entry->inputs.push_back(std::move(signature));
    entry->buffers.push_back(std::move(buffer));
  }
  auto out = makeBuffer(BufferKind_Output, {int64_t(expected.size())}, 0, 0);
  out->dtype = outType;
  out->bytes = expected.size() * kiln_dtype_size(toApi(outType));
  entry->buffers.push_back(std::move(out));
  auto signature = std::make_unique<TensorSignatureT>();
  signature->name = "out";
  signature->dtype = outType;
  signature->shape = {int64_t(expected.size())};
  signature->buffer = 4;
  entry->outputs.push_back(std::move(signature));
  entry->num_streams = 1;
  entry->workspace_bytes = 4 << 20;
  auto step = std::make_unique<StepT>();
  step->kind = StepKind_Gemm;
  step->name = c.name;
  step->gemm = std::make_unique<GemmT>();
  GemmT &gemm = *step->gemm;
  gemm.a = 0, gemm.b = 1, gemm.out = 4, gemm.c = c.withC ? 2 : -1,
  gemm.bias = 3;
  gemm.m = M, gemm.n = N, gemm.k = K, gemm.batch = c.batch;
  gemm.stride_a = sizeA, gemm.stride_b = c.strideB, gemm.stride_c = sizeC,
  gemm.stride_out = sizeC;
  gemm.trans_a = c.transA, gemm.trans_b = c.transB;
  gemm.alpha = 0.5f, gemm.beta = c.withC ? 2.0f : 0.0f;
  gemm.epilogue = c.epilogue;
  entry->steps.push_back(std::move(step));
  model.entry_points.push_back(std::move(entry));
  std::vector<uint8_t> bytes = builder.finish();

  kiln_model_t *loaded = nullptr;
  ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                               nullptr, &loaded)));
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(loaded, nullptr, &session)));
  std::vector<std::vector<uint8_t>> inputs = {
      encode(a, c.dtype), encode(b, c.dtype), encode(cIn, outType),
      encode(bias, outType)};
  for (int i = 0; i < 4; ++i) {
    kiln_tensor_t tensor = kiln_host_tensor(inputs[i].data(), inputs[i].size());
    ASSERT_TRUE(isOk(kiln_session_bind_input(session, names[i], &tensor)));
  }
  kiln::run::HostTensor result;
  result.dtype = toApi(outType);
  result.dims = {int64_t(expected.size())};
  result.data.assign(expected.size() * kiln_dtype_size(result.dtype), 0xff);
  kiln_tensor_t tensor =
      kiln_host_tensor(result.data.data(), result.data.size());
  ASSERT_TRUE(isOk(kiln_session_bind_output(session, "out", &tensor)));
  ASSERT_TRUE(isOk(kiln_session_run(session, nullptr)));
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  // cuBLASLt's GELU may use a fast tanh: a looser f32 bound for it. a and b
  // hold multiples of 1/8, exact in f16 and bf16, so an f32 out of f16/bf16
  // inputs meets the f32 bound (accumulation and epilogue in f32).
  bool gelu = c.epilogue == GemmEpilogue_Gelu ||
              c.epilogue == GemmEpilogue_BiasGelu;
  double tolerance = outType == DType_F32 ? (gelu ? 1e-3 : 1e-5) : 2e-2;
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_NEAR(result.at(i), expected[i],
                tolerance * (1 + std::fabs(expected[i])))
        << "at " << i;
  kiln_session_release(session);
  kiln_model_release(loaded);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GemmTest,
    ::testing::Values(GemmCase{"plain", false, false, 1, K *N, false,
                               GemmEpilogue_None, DType_F32},
                      GemmCase{"trans_a", true, false, 1, K *N, false,
                               GemmEpilogue_None, DType_F32},
                      GemmCase{"trans_b", false, true, 1, K *N, false,
                               GemmEpilogue_Bias, DType_F32},
                      GemmCase{"trans_both", true, true, 1, K *N, true,
                               GemmEpilogue_Relu, DType_F32},
                      GemmCase{"batched", false, false, 3, K *N, true,
                               GemmEpilogue_BiasRelu, DType_F32},
                      GemmCase{"broadcast_b", true, false, 3, 0, false,
                               GemmEpilogue_Bias, DType_F32},
                      GemmCase{"f16", false, true, 2, K *N, true,
                               GemmEpilogue_BiasRelu, DType_F16},
                      GemmCase{"bf16", true, false, 2, K *N, false,
                               GemmEpilogue_Bias, DType_BF16},
                      GemmCase{"residual_bias_gelu", false, false, 1, K *N,
                               true, GemmEpilogue_BiasGelu, DType_F32},
                      GemmCase{"gelu_f16", false, false, 2, K *N, false,
                               GemmEpilogue_Gelu, DType_F16},
                      GemmCase{"f16_to_f32", false, true, 1, K *N, false,
                               GemmEpilogue_None, DType_F16, DType_F32},
                      GemmCase{"f16_to_f32_bias_relu_c", false, true, 2, K *N,
                               true, GemmEpilogue_BiasRelu, DType_F16,
                               DType_F32},
                      GemmCase{"bf16_to_f32_bias", true, false, 2, K *N, false,
                               GemmEpilogue_Bias, DType_BF16, DType_F32},
                      GemmCase{"f16_to_f32_bias_gelu", false, false, 1, K *N,
                               false, GemmEpilogue_BiasGelu, DType_F16,
                               DType_F32}),
    [](const ::testing::TestParamInfo<GemmCase> &info) {
      return std::string(info.param.name);
    });

} // namespace
