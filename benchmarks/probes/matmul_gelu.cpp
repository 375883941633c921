// kiln-probe-matmul-gelu: would an exact (erf) GELU fused into its GEMM pay?
//
// BERT-style FFNs compute gelu(x W + b) with the erf GELU. cuBLASLt's GELU
// epilogue is the tanh form, which differs from erf's by up to 4.7e-4 (5%
// of the value where GELU is small, x near -2.7), so kiln runs cuBLASLt's
// bias epilogue and a separate GELU kernel: BERT-base at 8x128 spends 60 us
// of 0.61 ms there on the H100 (2026-12-07). cuDNN's graph API can fuse
// matmul -> + bias -> GELU_FWD (erf) in one runtime-compiled engine. This
// program measures, per shape, side by side in one process:
//   lt+gelu   cuBLASLt (bias epilogue, the fastest of its first 8 heuristic
//             algorithms) then an erf GELU kernel (NVRTC, 16-byte vectors),
//             what kiln runs today;
//   lt        the cuBLASLt call alone (the floor of any fusion);
//   lt-tanh   cuBLASLt with its tanh GELU_BIAS epilogue (the cost of an
//             epilogue, not the same function);
//   cudnn     cuDNN's fused graph, the fastest of the plans heuristics mode
//             A proposes (at most 5);
// each timed as kiln times library candidates (gpu_timing.h: graphs of 20
// calls replayed behind a held stream; cudnn also without kiln's fence).
// The data spread x W + b over about [-3.5, 3.5], where erf and tanh GELU differ
// by tens of f16 steps on small values; the fused output is compared with
// lt+gelu (rel-L2, max |diff|, max |diff| / (|ref| + 1e-2)), and both are
// checked at 997 sampled elements against fp64 erf and tanh GELUs, so the
// probe tells which function cuDNN computes.
// Prints one line per shape and path, and --json FILE the whole record.
// Usage: kiln-probe-matmul-gelu [--shapes M:N:K,...] [--json FILE]
#include "conv_graph.h"
#include "probe_support.h"
#include "status.h"

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace kiln::runtime;
using namespace kiln::probes;

namespace {

// --- cuDNN: y = gelu_erf(a x b + bias), one operation graph --------------
// Built with the runtime's graph pieces (conv_graph.h,
// conv_graph_operations.h): its pointwise operations, operation graph,
// heuristics and the numerics filter of its Conv graph plans.
enum : int64_t { kA = 1, kB = 2, kBias = 3, kY = 4, kProduct = 10, kSum = 11 };

struct CudnnFused {
  ConvOperations operations; // Tensors, descriptors and operations.
  BackendDescriptor graph;
  struct Plan {
    BackendDescriptor plan;
    int64_t workspace = 0, rank = -1; // Rank in the heuristics' list,
    int64_t engine = -1;              // the engine's global index,
    std::string heuristics;           // "A" or "fallback".
  };
  std::vector<Plan> plans;
  std::string problem;   // Why there is no plan, when there is none.
  std::string lastError; // cudnnBackendExecute's last refusal.

  /// A 3-D tensor (cuDNN's matmul takes [batch, rows, columns]).
  kiln_status_t tensor(int64_t id, std::vector<int64_t> dims,
                       std::vector<int64_t> strides, cudnnDataType_t type,
                       bool isVirtual) {
    operations.tensors.emplace_back();
    BackendDescriptor &t = operations.tensors.back();
    KILN_RETURN_IF_ERROR(t.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR,
                                  "tensor " + std::to_string(id)));
    KILN_RETURN_IF_ERROR(t.setDataType(CUDNN_ATTR_TENSOR_DATA_TYPE, type));
    KILN_RETURN_IF_ERROR(t.setInt64s(CUDNN_ATTR_TENSOR_DIMENSIONS, dims));
    KILN_RETURN_IF_ERROR(t.setInt64s(CUDNN_ATTR_TENSOR_STRIDES, strides));
    KILN_RETURN_IF_ERROR(t.setInt64(CUDNN_ATTR_TENSOR_UNIQUE_ID, id));
    KILN_RETURN_IF_ERROR(t.setInt64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 16));
    KILN_RETURN_IF_ERROR(
        t.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &isVirtual));
    return t.finalize();
  }

  /// The tensors, the matmul, + bias and the GELU (|geluMode|), and the
  /// finalised operation graph.
  kiln_status_t buildGraph(cudnnHandle_t handle, const Shape &s,
                           cudnnPointwiseMode_t geluMode) {
    int64_t m = s.m, n = s.n, k = s.k;
    // Tensors are referred to by index: the vector must not move.
    operations.tensors.reserve(6);
    KILN_RETURN_IF_ERROR(
        tensor(kA, {1, m, k}, {m * k, k, 1}, CUDNN_DATA_HALF, false));
    KILN_RETURN_IF_ERROR(
        tensor(kB, {1, k, n}, {k * n, n, 1}, CUDNN_DATA_HALF, false));
    KILN_RETURN_IF_ERROR(
        tensor(kBias, {1, 1, n}, {n, n, 1}, CUDNN_DATA_HALF, false));
    KILN_RETURN_IF_ERROR(
        tensor(kProduct, {1, m, n}, {m * n, n, 1}, CUDNN_DATA_FLOAT, true));
    KILN_RETURN_IF_ERROR(
        tensor(kSum, {1, m, n}, {m * n, n, 1}, CUDNN_DATA_FLOAT, true));
    KILN_RETURN_IF_ERROR(
        tensor(kY, {1, m, n}, {m * n, n, 1}, CUDNN_DATA_HALF, false));
    const std::vector<BackendDescriptor> &t = operations.tensors;
    BackendDescriptor matmul;
    KILN_RETURN_IF_ERROR(matmul.create(CUDNN_BACKEND_MATMUL_DESCRIPTOR,
                                       "the matmul descriptor"));
    KILN_RETURN_IF_ERROR(
        matmul.setDataType(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_DATA_FLOAT));
    KILN_RETURN_IF_ERROR(matmul.finalize());
    BackendDescriptor op;
    KILN_RETURN_IF_ERROR(op.create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR,
                                   "the matmul operation"));
    KILN_RETURN_IF_ERROR(
        op.setDescriptor(CUDNN_ATTR_OPERATION_MATMUL_ADESC, t[0]));
    KILN_RETURN_IF_ERROR(
        op.setDescriptor(CUDNN_ATTR_OPERATION_MATMUL_BDESC, t[1]));
    KILN_RETURN_IF_ERROR(
        op.setDescriptor(CUDNN_ATTR_OPERATION_MATMUL_CDESC, t[3]));
    KILN_RETURN_IF_ERROR(
        op.setDescriptor(CUDNN_ATTR_OPERATION_MATMUL_DESC, matmul));
    KILN_RETURN_IF_ERROR(op.finalize());
    operations.descriptors.push_back(std::move(matmul));
    operations.operations.push_back(std::move(op));
    KILN_RETURN_IF_ERROR(makePointwiseOperation(
        CUDNN_POINTWISE_ADD, "+ bias", t[3], &t[2], t[4], &operations));
    KILN_RETURN_IF_ERROR(makePointwiseOperation(geluMode, "gelu", t[4], nullptr,
                                                t[5], &operations));
    return finalizeOperationGraph(handle, operations, &graph);
  }

  /// Builds the graph (GELU |geluMode|) and up to 5 plans of heuristics
  /// mode A (fallback when A gives none), skipping the engines kiln's conv
  /// graph skips (ConvGraph::addPlans: reduced-precision reduction, filter
  /// reorder, nondeterministic); false with |problem| set when cuDNN
  /// refuses.
  bool build(cudnnHandle_t handle, const Shape &s, size_t workspaceLimit,
             cudnnPointwiseMode_t geluMode) {
    problem = message(buildGraph(handle, s, geluMode));
    if (!problem.empty())
      return false;
    std::string skipped;
    for (cudnnBackendHeurMode_t mode :
         {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
      if (!plans.empty())
        break;
      addPlans(handle, mode, workspaceLimit, &skipped);
    }
    if (plans.empty())
      problem = "no plan: " + skipped;
    return !plans.empty();
  }

  /// Plans of heuristics |mode|, at most 5 in all; what was skipped and
  /// why goes to |skipped|.
  void addPlans(cudnnHandle_t handle, cudnnBackendHeurMode_t mode,
                size_t workspaceLimit, std::string *skipped) {
    std::string name = mode == CUDNN_HEUR_MODE_A ? "A" : "fallback";
    std::vector<BackendDescriptor> configs;
    std::string error = message(engineConfigs(graph, mode, &configs));
    int numerics = 0;
    std::string refusals = error;
    for (size_t i = 0; error.empty() && i < configs.size() && plans.size() < 5;
         ++i) {
      Plan plan;
      EngineFacts facts;
      std::string refused = message(engineFacts(configs[i], &facts));
      if (refused.empty() && (facts.reducedReduction || facts.needsReorder ||
                              facts.nondeterministic)) {
        ++numerics;
        continue;
      }
      if (refused.empty())
        refused = message(
            plan.plan.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "plan"));
      if (refused.empty())
        refused = message(plan.plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
                                        CUDNN_TYPE_HANDLE, 1, &handle));
      if (refused.empty())
        refused = message(plan.plan.setDescriptor(
            CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs[i]));
      if (refused.empty())
        refused = message(plan.plan.finalize());
      int64_t read = 0;
      if (refused.empty())
        refused = message(plan.plan.getAttribute(
            CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
            &read, &plan.workspace));
      if (refused.empty() && size_t(plan.workspace) > workspaceLimit)
        refused = "workspace " + std::to_string(plan.workspace);
      if (!refused.empty()) {
        refusals += (refusals.empty() ? "" : "; ") + refused;
        continue;
      }
      plan.rank = int64_t(i);
      plan.engine = facts.index;
      plan.heuristics = name;
      plans.push_back(std::move(plan));
    }
    *skipped += (skipped->empty() ? "" : "; ") + std::string("heuristics ") +
                name + ": " + std::to_string(configs.size()) + " configs, " +
                std::to_string(numerics) + " skipped for their numerics" +
                (refusals.empty() ? "" : ", refused: " + refusals);
  }

  /// With |fence|, the 4-byte memset kiln's ConvGraph::execute puts first:
  /// a plan's first kernel may be a programmatic dependent launch that
  /// starts before earlier work ends.
  bool run(cudnnHandle_t handle, const Plan &plan, const __half *a,
           const __half *b, const __half *bias, __half *y, void *workspace,
           cudaStream_t stream, bool fence) {
    if (fence && cudaMemsetAsync(workspace, 0, 4, stream) != cudaSuccess)
      return false;
    int64_t ids[] = {kA, kB, kBias, kY};
    void *pointers[] = {const_cast<__half *>(a), const_cast<__half *>(b),
                        const_cast<__half *>(bias), y};
    BackendDescriptor pack;
    std::string error =
        message(pack.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "pack"));
    if (error.empty())
      error = message(pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                               CUDNN_TYPE_INT64, 4, ids));
    if (error.empty())
      error = message(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                               CUDNN_TYPE_VOID_PTR, 4, pointers));
    if (error.empty())
      error = message(pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                               CUDNN_TYPE_VOID_PTR, 1, &workspace));
    if (error.empty())
      error = message(pack.finalize());
    if (error.empty())
      error = message(backendStatus(
          cudnnBackendExecute(handle, plan.plan.get(), pack.get()),
          "cudnnBackendExecute"));
    if (!error.empty())
      lastError = error;
    return error.empty();
  }
};

} // namespace

int main(int argc, char **argv) {
  // Line by line: a crash in a library must not lose what was printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  programName = "kiln-probe-matmul-gelu";
  std::vector<Shape> shapes = {{1024, 3072, 768},  // BERT-base 8x128 FFN1
                               {1576, 3072, 768},  // ViT-B/16 8x197 FFN1
                               {256, 3072, 768},   // BERT-base 2x128
                               {4096, 3072, 768}}; // BERT-base 32x128
  std::string jsonPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json" && i + 1 < argc) {
      jsonPath = argv[++i];
    } else if (arg == "--shapes" && i + 1 < argc) {
      shapes = parseShapes(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: kiln-probe-matmul-gelu [--shapes M:N:K,...] "
                           "[--json FILE]\n");
      return 2;
    }
  }
  Gpu gpu = setUpGpu();
  const cudaDeviceProp &properties = gpu.properties;
  cudaStream_t stream = gpu.stream;
  cublasLtHandle_t lt = gpu.lt;
  void *workspace = gpu.workspace;
  constexpr size_t kWorkspace = Gpu::kWorkspace;
  cudnnHandle_t dnn;
  if (cudnnCreate(&dnn) != CUDNN_STATUS_SUCCESS)
    die("cudnnCreate");
  if (cudnnSetStream(dnn, stream) != CUDNN_STATUS_SUCCESS)
    die("cudnnSetStream");
  GeluKernel gelu;
  gelu.build();

  std::string head =
      "{\"program\": \"kiln-probe-matmul-gelu\", \"device\": " +
      jsonString(properties.name) +
      ", \"cudnn_version\": " + std::to_string(cudnnGetVersion()) +
      ", \"cublaslt_version\": " + std::to_string(cublasLtGetVersion()) +
      ", \"unit\": " + jsonString(kTimeCallsUnit) + ", \"shapes\": [";
  std::string rows;
  for (size_t index = 0; index < shapes.size(); ++index) {
    const Shape &s = shapes[index];
    size_t yCount = size_t(s.m * s.n);
    // The bias spreads x = a b + bias over about [-3.5, 3.5], so that a fifth
    // of it lies where erf and tanh GELU differ by tens of f16 steps.
    GemmOperands operands = randomGemmOperands(s, 3.0);
    const std::vector<__half> &a = operands.a, &b = operands.b,
                              &bias = operands.bias;
    __half *da = toDevice(a), *db = toDevice(b), *dbias = toDevice(bias),
           *dlin = deviceHalves(yCount), *dref = deviceHalves(yCount),
           *dtanh = deviceHalves(yCount), *dfused = deviceHalves(yCount);

    LtGemm linear, tanhGelu;
    linear.build(lt, s, CUBLASLT_EPILOGUE_BIAS, kWorkspace);
    tanhGelu.build(lt, s, CUBLASLT_EPILOGUE_GELU_BIAS, kWorkspace);
    double ltUs = linear.choose(stream, [&](const cublasLtMatmulAlgo_t &alg) {
      return linear.run(lt, alg, da, db, dbias, dlin, workspace, kWorkspace,
                        stream);
    });
    double tanhUs =
        tanhGelu.choose(stream, [&](const cublasLtMatmulAlgo_t &alg) {
          return tanhGelu.run(lt, alg, da, db, dbias, dtanh, workspace,
                              kWorkspace, stream);
        });
    auto linearThenGelu = [&] {
      return linear.run(lt, linear.best, da, db, dbias, dlin, workspace,
                        kWorkspace, stream) &&
             gelu.launch(dlin, dref, int64_t(yCount), stream);
    };
    double ltGeluUs = timeCalls(stream, linearThenGelu);
    // The chosen GEMM alone again, timed beside the pair.
    double ltAloneUs = timeCalls(stream, [&] {
      return linear.run(lt, linear.best, da, db, dbias, dlin, workspace,
                        kWorkspace, stream);
    });
    if (!linearThenGelu() || cudaStreamSynchronize(stream) != cudaSuccess)
      die("lt+gelu does not run");
    std::vector<float> reference = download(dref, yCount, stream);
    Sampled referenceCheck = sampledCheck(s, a, b, bias, reference, true);

    CudnnFused fused, control;
    double fusedUs = -1, fusedNoFenceUs = -1;
    int64_t best = -1;
    Difference fusedDiff;
    Sampled fusedCheck{INFINITY, INFINITY};
    std::vector<double> planUs;
    std::string controlProblem;
    if (fused.build(dnn, s, kWorkspace, CUDNN_POINTWISE_GELU_FWD)) {
      for (const CudnnFused::Plan &plan : fused.plans) {
        double us = timeCalls(stream, [&] {
          return fused.run(dnn, plan, da, db, dbias, dfused, workspace, stream,
                           true);
        });
        planUs.push_back(us);
        if (us >= 0 && (fusedUs < 0 || us < fusedUs)) {
          fusedUs = us;
          best = int64_t(&plan - fused.plans.data());
        }
      }
      if (best < 0) {
        fused.problem =
            "all " + std::to_string(fused.plans.size()) +
            " plans failed to run or capture; last: " + fused.lastError;
      } else {
        const CudnnFused::Plan &plan = fused.plans[size_t(best)];
        fusedNoFenceUs = timeCalls(stream, [&] {
          return fused.run(dnn, plan, da, db, dbias, dfused, workspace, stream,
                           false);
        });
        check(cudaMemsetAsync(dfused, 0xff, yCount * 2, stream), "poison");
        if (fused.run(dnn, plan, da, db, dbias, dfused, workspace, stream,
                      true)) {
          std::vector<float> out = download(dfused, yCount, stream);
          fusedDiff = compare(out, reference);
          fusedCheck = sampledCheck(s, a, b, bias, out, false);
        }
      }
    } else if (!control.build(dnn, s, kWorkspace,
                              CUDNN_POINTWISE_GELU_APPROX_TANH_FWD)) {
      controlProblem = control.problem;
    }
    Difference tanhDiff = compare(download(dtanh, yCount, stream), reference);

    std::string fusedText =
        fusedUs >= 0
            ? number(fusedUs) + " us (" + number(fusedNoFenceUs, true) +
                  " without the fence; engine " +
                  std::to_string(fused.plans[size_t(best)].engine) + ", " +
                  std::to_string(fused.plans.size()) +
                  " plans; vs lt+gelu rel-L2 " + number(fusedDiff.relL2) +
                  ", max " + number(fusedDiff.maxAbs) + ", max relative " +
                  number(fusedDiff.maxRelative) + "; sampled vs erf " +
                  number(fusedCheck.erf) + ", vs tanh " +
                  number(fusedCheck.tanh) + ")"
            : "none: " + fused.problem +
                  (fused.plans.empty()
                       ? (controlProblem.empty()
                              ? " (the same graph with the tanh GELU builds)"
                              : " (the tanh GELU graph does not build "
                                "either: " +
                                    controlProblem + ")")
                       : "");
    std::printf("M=%ld N=%ld K=%ld: lt+gelu %s us (lt %s alone beside it, %s "
                "the fastest of %zu; sampled vs erf %.2e), lt-tanh %s us "
                "(vs lt+gelu: rel-L2 %.2e, max relative %.2e), cudnn %s\n",
                s.m, s.n, s.k, number(ltGeluUs, true).c_str(),
                number(ltAloneUs, true).c_str(), number(ltUs, true).c_str(),
                linear.algorithms.size(), referenceCheck.erf,
                number(tanhUs, true).c_str(), tanhDiff.relL2,
                tanhDiff.maxRelative, fusedText.c_str());
    std::ostringstream row;
    row << (index ? ", " : "") << "{\"m\": " << s.m << ", \"n\": " << s.n
        << ", \"k\": " << s.k << ", \"lt_gelu_us\": " << number(ltGeluUs, true)
        << ", \"lt_alone_us\": " << number(ltAloneUs, true)
        << ", \"lt_fastest_us\": " << number(ltUs, true)
        << ", \"lt_tanh_us\": " << number(tanhUs, true)
        << ", \"cudnn_fused_us\": " << number(fusedUs, true)
        << ", \"cudnn_fused_no_fence_us\": " << number(fusedNoFenceUs, true)
        << ", \"cudnn_plans_us\": [";
    for (size_t p = 0; p < planUs.size(); ++p)
      row << (p ? ", " : "") << number(planUs[p], true);
    row << "], \"cudnn_plans\": [";
    for (size_t p = 0; p < fused.plans.size(); ++p)
      row << (p ? ", " : "") << "{\"engine\": " << fused.plans[p].engine
          << ", \"rank\": " << fused.plans[p].rank
          << ", \"heuristics\": " << jsonString(fused.plans[p].heuristics)
          << ", \"workspace\": " << fused.plans[p].workspace << "}";
    row << "], \"cudnn_problem\": " << jsonString(fused.problem)
        << ", \"tanh_control_problem\": " << jsonString(controlProblem)
        << ", \"lt_gelu_sampled_vs_erf\": " << number(referenceCheck.erf)
        << ", \"lt_gelu_sampled_vs_tanh\": " << number(referenceCheck.tanh)
        << ", \"cudnn_sampled_vs_erf\": " << number(fusedCheck.erf)
        << ", \"cudnn_sampled_vs_tanh\": " << number(fusedCheck.tanh)
        << ", \"cudnn_vs_lt_gelu_rel_l2\": " << number(fusedDiff.relL2)
        << ", \"cudnn_vs_lt_gelu_max_abs\": " << number(fusedDiff.maxAbs)
        << ", \"cudnn_vs_lt_gelu_max_relative\": "
        << number(fusedDiff.maxRelative)
        << ", \"lt_tanh_vs_lt_gelu_rel_l2\": " << number(tanhDiff.relL2)
        << ", \"lt_tanh_vs_lt_gelu_max_relative\": "
        << number(tanhDiff.maxRelative) << "}";
    rows += row.str();
    writeJson(jsonPath, head + rows + "]}\n");
    for (__half *pointer : {da, db, dbias, dlin, dref, dtanh, dfused})
      cudaFree(pointer);
  }
  return 0;
}
