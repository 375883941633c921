// The loop template: tiling attributes drive the emitted loop (elements per
// thread, vector width), dtypes convert at load and store, broadcasts become
// index arithmetic, identical kernels are emitted once. Every kernel is also
// compiled with NVRTC for sm_90.
// RUN: kiln-translate %s --emit-cuda | FileCheck %s

// CHECK-LABEL: kiln.kernel "scalar_loop"
// CHECK:       typedef int kiln_index_t;
// CHECK:       extern "C" __global__ void __launch_bounds__(256) kiln_pointwise_{{[0-9a-f]+}}(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out0) {
// CHECK:         const kiln_index_t kiln_count = 16388;
// CHECK-NEXT:    for (kiln_index_t i = (kiln_index_t)blockIdx.x * blockDim.x + threadIdx.x; i < kiln_count; i += (kiln_index_t)gridDim.x * blockDim.x) {
// CHECK-NEXT:      const float x0 = in0[i];
// CHECK-NEXT:      const float x1 = in1[(i % 4097)];
// CHECK-NEXT:      const float v2 = (x0 + x1);
// CHECK-NEXT:      const float v3 = kiln_relu(v2);
// CHECK-NEXT:      out0[i] = v3;
func.func @scalar_loop(%a: tensor<4x4097xf32>, %b: tensor<4097xf32>) -> tensor<4x4097xf32> {
  %e = kiln.empty : tensor<4x4097xf32>
  %r = kiln.kernel "scalar_loop" pointwise ins(%a, %b : tensor<4x4097xf32>, tensor<4097xf32>) outs(%e : tensor<4x4097xf32>) attributes {block_size = 256 : i64, grid_size = 16 : i64} {
  ^bb0(%x: tensor<4x4097xf32>, %y: tensor<4097xf32>, %o: tensor<4x4097xf32>):
    %s = kiln.add %x, %y : tensor<4x4097xf32>, tensor<4097xf32> -> tensor<4x4097xf32>
    %t = kiln.relu %s : tensor<4x4097xf32> -> tensor<4x4097xf32>
    kiln.yield %t : tensor<4x4097xf32>
  } -> tensor<4x4097xf32>
  return %r : tensor<4x4097xf32>
}

// The same body with elements_per_thread = 4 is another kernel: whole steps
// of 4 elements blockDim.x apart (coalesced), every same-index load first,
// then the thread's part of the last, partial step one element at a time.
// CHECK-LABEL: kiln.kernel "four_per_thread"
// CHECK:         kiln_index_t kiln_unit = (kiln_index_t)blockIdx.x * blockDim.x * 4 + threadIdx.x;
// CHECK-NEXT:    for (; kiln_unit + 3 * (kiln_index_t)blockDim.x < kiln_count; kiln_unit += (kiln_index_t)gridDim.x * blockDim.x * 4) {
// CHECK-NEXT:      const kiln_index_t i0 = kiln_unit;
// CHECK-NEXT:      const kiln_index_t i1 = kiln_unit + 1 * (kiln_index_t)blockDim.x;
// CHECK:           const kiln_index_t i3 = kiln_unit + 3 * (kiln_index_t)blockDim.x;
// CHECK-NEXT:      const float x0 = in0[i0];
// CHECK-NEXT:      const float x1 = in0[i1];
// CHECK-NEXT:      const float x2 = in0[i2];
// CHECK-NEXT:      const float x3 = in0[i3];
// CHECK-NEXT:      const float x4 = in1[(i0 % 4097)];
// CHECK:           out0[i3] = v{{[0-9]+}};
// CHECK-NEXT:    }
// CHECK-NEXT:    // The last, partial step: this thread's remaining elements.
// CHECK-NEXT:    for (kiln_index_t i = kiln_unit; i < kiln_count; i += (kiln_index_t)blockDim.x) {
// CHECK-NEXT:      const float x{{[0-9]+}} = in0[i];
func.func @four_per_thread(%a: tensor<4x4097xf32>, %b: tensor<4097xf32>) -> tensor<4x4097xf32> {
  %e = kiln.empty : tensor<4x4097xf32>
  %r = kiln.kernel "four_per_thread" pointwise ins(%a, %b : tensor<4x4097xf32>, tensor<4097xf32>) outs(%e : tensor<4x4097xf32>) attributes {block_size = 256 : i64, grid_size = 16 : i64, elements_per_thread = 4 : i64} {
  ^bb0(%x: tensor<4x4097xf32>, %y: tensor<4097xf32>, %o: tensor<4x4097xf32>):
    %s = kiln.add %x, %y : tensor<4x4097xf32>, tensor<4097xf32> -> tensor<4x4097xf32>
    %t = kiln.relu %s : tensor<4x4097xf32> -> tensor<4x4097xf32>
    kiln.yield %t : tensor<4x4097xf32>
  } -> tensor<4x4097xf32>
  return %r : tensor<4x4097xf32>
}

// vector_width = 8 on f16: one 16-byte load per same-shape input, scalar
// inputs stay scalar, one 16-byte store; values computed in float.
// CHECK-LABEL: kiln.kernel "vector_f16"
// CHECK:       (const __half* __restrict__ in0, const __half* __restrict__ in1, __half* __restrict__ out0)
// CHECK:         // 32768 elements in 4096 vectors of 8; 1 vector per thread and grid-stride step.
// CHECK-NEXT:    const kiln_index_t kiln_count = 4096;
// CHECK-NEXT:    for (kiln_index_t i = (kiln_index_t)blockIdx.x * blockDim.x + threadIdx.x; i < kiln_count; i += (kiln_index_t)gridDim.x * blockDim.x) {
// CHECK-NEXT:      const kiln_vec<__half, 8> vin0_0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[i];
// CHECK-NEXT:      const float x0 = __half2float(vin0_0.v[0]);
// CHECK-NEXT:      const float x1 = __half2float(in1[0]);
// CHECK-NEXT:      const float v2 = (x0 * x1);
// CHECK:           const float x{{[0-9]+}} = __half2float(vin0_0.v[7]);
// CHECK:           kiln_vec<__half, 8> vout0_0;
// CHECK:           vout0_0.v[7] = __float2half_rn(v{{[0-9]+}});
// CHECK-NEXT:      reinterpret_cast<kiln_vec<__half, 8>*>(out0)[i] = vout0_0;
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @vector_f16(%a: tensor<8x4096xf16>, %s: tensor<f16>) -> tensor<8x4096xf16> {
  %e = kiln.empty : tensor<8x4096xf16>
  %r = kiln.kernel "vector_f16" pointwise ins(%a, %s : tensor<8x4096xf16>, tensor<f16>) outs(%e : tensor<8x4096xf16>) attributes {block_size = 128 : i64, grid_size = 32 : i64, vector_width = 8 : i64} {
  ^bb0(%x: tensor<8x4096xf16>, %y: tensor<f16>, %o: tensor<8x4096xf16>):
    %m = kiln.mul %x, %y : tensor<8x4096xf16>, tensor<f16> -> tensor<8x4096xf16>
    kiln.yield %m : tensor<8x4096xf16>
  } -> tensor<8x4096xf16>
  return %r : tensor<8x4096xf16>
}

// bf16 storage, an in-kernel splat constant as a literal, sigmoid and where.
// CHECK-LABEL: kiln.kernel "bf16_where"
// CHECK:         const float x0 = __bfloat162float(in0[i]);
// CHECK-NEXT:    const bool v1 = (x0 < 0.25f);
// CHECK-NEXT:    const float v2 = kiln_sigmoid(x0);
// CHECK-NEXT:    const float v3 = (v1 ? v2 : x0);
// CHECK-NEXT:    out0[i] = __float2bfloat16_rn(v3);
func.func @bf16_where(%a: tensor<1000xbf16>) -> tensor<1000xbf16> {
  %e = kiln.empty : tensor<1000xbf16>
  %r = kiln.kernel "bf16_where" pointwise ins(%a : tensor<1000xbf16>) outs(%e : tensor<1000xbf16>) attributes {block_size = 128 : i64, grid_size = 8 : i64} {
  ^bb0(%x: tensor<1000xbf16>, %o: tensor<1000xbf16>):
    %q = kiln.constant dense<0.25> : tensor<bf16>
    %g = kiln.sigmoid %x : tensor<1000xbf16> -> tensor<1000xbf16>
    %c = kiln.less %x, %q : tensor<1000xbf16>, tensor<bf16> -> tensor<1000xi1>
    %w = kiln.where %c, %g, %x : tensor<1000xi1>, tensor<1000xbf16>, tensor<1000xbf16> -> tensor<1000xbf16>
    kiln.yield %w : tensor<1000xbf16>
  } -> tensor<1000xbf16>
  return %r : tensor<1000xbf16>
}

// Integer ops wrap to their width after every op; casts follow the table.
// CHECK-LABEL: kiln.kernel "int_ops"
// CHECK:         const long long x0 = (long long)in0[i];
// CHECK:         (long long)(int)(kiln_iadd(x0, x1))
// CHECK:         kiln_idiv(
// CHECK:         kiln_f2i(
// CHECK:         out0[i] = (int)
func.func @int_ops(%a: tensor<300xi32>, %b: tensor<300xi32>, %f: tensor<300xf32>) -> tensor<300xi32> {
  %e = kiln.empty : tensor<300xi32>
  %r = kiln.kernel "int_ops" pointwise ins(%a, %b, %f : tensor<300xi32>, tensor<300xi32>, tensor<300xf32>) outs(%e : tensor<300xi32>) attributes {block_size = 128 : i64, grid_size = 3 : i64} {
  ^bb0(%x: tensor<300xi32>, %y: tensor<300xi32>, %z: tensor<300xf32>, %o: tensor<300xi32>):
    %s = kiln.add %x, %y : tensor<300xi32>, tensor<300xi32> -> tensor<300xi32>
    %d = kiln.div %s, %y : tensor<300xi32>, tensor<300xi32> -> tensor<300xi32>
    %c = kiln.cast %z {to = i32} : tensor<300xf32> -> tensor<300xi32>
    %m = kiln.mul %d, %c : tensor<300xi32>, tensor<300xi32> -> tensor<300xi32>
    kiln.yield %m : tensor<300xi32>
  } -> tensor<300xi32>
  return %r : tensor<300xi32>
}

// Two kernel ops with identical bodies and attributes become one CUDA kernel
// whose header names both.
// CHECK-LABEL: kiln.kernel "dedup_a"
// CHECK-NEXT:  //   kiln.kernel "dedup_b"
// CHECK:         kiln_exp(
// CHECK-NOT:   kiln.kernel "dedup_b"
// CHECK:       // nvrtc: 6 kernels for sm_90 in
func.func @dedup(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = kiln.empty : tensor<64xf32>
  %r = kiln.kernel "dedup_a" pointwise ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<64xf32>, %o: tensor<64xf32>):
    %t = kiln.exp %x : tensor<64xf32> -> tensor<64xf32>
    kiln.yield %t : tensor<64xf32>
  } -> tensor<64xf32>
  %e2 = kiln.empty : tensor<64xf32>
  %r2 = kiln.kernel "dedup_b" pointwise ins(%r : tensor<64xf32>) outs(%e2 : tensor<64xf32>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<64xf32>, %o: tensor<64xf32>):
    %t = kiln.exp %x : tensor<64xf32> -> tensor<64xf32>
    kiln.yield %t : tensor<64xf32>
  } -> tensor<64xf32>
  return %r2 : tensor<64xf32>
}
