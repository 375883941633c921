// Test helper: writes .kiln artifacts for the runtime tests, and the sample
// model most tests use.
#include "artifact_builder.h"

#include "kiln/artifact_format.h"

#include <cstring>

namespace kiln::testing {

using namespace kiln::artifact;

ArtifactBuilder::ArtifactBuilder() {
  model.format_version = kFormatVersion;
  model.compiler_version = "test";
  model.cuda_version = "13.0";
  model.source_model = "test.onnx";
}

uint32_t ArtifactBuilder::addSection(const std::string &name,
                                     const std::vector<uint8_t> &bytes) {
  auto section = std::make_unique<SectionT>();
  section->name = name;
  model.sections.push_back(std::move(section));
  sections.push_back(bytes);
  return static_cast<uint32_t>(sections.size() - 1);
}

std::vector<uint8_t> ArtifactBuilder::finish(uint32_t formatVersion) {
  // Defaults are forced, so the manifest's size does not depend on the
  // offsets: pack, lay out the sections after it, pack again.
  flatbuffers::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);
  size_t manifestSize = 0;
  for (int pass = 0; pass < 3; ++pass) {
    uint64_t offset =
        alignUp(sizeof(ArtifactHeader) + manifestSize, kSectionAlignment);
    for (size_t i = 0; i < sections.size(); ++i) {
      model.sections[i]->offset = offset;
      model.sections[i]->size = sections[i].size();
      model.sections[i]->hash = fnv1a64(sections[i].data(), sections[i].size());
      offset = alignUp(offset + sections[i].size(), kSectionAlignment);
    }
    fbb.Clear();
    fbb.Finish(Model::Pack(fbb, &model), ModelIdentifier());
    if (fbb.GetSize() == manifestSize)
      break;
    manifestSize = fbb.GetSize();
  }
  uint64_t end =
      alignUp(sizeof(ArtifactHeader) + manifestSize, kSectionAlignment);
  if (!sections.empty())
    end = model.sections.back()->offset + sections.back().size();
  std::vector<uint8_t> file(end, 0);
  ArtifactHeader header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.formatVersion = formatVersion;
  header.headerSize = sizeof(ArtifactHeader);
  header.manifestOffset = sizeof(ArtifactHeader);
  header.manifestSize = manifestSize;
  header.manifestHash = fnv1a64(fbb.GetBufferPointer(), manifestSize);
  header.fileSize = file.size();
  std::memcpy(file.data(), &header, sizeof(header));
  std::memcpy(file.data() + header.manifestOffset, fbb.GetBufferPointer(),
              manifestSize);
  for (size_t i = 0; i < sections.size(); ++i)
    if (!sections[i].empty())
      std::memcpy(file.data() + model.sections[i]->offset, sections[i].data(),
                  sections[i].size());
  return file;
}

std::unique_ptr<BufferT> makeBuffer(BufferKind kind, std::vector<int64_t> shape,
                                    uint64_t offset, uint32_t ioIndex) {
  auto buffer = std::make_unique<BufferT>();
  buffer->kind = kind;
  buffer->dtype = DType_F32;
  uint64_t elements = 1;
  for (int64_t dim : shape)
    elements *= static_cast<uint64_t>(dim);
  buffer->shape = std::move(shape);
  buffer->bytes = elements * 4;
  buffer->offset = offset;
  buffer->io_index = ioIndex;
  return buffer;
}

float sampleWeight(int k, int n) {
  return 0.25f * static_cast<float>((k * 7 + n * 3) % 11) - 1.0f;
}
float sampleBias(int n) { return 0.125f * static_cast<float>(n % 5) - 0.25f; }

static std::vector<uint8_t> floatBytes(const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

static std::unique_ptr<TensorSignatureT> signature(const std::string &name,
                                                   std::vector<int64_t> shape,
                                                   uint32_t buffer) {
  auto tensor = std::make_unique<TensorSignatureT>();
  tensor->name = name;
  tensor->dtype = DType_F32;
  tensor->shape = std::move(shape);
  tensor->buffer = buffer;
  return tensor;
}

void buildSample(ArtifactBuilder &builder, const SampleOptions &options) {
  const int64_t M = kSampleM, K = kSampleK, N = kSampleN;
  std::vector<float> w(K * N), bias(N);
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n)
      w[k * N + n] = sampleWeight(k, n);
  for (int n = 0; n < N; ++n)
    bias[n] = sampleBias(n);
  ModelT &model = builder.model;
  model.archs = {options.arch};
  uint32_t cubin = builder.addSection(
      "cubin:" + options.arch + ":" + options.kernelSymbol,
      std::vector<uint8_t>(options.cubin.begin(), options.cubin.end()));
  uint32_t wSection = builder.addSection("weights:w", floatBytes(w));
  uint32_t biasSection = builder.addSection("weights:bias", floatBytes(bias));

  auto kernel = std::make_unique<KernelT>();
  kernel->symbol = options.kernelSymbol;
  auto image = std::make_unique<KernelImageT>();
  image->arch = options.arch;
  image->section = cubin;
  kernel->images.push_back(std::move(image));
  model.kernels.push_back(std::move(kernel));

  model.weight_buffers.push_back(makeBuffer(BufferKind_Weight, {K, N}, 0));
  model.weight_buffers.push_back(makeBuffer(BufferKind_Weight, {N}, 768));
  model.weight_arena_bytes = 1024;
  for (uint32_t i = 0; i < 2; ++i) {
    auto weight = std::make_unique<WeightT>();
    weight->buffer = i;
    weight->section = static_cast<int32_t>(i == 0 ? wSection : biasSection);
    weight->hash =
        i == 0 ? fnv1a64(w.data(), w.size() * 4) : fnv1a64(bias.data(), N * 4);
    model.weights.push_back(std::move(weight));
  }

  auto entry = std::make_unique<EntryPointT>();
  entry->name = "main";
  entry->buffers.push_back(makeBuffer(BufferKind_Input, {M, K}, 0, 0)); // 0: x
  entry->buffers.push_back(makeBuffer(BufferKind_Weight, {K, N}, 0));   // 1: w
  entry->buffers.push_back(makeBuffer(BufferKind_Weight, {N}, 768)); // 2: bias
  entry->buffers.push_back(
      makeBuffer(BufferKind_Activation, {M, N}, 0));                     // 3: h
  entry->buffers.push_back(makeBuffer(BufferKind_Output, {M, N}, 0, 0)); // 4: y
  entry->inputs.push_back(signature("x", {M, K}, 0));
  entry->outputs.push_back(signature("y", {M, N}, 4));
  entry->activation_arena_bytes = 256;
  entry->workspace_bytes = 1 << 20;
  entry->num_streams = options.twoStreams ? 2 : 1;
  entry->num_events = options.twoStreams ? 1 : 0;

  auto gemm = std::make_unique<StepT>();
  gemm->kind = StepKind_Gemm;
  gemm->name = "gemm_0";
  gemm->onnx_nodes = {"/fc/MatMul", "/fc/Add", "/fc/Relu"};
  gemm->gemm = std::make_unique<GemmT>();
  gemm->gemm->a = 0;
  gemm->gemm->b = 1;
  gemm->gemm->out = 3;
  gemm->gemm->bias = 2;
  gemm->gemm->m = M;
  gemm->gemm->n = N;
  gemm->gemm->k = K;
  gemm->gemm->epilogue = GemmEpilogue_BiasRelu;
  entry->steps.push_back(std::move(gemm));
  if (options.twoStreams) {
    auto record = std::make_unique<StepT>();
    record->kind = StepKind_RecordEvent;
    record->name = "record_0";
    entry->steps.push_back(std::move(record));
    auto wait = std::make_unique<StepT>();
    wait->kind = StepKind_WaitEvent;
    wait->name = "wait_0";
    wait->stream = 1;
    entry->steps.push_back(std::move(wait));
  }
  auto launch = std::make_unique<StepT>();
  launch->kind = StepKind_Launch;
  launch->name = "kernel_scale_add";
  launch->onnx_nodes = {"/post/Mul", "/post/Add"};
  launch->stream = options.twoStreams ? 1 : 0;
  launch->kernel = 0;
  launch->grid = {1, 1, 1};
  launch->block = {64, 1, 1};
  launch->args = {3, 4};
  launch->outputs = 1;
  entry->steps.push_back(std::move(launch));
  model.entry_points.push_back(std::move(entry));
}

std::vector<uint8_t> sampleArtifact(const SampleOptions &options) {
  ArtifactBuilder builder;
  buildSample(builder, options);
  return builder.finish();
}

} // namespace kiln::testing

#include "test_util.h"

#include <cuda_runtime_api.h>

bool kiln::testing::hasCudaDevice() {
  int count = 0;
  bool present = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return present;
}
