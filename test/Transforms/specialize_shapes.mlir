// RUN: kiln-opt %s --split-input-file --kiln-specialize-shapes="shapes=x=2x8" --kiln-refine-types | FileCheck %s --check-prefix=INPUT
// RUN: kiln-opt %s --split-input-file --kiln-specialize-shapes="shapes=batch=3" | FileCheck %s --check-prefix=DIM
// RUN: not kiln-opt %s --split-input-file --kiln-specialize-shapes="shapes=x=2x9" 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: not kiln-opt %s --split-input-file --kiln-specialize-shapes="shapes=nothing=4" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kiln-opt %s --split-input-file --kiln-specialize-shapes="shapes=x=2by8" 2>&1 | FileCheck %s --check-prefix=MALFORMED

// INPUT-LABEL: func.func @main
// INPUT-SAME: %{{.*}}: tensor<2x8xf32> {kiln.dim_names = ["batch", ""], kiln.name = "x"}
// INPUT-SAME: -> tensor<2x8xf32>
// INPUT: kiln.relu %{{.*}} : tensor<2x8xf32> -> tensor<2x8xf32>
// DIM-LABEL: func.func @main
// DIM-SAME: tensor<3x8xf32>
// CONFLICT: input 'x' dim 1 is 8, not 9
// UNKNOWN: input shape 'nothing=4' names neither a graph input nor a symbolic dimension
// MALFORMED: malformed input shape 'x=2by8'
func.func @main(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}) -> tensor<?x8xf32> {
  %0 = kiln.relu %x : tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
