// The algorithm cache file (like TensorRT's timing cache): the library
// algorithm that each Conv and Gemm configuration chose, keyed by the
// machine (GPU, driver, CUDA runtime, cuDNN and cuBLASLt versions) and the
// step's configuration, so that later sessions take the same choices and
// give bit-identical outputs.
//
// The file is text: a first line "kiln-algorithm-cache 1", then one entry a
// line, "<kind>\t<machine>\t<configuration>\t<choice>" (kind: conv or gemm).
// Entries of other machines are kept when the file is written back.
#ifndef KILN_RUNTIME_ALGORITHM_CACHE_H
#define KILN_RUNTIME_ALGORITHM_CACHE_H

#include "kiln/runtime.h"

#include <map>
#include <string>
#include <tuple>

namespace kiln::runtime {

class AlgorithmCache {
public:
  /// The key of the machine the session runs on (|device|): its GPU name
  /// and compute capability, the driver and CUDA runtime versions, and
  /// cuDNN's and cuBLASLt's versions.
  static std::string machineKeyOf(int device);

  /// Reads |path| (a file that does not exist yet is an empty cache); an
  /// unreadable or malformed file is an error naming it and the line.
  kiln_status_t load(const std::string &path, const std::string &machine);
  /// Writes every entry to |path| (through a temporary file renamed over
  /// it, so that a concurrent reader sees the old or the new file).
  kiln_status_t save(const std::string &path) const;

  /// This machine's choice for (|kind|, |configuration|), or NULL.
  const std::string *find(const std::string &kind,
                          const std::string &configuration) const;
  void store(const std::string &kind, const std::string &configuration,
             const std::string &choice);
  void forget(const std::string &kind, const std::string &configuration);
  /// Entries stored or forgotten since load (nothing to write otherwise).
  bool changed() const { return modified; }

private:
  std::string machine;
  std::map<std::tuple<std::string, std::string, std::string>, std::string>
      entries; // (kind, machine, configuration) -> choice
  bool modified = false;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_ALGORITHM_CACHE_H
