// Chooses each kernel's cubin (or PTX) for the device's arch and loads it with
// cudaLibraryLoadData.
#include "model.h"
#include "status.h"

#include "kiln/artifact_format.h"

#include <cstdio>
#include <map>

namespace kiln::runtime {

using namespace kiln::artifact;

/// "sm_90" -> 90 ("sm_90a" -> 90 with |specific| set); 0 if unparsable.
static int parseArch(const char *text, bool *specific) {
  int number = 0;
  char suffix = 0;
  int fields = std::sscanf(text, "sm_%d%c", &number, &suffix);
  *specific = fields == 2 && suffix != 0;
  return fields >= 1 ? number : 0;
}

static std::string archName(int arch) { return "sm_" + std::to_string(arch); }

/// Picks the section to load for |kernel| on a device of |arch|: the exact
/// arch, else the newest cubin of the same major arch that is not newer than
/// the device (sm_80 runs on sm_86), else PTX (-1 ptx, -2 nothing usable).
static int64_t chooseImage(const Kernel &kernel, int arch, bool *isPtx) {
  *isPtx = false;
  int64_t best = -1;
  int bestArch = 0;
  for (uint32_t i = 0; kernel.images() && i < kernel.images()->size(); ++i) {
    const KernelImage &image = *kernel.images()->Get(i);
    bool specific = false;
    int imageArch = parseArch(str(image.arch()), &specific);
    if (imageArch == arch)
      return image.section();
    if (!specific && imageArch / 10 == arch / 10 && imageArch < arch &&
        imageArch > bestArch) {
      best = image.section();
      bestArch = imageArch;
    }
  }
  if (best >= 0)
    return best;
  if (kernel.ptx_section() >= 0) {
    *isPtx = true;
    return kernel.ptx_section();
  }
  return -2;
}

static std::string availableImages(const Kernel &kernel) {
  std::string list;
  for (uint32_t i = 0; kernel.images() && i < kernel.images()->size(); ++i)
    list += (list.empty() ? "" : ", ") +
            std::string(str(kernel.images()->Get(i)->arch()));
  return list.empty() ? "no cubins" : "cubins for " + list;
}

/// Checks that |kernel| has a parameter |count| - 1, the last of the |count|
/// that the manifest's launches pass (kernelParameterCounts). It asks only
/// for a parameter that must exist, so a valid artifact makes no failing
/// CUDA call (probing past the last one buried real reports in
/// compute-sanitizer's API-error count).
static kiln_status_t checkParameters(cudaKernel_t kernel, uint32_t count,
                                     const char *symbol) {
  if (count == 0 || count == kNotLaunched)
    return nullptr;
  size_t offset = 0, size = 0;
  if (cudaFuncGetParamInfo(reinterpret_cast<const void *>(kernel), count - 1,
                           &offset, &size) != cudaSuccess) {
    cudaGetLastError(); // A damaged artifact: reported below, not left set.
    return Error(KILN_STATUS_DATA_LOSS)
           << "kernel '" << symbol << "' takes fewer than the " << count
           << " parameters its launches pass";
  }
  if (size != sizeof(void *))
    return Error(KILN_STATUS_DATA_LOSS)
           << "kernel '" << symbol << "': parameter " << count - 1 << " is "
           << size << " bytes, not a pointer";
  return nullptr;
}

kiln_status_t loadKernels(kiln_model_s *model) {
  const Model &manifest = model->manifest();
  uint32_t count = manifest.kernels() ? manifest.kernels()->size() : 0;
  std::vector<uint32_t> parameterCounts = kernelParameterCounts(manifest);
  // Bounds-checked kernels take the fault record and the step index last
  // (the step index, an unsigned 64-bit value, has a pointer's size).
  if (manifest.bounds_checks())
    for (uint32_t &parameters : parameterCounts)
      if (parameters != kNotLaunched)
        parameters += kBoundsCheckParameters;
  std::map<int64_t, cudaLibrary_t> bySection;
  for (uint32_t k = 0; k < count; ++k) {
    const Kernel &kernel = *manifest.kernels()->Get(k);
    bool isPtx = false;
    int64_t section = chooseImage(kernel, model->arch, &isPtx);
    if (section == -2)
      return Error(KILN_STATUS_INCOMPATIBLE)
             << "kernel '" << shownName(kernel.symbol()) << "' has "
             << availableImages(kernel) << " and no PTX; this GPU ("
             << model->deviceName << ") is " << archName(model->arch)
             << "; recompile with --gpu-arch " << archName(model->arch);
    if (isPtx) {
      int major = 0, minor = 0;
      std::sscanf(str(manifest.cuda_version()), "%d.%d", &major, &minor);
      if (model->driverVersion < major * 1000 + minor * 10)
        return Error(KILN_STATUS_INCOMPATIBLE)
               << "kernel '" << shownName(kernel.symbol())
               << "' needs its PTX on this " << archName(model->arch)
               << " GPU (it has " << availableImages(kernel)
               << "), and PTX from CUDA " << str(manifest.cuda_version())
               << " needs a driver for that version or newer";
    }
    auto found = bySection.find(section);
    if (found == bySection.end()) {
      uint32_t index = static_cast<uint32_t>(section);
      // Copy the code: the file's bytes are unmapped after load, and PTX
      // must end with a NUL.
      std::vector<char> code(model->artifact.sectionData(index),
                             model->artifact.sectionData(index) +
                                 model->artifact.sectionSize(index));
      code.push_back('\0');
      cudaLibrary_t library = nullptr;
      KILN_RETURN_IF_ERROR(cudaStatus(
          cudaLibraryLoadData(&library, code.data(), nullptr, nullptr, 0,
                              nullptr, nullptr, 0),
          "loading the " + std::string(isPtx ? "PTX" : "cubin") +
              " of kernel '" + shownName(kernel.symbol()) + "' (section '" +
              shownName(manifest.sections()->Get(index)->name()) + "')"));
      model->libraries.push_back(library);
      found = bySection.emplace(section, library).first;
    }
    cudaKernel_t handle = nullptr;
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaLibraryGetKernel(&handle, found->second, str(kernel.symbol())),
        "finding kernel '" + shownName(kernel.symbol()) +
            "' in its image"));
    // Loading is lazy by default; querying attributes loads the kernel now,
    // so that errors show here and never during graph capture.
    cudaFuncAttributes attributes;
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaFuncGetAttributes(&attributes,
                              reinterpret_cast<const void *>(handle)),
        "loading kernel '" + shownName(kernel.symbol()) + "'"));
    KILN_RETURN_IF_ERROR(
        checkParameters(handle, parameterCounts[k], str(kernel.symbol())));
    model->kernels.push_back(handle);
    model->kernelMaxThreads.push_back(attributes.maxThreadsPerBlock);
  }
  return nullptr;
}

} // namespace kiln::runtime
