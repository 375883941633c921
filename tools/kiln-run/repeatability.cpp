// kiln-run --sessions N: N fresh sessions on the same inputs, outputs compared
// bit for bit with the first session's; --replays N: N more runs of one
// session, compared with its first run.
#include "repeatability.h"
#include "bench_profile.h"
#include "tensor_files.h"

#include "kiln/escaped_text.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace kiln::run {

namespace {

/// Element |index| of |bytes| (of |dtype|) as a double.
double elementValue(const std::vector<uint8_t> &bytes, kiln_dtype_t dtype,
                    size_t index) {
  HostTensor tensor;
  tensor.dtype = dtype;
  size_t width = kiln_dtype_size(dtype);
  tensor.dims = {1};
  tensor.data.assign(bytes.begin() + index * width,
                     bytes.begin() + (index + 1) * width);
  return tensor.at(0);
}

/// "[1, 517]": |index| as a multi-index of |dims|.
std::string multiIndex(size_t index, const int64_t *dims, size_t rank) {
  std::vector<int64_t> position(rank);
  for (size_t d = rank; d-- > 0;) {
    position[d] = dims[d] ? static_cast<int64_t>(index % dims[d]) : 0;
    index = dims[d] ? index / dims[d] : index;
  }
  return shapeText(position);
}

/// Session |index|: created, bound to |inputs| and fresh outputs, run once; its
/// outputs downloaded into |outputs|. False (printed) on any failure.
bool runFreshSession(kiln_model_t *model, const kiln_session_options_t &options,
                     size_t entry, const std::vector<DeviceInput> &inputs,
                     int index, cudaStream_t stream,
                     std::vector<std::vector<uint8_t>> *outputs) {
  kiln_session_t *session = nullptr;
  std::vector<void *> buffers;
  auto finish = [&](bool ok) {
    cudaStreamSynchronize(stream);
    for (void *buffer : buffers)
      cudaFree(buffer);
    kiln_session_release(session);
    return ok;
  };
  if (failed(kiln_session_create(model, &options, &session),
             "creating a session"))
    return finish(false);
  for (const DeviceInput &input : inputs) {
    kiln_tensor_t bound = kiln_device_tensor(input.data, input.bytes);
    if (failed(kiln_session_bind_input(session, input.name.c_str(), &bound),
               "binding an input"))
      return finish(false);
  }
  size_t count = kiln_model_output_count(model, entry);
  outputs->assign(count, {});
  for (size_t i = 0; i < count; ++i) {
    kiln_tensor_info_t info;
    void *device = nullptr;
    if (failed(kiln_model_output_info(model, entry, i, &info), "output info") ||
        cudaFailed(cudaMalloc(&device, std::max<size_t>(info.bytes, 1)),
                   "cudaMalloc"))
      return finish(false);
    buffers.push_back(device);
    // Poisoned with a byte that alternates between sessions: an element
    // that no step writes differs between them.
    int poison = index % 2 ? 0x7f : 0xff;
    kiln_tensor_t bound = kiln_device_tensor(device, info.bytes);
    if (cudaFailed(cudaMemset(device, poison, info.bytes), "poisoning") ||
        failed(kiln_session_bind_output(session, info.name, &bound),
               "binding an output"))
      return finish(false);
    (*outputs)[i].resize(info.bytes);
  }
  if (failed(kiln_session_run(session, stream), "run") ||
      cudaFailed(cudaStreamSynchronize(stream), "run"))
    return finish(false);
  for (size_t i = 0; i < count; ++i)
    if (cudaFailed(cudaMemcpy((*outputs)[i].data(), buffers[i],
                              (*outputs)[i].size(), cudaMemcpyDeviceToHost),
                   "downloading an output"))
      return finish(false);
  return finish(true);
}

} // namespace

OutputDifference
firstDifference(const std::vector<std::vector<uint8_t>> &first,
                const std::vector<std::vector<uint8_t>> &second,
                const std::vector<kiln_dtype_t> &dtypes) {
  OutputDifference difference;
  for (size_t output = 0; output < first.size(); ++output) {
    size_t width = std::max<size_t>(kiln_dtype_size(dtypes[output]), 1);
    const std::vector<uint8_t> &a = first[output], &b = second[output];
    size_t elements = std::min(a.size(), b.size()) / width;
    for (size_t i = 0; i < elements; ++i) {
      if (std::memcmp(&a[i * width], &b[i * width], width) == 0)
        continue;
      if (difference.output < 0) {
        difference.output = static_cast<int64_t>(output);
        difference.element = static_cast<int64_t>(i);
        difference.first = elementValue(a, dtypes[output], i);
        difference.second = elementValue(b, dtypes[output], i);
      }
      if (difference.output == static_cast<int64_t>(output))
        ++difference.differing;
    }
    if (difference.output >= 0)
      return difference;
  }
  return difference;
}

bool checkRepeatability(kiln_model_t *model,
                        const kiln_session_options_t &options,
                        size_t entryPoint,
                        const std::vector<DeviceInput> &inputs, int sessions,
                        cudaStream_t stream) {
  size_t count = kiln_model_output_count(model, entryPoint);
  std::vector<kiln_tensor_info_t> infos(count);
  std::vector<kiln_dtype_t> dtypes(count);
  size_t elements = 0;
  for (size_t i = 0; i < count; ++i) {
    if (failed(kiln_model_output_info(model, entryPoint, i, &infos[i]),
               "output info"))
      return false;
    dtypes[i] = infos[i].dtype;
    elements +=
        infos[i].bytes / std::max<size_t>(kiln_dtype_size(dtypes[i]), 1);
  }
  std::vector<std::vector<uint8_t>> reference, outputs;
  for (int s = 0; s < sessions; ++s) {
    if (!runFreshSession(model, options, entryPoint, inputs, s, stream,
                         s == 0 ? &reference : &outputs)) {
      std::fprintf(stderr, "kiln-run: repeatability: session %d of %d failed\n",
                   s + 1, sessions);
      return false;
    }
    if (s == 0)
      continue;
    OutputDifference difference = firstDifference(reference, outputs, dtypes);
    if (difference.output < 0)
      continue;
    const kiln_tensor_info_t &info = infos[difference.output];
    std::printf(
        "repeatability: MISMATCH: session %d of %d differs from session 1 in "
        "output '%s' (%s %s): %zu of %zu elements differ, the first at "
        "element %lld %s: %.9g vs %.9g\n",
        s + 1, sessions, kiln::text::escapeName(info.name).c_str(), kiln_dtype_name(info.dtype),
        shapeText(std::vector<int64_t>(info.dims, info.dims + info.rank))
            .c_str(),
        difference.differing,
        info.bytes / std::max<size_t>(kiln_dtype_size(info.dtype), 1),
        static_cast<long long>(difference.element),
        multiIndex(static_cast<size_t>(difference.element), info.dims,
                   info.rank)
            .c_str(),
        difference.first, difference.second);
    return false;
  }
  std::printf("repeatability: %d sessions gave bit-identical outputs (%zu "
              "outputs, %zu elements)\n",
              sessions, count, elements);
  return true;
}

bool checkReplays(kiln_model_t *model, size_t entryPoint,
                  kiln_session_t *session,
                  const std::vector<void *> &outputBuffers,
                  const std::vector<std::vector<uint8_t>> &first, int replays,
                  cudaStream_t stream) {
  size_t count = outputBuffers.size();
  std::vector<kiln_tensor_info_t> infos(count);
  std::vector<kiln_dtype_t> dtypes(count);
  for (size_t i = 0; i < count; ++i) {
    if (failed(kiln_model_output_info(model, entryPoint, i, &infos[i]),
               "output info"))
      return false;
    dtypes[i] = infos[i].dtype;
  }
  std::vector<std::vector<uint8_t>> outputs(count);
  int differing = 0;
  for (int r = 0; r < replays; ++r) {
    for (size_t i = 0; i < count; ++i)
      if (cudaFailed(cudaMemsetAsync(outputBuffers[i], r % 2 ? 0x7f : 0xff,
                                     infos[i].bytes, stream),
                     "poisoning an output"))
        return false;
    if (failed(kiln_session_run(session, stream), "run") ||
        cudaFailed(cudaStreamSynchronize(stream), "run"))
      return false;
    for (size_t i = 0; i < count; ++i) {
      outputs[i].resize(infos[i].bytes);
      if (cudaFailed(cudaMemcpy(outputs[i].data(), outputBuffers[i],
                                infos[i].bytes, cudaMemcpyDeviceToHost),
                     "downloading an output"))
        return false;
    }
    OutputDifference difference = firstDifference(first, outputs, dtypes);
    if (difference.output < 0)
      continue;
    ++differing;
    const kiln_tensor_info_t &info = infos[difference.output];
    std::printf("replays: MISMATCH: run %d differs from the first run in "
                "output '%s': %zu elements differ, the first at element %lld "
                "%s: %.9g vs %.9g\n",
                r + 2, kiln::text::escapeName(info.name).c_str(), difference.differing,
                static_cast<long long>(difference.element),
                multiIndex(static_cast<size_t>(difference.element), info.dims,
                           info.rank)
                    .c_str(),
                difference.second, difference.first);
  }
  std::printf("replays: %d of %d further runs bit-identical to the first\n",
              replays - differing, replays);
  return differing == 0;
}

} // namespace kiln::run
