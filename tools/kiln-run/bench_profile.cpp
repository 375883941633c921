// kiln-run's status printing, --profile's table and Chrome trace JSON
// (kernel times from CUPTI when it loads).
#include "bench_profile.h"
#include "json_text.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <vector>

namespace kiln::run {

namespace {

/// A step's time for the table and the trace: its kernels' GPU time when
/// CUPTI measured it, else the event-timed replay of its graph.
double stepMs(const kiln_step_profile_t &step) {
  return step.kernel_ms >= 0 ? step.kernel_ms : step.duration_ms;
}

bool isKernelStep(const kiln_step_profile_t &step) {
  return std::string(step.kind) != "record_event" &&
         std::string(step.kind) != "wait_event";
}

/// Writes the Chrome trace of the last profiled run (opens in Perfetto) and
/// fills |steps| with every step's profile. A slice lasts the step's kernel
/// time when CUPTI measured it; its args keep the replay's event time.
bool writeTrace(kiln_session_t *session, const std::string &path,
                std::vector<kiln_step_profile_t> &steps) {
  std::ofstream file(path);
  file << "{\"traceEvents\": [\n";
  for (size_t i = 0; i < kiln_session_step_count(session); ++i) {
    kiln_step_profile_t step;
    kiln_status_t status = kiln_session_step_profile(session, i, &step);
    if (status) {
      std::fprintf(stderr, "kiln-run: %s\n", kiln_status_message(status));
      kiln_status_free(status);
      return false;
    }
    steps.push_back(step);
    file << (i ? ",\n" : "") << "  {\"name\": " << jsonString(step.name)
         << ", \"cat\": " << jsonString(step.kind)
         << ", \"ph\": \"X\", \"pid\": 0, \"tid\": 0"
         << ", \"ts\": " << step.start_ms * 1000.0
         << ", \"dur\": " << stepMs(step) * 1000.0
         << ", \"args\": {\"step\": " << i
         << ", \"replay_us\": " << step.duration_ms * 1000.0;
    if (step.kernel_ms >= 0)
      file << ", \"kernel_us\": " << step.kernel_ms * 1000.0
           << ", \"kernels\": " << step.kernel_count
           << ", \"kernel_span_us\": " << step.kernel_span_ms * 1000.0;
    file << ", \"bytes\": " << step.bytes << ", \"flops\": " << step.flops
         << ", \"algorithm\": " << jsonString(step.algorithm)
         << ", \"onnx_nodes\": " << jsonString(step.onnx_nodes) << "}}";
  }
  file << "\n], \"displayTimeUnit\": \"ms\"}\n";
  return static_cast<bool>(file);
}

/// printf into |out|.
__attribute__((format(printf, 2, 3))) void appendf(std::string &out,
                                                   const char *format, ...) {
  va_list arguments, again;
  va_start(arguments, format);
  va_copy(again, arguments);
  int length = std::vsnprintf(nullptr, 0, format, arguments);
  va_end(arguments);
  if (length > 0) {
    size_t end = out.size();
    out.resize(end + static_cast<size_t>(length) + 1);
    std::vsnprintf(&out[end], static_cast<size_t>(length) + 1, format, again);
    out.resize(end + static_cast<size_t>(length));
  }
  va_end(again);
}

/// kiln_session_profile_source, or why it could not be read.
std::string profileSource(kiln_session_t *session) {
  const char *source = nullptr;
  kiln_status_t status = kiln_session_profile_source(session, &source);
  std::string text =
      status ? std::string("events: ") + kiln_status_message(status) : source;
  kiln_status_free(status);
  return text;
}

} // namespace

std::string profileTable(const std::vector<kiln_step_profile_t> &steps,
                         const std::string &source) {
  std::vector<const kiln_step_profile_t *> timed;
  double total = 0, replays = 0;
  bool kernelTimes = source == "cupti";
  for (const kiln_step_profile_t &step : steps)
    if (isKernelStep(step)) {
      timed.push_back(&step);
      total += stepMs(step);
      replays += step.duration_ms;
      kernelTimes = kernelTimes && step.kernel_ms >= 0;
    }
  std::stable_sort(timed.begin(), timed.end(),
                   [](auto *a, auto *b) { return stepMs(*a) > stepMs(*b); });
  std::string out;
  // Scripts parse this line (benchmarks/kernels.py, compare_torch.py): the
  // first number is the kernel-time sum with CUPTI, else the replays' sum.
  if (kernelTimes)
    appendf(out,
            "profile: %zu kernel steps, %.4f ms kernel time (cupti), %.4f ms "
            "step replays\n",
            timed.size(), total, replays);
  else
    appendf(out, "profile: %zu kernel steps, %.4f ms step replays (%s)\n",
            timed.size(), replays, source.c_str());
  appendf(out, "  %-34s %-6s %10s %10s %7s %6s %9s %9s  %-27s %s\n", "kernel",
          "kind", "time(us)", "replay(us)", "kernels", "share", "GB/s",
          "TFLOP/s", "algorithm", "ONNX nodes");
  for (size_t i = 0; i < timed.size() && i < 25; ++i) {
    const kiln_step_profile_t &step = *timed[i];
    double seconds = stepMs(step) * 1e-3;
    std::string nodes = step.onnx_nodes;
    if (nodes.size() > 60)
      nodes = nodes.substr(0, 57) + "...";
    std::string kernels =
        step.kernel_count >= 0 ? std::to_string(step.kernel_count) : "-";
    appendf(out,
            "  %-34s %-6s %10.1f %10.1f %7s %5.1f%% %9.1f %9.2f  %-27s %s\n",
            step.name, step.kind, stepMs(step) * 1e3, step.duration_ms * 1e3,
            kernels.c_str(), total > 0 ? 100.0 * stepMs(step) / total : 0.0,
            seconds > 0 ? step.bytes / seconds * 1e-9 : 0.0,
            seconds > 0 ? step.flops / seconds * 1e-12 : 0.0,
            *step.algorithm ? step.algorithm : "-", nodes.c_str());
  }
  return out;
}

/// Prints |status| with |what| and frees it; true if it was an error.
bool failed(kiln_status_t status, const char *what) {
  if (!status)
    return false;
  std::fprintf(stderr, "kiln-run: %s: %s: %s\n", what,
               kiln_status_code_name(kiln_status_code(status)),
               kiln_status_message(status));
  kiln_status_free(status);
  return true;
}

bool cudaFailed(cudaError_t error, const char *what) {
  if (error == cudaSuccess)
    return false;
  std::fprintf(stderr, "kiln-run: %s: %s\n", what, cudaGetErrorString(error));
  return true;
}

/// Tensor |name|'s shape at the session's current shapes (an artifact with
/// ranged dims runs at its input files' shapes) and its bytes; false (the
/// error printed) on failure.
bool currentShape(kiln_session_t *session, const kiln_tensor_info_t &info,
                  std::vector<int64_t> *dims, size_t *bytes) {
  dims->assign(info.rank, 0);
  size_t rank = 0;
  if (failed(kiln_session_tensor_shape(session, info.name, dims->data(),
                                       dims->size(), &rank),
             "tensor shape"))
    return false;
  size_t elements = 1;
  for (int64_t dim : *dims)
    elements *= size_t(dim);
  *bytes = elements * kiln_dtype_size(info.dtype);
  return true;
}

bool profile(kiln_model_t *model, const kiln_session_options_t &options,
             kiln_session_t *run, const std::vector<void *> &inputs,
             const std::vector<void *> &outputs, cudaStream_t stream,
             const std::string &path) {
  kiln_session_t *session = nullptr;
  if (failed(kiln_session_create(model, &options, &session), "profile session"))
    return false;
  size_t entry = 0;
  while (options.entry_point && entry < kiln_model_entry_point_count(model) &&
         std::string(options.entry_point) !=
             kiln_model_entry_point_name(model, entry))
    ++entry;
  // The run's shapes first (a ranged artifact's session starts at the
  // ranges' maximum), then every tensor bound at its bytes there.
  bool ok = true;
  std::vector<int64_t> dims;
  size_t bytes = 0;
  for (size_t i = 0; ok && i < kiln_model_input_count(model, entry); ++i) {
    kiln_tensor_info_t info;
    kiln_status_free(kiln_model_input_info(model, entry, i, &info));
    ok = currentShape(run, info, &dims, &bytes) &&
         !failed(kiln_session_set_input_shape(session, info.name, dims.data(),
                                              dims.size()),
                 "profile shapes");
    kiln_tensor_t bound = kiln_device_tensor(inputs[i], bytes);
    ok = ok && !failed(kiln_session_bind_input(session, info.name, &bound),
                       "profile binding");
  }
  for (size_t i = 0; ok && i < outputs.size(); ++i) {
    kiln_tensor_info_t info;
    kiln_status_free(kiln_model_output_info(model, entry, i, &info));
    ok = currentShape(session, info, &dims, &bytes);
    kiln_tensor_t bound = kiln_device_tensor(outputs[i], bytes);
    ok = ok && !failed(kiln_session_bind_output(session, info.name, &bound),
                       "profile binding");
  }
  // One warm-up run, then the profiled one.
  for (int run = 0; ok && run < 2; ++run)
    ok = !failed(kiln_session_run(session, stream), "profile run");
  std::vector<kiln_step_profile_t> steps;
  ok = ok && writeTrace(session, path, steps);
  if (ok) {
    std::fputs(profileTable(steps, profileSource(session)).c_str(), stdout);
    std::printf("profile: %zu steps written to %s\n",
                kiln_session_step_count(session), path.c_str());
  }
  kiln_session_release(session);
  return ok;
}

} // namespace kiln::run
