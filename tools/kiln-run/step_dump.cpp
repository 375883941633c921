// kiln-run --dump-steps: each step's outputs copied to .npy files right after
// the step (debug mode's step callback) or after the whole run
// (--dump-after-run, a keep_step_outputs session), the inputs used, and
// steps.json.
#include "step_dump.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace kiln::run {

namespace {

bool fail(std::string *error, const std::string &message) {
  *error = message;
  return false;
}

bool makeDirectory(const std::string &path, std::string *error) {
  if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST)
    return true;
  return fail(error, "cannot create '" + path + "': " + std::strerror(errno));
}

bool parseInteger(const std::string &text, int64_t *value) {
  if (text.empty() ||
      text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 18)
    return false;
  *value = std::stoll(text);
  return true;
}

/// A JSON string literal.
std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\u%04x", c);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonList(const std::vector<int64_t> &values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

/// A file name from a kernel name: letters, digits, '_', '-' and '.'.
std::string fileStem(const std::string &name) {
  std::string stem;
  for (char c : name)
    stem += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                    c == '-' || c == '.'
                ? c
                : '_';
  return stem.substr(0, 80);
}

/// The ONNX nodes of kiln_step_profile_t.onnx_nodes (joined by ", ").
std::vector<std::string> splitNodes(const char *joined) {
  std::vector<std::string> nodes;
  std::string text = joined ? joined : "";
  size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    size_t end = text.find(", ", start);
    nodes.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      break;
    start = end + 2;
  }
  return nodes;
}

} // namespace

bool parseDumpRows(const std::string &text, std::vector<int64_t> *rows,
                   std::string *error) {
  rows->clear();
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    size_t colon = part.find(':');
    int64_t first = 0, end = 0;
    bool ok = colon == std::string::npos
                  ? parseInteger(part, &first) && (end = first + 1, true)
                  : parseInteger(part.substr(0, colon), &first) &&
                        parseInteger(part.substr(colon + 1), &end);
    if (!ok || end <= first)
      return fail(error, "--dump-rows: '" + part +
                             "' is not a row or a range FIRST:END (END > "
                             "FIRST); e.g. 0,31 or 0:4");
    for (int64_t row = first; row < end; ++row) {
      if (!rows->empty() && row <= rows->back())
        return fail(error, "--dump-rows: rows must increase ('" + text + "')");
      rows->push_back(row);
    }
  }
  if (rows->empty())
    return fail(error, "--dump-rows: no rows in '" + text + "'");
  return true;
}

bool parseStepRange(const std::string &text, int64_t *first, int64_t *last,
                    std::string *error) {
  size_t colon = text.find(':');
  std::string from = text.substr(0, colon),
              to = colon == std::string::npos ? from : text.substr(colon + 1);
  *first = 0;
  *last = INT64_MAX;
  if ((!from.empty() && !parseInteger(from, first)) ||
      (!to.empty() && !parseInteger(to, last)) || *last < *first)
    return fail(error, "--dump-step-range: expected FIRST:LAST (plan step "
                       "indices, inclusive; either may be left out), got '" +
                           text + "'");
  return true;
}

std::vector<int64_t>
StepDump::writtenShape(const std::vector<int64_t> &dims) const {
  std::vector<int64_t> shape = dims;
  if (!options.rows.empty() && !shape.empty() && shape[0] == batch)
    shape[0] = static_cast<int64_t>(options.rows.size());
  return shape;
}

bool StepDump::writeFile(const File &file, const std::vector<uint8_t> &bytes,
                         std::string *error) {
  HostTensor tensor;
  tensor.dtype = file.dtype;
  tensor.dims = file.shape;
  tensor.data = bytes;
  written += bytes.size();
  return writeNpy(options.directory + "/" + file.path, tensor, error);
}

bool StepDump::begin(const std::vector<HostTensor> &inputs,
                     std::string *error) {
  if (!makeDirectory(options.directory, error) ||
      !makeDirectory(options.directory + "/inputs", error) ||
      !makeDirectory(options.directory + "/steps", error))
    return false;
  if (!inputs.empty() && !inputs[0].dims.empty())
    batch = inputs[0].dims[0];
  if (!options.rows.empty() && batch < 0)
    return fail(error, "--dump-rows needs a first input with a batch dim");
  if (!options.rows.empty() && options.rows.back() >= batch)
    return fail(error, "--dump-rows: row " +
                           std::to_string(options.rows.back()) +
                           " is beyond the batch of " + std::to_string(batch) +
                           " (dim 0 of input '" + inputs[0].name + "')");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostTensor &input = inputs[i];
    File file;
    file.name = input.name;
    file.dtype = input.dtype;
    file.fullShape = input.dims;
    file.shape = writtenShape(input.dims);
    file.path =
        "inputs/" + std::to_string(i) + "_" + fileStem(input.name) + ".npy";
    std::vector<uint8_t> bytes = input.data;
    if (file.shape != file.fullShape) {
      size_t rowBytes = input.data.size() / static_cast<size_t>(batch);
      bytes.clear();
      for (int64_t row : options.rows)
        bytes.insert(bytes.end(), input.data.begin() + row * rowBytes,
                     input.data.begin() + (row + 1) * rowBytes);
    }
    if (!writeFile(file, bytes, error))
      return false;
    inputFiles.push_back(std::move(file));
  }
  return true;
}

bool StepDump::attach(kiln_session_t *session, std::string *error) {
  kiln_status_t status =
      kiln_session_set_step_callback(session, &StepDump::callback, this);
  if (!status)
    return true;
  *error = kiln_status_message(status);
  kiln_status_free(status);
  return false;
}

int StepDump::callback(void *data, kiln_session_t *session, size_t index,
                       cudaStream_t stream) {
  return static_cast<StepDump *>(data)->dumpStep(session, index, stream);
}

int StepDump::dumpStep(kiln_session_t *session, size_t index,
                       cudaStream_t stream) {
  size_t count = kiln_session_step_output_count(session, index);
  if (count == 0)
    return 0;
  bool inRange = static_cast<int64_t>(index) >= options.firstStep &&
                 static_cast<int64_t>(index) <= options.lastStep;
  kiln_step_profile_t step;
  kiln_status_t status = kiln_session_step_profile(session, index, &step);
  if (status) {
    failure = kiln_status_message(status);
    kiln_status_free(status);
    return 1;
  }
  StepRecord record;
  record.index = index;
  for (size_t i = 0; i < count; ++i) {
    kiln_step_output_t output;
    status = kiln_session_step_output(session, index, i, &output);
    if (status) {
      failure = kiln_status_message(status);
      kiln_status_free(status);
      return 1;
    }
    File file;
    file.buffer = output.buffer;
    file.dtype = output.dtype;
    file.fullShape.assign(output.dims, output.dims + output.rank);
    file.shape = writtenShape(file.fullShape);
    file.overwrittenBy =
        overwrittenBy(index, output.device_data, output.bytes);
    if (inRange && file.overwrittenBy < 0) {
      char name[32];
      std::snprintf(name, sizeof(name), "%04zu_", index);
      file.path = "steps/" + std::string(name) + fileStem(step.name) +
                  (count > 1 ? "." + std::to_string(i) : "") + ".npy";
      // Only the selected rows leave the device.
      size_t rows = file.shape == file.fullShape ? 1 : options.rows.size();
      size_t chunk = file.shape == file.fullShape
                         ? output.bytes
                         : output.bytes / static_cast<size_t>(batch);
      std::vector<uint8_t> bytes(rows * chunk);
      for (size_t r = 0; r < rows; ++r) {
        size_t offset =
            file.shape == file.fullShape ? 0 : options.rows[r] * chunk;
        cudaError_t copied = cudaMemcpyAsync(
            bytes.data() + r * chunk,
            static_cast<const uint8_t *>(output.device_data) + offset, chunk,
            cudaMemcpyDeviceToHost, stream);
        if (copied == cudaSuccess)
          copied = cudaStreamSynchronize(stream);
        if (copied != cudaSuccess) {
          failure = std::string("copying the outputs of step ") +
                    std::to_string(index) + ": " + cudaGetErrorString(copied);
          return 1;
        }
      }
      if (!writeFile(file, bytes, &failure))
        return 1;
    }
    record.outputs.push_back(std::move(file));
  }
  steps.push_back(std::move(record));
  return 0;
}

int64_t StepDump::overwrittenBy(size_t index, const void *data,
                                size_t bytes) const {
  uintptr_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
  for (const Written &write : writes)
    if (write.step > index && write.begin < end && begin < write.end)
      return static_cast<int64_t>(write.step);
  return -1;
}

bool StepDump::readAfterRun(kiln_session_t *session, cudaStream_t stream,
                            int run, std::string *error) {
  size_t steps = kiln_session_step_count(session);
  writes.clear();
  for (size_t index = 0; index < steps; ++index)
    for (size_t i = 0; i < kiln_session_step_output_count(session, index);
         ++i) {
      kiln_step_output_t output;
      kiln_status_t status = kiln_session_step_output(session, index, i,
                                                      &output);
      if (status) {
        *error = kiln_status_message(status);
        kiln_status_free(status);
        return false;
      }
      uintptr_t begin = reinterpret_cast<uintptr_t>(output.device_data);
      writes.push_back({index, begin, begin + output.bytes});
    }
  afterRun = run;
  for (size_t index = 0; index < steps; ++index)
    if (dumpStep(session, index, stream) != 0)
      return fail(error, failure);
  return true;
}

bool StepDump::finish(kiln_session_t *session, const std::string &entry,
                      std::string *error) {
  if (!failure.empty())
    return fail(error, failure);
  auto fileJson = [](const File &file) {
    std::string text = "{\"buffer\": " + std::to_string(file.buffer) +
                       ", \"dtype\": " + quoted(kiln_dtype_name(file.dtype)) +
                       ", \"shape\": " + jsonList(file.shape) +
                       ", \"full_shape\": " + jsonList(file.fullShape);
    if (!file.name.empty())
      text += ", \"name\": " + quoted(file.name);
    if (!file.path.empty())
      text += ", \"file\": " + quoted(file.path);
    if (file.overwrittenBy >= 0)
      text += ", \"overwritten_by\": " + std::to_string(file.overwrittenBy);
    return text + "}";
  };
  std::ostringstream json;
  json << "{\n  \"format\": \"kiln-step-dump\",\n  \"version\": 1,\n"
       << "  \"producer\": \"kiln-run\",\n"
       << "  \"artifact\": " << quoted(options.artifact) << ",\n"
       << "  \"entry_point\": " << quoted(entry) << ",\n"
       << "  \"batch\": " << batch << ",\n"
       << "  \"rows\": "
       << (options.rows.empty() ? std::string("null") : jsonList(options.rows))
       << ",\n";
  // How the outputs were read: "per_step" (a debug-mode run, synchronised
  // after each step) or "after_run" (a normal run; "run" says which).
  json << "  \"mode\": " << quoted(afterRun ? "after_run" : "per_step")
       << ",\n";
  if (afterRun)
    json << "  \"run\": " << afterRun << ",\n";
  const char *convPath = std::getenv("KILN_CONV_PATH");
  json << "  \"conv_path\": " << quoted(convPath ? convPath : "auto") << ",\n";
  json << "  \"inputs\": [";
  for (size_t i = 0; i < inputFiles.size(); ++i)
    json << (i ? ",\n    " : "\n    ") << fileJson(inputFiles[i]);
  json << "\n  ],\n  \"steps\": [";
  for (size_t s = 0; s < steps.size(); ++s) {
    kiln_step_profile_t step;
    kiln_status_t status =
        kiln_session_step_profile(session, steps[s].index, &step);
    if (status) {
      *error = kiln_status_message(status);
      kiln_status_free(status);
      return false;
    }
    json << (s ? ",\n    " : "\n    ") << "{\"index\": " << steps[s].index
         << ", \"name\": " << quoted(step.name)
         << ", \"kind\": " << quoted(step.kind) << ", \"onnx_nodes\": [";
    std::vector<std::string> nodes = splitNodes(step.onnx_nodes);
    for (size_t n = 0; n < nodes.size(); ++n)
      json << (n ? ", " : "") << quoted(nodes[n]);
    json << "], \"algorithm\": " << quoted(step.algorithm ? step.algorithm : "")
         << ", \"outputs\": [";
    for (size_t o = 0; o < steps[s].outputs.size(); ++o)
      json << (o ? ", " : "") << fileJson(steps[s].outputs[o]);
    json << "]}";
  }
  json << "\n  ]\n}\n";
  std::string path = options.directory + "/steps.json";
  std::ofstream file(path);
  file << json.str();
  if (!file)
    return fail(error, "cannot write '" + path + "'");
  return true;
}

} // namespace kiln::run
