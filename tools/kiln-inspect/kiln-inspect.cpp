// kiln-inspect: checks a .kiln artifact with the runtime's reader and
// manifest validator, then prints the header, sections, kernels (with the
// registers and stack bytes ptxas gave each in each cubin), weights and
// every entry point's signature, buffers and steps (no MLIR; no GPU needed).
// Exit status: 0 valid, 2 a usage or file error or a check failed
// (tools/common/ExitCodes.h).
#include "ExitCodes.h"
#include "RuntimeToolVersion.h"
#include "artifact_reader.h"
#include "kiln/Target/CUDA/CubinResources.h"
#include "kiln/artifact_format.h"
#include "kiln_artifact_generated.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

using namespace kiln::artifact;
using kiln::runtime::shownName;

namespace {

/// Prints |message| as an error and returns |status|: an artifact that
/// cannot be read or fails a check is an input the tool cannot take.
int fail(const std::string &message,
         int status = kiln::tools::kExitUsageOrFileError) {
  std::fprintf(stderr, "kiln-inspect: error: %s\n", message.c_str());
  return status;
}

const char *const kUsage =
    "usage: kiln-inspect MODEL.kiln\n"
    "Checks a .kiln artifact with the runtime's own checks (header, manifest,\n"
    "sections, every index and size) and prints its header, sections, "
    "kernels\n"
    "(with each cubin's registers and stack bytes), weights and every entry\n"
    "point's signature, buffers and steps.\n"
    "\n"
    "  --help, --version\n"
    "\n"
    "Exit status: 0 a valid artifact, 2 a usage error, a file that cannot "
    "be read or\nan artifact that fails a check.\n";

template <typename T> uint32_t count(const flatbuffers::Vector<T> *vector) {
  return vector ? vector->size() : 0;
}

std::string shapeText(DType dtype, const flatbuffers::Vector<int64_t> *shape) {
  std::string text = EnumNameDType(dtype);
  text += "[";
  for (uint32_t i = 0; i < count(shape); ++i)
    text += (i ? "x" : "") + std::to_string(shape->Get(i));
  return text + "]";
}

/// " dims [batch, 8]" for a buffer or tensor with run-time extents.
std::string dimExprsText(
    const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>
        *exprs) {
  if (count(exprs) == 0)
    return "";
  std::string text = " dims [";
  for (uint32_t i = 0; i < exprs->size(); ++i)
    text += (i ? ", " : "") + shownName(exprs->Get(i));
  return text + "]";
}

template <typename T>
std::string listText(const flatbuffers::Vector<T> *values) {
  std::string text = "[";
  for (uint32_t i = 0; i < count(values); ++i)
    text += (i ? ", " : "") + std::to_string(values->Get(i));
  return text + "]";
}

void printBuffer(uint32_t id, const Buffer &buffer) {
  std::printf("  buffer %u: %s %s%s %" PRIu64 " bytes", id,
              EnumNameBufferKind(buffer.kind()),
              shapeText(buffer.dtype(), buffer.shape()).c_str(),
              dimExprsText(buffer.dim_exprs()).c_str(), buffer.bytes());
  switch (buffer.kind()) {
  case BufferKind_Input:
  case BufferKind_Output:
    std::printf(" io %u\n", buffer.io_index());
    break;
  case BufferKind_Alias:
    if (buffer.offset() != 0)
      std::printf(" of %u @+%" PRIu64 "\n", buffer.alias_of(), buffer.offset());
    else
      std::printf(" of %u\n", buffer.alias_of());
    break;
  default:
    std::printf(" @%" PRIu64 "\n", buffer.offset());
  }
}

void printStep(uint32_t index, const Step &step, const EntryPoint &entry) {
  std::printf("  step %u: %s stream %u '%s'", index,
              EnumNameStepKind(step.kind()), step.stream(),
              shownName(step.name()).c_str());
  switch (step.kind()) {
  case StepKind_Launch:
    std::printf(" kernel %u grid %s block %s shared %u args %s", step.kernel(),
                listText(step.grid()).c_str(), listText(step.block()).c_str(),
                step.shared_bytes(), listText(step.args()).c_str());
    if (step.outputs())
      std::printf(" (%u output%s)", step.outputs(),
                  step.outputs() == 1 ? "" : "s");
    if (const LaunchExtents *extents = step.run_time_extents()) {
      std::printf(" count %s per block %" PRIu64 " dim args",
                  shownName(extents->element_count()).c_str(),
                  extents->units_per_block());
      for (uint32_t i = 0; i < count(extents->dim_args()); ++i)
        std::printf("%s%s", i ? ", " : " ",
                    shownName(extents->dim_args()->Get(i)).c_str());
      for (uint32_t i = 0; i < count(extents->buckets()); ++i) {
        const LaunchBucket &bucket = *extents->buckets()->Get(i);
        std::printf("; bucket to %" PRIu64 ": kernel %u grid %u block %u "
                    "shared %u per block %" PRIu64,
                    bucket.max_count(), bucket.kernel(), bucket.grid(),
                    bucket.block(), bucket.shared_bytes(),
                    bucket.units_per_block());
      }
    }
    break;
  case StepKind_Gemm:
    if (const Gemm *gemm = step.gemm())
      std::printf(" a %u b %u out %u c %d bias %d m %" PRId64 " n %" PRId64
                  " k %" PRId64 " batch %" PRId64 " strides [%" PRId64
                  ", %" PRId64 ", %" PRId64 ", %" PRId64
                  "] trans %d %d alpha %g beta %g epilogue %s",
                  gemm->a(), gemm->b(), gemm->out(), gemm->c(), gemm->bias(),
                  gemm->m(), gemm->n(), gemm->k(), gemm->batch(),
                  gemm->stride_a(), gemm->stride_b(), gemm->stride_c(),
                  gemm->stride_out(), gemm->trans_a(), gemm->trans_b(),
                  gemm->alpha(), gemm->beta(),
                  EnumNameGemmEpilogue(gemm->epilogue()));
    if (const Gemm *gemm = step.gemm(); gemm && gemm->m_expr())
      std::printf(" m at run time %s", shownName(gemm->m_expr()).c_str());
    if (const Gemm *gemm = step.gemm(); gemm && gemm->allow_tf32())
      std::printf(" tf32");
    // A cast fused into the call: f16/bf16 a and b, an f32 out.
    if (const Gemm *gemm = step.gemm(); gemm &&
                                        gemm->a() < count(entry.buffers()) &&
                                        gemm->out() < count(entry.buffers())) {
      DType in = entry.buffers()->Get(gemm->a())->dtype();
      DType out = entry.buffers()->Get(gemm->out())->dtype();
      if (in != out)
        std::printf(" cast %s->%s", EnumNameDType(in), EnumNameDType(out));
    }
    break;
  case StepKind_Conv:
    if (const Conv *conv = step.conv())
      std::printf(
          " x %u w %u bias %d out %u n %" PRId64 " c %" PRId64 " h %" PRId64
          " w %" PRId64 " k %" PRId64 " r %" PRId64 " s %" PRId64
          " pads [%" PRId64 ", %" PRId64 "] strides [%" PRId64 ", %" PRId64
          "] dilations [%" PRId64 ", %" PRId64 "] groups %" PRId64
          " out [%" PRId64 ", %" PRId64 "]%s%s",
          conv->x(), conv->w(), conv->bias(), conv->out(), conv->n(), conv->c(),
          conv->h(), conv->width(), conv->k(), conv->r(), conv->s(),
          conv->pad_h(), conv->pad_w(), conv->stride_h(), conv->stride_w(),
          conv->dilation_h(), conv->dilation_w(), conv->groups(), conv->out_h(),
          conv->out_w(), conv->allow_tf32() ? " tf32" : "",
          conv->layout() == ConvLayout_NHWC ? " nhwc" : "");
    if (const Conv *conv = step.conv(); conv && conv->n_expr())
      std::printf(" n at run time %s", shownName(conv->n_expr()).c_str());
    if (const Conv *conv = step.conv(); conv && conv->residual() >= 0)
      std::printf(" residual %d", conv->residual());
    if (const Conv *conv = step.conv();
        conv && conv->activation() != ConvActivation_None)
      std::printf(" activation %s", EnumNameConvActivation(conv->activation()));
    break;
  case StepKind_Copy:
    std::printf(" args %s", listText(step.args()).c_str());
    break;
  default:
    std::printf(" event %u", step.event());
  }
  for (uint32_t i = 0; i < count(step.onnx_nodes()); ++i)
    std::printf("%s%s", i ? ", " : " nodes ",
                shownName(step.onnx_nodes()->Get(i)).c_str());
  std::printf("\n");
}

void printEntryPoint(const EntryPoint &entry) {
  std::printf("entry '%s': %u buffers, %u steps, %u streams, %u events, "
              "activation arena %" PRIu64 " bytes, workspace %" PRIu64
              " bytes\n",
              shownName(entry.name()).c_str(), count(entry.buffers()),
              count(entry.steps()), entry.num_streams(), entry.num_events(),
              entry.activation_arena_bytes(), entry.workspace_bytes());
  for (bool inputs : {true, false}) {
    auto *list = inputs ? entry.inputs() : entry.outputs();
    for (uint32_t i = 0; i < count(list); ++i) {
      const TensorSignature &tensor = *list->Get(i);
      std::printf("  %s %u '%s': %s%s buffer %u\n",
                  inputs ? "input" : "output", i,
                  shownName(tensor.name()).c_str(),
                  shapeText(tensor.dtype(), tensor.shape()).c_str(),
                  dimExprsText(tensor.dim_exprs()).c_str(), tensor.buffer());
    }
  }
  for (uint32_t i = 0; i < count(entry.buffers()); ++i)
    printBuffer(i, *entry.buffers()->Get(i));
  for (uint32_t i = 0; i < count(entry.steps()); ++i)
    printStep(i, *entry.steps()->Get(i), entry);
}

} // namespace

int main(int argc, char **argv) {
  std::string path;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return kiln::tools::kExitOk;
    }
    if (arg == "--version") {
      kiln::tools::printRuntimeToolVersion(stdout, "kiln-inspect");
      return kiln::tools::kExitOk;
    }
    if (arg.size() > 1 && arg[0] == '-')
      return fail("unknown option '" + arg + "' (kiln-inspect --help)",
                  kiln::tools::kExitUsageOrFileError);
    if (!path.empty())
      return fail("unexpected argument '" + arg + "': give one artifact",
                  kiln::tools::kExitUsageOrFileError);
    path = arg;
  }
  if (path.empty())
    return fail("no artifact: give MODEL.kiln (kiln-inspect --help)",
                kiln::tools::kExitUsageOrFileError);
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return fail("cannot open '" + path + "'",
                kiln::tools::kExitUsageOrFileError);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());

  // The runtime's own checks, all of them: header, manifest hash and
  // FlatBuffers verification, section bounds and hashes, and the manifest
  // validator. What kiln-inspect accepts, kiln_model_load accepts (up to the
  // GPU: driver, arch and memory).
  kiln::runtime::Artifact artifact;
  if (kiln_status_t status = kiln::runtime::readArtifact(
          reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(), path,
          &artifact)) {
    std::string message = kiln_status_message(status);
    kiln_status_free(status);
    return fail(message);
  }
  ArtifactHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  const Model &model = *artifact.manifest;
  std::printf("header: format %u, manifest %" PRIu64 " bytes at %" PRIu64
              " (hash %016" PRIx64 "), file %" PRIu64 " bytes\n",
              header.formatVersion, header.manifestSize, header.manifestOffset,
              header.manifestHash, header.fileSize);
  std::printf("model: compiler '%s', CUDA %s, archs",
              shownName(model.compiler_version()).c_str(),
              shownName(model.cuda_version()).c_str());
  for (uint32_t i = 0; i < count(model.archs()); ++i)
    std::printf(" %s", shownName(model.archs()->Get(i)).c_str());
  std::printf(", source '%s', weight arena %" PRIu64 " bytes%s\n",
              shownName(model.source_model()).c_str(),
              model.weight_arena_bytes(),
              model.bounds_checks() ? ", bounds-checked kernels" : "");
  for (uint32_t i = 0; i < count(model.dim_ranges()); ++i) {
    const DimRange &range = *model.dim_ranges()->Get(i);
    std::printf("ranged dim '%s': %" PRId64 "..%" PRId64 ":%" PRId64 "\n",
                shownName(range.name()).c_str(), range.lo(), range.hi(),
                range.opt());
  }
  for (uint32_t i = 0; i < count(model.sections()); ++i) {
    const Section &section = *model.sections()->Get(i);
    std::printf("section %u: '%s' at %" PRIu64 ", %" PRIu64 " bytes, hash ok\n",
                i, shownName(section.name()).c_str(), section.offset(),
                section.size());
  }
  for (uint32_t i = 0; i < count(model.kernels()); ++i) {
    const Kernel &kernel = *model.kernels()->Get(i);
    std::printf("kernel %u: %s", i, shownName(kernel.symbol()).c_str());
    for (uint32_t j = 0; j < count(kernel.images()); ++j)
      std::printf(" %s(section %u)",
                  shownName(kernel.images()->Get(j)->arch()).c_str(),
                  kernel.images()->Get(j)->section());
    std::printf(" ptx(section %d)", kernel.ptx_section());
    // What ptxas gave the kernel in each cubin (not in PTX: the driver
    // compiles that at load).
    for (uint32_t j = 0; j < count(kernel.images()); ++j) {
      uint32_t index = kernel.images()->Get(j)->section();
      std::optional<kiln::KernelResources> resources = kiln::cubinResources(
          artifact.sectionData(index), model.sections()->Get(index)->size(),
          kiln::runtime::str(kernel.symbol()));
      if (!resources)
        continue;
      std::printf("; %s: %u registers",
                  shownName(kernel.images()->Get(j)->arch()).c_str(),
                  resources->registers);
      if (resources->frameBytes)
        std::printf(", %u bytes of stack", *resources->frameBytes);
    }
    std::printf("\n");
  }
  for (uint32_t i = 0; i < count(model.weights()); ++i) {
    const Weight &weight = *model.weights()->Get(i);
    const Buffer *buffer = model.weight_buffers()->Get(weight.buffer());
    std::printf("weight %u: %s %" PRIu64 " bytes @%" PRIu64, i,
                shapeText(buffer->dtype(), buffer->shape()).c_str(),
                buffer->bytes(), buffer->offset());
    if (weight.section() >= 0)
      std::printf(" section %d\n", weight.section());
    else
      std::printf(" external '%s' offset %" PRIu64 " length %" PRIu64 "\n",
                  shownName(weight.external_file()).c_str(),
                  weight.external_offset(), weight.external_length());
  }
  for (uint32_t i = 0; i < count(model.entry_points()); ++i)
    printEntryPoint(*model.entry_points()->Get(i));
  return 0;
}
