// Data movement through the loop template: concat reads only the input that
// holds the element, slice/gather/expand are index arithmetic, reductions
// outside a row kernel are serial loops, small constant tables are globals.
// RUN: kiln-translate %s --emit-cuda | FileCheck %s

// CHECK-LABEL: kiln.kernel "concat"
// CHECK:         const kiln_index_t c{{[0-9]+}} = (i % 3101);
// CHECK-NEXT:    float v[[V:[0-9]+]];
// CHECK-NEXT:    if (c{{[0-9]+}} < 100) {
// CHECK-NEXT:      const float x{{[0-9]+}} = in0[((i / 3101) * 100 + c{{[0-9]+}})];
// CHECK-NEXT:      v[[V]] = x{{[0-9]+}};
// CHECK-NEXT:    }
// CHECK-NEXT:    else if (c{{[0-9]+}} < 101) {
// CHECK:         else {
// CHECK-NEXT:      const float x{{[0-9]+}} = in2[((i / 3101) * 3000 + (c{{[0-9]+}} - 101))];
func.func @concat(%a: tensor<7x100xf32>, %b: tensor<7x1xf32>, %c: tensor<7x3000xf32>) -> tensor<7x3101xf32> {
  %e = kiln.empty : tensor<7x3101xf32>
  %r = kiln.kernel "concat" data_movement ins(%a, %b, %c : tensor<7x100xf32>, tensor<7x1xf32>, tensor<7x3000xf32>) outs(%e : tensor<7x3101xf32>) attributes {block_size = 256 : i64, grid_size = 22 : i64} {
  ^bb0(%x: tensor<7x100xf32>, %y: tensor<7x1xf32>, %z: tensor<7x3000xf32>, %o: tensor<7x3101xf32>):
    %t = kiln.concat %x, %y, %z {axis = 1 : i64} : tensor<7x100xf32>, tensor<7x1xf32>, tensor<7x3000xf32> -> tensor<7x3101xf32>
    kiln.yield %t : tensor<7x3101xf32>
  } -> tensor<7x3101xf32>
  return %r : tensor<7x3101xf32>
}

// Steps 2 and -3 from clamped starts.
// CHECK-LABEL: kiln.kernel "slice"
// CHECK:         in0[((1 + (i / 1366) * 2) * 4097 + (4096 - (i % 1366) * 3))]
func.func @slice(%a: tensor<9x4097xf32>) -> tensor<4x1366xf32> {
  %e = kiln.empty : tensor<4x1366xf32>
  %r = kiln.kernel "slice" data_movement ins(%a : tensor<9x4097xf32>) outs(%e : tensor<4x1366xf32>) attributes {block_size = 128 : i64, grid_size = 43 : i64} {
  ^bb0(%x: tensor<9x4097xf32>, %o: tensor<4x1366xf32>):
    %starts = kiln.constant dense<[1, -1]> : tensor<2xi64>
    %ends = kiln.constant dense<[8, -5000]> : tensor<2xi64>
    %axes = kiln.constant dense<[0, 1]> : tensor<2xi64>
    %steps = kiln.constant dense<[2, -3]> : tensor<2xi64>
    %s = kiln.slice %x, %starts, %ends, %axes, %steps : tensor<9x4097xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64> -> tensor<4x1366xf32>
    kiln.yield %s : tensor<4x1366xf32>
  } -> tensor<4x1366xf32>
  return %r : tensor<4x1366xf32>
}

// Gather wraps negative indices and clamps the rest (kiln_gather_index).
// CHECK-LABEL: kiln.kernel "gather"
// CHECK:         const long long x{{[0-9]+}} = (long long)in1[((i / 1285) * 5 + ((i / 257) % 5))];
// CHECK-NEXT:    const kiln_index_t g{{[0-9]+}} = (kiln_index_t)kiln_gather_index(x{{[0-9]+}}, 50LL);
// CHECK-NEXT:    const float x{{[0-9]+}} = in0[(g{{[0-9]+}} * 257 + (i % 257))];
func.func @gather(%t: tensor<50x257xf32>, %ids: tensor<3x5xi64>) -> tensor<3x5x257xf32> {
  %e = kiln.empty : tensor<3x5x257xf32>
  %r = kiln.kernel "gather" data_movement ins(%t, %ids : tensor<50x257xf32>, tensor<3x5xi64>) outs(%e : tensor<3x5x257xf32>) attributes {block_size = 256 : i64, grid_size = 16 : i64} {
  ^bb0(%x: tensor<50x257xf32>, %i: tensor<3x5xi64>, %o: tensor<3x5x257xf32>):
    %g = kiln.gather %x, %i {axis = 0 : i64} : tensor<50x257xf32>, tensor<3x5xi64> -> tensor<3x5x257xf32>
    kiln.yield %g : tensor<3x5x257xf32>
  } -> tensor<3x5x257xf32>
  return %r : tensor<3x5x257xf32>
}

// Expand drops broadcast dims from the index; a 4-element constant becomes a
// __device__ table; unsqueeze/reshape are views.
// CHECK-LABEL: kiln.kernel "expand"
// CHECK:       static __device__ const float kiln_table{{[0-9]+}}[4] = {1.0f, 2.0f, (-3.0f), 0.5f};
// CHECK:         in0[((i / 132) * 33 + (i % 33))]
// CHECK:         kiln_table{{[0-9]+}}[((i / 33) % 4)]
func.func @expand(%a: tensor<3x1x33xf32>) -> tensor<3x4x33xf32> {
  %e = kiln.empty : tensor<3x4x33xf32>
  %r = kiln.kernel "expand" data_movement ins(%a : tensor<3x1x33xf32>) outs(%e : tensor<3x4x33xf32>) attributes {block_size = 64 : i64, grid_size = 8 : i64} {
  ^bb0(%x: tensor<3x1x33xf32>, %o: tensor<3x4x33xf32>):
    %shape = kiln.constant dense<[3, 4, 33]> : tensor<3xi64>
    %big = kiln.expand %x, %shape : tensor<3x1x33xf32>, tensor<3xi64> -> tensor<3x4x33xf32>
    %k = kiln.constant dense<[1.0, 2.0, -3.0, 0.5]> : tensor<4xf32>
    %axes = kiln.constant dense<[1]> : tensor<1xi64>
    %k2 = kiln.unsqueeze %k, %axes : tensor<4xf32>, tensor<1xi64> -> tensor<4x1xf32>
    %s = kiln.mul %big, %k2 : tensor<3x4x33xf32>, tensor<4x1xf32> -> tensor<3x4x33xf32>
    kiln.yield %s : tensor<3x4x33xf32>
  } -> tensor<3x4x33xf32>
  return %r : tensor<3x4x33xf32>
}

// A reduction that is not a row_reduce anchor is a serial loop per element.
// CHECK-LABEL: kiln.kernel "serial_sum"
// CHECK:         float acc{{[0-9]+}} = 0.0f;
// CHECK-NEXT:    for (kiln_index_t r{{[0-9]+}} = 0; r{{[0-9]+}} < 6; ++r{{[0-9]+}}) {
// CHECK-NEXT:      const float x{{[0-9]+}} = in0[(r{{[0-9]+}} * 7 + i)];
// CHECK-NEXT:      acc{{[0-9]+}} = acc{{[0-9]+}} + x{{[0-9]+}};
// CHECK-NEXT:    }
func.func @serial_sum(%a: tensor<6x7xf32>) -> tensor<7xf32> {
  %e = kiln.empty : tensor<7xf32>
  %r = kiln.kernel "serial_sum" data_movement ins(%a : tensor<6x7xf32>) outs(%e : tensor<7xf32>) attributes {block_size = 32 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<6x7xf32>, %o: tensor<7xf32>):
    %axes = kiln.constant dense<[0]> : tensor<1xi64>
    %s = kiln.reduce_sum %x, %axes {keepdims = false} : tensor<6x7xf32>, tensor<1xi64> -> tensor<7xf32>
    kiln.yield %s : tensor<7xf32>
  } -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// Library kernels get no CUDA.
// CHECK: // kiln.kernel "gemm" (library): executed by cuBLASLt in the runtime; no CUDA
func.func @library(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %e = kiln.empty : tensor<4x16xf32>
  %r = kiln.kernel "gemm" library ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>, %o: tensor<4x16xf32>):
    %m = kiln.matmul %x, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    kiln.yield %m : tensor<4x16xf32>
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
// CHECK: // nvrtc: 5 kernels for sm_90
