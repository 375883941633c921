// The command line of kiln's LLVM-cl tools: one option category whose options
// --help lists, kiln's --version, and usage errors that exit with status 2.
#ifndef KILN_TOOLS_COMMON_TOOLCOMMANDLINE_H
#define KILN_TOOLS_COMMON_TOOLCOMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

namespace kiln::tools {

/// The category of a tool's own options: give every cl::opt of a kiln tool
/// `llvm::cl::cat(kilnCategory())`.
llvm::cl::OptionCategory &kilnCategory();

/// Adds the registered options named |names| (MLIR's or LLVM's options that
/// the tool documents as its own) to kilnCategory(); names that are not
/// registered are skipped.
void showOptions(llvm::ArrayRef<llvm::StringRef> names);

/// Parses the command line: --help lists only kilnCategory() (LLVM's and
/// MLIR's other options stay accepted; --help-hidden lists them), --version
/// prints printCompilerToolVersion. Returns false after printing the error
/// of a bad command line: the caller exits with kExitUsageOrFileError.
bool parseCommandLine(int argc, char **argv, llvm::StringRef overview);

/// The running tool's name (argv[0]'s file name, once parseCommandLine ran).
llvm::StringRef toolName();

/// Prints "<tool> (kiln) VERSION" and the MLIR, CUDA toolkit, NVRTC and
/// artifact format versions the tool was built with.
void printCompilerToolVersion(llvm::raw_ostream &os);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_TOOLCOMMANDLINE_H
