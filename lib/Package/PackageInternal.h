// Internal: the pieces of the packager (sections and file layout, weight
// bytes, GEMM descriptors, the entry point's buffers and steps).
#ifndef KILN_LIB_PACKAGE_PACKAGEINTERNAL_H
#define KILN_LIB_PACKAGE_PACKAGEINTERNAL_H

#include "kiln/Dialect/Kiln/IR/DimExpr.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"

#include "kiln_artifact_generated.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <deque>
#include <map>
#include <string>
#include <vector>

namespace kiln::package {

/// The raw sections of an artifact, in file order. Bytes are borrowed (cubins,
/// resource blobs the caller keeps alive) or owned (expanded constants).
class SectionList {
public:
  /// Adds a section and returns its index.
  uint32_t add(std::string name, llvm::ArrayRef<char> borrowed);
  uint32_t addOwned(std::string name, std::vector<char> bytes);

  size_t size() const { return names.size(); }
  const std::string &getName(size_t index) const { return names[index]; }
  llvm::ArrayRef<char> getBytes(size_t index) const { return bytes[index]; }

private:
  std::vector<std::string> names;
  std::vector<llvm::ArrayRef<char>> bytes;
  std::deque<std::vector<char>> owned;
};

/// Lays out header, manifest and sections (each 256-byte aligned), fills in
/// |model|'s section table (offsets and FNV-1a hashes) and returns the file.
std::string writeArtifactFile(artifact::ModelT &model,
                              const SectionList &sections);

/// The artifact dtype of |type|'s elements; a located error at |where| for
/// element types the runtime has no dtype for.
mlir::FailureOr<artifact::DType> getArtifactDType(mlir::Operation *where,
                                                  mlir::Type type);

/// The bytes of a constant in row-major order, as the runtime stores them
/// (i1 as one byte per element): borrowed from a resource blob or raw dense
/// data, or expanded into |owned| (splats, booleans).
mlir::LogicalResult getConstantBytes(ConstantOp constant,
                                     std::vector<char> &owned,
                                     llvm::ArrayRef<char> &bytes);

/// The buffer id of a value used inside a library kernel's body (its block
/// arguments stand for the kernel's operands; constants are weights).
using BodyBufferFn = llvm::function_ref<mlir::FailureOr<uint32_t>(mlir::Value)>;

/// A library kernel's run-time extent (issue 18): the product of its
/// result's leading dims up to the last dynamic one (a convolution's N, the
/// rows of a GEMM: batch*seq for [batch, seq, 768]) as an expression of the
/// ranged dims, and its value at the ranges' maximum, at which the step's
/// dims are described.
struct LibraryExtent {
  DimExpr extent;
  int64_t largest = 0;
  /// |type|'s shape with its leading run-time dims collapsed into the last
  /// of them, at |largest|, and the dims before it 1 (the library contract:
  /// the same prefix as the result's).
  llvm::SmallVector<int64_t> shapeOf(mlir::Type type) const;
};
/// |kernel|'s run-time extent; std::nullopt for a static kernel; failure
/// (a located error) when its kiln.dim_exprs do not give one.
mlir::FailureOr<std::optional<LibraryExtent>> getLibraryExtent(KernelOp kernel);

/// Describes the cuBLASLt call of a `library` kernel (one kiln.matmul or
/// kiln.gemm) with the epilogue the kernel records.
mlir::LogicalResult describeGemm(KernelOp kernel, BodyBufferFn bufferOf,
                                 artifact::GemmT &gemm);

/// True when a `library` kernel calls a kiln.conv (a cuDNN Conv step).
bool yieldsConvolution(KernelOp kernel);

/// Describes the cuDNN call of a `library` kernel that calls one kiln.conv
/// (2-D, static, symmetric pads) with the epilogue the kernel records; the
/// caller sets |conv|.out.
mlir::LogicalResult describeConv(KernelOp kernel, BodyBufferFn bufferOf,
                                 artifact::ConvT &conv);

/// Model-level weights, shared by entry points: one weight buffer (and
/// inline section) per weight-arena offset.
struct ExternalRange {
  std::string file;
  uint64_t offset = 0;
};

struct WeightTable {
  artifact::ModelT &model;
  SectionList &sections;
  llvm::DenseMap<int64_t, uint32_t> bufferAtOffset;
  /// Resource keys of the weights that stay in an external-data file.
  std::map<std::string, ExternalRange> external;
};

struct EntryPointCounts {
  unsigned launches = 0, gemms = 0, copies = 0, convs = 0;
  unsigned buckets = 0; // LaunchBuckets of the launches.
};

/// Fills |step| (kind, Gemm or Conv, out) for a `library` kernel; |bufferOf|
/// gives the buffer of a value outside the kernel (its operands, weights).
mlir::LogicalResult describeLibraryStep(KernelOp kernel, BodyBufferFn bufferOf,
                                        artifact::StepT &step,
                                        EntryPointCounts &counts);

/// The floating-point operations of a kernel's attention, convolution and
/// matmul ops (multiply-adds count 2), for profiles; 0 for other kernels.
uint64_t countFlops(KernelOp kernel);

/// Builds the entry point of |function|: I/O signature, buffers and steps.
mlir::LogicalResult
buildEntryPoint(mlir::func::FuncOp function, const LaunchGraph &graph,
                const CUDAModule &cuda, WeightTable &weights,
                uint64_t gemmWorkspaceBytes, uint64_t convWorkspaceBytes,
                artifact::EntryPointT &entry, EntryPointCounts &counts);

} // namespace kiln::package

#endif // KILN_LIB_PACKAGE_PACKAGEINTERNAL_H
