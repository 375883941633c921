// The pass pipelines run by kiln-compile and kiln-interpret after import.
#include "kiln/Transforms/Pipelines.h"

#include "kiln/Transforms/Passes.h"

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
    pm.addNestedPass<mlir::func::FuncOp>(createKilnMergeProjections());
    pm.addNestedPass<mlir::func::FuncOp>(createKilnFoldBatchNorm());
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
}

void buildKernelPipeline(mlir::OpPassManager &pm) {
  pm.addNestedPass<mlir::func::FuncOp>(createKilnRequireStatic());
  pm.addNestedPass<mlir::func::FuncOp>(createKilnFuseKernels());
  pm.addNestedPass<mlir::func::FuncOp>(createKilnTileKernels());
}

} // namespace kiln
