// kiln-compile's command-line options (defined in CompileOptions.cpp) and the
// phases that --emit chooses between.
#ifndef KILN_TOOLS_KILN_COMPILE_COMPILEOPTIONS_H
#define KILN_TOOLS_KILN_COMPILE_COMPILEOPTIONS_H

#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln::compile {

/// The phases in pipeline order; --emit stops after one of them.
enum class Phase { Import, Graph, Fused, Tiled, Planned, Cuda, Artifact };

/// What -o's extension selects when --emit is not given: .kiln the artifact,
/// .mlir the graph IR, .cu the CUDA; "-" (stdout) the graph IR. None for any
/// other extension.
std::optional<Phase> phaseForOutputFile(llvm::StringRef path);

extern llvm::cl::opt<std::string> inputFile;
extern llvm::cl::opt<std::string> outputFile;
extern llvm::cl::opt<Phase> emit;
extern llvm::cl::opt<std::string> gpuArchs;
extern llvm::cl::opt<bool> keepPTX;
extern llvm::cl::opt<unsigned> kernelsPerProgram;
extern llvm::cl::opt<int64_t> maxStreams;
extern llvm::cl::opt<bool> launchBuckets;
extern llvm::cl::opt<uint64_t> gemmWorkspaceBytes;
extern llvm::cl::opt<uint64_t> convWorkspaceBytes;
extern llvm::cl::list<std::string> inputShapes;
extern llvm::cl::list<std::string> bindInputOptions;
extern llvm::cl::opt<bool> printShapeInputs;
extern llvm::cl::opt<bool> quiet;
extern llvm::cl::opt<int64_t> inlineElementLimit;
extern llvm::cl::opt<int64_t> printElementLimit;
extern llvm::cl::opt<std::string> precision;
extern llvm::cl::opt<bool> boundsChecks;
extern llvm::cl::opt<bool> externalWeights;
extern llvm::cl::opt<bool> inlineWeights;
extern llvm::cl::opt<uint64_t> externalWeightsThreshold;
extern llvm::cl::opt<bool> printWeights;

} // namespace kiln::compile

#endif // KILN_TOOLS_KILN_COMPILE_COMPILEOPTIONS_H
