// Parsing the line-based kernel-test manifest.
#include "Manifest.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kiln::kerneltest {

bool readFile(const std::string &path, std::string &contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  contents = buffer.str();
  return true;
}

bool readManifest(const std::string &directory, CaseSpec &spec,
                  std::string &error) {
  std::string text;
  std::string path = directory + "/manifest.txt";
  if (!readFile(path, text)) {
    error = "cannot read " + path;
    return false;
  }
  spec.directory = directory;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::string comment;
    if (size_t hash = line.find('#'); hash != std::string::npos) {
      comment = line.substr(hash + 1);
      line = line.substr(0, hash);
    }
    std::istringstream words(line);
    std::string keyword;
    if (!(words >> keyword))
      continue;
    bool ok = true;
    if (keyword == "kiln-kernel-test") {
      int version = 0;
      ok = static_cast<bool>(words >> version) && version == 1;
    } else if (keyword == "case") {
      ok = static_cast<bool>(words >> spec.name);
    } else if (keyword == "skip") {
      std::getline(words, spec.skipReason);
      if (spec.skipReason.empty())
        spec.skipReason = "skipped";
    } else if (keyword == "tolerance") {
      ok = static_cast<bool>(words >> spec.rtol >> spec.atol);
    } else if (keyword == "buffer") {
      BufferSpec buffer;
      ok = static_cast<bool>(words >> buffer.id >> buffer.dtype >>
                             buffer.shape >> buffer.bytes >> buffer.init) &&
           buffer.id == static_cast<int>(spec.buffers.size());
      if (ok && buffer.init.rfind("view:", 0) == 0) {
        // view:SOURCE:OFFSET, within an earlier non-view buffer.
        std::istringstream view(buffer.init.substr(5));
        char colon = 0;
        ok = static_cast<bool>(view >> buffer.viewOf >> colon >>
                               buffer.viewOffset) &&
             colon == ':' && buffer.viewOf >= 0 && buffer.viewOf < buffer.id &&
             spec.buffers[buffer.viewOf].viewOf < 0 &&
             buffer.viewOffset <= spec.buffers[buffer.viewOf].bytes &&
             buffer.bytes <=
                 spec.buffers[buffer.viewOf].bytes - buffer.viewOffset;
      }
      spec.buffers.push_back(buffer);
    } else if (keyword == "kernel") {
      KernelFile kernel;
      ok =
          static_cast<bool>(words >> kernel.name >> kernel.arch >> kernel.file);
      spec.kernels.push_back(kernel);
    } else if (keyword == "launch") {
      LaunchSpec launch;
      ok = static_cast<bool>(words >> launch.kernel >> launch.grid >>
                             launch.block >> launch.sharedBytes);
      // Buffer ids, then optionally `dims` and the dim parameters' values.
      bool dims = false;
      for (std::string word; words >> word;) {
        if (!dims && word == "dims") {
          dims = true;
          continue;
        }
        char *end = nullptr;
        errno = 0;
        long long value = std::strtoll(word.c_str(), &end, 10);
        ok = ok && errno == 0 && end == word.c_str() + word.size();
        if (dims) {
          launch.dims.push_back(value);
          continue;
        }
        ok = ok && value >= 0 &&
             value < static_cast<long long>(spec.buffers.size());
        launch.arguments.push_back(static_cast<int>(value));
      }
      launch.comment = comment;
      spec.launches.push_back(launch);
    } else if (keyword == "check") {
      CheckSpec check;
      ok = static_cast<bool>(words >> check.buffer >> check.dtype >>
                             check.count >> check.file) &&
           check.buffer >= 0 &&
           check.buffer < static_cast<int>(spec.buffers.size());
      spec.checks.push_back(check);
    } else {
      ok = false;
    }
    if (!ok) {
      error = path + ":" + std::to_string(number) + ": bad line '" + line + "'";
      return false;
    }
  }
  if (spec.name.empty()) {
    error = path + ": no 'case' line";
    return false;
  }
  return true;
}

} // namespace kiln::kerneltest
