// kiln-opt: runs kiln passes on MLIR files, for lit tests and debugging.
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<kiln::KilnDialect, mlir::func::FuncDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  kiln::registerKilnPasses();
  kiln::registerKilnPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kiln optimizer driver\n", registry));
}
