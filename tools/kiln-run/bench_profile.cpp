// kiln-run's timing: --bench latencies from CUDA events, --profile as Chrome
// trace JSON.
#include "bench_profile.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

namespace kiln::run {

namespace {

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// Writes the steps' timings of |session|'s last run as Chrome trace JSON.
/// Writes the Chrome trace of the last profiled run (opens in Perfetto) and
/// fills |steps| with every step's profile.
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
         << ", \"dur\": " << step.duration_ms * 1000.0
         << ", \"args\": {\"step\": " << i << ", \"bytes\": " << step.bytes
         << ", \"flops\": " << step.flops
         << ", \"algorithm\": " << jsonString(step.algorithm)
         << ", \"onnx_nodes\": " << jsonString(step.onnx_nodes) << "}}";
  }
  file << "\n], \"displayTimeUnit\": \"ms\"}\n";
  return static_cast<bool>(file);
}

/// The per-kernel table: the steps that take time, slowest first, with the
/// bandwidth and FLOP rate they achieved and the ONNX nodes they cover.
void printProfileTable(const std::vector<kiln_step_profile_t> &steps) {
  std::vector<const kiln_step_profile_t *> timed;
  double total = 0;
  for (const kiln_step_profile_t &step : steps)
    if (std::string(step.kind) != "record_event" &&
        std::string(step.kind) != "wait_event") {
      timed.push_back(&step);
      total += step.duration_ms;
    }
  std::sort(timed.begin(), timed.end(), [](auto *a, auto *b) {
    return a->duration_ms > b->duration_ms;
  });
  std::printf("profile: %zu kernel steps, %.4f ms in kernels\n", timed.size(),
              total);
  std::printf("  %-34s %-6s %10s %6s %9s %9s  %-27s %s\n", "kernel", "kind",
              "time(us)", "share", "GB/s", "TFLOP/s", "algorithm",
              "ONNX nodes");
  for (size_t i = 0; i < timed.size() && i < 25; ++i) {
    const kiln_step_profile_t &step = *timed[i];
    double seconds = step.duration_ms * 1e-3;
    std::string nodes = step.onnx_nodes;
    if (nodes.size() > 60)
      nodes = nodes.substr(0, 57) + "...";
    std::printf("  %-34s %-6s %10.1f %5.1f%% %9.1f %9.2f  %-27s %s\n",
                step.name,
                step.kind, step.duration_ms * 1e3,
                total > 0 ? 100.0 * step.duration_ms / total : 0.0,
                seconds > 0 ? step.bytes / seconds * 1e-9 : 0.0,
                seconds > 0 ? step.flops / seconds * 1e-12 : 0.0,
                *step.algorithm ? step.algorithm : "-", nodes.c_str());
  }
}

} // namespace

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

bool benchmark(kiln_session_t *session, cudaStream_t stream, int runs) {
  int warmup = std::max(3, runs / 10);
  std::vector<cudaEvent_t> events(2 * static_cast<size_t>(runs));
  for (cudaEvent_t &event : events)
    cudaEventCreate(&event);
  bool ok = true;
  for (int i = 0; i < warmup && ok; ++i)
    ok = !failed(kiln_session_run(session, stream), "bench warm-up");
  for (int i = 0; i < runs && ok; ++i) {
    cudaEventRecord(events[2 * i], stream);
    ok = !failed(kiln_session_run(session, stream), "bench");
    cudaEventRecord(events[2 * i + 1], stream);
  }
  ok = ok && !cudaFailed(cudaStreamSynchronize(stream), "bench");
  std::vector<float> times;
  for (int i = 0; i < runs && ok; ++i) {
    float ms = 0;
    cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]);
    times.push_back(ms);
  }
  for (cudaEvent_t event : events)
    cudaEventDestroy(event);
  if (!ok)
    return false;
  std::sort(times.begin(), times.end());
  std::printf("bench: %d runs after %d warm-up, median %.4f ms, p90 %.4f ms, "
              "min %.4f ms\n",
              runs, warmup, times[times.size() / 2],
              times[std::min(times.size() - 1, times.size() * 9 / 10)],
              times.front());
  return true;
}

bool profile(kiln_model_t *model, const kiln_session_options_t &options,
             const std::vector<void *> &inputs,
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
  bool ok = true;
  for (size_t i = 0; ok && i < kiln_model_input_count(model, entry); ++i) {
    kiln_tensor_info_t info;
    kiln_status_free(kiln_model_input_info(model, entry, i, &info));
    kiln_tensor_t bound = kiln_device_tensor(inputs[i], info.bytes);
    ok = !failed(kiln_session_bind_input(session, info.name, &bound),
                 "profile binding");
  }
  for (size_t i = 0; ok && i < outputs.size(); ++i) {
    kiln_tensor_info_t info;
    kiln_status_free(kiln_model_output_info(model, entry, i, &info));
    kiln_tensor_t bound = kiln_device_tensor(outputs[i], info.bytes);
    ok = !failed(kiln_session_bind_output(session, info.name, &bound),
                 "profile binding");
  }
  // One warm-up run, then the profiled one.
  for (int run = 0; ok && run < 2; ++run)
    ok = !failed(kiln_session_run(session, stream), "profile run");
  std::vector<kiln_step_profile_t> steps;
  ok = ok && writeTrace(session, path, steps);
  if (ok) {
    printProfileTable(steps);
    std::printf("profile: %zu steps written to %s\n",
                kiln_session_step_count(session), path.c_str());
  }
  kiln_session_release(session);
  return ok;
}

} // namespace kiln::run
