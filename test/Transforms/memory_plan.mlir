// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels --kiln-schedule --kiln-plan-memory | FileCheck %s

// A chain of identical layers needs two layer-sized activations however long
// it is: each buffer is dead once the next layer has read it. 2 and 6 layers
// of matmul + sigmoid (8x64xf32 = 2048 bytes) give the same arena; the last
// kernel writes the function result directly.
// CHECK-LABEL: func.func @two_layers
// CHECK-SAME: kiln.activation_arena_bytes = 4096 : i64
// CHECK-COUNT-3: kiln.empty {arena_offset = {{0|2048}} : i64}
// CHECK: kiln.empty {result_index = 0 : i64}
func.func @two_layers(%x: tensor<8x64xf32>, %w: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %0 = kiln.matmul %x, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %1 = kiln.sigmoid %0 : tensor<8x64xf32> -> tensor<8x64xf32>
  %2 = kiln.matmul %1, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %3 = kiln.sigmoid %2 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %3 : tensor<8x64xf32>
}

// -----

// CHECK-LABEL: func.func @six_layers
// CHECK-SAME: kiln.activation_arena_bytes = 4096 : i64
// CHECK-COUNT-11: kiln.empty {arena_offset = {{0|2048}} : i64}
// CHECK: kiln.empty {result_index = 0 : i64}
func.func @six_layers(%x: tensor<8x64xf32>, %w: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %0 = kiln.matmul %x, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %1 = kiln.sigmoid %0 : tensor<8x64xf32> -> tensor<8x64xf32>
  %2 = kiln.matmul %1, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %3 = kiln.sigmoid %2 : tensor<8x64xf32> -> tensor<8x64xf32>
  %4 = kiln.matmul %3, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %5 = kiln.sigmoid %4 : tensor<8x64xf32> -> tensor<8x64xf32>
  %6 = kiln.matmul %5, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %7 = kiln.sigmoid %6 : tensor<8x64xf32> -> tensor<8x64xf32>
  %8 = kiln.matmul %7, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %9 = kiln.sigmoid %8 : tensor<8x64xf32> -> tensor<8x64xf32>
  %10 = kiln.matmul %9, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %11 = kiln.sigmoid %10 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %11 : tensor<8x64xf32>
}

// -----

// Two branches on concurrent streams: no buffer of stream 0 (matmul_0,
// matmul_1) may share memory with one of stream 1 (matmul_2, matmul_3), even
// though program order alone would let matmul_3 reuse matmul_0's buffer.
// Each pair of these four 2048-byte buffers can be live at the same time, so
// they get the four disjoint ranges [0, 2048), [2048, 4096), [4096, 6144)
// and [6144, 8192).
// CHECK-LABEL: func.func @concurrent_streams
// CHECK-SAME: kiln.activation_arena_bytes = 8192 : i64
// CHECK: kiln.empty {arena_offset = 0 : i64}
// CHECK: "matmul_0" {{.*}}stream = 0
// CHECK: kiln.empty {arena_offset = 2048 : i64}
// CHECK: "matmul_1" {{.*}}stream = 0
// CHECK: kiln.empty {arena_offset = 4096 : i64}
// CHECK: "matmul_2" {{.*}}stream = 1
// CHECK: kiln.empty {arena_offset = 6144 : i64}
// CHECK: "matmul_3" {{.*}}stream = 1
// CHECK: kiln.empty {result_index = 0 : i64}
func.func @concurrent_streams(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>, %w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %0 = kiln.matmul %a, %w0 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %1 = kiln.matmul %0, %w1 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %2 = kiln.matmul %b, %w1 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %3 = kiln.matmul %2, %w0 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %4 = kiln.sub %1, %3 : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  return %4 : tensor<8x64xf32>
}

// -----

// Weights get weight-arena offsets (256-aligned); a constant that only a
// view's shape operand reads is not a weight. A view of a kernel result
// aliases it, so the kernel behind a returned view writes the result
// directly: no activation at all.
// CHECK-LABEL: func.func @weights_and_views
// CHECK-SAME: kiln.activation_arena_bytes = 0 : i64, {{.*}}kiln.weight_arena_bytes = 16640 : i64
// CHECK: kiln.constant {weight_offset = 16384 : i64} {{.*}} : tensor<8xf32>
// CHECK: kiln.constant dense<[2, 256]> : tensor<2xi64>
// CHECK: kiln.empty {result_index = 0 : i64} : tensor<8x64xf32>
// CHECK: kiln.kernel "matmul_0" library
// The splat weight is cloned into the library kernel; cuBLASLt reads it from
// the weight arena.
// CHECK: kiln.constant {weight_offset = 0 : i64} dense<5.000000e-01> : tensor<64x64xf32>
// CHECK: kiln.reshape
func.func @weights_and_views(%x: tensor<8x64xf32>) -> (tensor<2x256xf32>, tensor<8xf32>) {
  %w = kiln.constant dense<0.5> : tensor<64x64xf32>
  %b = kiln.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %s = kiln.constant dense<[2, 256]> : tensor<2xi64>
  %0 = kiln.matmul %x, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %1 = kiln.reshape %0, %s : tensor<8x64xf32>, tensor<2xi64> -> tensor<2x256xf32>
  return %1, %b : tensor<2x256xf32>, tensor<8xf32>
}

// -----

// Identical weights share one slot of the weight arena.
// CHECK-LABEL: func.func @shared_weight
// CHECK-SAME: kiln.weight_arena_bytes = 256 : i64
// CHECK-COUNT-2: kiln.constant {weight_offset = 0 : i64}
func.func @shared_weight(%x: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %a = kiln.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]> : tensor<32xf32>
  %b = kiln.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0]> : tensor<32xf32>
  %0 = kiln.add %x, %a : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
  %1 = kiln.mul %x, %b : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
  return %0, %1 : tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// A buffer with a run-time extent (batch in 1..64) is planned at the
// range's maximum: 64 x 100 f32 = 25600 bytes, at a static offset.
// CHECK-LABEL: func.func @ranged
// CHECK-SAME: kiln.activation_arena_bytes = 25600 : i64
// CHECK: kiln.empty {arena_offset = 0 : i64, kiln.dim_exprs = ["batch", "100"]} : tensor<?x100xf32>
func.func @ranged(%x: tensor<?x100xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}) -> (tensor<?x100xf32>, tensor<?x100xf32>)
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %0 = kiln.relu %x {kiln.dim_exprs = ["batch", "100"]} : tensor<?x100xf32> -> tensor<?x100xf32>
  %1 = kiln.neg %0 {kiln.dim_exprs = ["batch", "100"]} : tensor<?x100xf32> -> tensor<?x100xf32>
  %2 = kiln.exp %0 {kiln.dim_exprs = ["batch", "100"]} : tensor<?x100xf32> -> tensor<?x100xf32>
  return %1, %2 : tensor<?x100xf32>, tensor<?x100xf32>
}

// -----

// A returned slice view is copied into its output after the last kernel:
// the buffer it views lives to the end, not only to its last kernel read
// (here exp's result, read by the first matmul, would otherwise share its
// bytes with the third matmul's input).
// CHECK-LABEL: func.func @returned_slice_view
// CHECK: kiln.empty {arena_offset = [[EXP:[0-9]+]] : i64} : tensor<2x64xf32>
// CHECK-NEXT: kiln.kernel "exp_0"
// CHECK-NOT: arena_offset = [[EXP]] :
// CHECK: return
func.func @returned_slice_view(%x: tensor<2x64xf32>, %w: tensor<64x64xf32>) -> (tensor<1x64xf32>, tensor<2x64xf32>) {
  %a = kiln.exp %x : tensor<2x64xf32> -> tensor<2x64xf32>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %two = kiln.constant dense<2> : tensor<1xi64>
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %s = kiln.slice %a, %one, %two, %zero, %one : tensor<2x64xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x64xf32>
  %m1 = kiln.matmul %a, %w : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %m2 = kiln.matmul %m1, %w : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  %m3 = kiln.matmul %m2, %w : tensor<2x64xf32>, tensor<64x64xf32> -> tensor<2x64xf32>
  return %s, %m3 : tensor<1x64xf32>, tensor<2x64xf32>
}
