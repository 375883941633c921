// kiln-compile's command-line options: what to compile, where to write it,
// which phase to stop after, and the knobs of each phase.
#include "CompileOptions.h"
#include "ToolCommandLine.h"

#include "kiln/Target/CUDA/NVRTCCompiler.h"

#include "llvm/Support/Path.h"

namespace kiln::compile {

std::optional<Phase> phaseForOutputFile(llvm::StringRef path) {
  if (path == "-")
    return Phase::Graph;
  llvm::StringRef extension = llvm::sys::path::extension(path);
  if (extension == ".kiln")
    return Phase::Artifact;
  if (extension == ".mlir")
    return Phase::Graph;
  if (extension == ".cu")
    return Phase::Cuda;
  return std::nullopt;
}

llvm::cl::opt<std::string>
    inputFile(llvm::cl::Positional, llvm::cl::desc("<model.onnx>"),
              llvm::cl::Required, llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<std::string> outputFile(
    "o",
    llvm::cl::desc("Output file (default: stdout). Without --emit its "
                   "extension says what to write: .kiln the artifact, .mlir "
                   "the IR after the graph passes, .cu the CUDA C++; any "
                   "other extension needs --emit"),
    llvm::cl::value_desc("file"), llvm::cl::init("-"),
    llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<Phase> emit(
    "emit", llvm::cl::desc("The phase whose result is written"),
    llvm::cl::values(
        clEnumValN(Phase::Import, "import",
                   "The imported kiln IR (specialised when --input-shape is "
                   "given, nothing folded)"),
        clEnumValN(Phase::Graph, "graph",
                   "After the graph passes: specialised, folded, simplified"),
        clEnumValN(Phase::Fused, "fused",
                   "After fusion: kiln.kernel regions (needs static shapes)"),
        clEnumValN(Phase::Tiled, "tiled",
                   "After tiling: kernels with launch geometry attributes"),
        clEnumValN(Phase::Planned, "planned",
                   "After scheduling and memory planning: streams, events, "
                   "arena offsets"),
        clEnumValN(Phase::Cuda, "cuda", "The CUDA C++ of every unique kernel"),
        clEnumValN(Phase::Artifact, "artifact",
                   "The .kiln artifact (the default when -o ends in .kiln)")),
    llvm::cl::init(Phase::Graph), llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<std::string> gpuArchs(
    "gpu-arch",
    llvm::cl::desc("GPU architectures to build cubins for, e.g. sm_90,sm_80"),
    llvm::cl::init("sm_90"), llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<bool> keepPTX(
    "ptx",
    llvm::cl::desc("Also keep PTX for GPUs newer than every arch (default on)"),
    llvm::cl::init(true), llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<unsigned> kernelsPerProgram(
    "kernels-per-program",
    llvm::cl::desc("Most kernels one NVRTC program compiles (1: each alone)"),
    llvm::cl::init(kiln::NVRTCOptions().kernelsPerProgram),
    llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<int64_t>
    maxStreams("max-streams",
               llvm::cl::desc("Most CUDA streams the schedule uses"),
               llvm::cl::init(4), llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<bool> launchBuckets(
    "buckets",
    llvm::cl::desc("With ranged dims, specialise a kernel for the smaller "
                   "counts where its configuration would differ (buckets; "
                   "--buckets=false runs every count with the configuration "
                   "of the ranges' maximum)"),
    llvm::cl::init(true), llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<uint64_t> gemmWorkspaceBytes(
    "gemm-workspace-bytes",
    llvm::cl::desc("cuBLASLt workspace after the activation arena"),
    llvm::cl::init(32ull << 20), llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<uint64_t> convWorkspaceBytes(
    "conv-workspace-bytes",
    llvm::cl::desc("Most workspace a cuDNN convolution algorithm may use"),
    llvm::cl::init(64ull << 20), llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::list<std::string> inputShapes(
    "input-shape",
    llvm::cl::desc("Input or dimension sizes: name=8x128 or seq=128, or a "
                   "dimension's range seq=16..512[:opt] (repeatable, "
                   "comma-separated)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::list<std::string> bindInputOptions(
    "bind-input",
    llvm::cl::desc(
        "Bind graph input NAME to the constant in FILE (TensorProto .pb or "
        ".npy), removing it from the signature (repeatable). Allowed only "
        "for inputs that feed shape positions (Reshape/Expand shape, Slice "
        "starts/ends/axes/steps, Squeeze/Unsqueeze/Reduce* axes, Tile "
        "repeats, Pad pads/axes, Resize roi/scales/sizes, TopK/Trilu k, "
        "Range, ConstantOfShape, OneHot depth, Split split, Loop trip "
        "count and cond); any other "
        "input is an error and stays a runtime input"),
    llvm::cl::value_desc("name=file.pb"),
    llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<bool> printShapeInputs(
    "print-shape-inputs",
    llvm::cl::desc("Print the graph inputs that feed only shape positions "
                   "(those --bind-input accepts), one per line, and exit"),
    llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<bool> quiet("quiet", llvm::cl::desc("No progress lines"),
                          llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<int64_t> inlineElementLimit(
    "inline-element-limit",
    llvm::cl::desc("Initializers with more elements become resource blobs"),
    llvm::cl::init(64), llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<int64_t> printElementLimit(
    "print-element-limit",
    llvm::cl::desc("Elements attributes with more elements print elided"),
    llvm::cl::init(256), llvm::cl::cat(kiln::tools::kilnCategory()));

llvm::cl::opt<std::string> precision(
    "precision",
    llvm::cl::desc("Compute precision: fp32 (default; GEMMs without TF32), "
                   "tf32 (fp32 GEMMs may use TF32), fp16 or bf16 (fp32 "
                   "accumulation, softmax and norm statistics in fp32)"),
    llvm::cl::init("fp32"), llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<bool> boundsChecks(
    "bounds-checks",
    llvm::cl::desc("Check every data-dependent index (Gather, GatherElements, "
                   "GatherND, ScatterElements, ScatterND) on the device: an "
                   "index out of range fails the run with the step, its ONNX "
                   "nodes, the index, the bound and the axis instead of "
                   "being clamped (artifact format 2)"),
    llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<bool> externalWeights(
    "external-weights",
    llvm::cl::desc("Leave weights that come from the model's ONNX external "
                   "data in that file; the artifact references them by file, "
                   "offset, length and hash (default: when they exceed "
                   "--external-weights-threshold)"),
    llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<bool>
    inlineWeights("inline-weights",
                  llvm::cl::desc("Copy every weight into the artifact"),
                  llvm::cl::cat(kiln::tools::kilnCategory()));
llvm::cl::opt<uint64_t> externalWeightsThreshold(
    "external-weights-threshold",
    llvm::cl::desc("Bytes of external-data weights above which they stay "
                   "external without --external-weights"),
    llvm::cl::init(64ull << 20), llvm::cl::cat(kiln::tools::kilnCategory()));

llvm::cl::opt<bool> printWeights(
    "print-weights",
    llvm::cl::desc("Also print the weight blobs (as hex), so that the output "
                   "parses back with its weights"),
    llvm::cl::cat(kiln::tools::kilnCategory()));

} // namespace kiln::compile
