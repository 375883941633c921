// kiln's LLVM-cl tools: their option category, --help without LLVM's
// unrelated options, usage errors as exit status 2.
#include "ToolCommandLine.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln::tools {

namespace {
std::string &toolNameStorage() {
  static std::string name = "kiln";
  return name;
}
} // namespace

llvm::StringRef toolName() { return toolNameStorage(); }

llvm::cl::OptionCategory &kilnCategory() {
  static llvm::cl::OptionCategory category("kiln options");
  return category;
}

void showOptions(llvm::ArrayRef<llvm::StringRef> names) {
  llvm::StringMap<llvm::cl::Option *> &options =
      llvm::cl::getRegisteredOptions();
  for (llvm::StringRef name : names) {
    auto found = options.find(name);
    if (found != options.end())
      found->second->addCategory(kilnCategory());
  }
}

bool parseCommandLine(int argc, char **argv, llvm::StringRef overview) {
  if (argc > 0)
    toolNameStorage() = llvm::sys::path::filename(argv[0]).str();
  llvm::cl::HideUnrelatedOptions(kilnCategory());
  llvm::cl::SetVersionPrinter(printCompilerToolVersion);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  bool ok =
      llvm::cl::ParseCommandLineOptions(argc, argv, overview, &errorStream);
  errorStream.flush();
  // LLVM's message names the option and suggests --help.
  if (!ok)
    llvm::errs() << errors;
  return ok;
}

} // namespace kiln::tools
