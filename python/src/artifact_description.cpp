// kiln_python_describe_artifact: an artifact's signature, entry points and
// steps as JSON, checked by the runtime's own reader and manifest validator
// but without a GPU (kiln_model_load needs one). Built into the Python
// package's runtime library beside the C API; kiln/artifact.py calls it.
#include "artifact_reader.h"
#include "status.h"

#include "kiln/runtime.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>

using namespace kiln::runtime;
namespace schema = kiln::artifact;

extern "C" {
/// Checks the |size| bytes at |data| as kiln_model_load does before it
/// touches the device, then describes them. On success |*out_json| is a
/// NUL-terminated string the caller frees with kiln_python_free.
kiln_status_t kiln_python_describe_artifact(const void *data, size_t size,
                                            const char *describe,
                                            char **out_json);
void kiln_python_free(char *text);
}

namespace {

void writeString(std::ostringstream &out, const char *text) {
  out << '"';
  for (const unsigned char *c = reinterpret_cast<const unsigned char *>(text);
       *c; ++c) {
    if (*c == '"' || *c == '\\') {
      out << '\\' << *c;
    } else if (*c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", *c);
      out << escaped;
    } else {
      out << *c;
    }
  }
  out << '"';
}

/// The runtime's name of a step kind (kiln_step_profile_t.kind):
/// "RecordEvent" -> "record_event".
std::string stepKindName(schema::StepKind kind) {
  std::string name;
  for (const char *c = schema::EnumNameStepKind(kind); *c; ++c) {
    if (std::isupper(static_cast<unsigned char>(*c)) && !name.empty())
      name += '_';
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
  }
  return name;
}

template <typename T>
void writeList(std::ostringstream &out, const flatbuffers::Vector<T> *values) {
  out << '[';
  for (uint32_t i = 0; values && i < values->size(); ++i)
    out << (i ? "," : "") << values->Get(i);
  out << ']';
}

void writeStrings(
    std::ostringstream &out,
    const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>
        *values) {
  out << '[';
  for (uint32_t i = 0; values && i < values->size(); ++i) {
    out << (i ? "," : "");
    writeString(out, str(values->Get(i)));
  }
  out << ']';
}

void writeSignature(
    std::ostringstream &out, const schema::EntryPoint &entry,
    const flatbuffers::Vector<flatbuffers::Offset<schema::TensorSignature>>
        *tensors) {
  out << '[';
  for (uint32_t i = 0; tensors && i < tensors->size(); ++i) {
    const schema::TensorSignature &tensor = *tensors->Get(i);
    out << (i ? "," : "") << "{\"name\":";
    writeString(out, str(tensor.name()));
    out << ",\"dtype\":";
    writeString(out, kiln_dtype_name(toApiDType(tensor.dtype())));
    out << ",\"shape\":";
    writeList(out, tensor.shape());
    // The validator checked the buffer index.
    out << ",\"bytes\":" << entry.buffers()->Get(tensor.buffer())->bytes()
        << '}';
  }
  out << ']';
}

void writeEntryPoint(std::ostringstream &out, const schema::EntryPoint &entry) {
  out << "{\"name\":";
  writeString(out, str(entry.name()));
  out << ",\"inputs\":";
  writeSignature(out, entry, entry.inputs());
  out << ",\"outputs\":";
  writeSignature(out, entry, entry.outputs());
  out << ",\"streams\":" << entry.num_streams()
      << ",\"events\":" << entry.num_events()
      << ",\"activation_arena_bytes\":" << entry.activation_arena_bytes()
      << ",\"workspace_bytes\":" << entry.workspace_bytes() << ",\"steps\":[";
  for (uint32_t i = 0; entry.steps() && i < entry.steps()->size(); ++i) {
    const schema::Step &step = *entry.steps()->Get(i);
    out << (i ? "," : "") << "{\"name\":";
    writeString(out, str(step.name()));
    out << ",\"kind\":";
    writeString(out, stepKindName(step.kind()).c_str());
    out << ",\"stream\":" << step.stream() << ",\"onnx_nodes\":";
    writeStrings(out, step.onnx_nodes());
    out << ",\"flops\":" << step.flops() << '}';
  }
  out << "]}";
}

std::string describeManifest(const schema::Model &manifest) {
  std::ostringstream out;
  out << "{\"format_version\":" << manifest.format_version()
      << ",\"bounds_checks\":" << (manifest.bounds_checks() ? "true" : "false")
      << ",\"compiler_version\":";
  writeString(out, str(manifest.compiler_version()));
  out << ",\"cuda_version\":";
  writeString(out, str(manifest.cuda_version()));
  out << ",\"source_model\":";
  writeString(out, str(manifest.source_model()));
  out << ",\"archs\":";
  writeStrings(out, manifest.archs());
  out << ",\"kernels\":"
      << (manifest.kernels() ? manifest.kernels()->size() : 0)
      << ",\"weight_arena_bytes\":" << manifest.weight_arena_bytes();
  // External weight files, each once, in the manifest's order.
  std::set<std::string> seen;
  uint32_t weights = manifest.weights() ? manifest.weights()->size() : 0;
  out << ",\"weights\":" << weights << ",\"external_files\":[";
  for (uint32_t i = 0; i < weights; ++i) {
    const char *file = str(manifest.weights()->Get(i)->external_file());
    if (*file && seen.insert(file).second) {
      out << (seen.size() > 1 ? "," : "");
      writeString(out, file);
    }
  }
  out << "],\"entry_points\":[";
  for (uint32_t i = 0;
       manifest.entry_points() && i < manifest.entry_points()->size(); ++i) {
    out << (i ? "," : "");
    writeEntryPoint(out, *manifest.entry_points()->Get(i));
  }
  out << "]}";
  return out.str();
}

} // namespace

kiln_status_t kiln_python_describe_artifact(const void *data, size_t size,
                                            const char *describe,
                                            char **out_json) {
  if (!out_json)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_python_describe_artifact: out_json is NULL";
  *out_json = nullptr;
  if (!data && size)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_python_describe_artifact: data is NULL";
  Artifact artifact;
  KILN_RETURN_IF_ERROR(readArtifact(static_cast<const uint8_t *>(data), size,
                                    describe ? describe : "artifact",
                                    &artifact));
  std::string json = describeManifest(*artifact.manifest);
  char *copy = static_cast<char *>(std::malloc(json.size() + 1));
  if (!copy)
    return Error(KILN_STATUS_RESOURCE_EXHAUSTED)
           << "kiln_python_describe_artifact: out of host memory";
  std::memcpy(copy, json.c_str(), json.size() + 1);
  *out_json = copy;
  return nullptr;
}

void kiln_python_free(char *text) { std::free(text); }
