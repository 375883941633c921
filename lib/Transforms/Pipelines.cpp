// The pass pipelines of kiln's phases and their registration by name.
#include "kiln/Transforms/Pipelines.h"

#include "kiln/Transforms/PackDepthwiseWeights.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/RecordDimExprs.h"
#include "kiln/Transforms/ResolveSymbolicReshapes.h"

#include "mlir/Pass/PassRegistry.h"

namespace kiln {

void buildGraphPipeline(mlir::OpPassManager &pm,
                        const GraphPipelineOptions &options) {
  if (!options.inputShapes.empty()) {
    KilnSpecializeShapesOptions specialize;
    specialize.shapes = options.inputShapes;
    pm.addPass(createKilnSpecializeShapes(specialize));
  }
  pm.addNestedPass<mlir::func::FuncOp>(createKilnRefineTypes());
  if (options.simplify) {
    KilnSimplifyGraphOptions simplify;
    simplify.maxBytes = options.maxFoldBytes;
    pm.addPass(createKilnSimplifyGraph(simplify));
    // After folding, so that the recognisers see constant values.
    pm.addNestedPass<mlir::func::FuncOp>(createKilnRecognizePatterns());
    // After recognition, so that q, k and v are the attention's operands:
    // the transposes around the projections join their views.
    pm.addNestedPass<mlir::func::FuncOp>(createKilnMoveRowPermutations());
    pm.addNestedPass<mlir::func::FuncOp>(createKilnMergeProjections());
    pm.addNestedPass<mlir::func::FuncOp>(createKilnFoldBatchNorm());
    // After the fold, which may give a patch convolution its bias.
    pm.addNestedPass<mlir::func::FuncOp>(createKilnPatchConvolutions());
  }
  if (options.precision != "fp32") {
    KilnConvertPrecisionOptions precision;
    precision.precision = options.precision;
    pm.addPass(createKilnConvertPrecision(precision));
  }
  if (options.simplify) {
    // After the precision change, so that the element types are final.
    KilnAssignLayoutOptions layout;
    layout.halfOnly = true;
    pm.addNestedPass<mlir::func::FuncOp>(createKilnAssignLayout(layout));
    // Folds what the rewrites and the precision change left: weight
    // expressions and casts of small constants.
    KilnSimplifyGraphOptions simplify;
    simplify.maxBytes = options.maxFoldBytes;
    pm.addPass(createKilnSimplifyGraph(simplify));
  }
  // With a ranged dim (batch=1..64; kiln-specialize-shapes records it in
  // the function's kiln.dim_ranges) the graph keeps run-time extents: show
  // them as expressions of the ranged dims, after giving the reshapes
  // whose shapes exporters compute from them a constant shape (the types
  // then know the heads' 12 and the merged 768). Without ranges both
  // passes do nothing.
  pm.addNestedPass<mlir::func::FuncOp>(createKilnResolveSymbolicReshapes());
  pm.addNestedPass<mlir::func::FuncOp>(createKilnRecordDimExprs());
}

void buildFusePipeline(mlir::OpPassManager &pm) {
  pm.addPass(createKilnOutlineInit());
  // After outlining: folding would undo the stored layout.
  pm.addPass(createKilnPackDepthwiseWeights());
  pm.addNestedPass<mlir::func::FuncOp>(createKilnRequireStatic());
  pm.addNestedPass<mlir::func::FuncOp>(createKilnFuseKernels());
}

void buildTilePipeline(mlir::OpPassManager &pm, bool buckets) {
  KilnTileKernelsOptions options;
  options.buckets = buckets;
  pm.addNestedPass<mlir::func::FuncOp>(createKilnTileKernels(options));
}

void buildSchedulePipeline(mlir::OpPassManager &pm, int64_t maxStreams) {
  KilnScheduleOptions options;
  options.maxStreams = maxStreams;
  pm.addNestedPass<mlir::func::FuncOp>(createKilnSchedule(options));
}

void buildPlanMemoryPipeline(mlir::OpPassManager &pm) {
  pm.addPass(createKilnPlanMemory());
}

void buildKernelPipeline(mlir::OpPassManager &pm) {
  pm.addPass(createKilnPackDepthwiseWeights());
  pm.addNestedPass<mlir::func::FuncOp>(createKilnRequireStatic());
  pm.addNestedPass<mlir::func::FuncOp>(createKilnFuseKernels());
  buildTilePipeline(pm);
}

namespace {

/// kiln-graph-pipeline's options on the command line.
struct GraphPipelineCLOptions
    : mlir::PassPipelineOptions<GraphPipelineCLOptions> {
  ListOption<std::string> inputShapes{
      *this, "input-shapes",
      llvm::cl::desc("Static input shapes: name=8x128 (graph input) or "
                     "batch=8 (dim name)")};
  Option<bool> simplify{*this, "simplify",
                        llvm::cl::desc("Fold constants and simplify (false: "
                                       "only specialise and refine types)"),
                        llvm::cl::init(true)};
  Option<int64_t> maxFoldBytes{
      *this, "max-fold-bytes",
      llvm::cl::desc("Largest constant-folded result in bytes"),
      llvm::cl::init(64 * 1024)};
  Option<std::string> precision{*this, "precision",
                                llvm::cl::desc("fp32 | tf32 | fp16 | bf16"),
                                llvm::cl::init("fp32")};

  GraphPipelineOptions toOptions() const {
    GraphPipelineOptions options;
    options.inputShapes.assign(inputShapes.begin(), inputShapes.end());
    options.simplify = simplify;
    options.maxFoldBytes = maxFoldBytes;
    options.precision = precision;
    return options;
  }
};

/// kiln-schedule-pipeline's options on the command line.
struct ScheduleCLOptions : mlir::PassPipelineOptions<ScheduleCLOptions> {
  Option<int64_t> maxStreams{*this, "max-streams",
                             llvm::cl::desc("Most CUDA streams the schedule "
                                            "uses"),
                             llvm::cl::init(4)};
};

} // namespace

void registerKilnPipelines() {
  mlir::PassPipelineRegistration<GraphPipelineCLOptions>(
      "kiln-graph-pipeline",
      "The graph passes kiln-compile runs after import (--emit graph)",
      [](mlir::OpPassManager &pm, const GraphPipelineCLOptions &options) {
        buildGraphPipeline(pm, options.toOptions());
      });
  mlir::PassPipelineRegistration<>(
      "kiln-fuse-pipeline",
      "Outlines the init program and fuses each function into kernels "
      "(--emit fused)",
      buildFusePipeline);
  mlir::PassPipelineRegistration<>(
      "kiln-tile-pipeline",
      "Gives every kernel its launch geometry "
      "(--emit tiled)",
      [](mlir::OpPassManager &pm) { buildTilePipeline(pm); });
  mlir::PassPipelineRegistration<ScheduleCLOptions>(
      "kiln-schedule-pipeline", "Assigns each function's launch DAG to streams",
      [](mlir::OpPassManager &pm, const ScheduleCLOptions &options) {
        buildSchedulePipeline(pm, options.maxStreams);
      });
  mlir::PassPipelineRegistration<>(
      "kiln-plan-memory-pipeline",
      "Gives activations and weights their arena offsets (--emit planned)",
      buildPlanMemoryPipeline);
  mlir::PassPipelineRegistration<>(
      "kiln-kernel-pipeline",
      "Requires static shapes, fuses and tiles each function (no init "
      "program; kiln-translate's pipeline)",
      buildKernelPipeline);
}

} // namespace kiln
