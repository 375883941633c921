// Reading and writing the algorithm cache file (algorithm_cache.h).
#include "algorithm_cache.h"
#include "status.h"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

namespace kiln::runtime {

namespace {
constexpr const char *kHeader = "kiln-algorithm-cache 1";

/// |text| with tabs and line breaks as spaces (a field of the file).
std::string field(std::string text) {
  for (char &c : text)
    if (c == '\t' || c == '\n' || c == '\r')
      c = ' ';
  return text;
}
} // namespace

std::string AlgorithmCache::machineKeyOf(int device) {
  cudaDeviceProp properties{};
  std::ostringstream key;
  if (cudaGetDeviceProperties(&properties, device) == cudaSuccess)
    key << properties.name << " sm_" << properties.major << properties.minor;
  else
    key << "device " << device;
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  key << " driver " << driver << " cudart " << runtime << " cudnn "
      << cudnnGetVersion() << " cublasLt " << cublasLtGetVersion();
  return field(key.str());
}

kiln_status_t AlgorithmCache::load(const std::string &path,
                                   const std::string &machineKey) {
  machine = machineKey;
  entries.clear();
  modified = false;
  std::ifstream file(path);
  if (!file) {
    std::FILE *probe = std::fopen(path.c_str(), "r");
    if (!probe)
      return nullptr; // Not written yet: this session writes it.
    std::fclose(probe);
    return Error(KILN_STATUS_NOT_FOUND)
           << "cannot read the algorithm cache '" << path << "'";
  }
  std::string line;
  size_t number = 0;
  while (std::getline(file, line)) {
    ++number;
    if (number == 1) {
      if (line != kHeader)
        return Error(KILN_STATUS_INVALID_ARGUMENT)
               << "'" << path << "' is not a kiln algorithm cache (its first "
               << "line is not \"" << kHeader << "\")";
      continue;
    }
    if (line.empty())
      continue;
    std::vector<std::string> parts;
    std::istringstream fields(line);
    for (std::string part; std::getline(fields, part, '\t');)
      parts.push_back(part);
    if (parts.size() != 4 || parts[0].empty() || parts[2].empty() ||
        parts[3].empty())
      return Error(KILN_STATUS_INVALID_ARGUMENT)
             << "algorithm cache '" << path << "' line " << number
             << ": expected <kind> <machine> <configuration> <choice> "
                "separated by tabs";
    entries[{parts[0], parts[1], parts[2]}] = parts[3];
  }
  return nullptr;
}

kiln_status_t AlgorithmCache::save(const std::string &path) const {
  std::string temporary = path + ".tmp" + std::to_string(uintptr_t(this));
  {
    std::ofstream file(temporary, std::ios::trunc);
    if (!file)
      return Error(KILN_STATUS_NOT_FOUND)
             << "cannot write the algorithm cache '" << temporary << "'";
    file << kHeader << '\n';
    for (const auto &[key, choice] : entries)
      file << std::get<0>(key) << '\t' << std::get<1>(key) << '\t'
           << std::get<2>(key) << '\t' << choice << '\n';
    if (!file.flush())
      return Error(KILN_STATUS_DATA_LOSS)
             << "writing the algorithm cache '" << temporary << "' failed";
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return Error(KILN_STATUS_NOT_FOUND)
           << "cannot replace the algorithm cache '" << path << "'";
  }
  return nullptr;
}

const std::string *
AlgorithmCache::find(const std::string &kind,
                     const std::string &configuration) const {
  auto found = entries.find({kind, machine, configuration});
  return found == entries.end() ? nullptr : &found->second;
}

void AlgorithmCache::store(const std::string &kind,
                           const std::string &configuration,
                           const std::string &choice) {
  std::string &entry = entries[{kind, machine, field(configuration)}];
  modified |= entry != choice;
  entry = field(choice);
}

void AlgorithmCache::forget(const std::string &kind,
                            const std::string &configuration) {
  modified |= entries.erase({kind, machine, field(configuration)}) > 0;
}

} // namespace kiln::runtime
