// Finding tensor files: dispatch on the extension and ordered directory reads
// (input_0.pb, input_1.pb, ..., input_10.pb).
#include "kiln/Evaluator/TensorIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace kiln::eval {

llvm::Expected<NamedTensor> readTensorFile(const std::string &path) {
  llvm::StringRef extension = llvm::sys::path::extension(path);
  if (extension == ".pb")
    return readTensorProto(path);
  if (extension == ".npy")
    return readNpy(path);
  return llvm::createStringError("%s: unknown tensor file type (expected .pb "
                                 "or .npy)",
                                 path.c_str());
}

llvm::Expected<std::vector<NamedTensor>>
readTensorDirectory(const std::string &directory, const std::string &prefix) {
  struct Entry {
    std::string path;
    std::string stem;
    std::optional<uint64_t> number; // N in <prefix>_N.
  };
  std::vector<Entry> entries;
  std::error_code error;
  if (!llvm::sys::fs::is_directory(directory))
    return llvm::createStringError("%s is not a directory", directory.c_str());
  for (llvm::sys::fs::directory_iterator it(directory, error), end;
       it != end && !error; it.increment(error)) {
    llvm::StringRef path = it->path();
    llvm::StringRef extension = llvm::sys::path::extension(path);
    if (extension != ".pb" && extension != ".npy")
      continue;
    llvm::StringRef stem = llvm::sys::path::stem(path);
    if (!stem.starts_with(prefix))
      continue;
    Entry entry{path.str(), stem.str(), std::nullopt};
    llvm::StringRef suffix = stem.drop_front(prefix.size());
    uint64_t number;
    if (suffix.consume_front("_") && !suffix.getAsInteger(10, number))
      entry.number = number;
    entries.push_back(std::move(entry));
  }
  if (error)
    return llvm::createStringError(error, "cannot list %s: %s",
                                   directory.c_str(), error.message().c_str());
  bool numbered = llvm::all_of(
      entries, [](const Entry &entry) { return entry.number.has_value(); });
  std::sort(entries.begin(), entries.end(),
            [numbered](const Entry &a, const Entry &b) {
              if (numbered && *a.number != *b.number)
                return *a.number < *b.number;
              return a.stem < b.stem;
            });
  std::vector<NamedTensor> tensors;
  for (const Entry &entry : entries) {
    llvm::Expected<NamedTensor> tensor = readTensorFile(entry.path);
    if (!tensor)
      return tensor.takeError();
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}

} // namespace kiln::eval
