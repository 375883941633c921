// kiln_model_*: loading an artifact onto a device (checks, kernels, weights)
// and signature queries.
#include "model.h"

#include "options.h"
#include "status.h"

#include "kiln/artifact_format.h"

#include <cstdio>
#include <cstring>

using namespace kiln::runtime;
using namespace kiln::artifact;

kiln_model_s::~kiln_model_s() {
  DeviceGuard guard(device);
  for (cudaLibrary_t library : libraries)
    cudaLibraryUnload(library);
  if (weightArena)
    cudaFree(weightArena);
}

namespace kiln::runtime {

void retainModel(kiln_model_s *model) { model->references.fetch_add(1); }

/// "13.0" -> 13000, as cudaDriverGetVersion reports; 0 if unparsable.
static int parseCudaVersion(const char *text) {
  int major = 0, minor = 0;
  if (std::sscanf(text, "%d.%d", &major, &minor) < 1 || major <= 0 || minor < 0)
    return 0;
  return major * 1000 + minor * 10;
}

static std::string versionText(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

/// Checks the device exists and its driver is new enough; records them.
static kiln_status_t checkDevice(kiln_model_s *model) {
  int devices = 0;
  cudaError_t error = cudaGetDeviceCount(&devices);
  if (error != cudaSuccess || devices == 0)
    return Error(KILN_STATUS_UNAVAILABLE)
           << "no CUDA device (cudaGetDeviceCount: "
           << (error == cudaSuccess ? "0 devices" : cudaGetErrorString(error))
           << ")";
  if (model->device < 0 || model->device >= devices)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "device " << model->device << " does not exist (there are "
           << devices << ")";
  KILN_RETURN_IF_ERROR(cudaStatus(cudaDriverGetVersion(&model->driverVersion),
                                  "cudaDriverGetVersion"));
  const char *wanted = str(model->manifest().cuda_version());
  int required = parseCudaVersion(wanted);
  if (required == 0)
    return Error(KILN_STATUS_DATA_LOSS)
           << "the artifact's cuda_version '" << wanted << "' is not a version";
  // Cubins from CUDA X.y run on any driver of major X or newer (minor
  // version compatibility); PTX needs X.y itself (checked in loadKernels).
  if (model->driverVersion / 1000 < required / 1000)
    return Error(KILN_STATUS_INCOMPATIBLE)
           << "the artifact was compiled with CUDA " << wanted
           << " but the driver supports "
           << "CUDA " << versionText(model->driverVersion)
           << "; install a newer driver";
  cudaDeviceProp properties;
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaGetDeviceProperties(&properties, model->device),
                 "cudaGetDeviceProperties"));
  model->arch = properties.major * 10 + properties.minor;
  model->deviceName = properties.name;
  return nullptr;
}

static void fillSignatures(kiln_model_s *model) {
  const Model &manifest = model->manifest();
  uint32_t entries =
      manifest.entry_points() ? manifest.entry_points()->size() : 0;
  model->signatures.resize(entries);
  for (uint32_t e = 0; e < entries; ++e) {
    const EntryPoint &entry = *manifest.entry_points()->Get(e);
    EntryPointSignature &signature = model->signatures[e];
    auto add =
        [&](const flatbuffers::Vector<flatbuffers::Offset<TensorSignature>>
                *list,
            std::vector<kiln_tensor_info_t> &infos) {
          for (uint32_t i = 0; list && i < list->size(); ++i) {
            const TensorSignature &tensor = *list->Get(i);
            std::vector<int64_t> dims;
            for (uint32_t d = 0; tensor.shape() && d < tensor.shape()->size();
                 ++d)
              dims.push_back(tensor.shape()->Get(d));
            signature.dims.push_back(std::move(dims));
            kiln_tensor_info_t info;
            info.name = str(tensor.name());
            info.dtype = toApiDType(tensor.dtype());
            info.rank = signature.dims.back().size();
            info.dims = nullptr; // Set below, once |dims| stops moving.
            info.bytes = entry.buffers()->Get(tensor.buffer())->bytes();
            infos.push_back(info);
          }
        };
    add(entry.inputs(), signature.inputs);
    add(entry.outputs(), signature.outputs);
    size_t next = 0;
    for (auto *infos : {&signature.inputs, &signature.outputs})
      for (kiln_tensor_info_t &info : *infos)
        info.dims = signature.dims[next++].data();
  }
}

/// Runs the entry point "kiln_init", when the artifact has one, once: it
/// writes the derived weights (casts, transposes, folds) into the weight
/// arena. Debug mode, so that a failure names its step.
static kiln_status_t runInitProgram(kiln_model_s *model) {
  size_t count = kiln_model_entry_point_count(model);
  bool found = false;
  for (size_t i = 0; i < count && !found; ++i)
    found = std::strcmp(kiln_model_entry_point_name(model, i),
                        artifact::kInitEntryPoint) == 0;
  if (!found)
    return nullptr;
  kiln_session_options_t options;
  kiln_session_options_init(&options);
  options.entry_point = artifact::kInitEntryPoint;
  options.debug = 1;
  kiln_session_t *session = nullptr;
  KILN_RETURN_IF_ERROR(kiln_session_create(model, &options, &session));
  kiln_status_t status = kiln_session_run(session, nullptr);
  if (!status)
    status = cudaStatus(cudaDeviceSynchronize(), "running the init program");
  kiln_session_release(session);
  if (!status)
    return nullptr;
  kiln_status_t wrapped = Error(kiln_status_code(status))
                          << "the init program (weight transforms): "
                          << kiln_status_message(status);
  kiln_status_free(status);
  return wrapped;
}

/// Everything after the bytes are mapped: check, then build the model.
static kiln_status_t loadModel(const FileBytes &bytes,
                               const std::string &describe,
                               const kiln_load_options_t *options,
                               const std::string &defaultExternalDir,
                               kiln_model_s **out) {
  kiln_load_options_t resolved;
  KILN_RETURN_IF_ERROR(readLoadOptions(options, &resolved));
  options = &resolved;
  auto *model = new kiln_model_s();
  model->device = options->device_ordinal;
  kiln_status_t status =
      readArtifact(bytes.data(), bytes.size(), describe, &model->artifact);
  if (!status)
    status = checkDevice(model);
  DeviceGuard guard(model->device);
  if (!status)
    status = cudaStatus(guard.error(), "cudaSetDevice");
  if (!status)
    status = annotate(loadKernels(model), describe);
  if (!status)
    status = annotate(uploadWeights(model, options->external_data_dir
                                               ? options->external_data_dir
                                               : defaultExternalDir),
                      describe);
  if (!status)
    fillSignatures(model);
  if (!status)
    status = annotate(runInitProgram(model), describe);
  // The file's bytes are released by the caller; keep only the manifest.
  model->artifact.fileData = nullptr;
  model->artifact.fileSize = 0;
  if (status) {
    delete model;
    return status;
  }
  *out = model;
  return nullptr;
}

} // namespace kiln::runtime

extern "C" {

void kiln_load_options_init(kiln_load_options_t *options) {
  if (!options)
    return;
  options->struct_size = sizeof(*options);
  options->device_ordinal = 0;
  options->external_data_dir = nullptr;
}

kiln_status_t kiln_model_load(const char *path,
                              const kiln_load_options_t *options,
                              kiln_model_t **out_model) {
  if (!out_model)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_model_load: out_model is NULL";
  *out_model = nullptr;
  if (!path)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_model_load: path is NULL";
  FileBytes bytes;
  KILN_RETURN_IF_ERROR(FileBytes::map(path, &bytes));
  std::string directory = path;
  size_t slash = directory.find_last_of('/');
  directory = slash == std::string::npos ? "." : directory.substr(0, slash + 1);
  return loadModel(bytes, std::string("'") + path + "'", options, directory,
                   out_model);
}

kiln_status_t kiln_model_load_from_memory(const void *data, size_t size,
                                          const kiln_load_options_t *options,
                                          kiln_model_t **out_model) {
  if (!out_model)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_model_load_from_memory: out_model is NULL";
  *out_model = nullptr;
  FileBytes bytes;
  bytes.borrow(data, size);
  return loadModel(bytes, "artifact in memory", options, "", out_model);
}

void kiln_model_retain(kiln_model_t *model) {
  if (model)
    retainModel(model);
}

void kiln_model_release(kiln_model_t *model) {
  if (model && model->references.fetch_sub(1) == 1)
    delete model;
}

size_t kiln_model_entry_point_count(const kiln_model_t *model) {
  return model ? model->signatures.size() : 0;
}

const char *kiln_model_entry_point_name(const kiln_model_t *model,
                                        size_t index) {
  if (!model || index >= model->signatures.size())
    return nullptr;
  return str(model->manifest()
                 .entry_points()
                 ->Get(static_cast<uint32_t>(index))
                 ->name());
}

size_t kiln_model_input_count(const kiln_model_t *model, size_t entry_point) {
  return model && entry_point < model->signatures.size()
             ? model->signatures[entry_point].inputs.size()
             : 0;
}

size_t kiln_model_output_count(const kiln_model_t *model, size_t entry_point) {
  return model && entry_point < model->signatures.size()
             ? model->signatures[entry_point].outputs.size()
             : 0;
}

static kiln_status_t tensorInfo(const kiln_model_t *model, size_t entry_point,
                                size_t index, bool input,
                                kiln_tensor_info_t *out_info) {
  const char *what = input ? "input" : "output";
  if (!model || !out_info)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_model_" << what << "_info: NULL model or out_info";
  std::memset(out_info, 0, sizeof(*out_info));
  if (entry_point >= model->signatures.size())
    return Error(KILN_STATUS_NOT_FOUND)
           << "entry point " << entry_point << " does not exist (there are "
           << model->signatures.size() << ")";
  const auto &list = input ? model->signatures[entry_point].inputs
                           : model->signatures[entry_point].outputs;
  if (index >= list.size())
    return Error(KILN_STATUS_NOT_FOUND)
           << what << " " << index << " does not exist (there are "
           << list.size() << ")";
  *out_info = list[index];
  return nullptr;
}

kiln_status_t kiln_model_input_info(const kiln_model_t *model,
                                    size_t entry_point, size_t index,
                                    kiln_tensor_info_t *out_info) {
  return tensorInfo(model, entry_point, index, true, out_info);
}

kiln_status_t kiln_model_output_info(const kiln_model_t *model,
                                     size_t entry_point, size_t index,
                                     kiln_tensor_info_t *out_info) {
  return tensorInfo(model, entry_point, index, false, out_info);
}

const char *kiln_model_source(const kiln_model_t *model) {
  return model ? str(model->manifest().source_model()) : "";
}

const char *kiln_model_cuda_version(const kiln_model_t *model) {
  return model ? str(model->manifest().cuda_version()) : "";
}

} // extern "C"
