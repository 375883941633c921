// The launch DAG of a fused function: its kernels in program order, the
// memory each value lives in, the dependencies between kernels, and the
// happens-before order of a recorded stream schedule. Shared by
// kiln-schedule, kiln-plan-memory and the packager (lib/Package).
#ifndef KILN_TRANSFORMS_PLANNING_LAUNCHGRAPH_H
#define KILN_TRANSFORMS_PLANNING_LAUNCHGRAPH_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln {

//===--- Attribute names
//---------------------------------------------------===//
// On kiln.kernel (kiln-schedule):
constexpr const char *kStreamAttr = "stream";            // i64
constexpr const char *kWaitEventsAttr = "wait_events";   // array<i64>
constexpr const char *kRecordEventAttr = "record_event"; // i64
// On the function (kiln-schedule):
constexpr const char *kNumStreamsAttr = "kiln.num_streams";
constexpr const char *kNumEventsAttr = "kiln.num_events";
/// Recorded on stream 0 at entry; waited by streams that read only inputs.
constexpr const char *kForkEventAttr = "kiln.fork_event";
/// Waited on stream 0 at the end, after which every stream has joined it.
constexpr const char *kJoinEventsAttr = "kiln.join_events";
// On kiln.empty (kiln-plan-memory): an activation-arena offset, or the index
// of the function result the buffer is (kernels write outputs directly).
constexpr const char *kArenaOffsetAttr = "arena_offset";
constexpr const char *kResultIndexAttr = "result_index";
// On kiln.constant (kiln-plan-memory): the weight-arena offset.
constexpr const char *kWeightOffsetAttr = "weight_offset";
// On the results of @kiln_init (kiln-plan-memory): the weight-arena offset
// the result is written to.
constexpr const char *kInitWeightOffsetAttr = "kiln.weight_offset";
// On the function (kiln-plan-memory): the peak arena sizes.
constexpr const char *kActivationArenaBytesAttr = "kiln.activation_arena_bytes";
constexpr const char *kWeightArenaBytesAttr = "kiln.weight_arena_bytes";

/// Arena offsets (and sizes) are multiples of this.
constexpr int64_t kArenaAlignment = 256;

//===--- Values and their memory
//-------------------------------------------===//

/// Views outside kernels: an alias of their first operand's memory.
/// Reshape-like ops read all of it (byte offset 0); a slice whose result is
/// one contiguous range of its static operand (a leading-axes slice: `qkv[1]`
/// of a [3, ...] projection) reads that range, at a byte offset that keeps
/// the arena's alignment (kernels, cuBLASLt and cuDNN assume kArenaAlignment
/// for every buffer). std::nullopt for any other op.
std::optional<int64_t> getViewByteOffset(mlir::Operation *op);
bool isViewOp(mlir::Operation *op);

/// Whether |value| covers all of its storage root (getStorageRoot): no
/// slice view on the way.
bool coversStorageRoot(mlir::Value value);

/// The value that owns the memory |value| lives in: views resolve to their
/// source, kernel results to their tied destination (`outs`). The result is
/// a block argument (an input), a kiln.constant, or a kiln.empty.
mlir::Value getStorageRoot(mlir::Value value);

/// The bytes of a static tensor (i1 as one byte per element), or nullopt for
/// a type without a fixed size.
std::optional<int64_t> getTensorBytes(mlir::Type type);

/// The function a module is compiled from: @main, else its only function.
mlir::func::FuncOp getEntryFunction(mlir::ModuleOp module);

//===--- The launch DAG
//----------------------------------------------------===//

struct LaunchGraph {
  /// Every kiln.kernel of the function body, in program order.
  llvm::SmallVector<KernelOp> kernels;
  llvm::DenseMap<mlir::Operation *, unsigned> indexOf;
  /// The kernels each kernel must wait for (read-after-write,
  /// write-after-read and write-after-write on storage roots), ordered by
  /// the kernel's operands: the producer of its first operand comes first.
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> producers;

  /// Builds the DAG; an op other than a kernel, kiln.empty, kiln.constant, a
  /// view or the return at the function's top level is a located error.
  static mlir::FailureOr<LaunchGraph> build(mlir::func::FuncOp function);
};

/// The happens-before order of the schedule recorded on a function's
/// kernels: program order on each stream, plus event edges. Vector clocks:
/// kernel a happens before b when b's clock has seen a's sequence number on
/// a's stream.
class ScheduledOrder {
public:
  /// Reads the schedule attributes; a kernel without a stream, or waiting on
  /// an event not yet recorded, is a located error.
  static mlir::FailureOr<ScheduledOrder> compute(mlir::func::FuncOp function,
                                                 const LaunchGraph &graph);

  bool happensBefore(unsigned a, unsigned b) const {
    return a != b && clocks[b][streams[a]] >= sequence[a];
  }
  unsigned getStream(unsigned kernel) const { return streams[kernel]; }
  unsigned getNumStreams() const { return numStreams; }

private:
  unsigned numStreams = 1;
  llvm::SmallVector<unsigned> streams;
  llvm::SmallVector<int64_t> sequence;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>> clocks;
};

} // namespace kiln

#endif // KILN_TRANSFORMS_PLANNING_LAUNCHGRAPH_H
