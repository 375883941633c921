// kiln-tile-kernels' buckets (issue 18, kiln.buckets): a loop kernel with
// run-time extents is configured at the ranges' largest count, and records
// the configuration chosen at the largest count that takes one vector per
// thread (its grid at the cap of 64 blocks per SM) when the ranges straddle
// it and the choice there differs.
// RUN: kiln-opt %s --split-input-file --kiln-tile-kernels | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-tile-kernels=buckets=false | FileCheck %s --check-prefix=OFF

// [batch, seq, 768] f16 (BERT's hidden state), batch 1..64, seq 16..512:
// 12288 to 25.2 M elements, 4 vectors of 8 per thread at the largest (3072
// blocks); up to 132 SMs x 64 blocks x 256 x 8 = 17301504 elements 1
// vector per thread (8448 blocks there). With buckets=false none is
// recorded.
// CHECK-LABEL: func.func @hidden
// CHECK:         kiln.kernel "gelu_0" pointwise
// CHECK-SAME:      elements_per_thread = 4 : i64, grid_size = 3072 : i64, kiln.buckets = [{block_size = 256 : i64, elements_per_thread = 1 : i64, grid_size = 8448 : i64, max_count = 17301504 : i64, vector_width = 8 : i64}], kiln.dim_exprs
// OFF-LABEL:   func.func @hidden
// OFF-NOT:       kiln.buckets
func.func @hidden(%x: tensor<?x?x768xf16> {kiln.name = "x", kiln.dim_names = ["batch", "seq", ""]}) -> tensor<?x?x768xf16>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>, seq = array<i64: 16, 512, 512>}} {
  %e = kiln.empty {kiln.dim_exprs = ["batch", "seq", "768"]} : tensor<?x?x768xf16>
  %r = kiln.kernel "gelu_0" pointwise ins(%x : tensor<?x?x768xf16>) outs(%e : tensor<?x?x768xf16>) attributes {kiln.dim_exprs = ["batch", "seq", "768"]} {
  ^bb0(%a: tensor<?x?x768xf16>, %o: tensor<?x?x768xf16>):
    %0 = kiln.gelu %a {kiln.dim_exprs = ["batch", "seq", "768"]} : tensor<?x?x768xf16> -> tensor<?x?x768xf16>
    kiln.yield %0 : tensor<?x?x768xf16>
  } -> tensor<?x?x768xf16>
  return %r : tensor<?x?x768xf16>
}

// -----

// Every count of the range past the one-vector grid's cap (rows
// 16384..65536 of 1024 f32, from 16.8 M elements; the cap is 8650752): the
// same configuration throughout, no bucket.
// CHECK-LABEL: func.func @all_large
// CHECK:         kiln.kernel "relu_0" pointwise
// CHECK-SAME:      elements_per_thread = 4 : i64, grid_size = 8448 : i64, kiln.dim_exprs
func.func @all_large(%x: tensor<?x1024xf32> {kiln.name = "x", kiln.dim_names = ["rows", ""]}) -> tensor<?x1024xf32>
    attributes {kiln.dim_ranges = {rows = array<i64: 16384, 65536, 65536>}} {
  %e = kiln.empty {kiln.dim_exprs = ["rows", "1024"]} : tensor<?x1024xf32>
  %r = kiln.kernel "relu_0" pointwise ins(%x : tensor<?x1024xf32>) outs(%e : tensor<?x1024xf32>) attributes {kiln.dim_exprs = ["rows", "1024"]} {
  ^bb0(%a: tensor<?x1024xf32>, %o: tensor<?x1024xf32>):
    %0 = kiln.relu %a {kiln.dim_exprs = ["rows", "1024"]} : tensor<?x1024xf32> -> tensor<?x1024xf32>
    kiln.yield %0 : tensor<?x1024xf32>
  } -> tensor<?x1024xf32>
  return %r : tensor<?x1024xf32>
}

// -----

// A test's pinned configuration is kept, and then the kernel has no
// buckets either.
// CHECK-LABEL: func.func @pinned
// CHECK:         kiln.kernel "relu_0" pointwise
// CHECK-SAME:      elements_per_thread = 2 : i64, grid_size = 2048 : i64, kiln.dim_exprs
func.func @pinned(%x: tensor<?x1024xf32> {kiln.name = "x", kiln.dim_names = ["rows", ""]}) -> tensor<?x1024xf32>
    attributes {kiln.dim_ranges = {rows = array<i64: 1, 4096, 4096>}} {
  %e = kiln.empty {kiln.dim_exprs = ["rows", "1024"]} : tensor<?x1024xf32>
  %r = kiln.kernel "relu_0" pointwise ins(%x : tensor<?x1024xf32>) outs(%e : tensor<?x1024xf32>) attributes {elements_per_thread = 2 : i64, kiln.dim_exprs = ["rows", "1024"]} {
  ^bb0(%a: tensor<?x1024xf32>, %o: tensor<?x1024xf32>):
    %0 = kiln.relu %a {kiln.dim_exprs = ["rows", "1024"]} : tensor<?x1024xf32> -> tensor<?x1024xf32>
    kiln.yield %0 : tensor<?x1024xf32>
  } -> tensor<?x1024xf32>
  return %r : tensor<?x1024xf32>
}
