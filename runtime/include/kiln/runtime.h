// The kiln runtime's C API: load a .kiln artifact, bind inputs and outputs, run
// it on a CUDA stream. docs/embedding.md shows how to build against it.
#ifndef KILN_RUNTIME_H
#define KILN_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

// ===--- Versions --------------------------------------------------------===//
//
// KILN_RUNTIME_API_VERSION counts incompatible changes to this C API and ABI:
// a function removed or changed, a field moved or retyped. It is the shared
// library's SONAME (libkiln_runtime.so.1 for API version 1). Compatible
// additions keep it: new functions, and new fields appended to the option
// structs (whose struct_size tells the library which fields a caller knows).
//
// Artifact compatibility: a runtime loads the .kiln format versions from 1 to
// the one kiln_runtime_artifact_format_version returns (the artifact header's
// format version; kiln-inspect prints it). The compiler bumps that version on
// any change an older runtime would misread; additions an older runtime can
// ignore keep it. Version 2 is version 1 with bounds-checked kernels
// (kiln-compile --bounds-checks); the compiler writes it for those artifacts
// only, so that the others still load in a version-1 runtime. An artifact of
// another format version is rejected with KILN_STATUS_INCOMPATIBLE; recompile
// the model with a kiln-compile of this runtime's version. The driver and
// GPU-arch checks of kiln_model_load come on top of this rule.
#define KILN_RUNTIME_API_VERSION 1

// The library's version, "MAJOR.MINOR.PATCH" (the kiln release it is part of;
// CMake's find_package(kiln) and pkg-config see the same). A static string.
const char *kiln_runtime_version(void);
// The KILN_RUNTIME_API_VERSION the library was built with: a program that
// loads the library itself (dlopen, a Python extension) compares it with its
// header's.
uint32_t kiln_runtime_api_version(void);
// The newest .kiln artifact format version this library loads (the rule
// above).
uint32_t kiln_runtime_artifact_format_version(void);

// ===--- Status ----------------------------------------------------------===//
//
// Every fallible call returns a kiln_status_t. NULL means success; anything
// else is an error that the caller owns and frees with kiln_status_free.
// Statuses are plain values: they may be passed between threads.

typedef enum kiln_status_code_e {
  KILN_STATUS_OK = 0,
  KILN_STATUS_INVALID_ARGUMENT =
      1, // A bad argument (NULL, unknown name, shape, alignment).
  KILN_STATUS_NOT_FOUND = 2, // A file or named entity does not exist.
  KILN_STATUS_DATA_LOSS =
      3, // A truncated or corrupted artifact or weight file.
  KILN_STATUS_INCOMPATIBLE = 4, // Format version, driver or GPU arch mismatch.
  KILN_STATUS_UNAVAILABLE = 5,  // No CUDA device (or no usable driver).
  KILN_STATUS_RESOURCE_EXHAUSTED = 6, // Out of device or host memory.
  KILN_STATUS_FAILED_PRECONDITION =
      7, // Wrong call order (e.g. an unbound input at run).
  KILN_STATUS_CUDA_ERROR =
      8, // A CUDA or cuBLAS call failed; the message names it.
  KILN_STATUS_NUMERIC_ERROR =
      9, // Debug mode found NaN or Inf in a step's output.
  KILN_STATUS_INTERNAL = 10,
  KILN_STATUS_DEVICE_FAULT =
      11, // A kernel faulted (illegal address, trap, ...): the CUDA context
          // is unusable and every later CUDA call in the process fails.
          // Only a new process recovers; KILN_DEBUG=1 names the kernel.
  KILN_STATUS_CANCELLED = 12, // A caller's callback stopped the operation.
} kiln_status_code_t;

typedef struct kiln_status_s *kiln_status_t;

// The code of |status|; KILN_STATUS_OK for NULL.
kiln_status_code_t kiln_status_code(kiln_status_t status);
// The message of |status| ("" for NULL). Owned by |status|: valid until it is
// freed.
const char *kiln_status_message(kiln_status_t status);
// Frees |status|; NULL is allowed.
void kiln_status_free(kiln_status_t status);
// A short name for |code| ("DATA_LOSS"); a static string.
const char *kiln_status_code_name(kiln_status_code_t code);

// ===--- Tensors
// -----------------------------------------------------------===//

// Element types. 0 means "unspecified" (no check); the others are the
// artifact schema's DType values plus one.
typedef enum kiln_dtype_e {
  KILN_DTYPE_UNSPECIFIED = 0,
  KILN_DTYPE_BOOL,
  KILN_DTYPE_I8,
  KILN_DTYPE_I16,
  KILN_DTYPE_I32,
  KILN_DTYPE_I64,
  KILN_DTYPE_U8,
  KILN_DTYPE_U16,
  KILN_DTYPE_U32,
  KILN_DTYPE_U64,
  KILN_DTYPE_F16,
  KILN_DTYPE_BF16,
  KILN_DTYPE_F32,
  KILN_DTYPE_F64,
} kiln_dtype_t;

// Bytes per element of |dtype|; 0 for KILN_DTYPE_UNSPECIFIED.
size_t kiln_dtype_size(kiln_dtype_t dtype);
// "f32", "bf16", ...; a static string.
const char *kiln_dtype_name(kiln_dtype_t dtype);

// One input or output of an entry point, as the artifact declares it. The
// pointers are owned by the model and stay valid until it is released.
typedef struct kiln_tensor_info_s {
  const char *name; // The ONNX input/output name.
  kiln_dtype_t dtype;
  size_t rank;
  const int64_t *dims; // |rank| dims.
  size_t bytes;        // The size a bound buffer must have.
} kiln_tensor_info_t;

typedef enum kiln_memory_e {
  KILN_MEMORY_DEVICE = 0, // |data| is device memory of the session's device.
  KILN_MEMORY_HOST = 1, // |data| is host memory, copied through pinned staging.
} kiln_memory_t;

// A caller's buffer to bind. |dims|/|rank| and |dtype| are optional
// declarations: when given, they must equal the artifact's (the error names
// the tensor and both shapes). Use kiln_device_tensor/kiln_host_tensor.
typedef struct kiln_tensor_s {
  void *data;
  size_t bytes; // Must equal kiln_tensor_info_t.bytes.
  kiln_memory_t memory;
  kiln_dtype_t dtype;  // KILN_DTYPE_UNSPECIFIED: not checked.
  const int64_t *dims; // NULL: not checked. Read during the bind call only.
  size_t rank;
} kiln_tensor_t;

static inline kiln_tensor_t kiln_device_tensor(void *data, size_t bytes) {
  kiln_tensor_t tensor = {
      data, bytes, KILN_MEMORY_DEVICE, KILN_DTYPE_UNSPECIFIED, NULL, 0};
  return tensor;
}
static inline kiln_tensor_t kiln_host_tensor(void *data, size_t bytes) {
  kiln_tensor_t tensor = {data, bytes, KILN_MEMORY_HOST, KILN_DTYPE_UNSPECIFIED,
                          NULL, 0};
  return tensor;
}

// ===--- Model
// -------------------------------------------------------------===//
//
// A loaded artifact: its manifest, kernels loaded into the CUDA context and
// its weights in one device arena. A model is immutable after load: every
// kiln_model_* query is thread-safe. It is reference-counted; sessions hold a
// reference, so releasing the model while sessions live is allowed.

typedef struct kiln_model_s kiln_model_t;

// Option structs can grow: a later runtime appends fields. Always fill one
// with its _init function, which sets |struct_size| to the size this header
// declares and every field to its default, then change fields. The runtime
// reads only the first |struct_size| bytes (fields beyond them keep their
// defaults) and rejects a struct_size it does not know (0: never
// initialised, or larger than its own struct: a header newer than the
// library) with KILN_STATUS_INVALID_ARGUMENT.
typedef struct kiln_load_options_s {
  size_t struct_size; // sizeof(kiln_load_options_t), set by the _init.
  int device_ordinal; // The CUDA device for the weight arena (default 0).
  const char *external_data_dir; // Where external weight files are looked up;
                                 // NULL: the artifact's directory.
} kiln_load_options_t;

// Sets struct_size and the defaults: device 0, external weights beside the
// artifact.
void kiln_load_options_init(kiln_load_options_t *options);

// Loads the artifact at |path|. The file is checked completely (header,
// manifest, every section's bounds and hash, every index, arena sizes and
// offsets) before anything is used: a corrupted or truncated file, or a
// manifest whose indices and sizes are inconsistent, is an error status.
// The hashes detect damage, not tampering: a hand-crafted artifact with
// re-computed hashes can still make a kernel read or write out of bounds, so
// load only artifacts you trust. Then the driver version and GPU arch are
// checked, kernels loaded and weights uploaded.
// |options| may be NULL. On success the caller owns |*out_model| and releases
// it with kiln_model_release. Thread-safe. Synchronises the device.
kiln_status_t kiln_model_load(const char *path,
                              const kiln_load_options_t *options,
                              kiln_model_t **out_model);

// As kiln_model_load, from |size| bytes at |data|, which need only live
// during the call. External weights need options->external_data_dir.
kiln_status_t kiln_model_load_from_memory(const void *data, size_t size,
                                          const kiln_load_options_t *options,
                                          kiln_model_t **out_model);

// Adds a reference to |model|, released by another kiln_model_release.
// Thread-safe (atomic).
void kiln_model_retain(kiln_model_t *model);

// Drops the caller's reference; the model is freed with its last session.
// NULL is allowed. Thread-safe (atomic), but the handle must not be used
// by the caller afterwards.
void kiln_model_release(kiln_model_t *model);

// Entry points ("main", or shape buckets sharing the weights).
size_t kiln_model_entry_point_count(const kiln_model_t *model);
// The name of entry point |index|; NULL when out of range. Owned by the model.
const char *kiln_model_entry_point_name(const kiln_model_t *model,
                                        size_t index);

// Signature of entry point |entry_point| (an index). Counts are 0 when the
// entry point does not exist.
size_t kiln_model_input_count(const kiln_model_t *model, size_t entry_point);
size_t kiln_model_output_count(const kiln_model_t *model, size_t entry_point);
kiln_status_t kiln_model_input_info(const kiln_model_t *model,
                                    size_t entry_point, size_t index,
                                    kiln_tensor_info_t *out_info);
kiln_status_t kiln_model_output_info(const kiln_model_t *model,
                                     size_t entry_point, size_t index,
                                     kiln_tensor_info_t *out_info);
// Metadata strings from the artifact (owned by the model).
const char *kiln_model_source(const kiln_model_t *model); // The ONNX file.
const char *kiln_model_cuda_version(const kiln_model_t *model); // e.g. "13.0".

// ===--- Session
// -----------------------------------------------------------===//
//
// One entry point of a model ready to run: its activation arena (with one
// cuBLASLt workspace per stream), streams, events, cuBLASLt algorithms and,
// after the
// first run, a CUDA graph of its plan. A session is NOT thread-safe: use one
// thread at a time (different sessions may run concurrently). Successive runs
// of one session are ordered on the device even on different streams.

typedef struct kiln_session_s kiln_session_t;

typedef struct kiln_session_options_s {
  size_t struct_size;      // sizeof(kiln_session_options_t), set by the _init.
  const char *entry_point; // NULL: the first entry point.
  int device_ordinal; // -1: the model's device (others are an error for now).
  int debug;          // 1: no graph; synchronise after each step and name the
                      // failing step (its ONNX nodes and CUDA kernel: device
                      // faults too). Also enabled by the env var KILN_DEBUG=1.
  int check_nan_inf;  // Debug mode: fail on NaN/Inf in a floating step output.
  int profile;        // Step by step, one stream, CUDA events around each
                      // step (kiln_session_step_profile); each step is
                      // replayed from a CUDA graph of its own so that the
                      // events time GPU work, not host enqueueing. Also
                      // times each step's kernels exactly with CUPTI when
                      // libcupti loads (kiln_session_profile_source).
  const char *algorithm_cache_path; // The algorithm cache file (NULL: the
                      // env var KILN_ALGO_CACHE, else none). Session
                      // creation takes each Conv/Gemm configuration's choice
                      // from it (after checking the choice's output) and
                      // writes the choices it makes to it, keyed by GPU,
                      // driver, CUDA, cuDNN and cuBLASLt versions: sessions
                      // of one artifact on one machine then run the same
                      // algorithms and give bit-identical outputs.
  int keep_step_outputs; // 1: every activation buffer gets memory of its own
                      // (the arena grows to the sum of their sizes, instead
                      // of reusing memory by liveness), so that after a run
                      // -- graph, streams and all, as it would run otherwise
                      // -- every step's outputs stay readable through
                      // kiln_session_step_output until the next run, unless
                      // a later step writes the same buffer. For dumps of a
                      // normal run (kiln-run --dump-after-run), where debug
                      // mode's synchronisation would hide a race.
} kiln_session_options_t;

// Sets struct_size and the defaults: first entry point, model's device, no
// debug, no profile.
void kiln_session_options_init(kiln_session_options_t *options);

// Creates a session for |model| (which it retains). Allocates the arena once
// (RESOURCE_EXHAUSTED naming the bytes asked for and the bytes free when it
// does not fit) and chooses the cuBLASLt and cuDNN algorithms: every
// candidate runs on seeded random operands and its output is checked against
// a reference (a double-precision host computation at sampled elements, and
// the first passing candidate's output) within the precision's tolerance;
// only those that pass compete on GPU time, close times are measured again,
// and ties go to a fixed candidate order, so that two sessions choose alike.
// |options| may be NULL. On success the
// caller owns |*out_session| and releases it with kiln_session_release.
kiln_status_t kiln_session_create(kiln_model_t *model,
                                  const kiln_session_options_t *options,
                                  kiln_session_t **out_session);

// The algorithm log of session creation in |*out_log| (owned by the
// session; valid until it is released): one line per library candidate
// checked ("step 12 'conv_3' (ONNX nodes: ...): candidate winograd: ok
// rel_l2=... max_err=..., 0.0213 ms" or "... REJECTED: does not match the
// reference, ...") and per choice made. Debug mode also prints it to stderr.
// Session creation that fails because no candidate of a step matches says
// so; kiln-run --algo-log prints the log.
kiln_status_t kiln_session_algorithm_log(const kiln_session_t *session,
                                         const char **out_log);

// Synchronises with the session's last run, then frees it. NULL is allowed.
void kiln_session_release(kiln_session_t *session);

// Binds the caller's buffer to input or output |name|. Device pointers must
// be 16-byte aligned and stay valid (and, for inputs, unchanged) until the
// runs that use them complete. Host buffers are staged: inputs are read and
// outputs written when the stream reaches the run, so synchronise the stream
// before reading outputs or changing inputs. Binding another pointer makes
// the next run update its CUDA graph. |tensor| is read during the call only.
//
// Bound device memory of an output must not overlap any input's or another
// output's (kernels take their pointers as __restrict__); inputs may share
// memory. kiln_session_run rejects overlapping device ranges with a status
// naming both bindings.
//
// Blocking: when the new or the previously bound buffer of |name| is host
// memory, this waits for the session's previous run to complete (its host
// callbacks may still read or write that buffer). Binding device memory in
// place of device memory never waits.
kiln_status_t kiln_session_bind_input(kiln_session_t *session, const char *name,
                                      const kiln_tensor_t *tensor);
kiln_status_t kiln_session_bind_output(kiln_session_t *session,
                                       const char *name,
                                       const kiln_tensor_t *tensor);

// Artifacts compiled with ranged dims (kiln-compile --input-shape
// batch=1..64; format 3): kiln_model_input_info gives each input's and
// output's largest shape and bytes. Sets input |name|'s shape for the next
// runs: each dim is the artifact's static size or a value in its ranged
// dim's range, and dims that are expressions of ranged dims (batch*seq)
// must agree with the others; INVALID_ARGUMENT naming the input, the dim,
// its name and the range otherwise, and nothing changes. A ranged dim never
// set is its range's hi (the shapes kiln_model_input_info gives). Binding an
// input with |dims| sets its shape too. The next run needs every input and
// output bound with the bytes of its shape then (INVALID_ARGUMENT otherwise).
// The session keeps a CUDA graph for each of the 16 shapes it ran most
// recently; a run at another shape captures the plan again. The first run at a
// shape that gives a cuBLASLt or cuDNN call a size it has not run at (a GEMM's
// M, a convolution's batch) builds that call and chooses its algorithm, as
// session creation does (it waits for the session's previous run;
// FAILED_PRECONDITION when the caller is capturing that run into a graph of its
// own). For an artifact without ranged dims the shape must be the artifact's.
// Not thread-safe with other calls on |session|.
kiln_status_t kiln_session_set_input_shape(kiln_session_t *session,
                                           const char *name,
                                           const int64_t *dims, size_t rank);

// The shape of input or output |name| at the session's current shapes: its
// rank in |*out_rank| and, when |capacity| >= the rank, its dims in |dims|
// (else INVALID_ARGUMENT, with |*out_rank| set). NOT_FOUND for an unknown
// name.
kiln_status_t kiln_session_tensor_shape(const kiln_session_t *session,
                                        const char *name, int64_t *dims,
                                        size_t capacity, size_t *out_rank);

// Enqueues one run on |stream| (0: the legacy default stream) and returns
// without waiting: no host synchronisation, except in debug mode, which
// synchronises after each step, and profile mode with CUPTI, which waits for
// the steps at the end of the run to read CUPTI's records. Every input and
// output must be bound, and bound device outputs must not overlap inputs or
// each other (INVALID_ARGUMENT). A run that fails after enqueueing work still
// orders the session's next run, bind and release after that work.
//
// Guarantee, outside debug and profile mode (an uncaptured run of a
// bounds-checked artifact also waits, below): a run never waits for the
// device and uses no stream but |stream| and the session's own (forked from
// and joined back to |stream| by events), so it may be captured into the
// caller's CUDA graph in any capture mode, cudaStreamCaptureModeGlobal
// included. Captured, the run's kernels, library calls and copies become
// nodes of the caller's graph, and each replay computes what an uncaptured
// run computes, bit for bit, from the buffers bound at capture time as they
// are when it runs. The captured run waits for the session's previous run
// and marks its own end as external event nodes, so replays and uncaptured
// runs of the session stay ordered; two replays of graphs that use one
// session must not overlap, and replays must complete before
// kiln_session_release. (GPU tests: GraphCaptureTest, for every model of the
// GPU bundle.) Debug and profile mode refuse to be captured
// (FAILED_PRECONDITION).
//
// Artifacts compiled with bounds checks (kiln-compile --bounds-checks,
// format 2): each uncaptured run (and, in debug mode, each step) ends by
// reading the session's fault record, so it waits for the device; an index
// out of range fails the run with INVALID_ARGUMENT naming the step, its ONNX
// nodes, the CUDA kernel, the index, its range and the axis (the outputs are
// unspecified, the session stays usable). A captured run cannot wait: a
// fault its replays record is reported by the session's next uncaptured run.
//
// A device fault in a kernel (an illegal address, a trap) is DEVICE_FAULT:
// the CUDA context is unusable and later runs of the session say so. In
// debug mode the status names the step, its ONNX nodes and the CUDA kernel;
// in graph mode the fault shows at a later call, so rerun with KILN_DEBUG=1
// in a new process to find it.
kiln_status_t kiln_session_run(kiln_session_t *session, cudaStream_t stream);

// Plan steps, for tools: their count, and for step |index| its kiln.kernel
// name, kind ("launch", "gemm", ...) and ONNX nodes joined by ", " (owned by
// the session; valid until it is released).
size_t kiln_session_step_count(const kiln_session_t *session);
typedef struct kiln_step_profile_s {
  const char *name;
  const char *kind;
  const char *onnx_nodes;
  float start_ms;    // From the start of the last run (profile mode only).
  float duration_ms; // -1 when the session is not in profile mode.
  uint64_t bytes;    // Bytes of the distinct buffers the step reads and writes.
  uint64_t flops;    // Floating-point operations, when known (GEMM,
                     // attention); 0 otherwise.
  const char *algorithm; // The algorithm a Conv or Gemm step chose at
                         // session creation (cuDNN's
                         // "implicit_precomp_gemm+fused": with its epilogue
                         // in the same call; a graph plan
                         // "graph:eng<N>:k<knob>=<value>"; cuBLASLt's
                         // "lt:id<N>:tile<N>:..."); "" otherwise.
  // Profile mode with CUPTI (kiln_session_profile_source is "cupti"): the
  // device work the step ran in the last run, from CUPTI's activity records.
  // |duration_ms| times a replay of the step's graph between events, which
  // adds the launch's device-side overhead (a few microseconds); these time
  // the work itself. Event steps have none (0). All three are -1 when
  // unavailable (not profile mode, no run yet, or no CUPTI).
  float kernel_ms;      // The sum of the durations of its kernels, memory
                        // copies and sets.
  int32_t kernel_count; // How many kernels, copies and sets it ran.
  float kernel_span_ms; // From its first one's start to its last one's end.
} kiln_step_profile_t;
// Describes step |index| of the last run. In profile mode this waits for the
// run to complete (it synchronises on its events).
kiln_status_t kiln_session_step_profile(kiln_session_t *session, size_t index,
                                        kiln_step_profile_t *out_profile);

// Where profile mode's kernel times come from, in |*out_source|: "cupti"
// when the last run's kiln_step_profile_t.kernel_* fields hold CUPTI's
// measurements, else "events: <why not>" (libcupti not found, a CUPTI
// error, KILN_CUPTI=0, ...): then only the event-timed |duration_ms| is
// known. Before the first run, what the session expects ("cupti" when
// libcupti loaded). The string is owned by the session and valid until its
// next run or release. CUPTI is process-wide: profile sessions register its
// activity callbacks, so do not combine profile mode with another CUPTI
// client in the same process (set KILN_CUPTI=0 to keep kiln off it).
// INVALID_ARGUMENT for NULL arguments, FAILED_PRECONDITION when the session
// is not in profile mode.
kiln_status_t kiln_session_profile_source(const kiln_session_t *session,
                                          const char **out_source);

// ===--- Step outputs (debug mode) ------------------------------------===//
//
// For tools that check a run step by step (kiln-run --dump-steps): a
// callback after each step of a debug-mode run, and the buffers a step
// writes. The activation arena reuses memory, so a step's outputs hold its
// results only until a later step writes the same bytes: read them in the
// callback. A session created with keep_step_outputs gives each activation
// memory of its own instead: after a normal run (no callback, no
// synchronisation between steps) each step's outputs still hold what it
// wrote, unless a later step writes the same buffer (the same device_data).

// One buffer that a step writes: a launch's outputs (the kernel's last
// arguments), a Gemm's or Conv's out, a Copy's destination.
typedef struct kiln_step_output_s {
  uint32_t buffer; // The buffer id in the entry point.
  kiln_dtype_t dtype;
  size_t rank;
  const int64_t *dims; // |rank| dims; owned by the model.
  size_t bytes;
  // Device memory of the session's device: an activation in the arena, or a
  // bound output (the staging buffer of a host-bound one). NULL when it is
  // an output not bound yet. Not owned by the caller: read it with
  // cudaMemcpy*; the device address stays valid until the session is
  // released or the output is rebound, the contents as described above.
  const void *device_data;
} kiln_step_output_t;

// Called by kiln_session_run in debug mode after step |step_index| ran on
// |stream| and the stream was synchronised (after the NaN/Inf check when
// that is on), for every step in plan order, event steps included. The
// callback may read the step's outputs (kiln_session_step_output) and call
// the session's query functions, but must not run, bind or release the
// session. It returns 0 to go on; anything else ends the run there, and
// kiln_session_run returns CANCELLED naming the step and that value.
typedef int (*kiln_step_callback_t)(void *user_data, kiln_session_t *session,
                                    size_t step_index, cudaStream_t stream);

// Sets (|callback| non-NULL) or clears the session's step callback;
// |user_data| is passed to it unchanged and must outlive the runs that use
// it. FAILED_PRECONDITION unless the session is in debug mode
// (kiln_session_options_t.debug or KILN_DEBUG=1): the CUDA graph of a
// normal run has no point between steps.
kiln_status_t kiln_session_set_step_callback(kiln_session_t *session,
                                             kiln_step_callback_t callback,
                                             void *user_data);

// How many buffers step |step_index| writes (0 for event steps and for an
// index out of range). A launch from an artifact that predates the record
// of kernel outputs reports all its arguments.
size_t kiln_session_step_output_count(const kiln_session_t *session,
                                      size_t step_index);

// Describes output |output_index| of step |step_index| in |*out_output|
// (zeroed first). NOT_FOUND for an index out of range.
kiln_status_t kiln_session_step_output(const kiln_session_t *session,
                                       size_t step_index, size_t output_index,
                                       kiln_step_output_t *out_output);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // KILN_RUNTIME_H
