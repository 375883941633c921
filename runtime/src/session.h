// The internal representation of a session (kiln_session_t): arena, prepared
// steps, bindings, graph.
#ifndef KILN_RUNTIME_SESSION_H
#define KILN_RUNTIME_SESSION_H

#include "conv.h"
#include "cupti_profile.h"
#include "gemm.h"
#include "model.h"
#include "run_time_shapes.h"

#include "kiln/artifact_format.h"

#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::runtime {

/// A Gemm or Conv step's table at one value of its run-time extent, and the
/// plan built from it (library_shapes.cpp).
struct ShapedLibraryPlan {
  flatbuffers::DetachedBuffer table;
  std::unique_ptr<GemmPlan> gemm;
  std::unique_ptr<ConvPlan> conv;
  std::string algorithm;
};

/// One plan step with everything resolved at session creation.
struct PreparedStep {
  kiln::artifact::StepKind kind = kiln::artifact::StepKind_Launch;
  uint32_t stream = 0;
  std::string name, kindName, onnxNodes;
  std::string symbol; // Launch: the CUDA kernel's symbol, for fault reports.
  std::string algorithm; // Conv: the cuDNN algorithm chosen, for profiles.
  std::vector<uint32_t> args;     // Buffer ids.
  const void *function = nullptr; // Launch: the cudaKernel_t.
  dim3 grid, block;
  unsigned sharedBytes = 0;
  /// Launch with run-time extents: its buckets' kernels (LaunchBucket), in
  /// the manifest's order, which RunTimeShapes::launchChoice indexes.
  struct Bucket {
    const void *function = nullptr;
    dim3 block;
    unsigned sharedBytes = 0;
  };
  std::vector<Bucket> buckets;
  std::unique_ptr<GemmPlan> gemm; // Gemm.
  uint32_t gemmBuffers[5] = {
      0, 0, 0, 0, 0}; // a, b, c, bias, out (c/bias valid if >= 0 below).
  int64_t gemmC = -1, gemmBias = -1;
  std::unique_ptr<ConvPlan> conv;      // Conv.
  uint32_t convBuffers[3] = {0, 0, 0}; // x, w, out.
  int64_t convBias = -1, convResidual = -1;
  /// Gemm/Conv with a run-time extent (Gemm.m_expr, Conv.n_expr; issue
  /// 18): the extent, the value |gemm| or |conv| is built for (from
  /// |libraryTable|, the step's table at that value), and the plans of the
  /// other values seen, which the CUDA graphs captured at them use.
  std::optional<DimExpression> libraryExtent;
  int64_t libraryExtentValue = 0;
  flatbuffers::DetachedBuffer libraryTable;
  std::map<int64_t, ShapedLibraryPlan> otherLibraryPlans;
  /// Gemm/Conv: whether |gemm| or |conv| has its algorithm (autotune.cpp).
  bool algorithmChosen = false;
  size_t copyBytes = 0; // Copy.
  uint64_t bytes = 0, flops = 0; // Traffic and work, for profiles.
  uint32_t event = 0;   // RecordEvent / WaitEvent.
  std::vector<uint32_t> outputs; // Buffers it writes (stepOutputBuffers).

  /// "step 3 'kernel_1' (ONNX nodes: /a/MatMul, /a/Add)", for messages.
  std::string describe(size_t index) const;
};

/// A caller's buffer bound to an input or output. Host buffers go through
/// a device staging buffer and a pinned host buffer of the same size.
struct Binding {
  bool bound = false;
  kiln_memory_t memory = KILN_MEMORY_DEVICE;
  void *user = nullptr; // The caller's pointer.
  size_t bytes = 0;
  void *deviceStaging = nullptr;
  void *pinnedStaging = nullptr;
  /// The device address the plan uses.
  void *deviceAddress() const {
    return memory == KILN_MEMORY_DEVICE ? user : deviceStaging;
  }
};

/// Counts for tests and tools: how the CUDA graph was (re)built.
struct GraphStatistics {
  int captures = 0, updates = 0, instantiations = 0, launches = 0;
};

/// The byte offset at which buffer |id| views the buffer at the end of its
/// alias chain: the chain's offsets summed (a slice view's start; 0 for a
/// reshape or a non-alias).
uint64_t aliasByteOffset(const kiln::artifact::EntryPoint &entry, uint32_t id);
/// Resolves every buffer id of the entry point to a device address: an
/// alias's is the viewed buffer's plus aliasByteOffset.
void resolveAddresses(const kiln_session_s &session,
                      std::vector<void *> *addresses);
/// Builds PreparedSteps (launch checks, cuBLASLt and cuDNN algorithms) for
/// the session's entry point.
kiln_status_t prepareSteps(kiln_session_s *session);
/// Prepares Gemm or Conv step |step| (its plan, at the current shapes when
/// it has a run-time extent; library_shapes.cpp).
kiln_status_t prepareLibraryStep(kiln_session_s *session,
                                 const kiln::artifact::Step &step,
                                 PreparedStep &prepared);
/// Builds the cuBLASLt or cuDNN plan of |prepared| from |gemm| or |conv|
/// (plan.cpp), with operand sizes at the current shapes.
kiln_status_t prepareGemm(kiln_session_s *session,
                          const kiln::artifact::Gemm &gemm,
                          PreparedStep &prepared);
kiln_status_t prepareConv(kiln_session_s *session,
                          const kiln::artifact::Conv &conv,
                          PreparedStep &prepared);
/// Before a run at the current shapes: each Gemm and Conv step with a
/// run-time extent takes its plan for the extent's value, built (and its
/// algorithm chosen) at the first run with that value, kept after. The
/// choice waits for the session's previous run and synchronises the
/// session's own stream, so FAILED_PRECONDITION when |captured| (the
/// caller is capturing the run) and a value is new.
kiln_status_t useLibraryPlansAtShape(kiln_session_s *session, bool captured);
/// Chooses the Conv and Gemm steps' library algorithms: candidates checked
/// against a reference on random operands, then timed on the GPU, or taken
/// from the algorithm cache (autotune.cpp); creates the cuDNN handle when
/// there are Conv steps.
kiln_status_t chooseLibraryAlgorithms(kiln_session_s *session);
/// Enqueues step |index| on |stream| with buffer |addresses|.
kiln_status_t enqueueStep(const kiln_session_s &session, size_t index,
                          const std::vector<void *> &addresses,
                          cudaStream_t stream);
/// Enqueues the whole plan with |origin| as stream 0, forking to the
/// session's other streams and joining back (graph capture uses this too).
kiln_status_t enqueuePlan(kiln_session_s *session,
                          const std::vector<void *> &addresses,
                          cudaStream_t origin);
/// Debug mode: fails when a floating-point buffer written by step |index|
/// holds NaN or Inf (synchronous; copies to the host).
kiln_status_t checkStepOutputs(const kiln_session_s &session, size_t index,
                               const std::vector<void *> &addresses,
                               cudaStream_t stream);
/// Enqueues one run in graph mode, debug mode or profile mode.
kiln_status_t runSession(kiln_session_s *session, cudaStream_t stream);

} // namespace kiln::runtime

struct kiln_session_s {
  kiln_model_s *model = nullptr; // Retained.
  const kiln::artifact::EntryPoint *entry = nullptr;
  size_t entryIndex = 0;
  bool debug = false, checkNanInf = false, profile = false;
  /// Debug mode: kiln_session_set_step_callback's callback and its data.
  kiln_step_callback_t stepCallback = nullptr;
  void *stepCallbackData = nullptr;
  /// Launch steps start with programmatic dependent launch (their kernels
  /// begin with griddepcontrol.wait), unless KILN_PDL=0.
  bool programmaticLaunch = true;
  /// Runs replay the plan captured as a CUDA graph, unless KILN_CUDA_GRAPH=0:
  /// then every run enqueues the plan's steps on their streams (a
  /// diagnostic: the same work and concurrency without graph capture).
  bool cudaGraph = true;
  /// Debug mode, or KILN_POISON_ARENA=1: every run first fills the arena
  /// (activations and workspaces) with 0xff bytes (NaN in f16, bf16 and
  /// f32), so that a step reading memory no step of this run wrote (stale
  /// data from an earlier run, a workspace assumed zeroed) gives NaN instead
  /// of a plausible value; --check-nan then names it.
  bool poisonArena = false;
  /// kiln_session_options_t.keep_step_outputs: activationOffsets[id] is
  /// the arena offset of activation buffer |id| (memory of its own, not the
  /// manifest's shared offset); empty otherwise.
  std::vector<uint64_t> activationOffsets;
  // Activations, then one cuBLASLt/cuDNN workspace a stream.
  void *arena = nullptr;
  size_t arenaBytes = 0;
  /// workspaces[s]: the workspace of plan stream s (NULL without GEMMs);
  /// each is |workspaceBytes| long.
  std::vector<void *> workspaces;
  size_t workspaceBytes = 0;
  cublasLtHandle_t cublas = nullptr;
  /// cudnnHandles[s]: the cuDNN handle of plan stream s, created only for
  /// the streams that have Conv steps (NULL for the others); its stream is
  /// set before each cuDNN call. One handle per stream: steps that run
  /// concurrently never share one (graph-API plans are built on, and bound
  /// to, their stream's handle).
  std::vector<cudnnHandle_t> cudnnHandles;
  /// streams[0] is the session's own origin for graph capture; the others
  /// run the plan's streams 1.. and are forked from / joined to the origin.
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> planEvents, joinEvents;
  cudaEvent_t forkEvent = nullptr, runDone = nullptr;
  bool hasRun = false;
  /// The first device fault a run of this session reported (DEVICE_FAULT):
  /// the context is unusable, and later runs say so without touching it.
  std::string deviceFault;
  /// Bounds-checked artifacts (Model.bounds_checks): the device record the
  /// kernels' failed index checks write, its pinned host copy, and whether a
  /// run was captured into a caller's graph since the record was last read
  /// (a replay may have written it).
  void *boundsRecord = nullptr;
  kiln::artifact::BoundsFaultRecord *boundsRecordHost = nullptr;
  bool replayedSinceBoundsCheck = false;
  std::vector<kiln::runtime::PreparedStep> steps;
  std::vector<kiln::runtime::Binding> inputs, outputs;
  /// Format 3 (ranged dims): the shapes of the next run, set through
  /// kiln_session_set_input_shape; what grids, dim parameters and copies
  /// follow at launch.
  kiln::runtime::RunTimeShapes shapes;
  /// Graph mode: the plan captured for each shape (the ranged dims'
  /// values; one entry, for no dims, without ranges), most recently used
  /// first, at most kGraphCacheShapes. A run at a shape not kept captures
  /// the plan (the least recently used graph beyond the bound is updated
  /// to it); a run whose addresses differ from those its shape's graph was
  /// captured with re-captures and updates that graph in place.
  struct CapturedGraph {
    std::vector<int64_t> dims;
    std::vector<void *> addresses;
    cudaGraphExec_t exec = nullptr;
    bool captured = false; // |exec| holds this shape's plan at |addresses|.
  };
  static constexpr size_t kGraphCacheShapes = 16;
  std::list<CapturedGraph> graphs;
  kiln::runtime::GraphStatistics graphStatistics;
  // Profile mode: events around each step and at the start of the run, and
  // each step captured as a graph of its own (for |stepGraphAddresses|).
  std::vector<cudaEvent_t> stepStart, stepEnd;
  std::vector<cudaGraphExec_t> stepGraphs;
  std::vector<void *> stepGraphAddresses;
  std::vector<int64_t> stepGraphDims;
  cudaEvent_t runStart = nullptr;
  /// Each step's device work in the last run, from CUPTI; empty when the
  /// run had none (|profileSource| says why).
  std::vector<kiln::runtime::StepActivity> stepActivity;
  /// kiln_session_profile_source: "cupti" or "events: <why not>".
  std::string profileSource;
  /// The algorithm cache file (kiln_session_options_t.algorithm_cache_path
  /// or KILN_ALGO_CACHE); empty: none.
  std::string algorithmCachePath;
  /// kiln_session_algorithm_log: one line per library candidate checked
  /// and per choice made at creation.
  std::vector<std::string> algorithmLog;
  std::string algorithmLogText;

  ~kiln_session_s();
};

#endif // KILN_RUNTIME_SESSION_H
