// RUN: kiln-opt %s --kiln-specialize-shapes="shapes=batch=1..64,seq=16..512:128" | FileCheck %s --check-prefix=RANGES
// RUN: kiln-opt %s --kiln-specialize-shapes="shapes=batch=1..64,seq=128" | FileCheck %s --check-prefix=MIXED
// RUN: kiln-opt %s --kiln-specialize-shapes="shapes=batch=8..8" | FileCheck %s --check-prefix=DEGENERATE
// RUN: kiln-opt %s --kiln-specialize-shapes="shapes=batch=1..64" --kiln-specialize-shapes="shapes=batch=4" | FileCheck %s --check-prefix=NARROWED
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=batch=64..1" 2>&1 | FileCheck %s --check-prefix=REVERSED
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=batch=0..8" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=batch=8.." 2>&1 | FileCheck %s --check-prefix=OPEN
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=batch=1..64:65" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=batch=1..64:x" 2>&1 | FileCheck %s --check-prefix=OPT-WORD
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=batch=a..8" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=x=1..8" 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=heads=1..8" 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=nothing=1..8" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=batch=1..8,batch=4" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not kiln-opt %s --kiln-specialize-shapes="shapes=seq=1..4611686018427387904" 2>&1 | FileCheck %s --check-prefix=HUGE

// RANGES-LABEL: func.func @main
// RANGES-SAME: tensor<?x?x12xf32> {kiln.dim_names = ["batch", "seq", "heads"], kiln.name = "x"}
// RANGES-SAME: tensor<?xi64> {kiln.dim_names = ["batch"], kiln.name = "ids"}
// RANGES-SAME: kiln.dim_ranges = {batch = array<i64: 1, 64, 64>, seq = array<i64: 16, 512, 128>}
// MIXED-LABEL: func.func @main
// MIXED-SAME: tensor<?x128x12xf32>
// MIXED-SAME: kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}
// DEGENERATE-LABEL: func.func @main
// DEGENERATE-SAME: tensor<8x?x12xf32>
// DEGENERATE-NOT: kiln.dim_ranges
// NARROWED-LABEL: func.func @main
// NARROWED-SAME: tensor<4x?x12xf32>
// NARROWED-NOT: kiln.dim_ranges
// REVERSED: error: input shape 'batch=64..1': range '64..1' has lo 64 above hi 1
// ZERO: error: input shape 'batch=0..8': range '0..8' starts at 0: a ranged dimension is at least 1
// OPEN: error: input shape 'batch=8..': range '8..' has no upper bound: give lo..hi (e.g. 1..64)
// OPT: error: input shape 'batch=1..64:65': range '1..64:65': opt '65' must be a size in 1..64
// OPT-WORD: error: input shape 'batch=1..64:x': range '1..64:x': opt 'x' must be a size in 1..64
// MALFORMED: error: input shape 'batch=a..8': malformed range 'a..8': expected lo..hi or lo..hi:opt
// INPUT: error: input shape 'x=1..8': a range applies to a symbolic dimension, not to the graph input 'x' (its symbolic dims: 'batch', 'seq')
// STATIC: error: dimension 'heads' of input 'x' is 12, not a range 1..8
// UNKNOWN: error: input shape 'nothing=1..8' names no symbolic dimension; a range applies to a dimension name from the model (e.g. batch=1..64)
// TWICE: error: input shape 'batch=4' gives 'batch' a second time
// HUGE: error: --input-shape seq=1..4611686018427387904 makes input 'x' too large at seq=4611686018427387904
func.func @main(%x: tensor<?x?x12xf32> {kiln.name = "x", kiln.dim_names = ["batch", "seq", "heads"]},
                %ids: tensor<?xi64> {kiln.name = "ids", kiln.dim_names = ["batch"]}) -> tensor<?x?x12xf32> {
  %0 = kiln.relu %x : tensor<?x?x12xf32> -> tensor<?x?x12xf32>
  return %0 : tensor<?x?x12xf32>
}
