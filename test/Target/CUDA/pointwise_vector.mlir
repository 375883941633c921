// The vectorised loop template as kiln-tile-kernels chooses it: 16-byte
// vectors when every input is read at the output's own index or is a single
// element, a tail for counts that are not a multiple of the vector, and the
// scalar loop for other broadcasts of non-scalars; broadcasts that keep the
// innermost dim (a bias row, a squeeze-excite scale [N, 1, 1, C]) and the
// pieces of a concat along the innermost dim (a channel concat) are read by
// vectors too. Compiled by NVRTC.
// RUN: kiln-opt %s --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// The benchmark chain Sigmoid(x * 1.5 + 0.25) * x over 2^25 f16 elements
// (past the one-vector grid's cap): 8 halves per vector, 4 vectors per
// thread blockDim.x apart, the 4 loads first; no tail.
// CHECK-LABEL: kiln.kernel "sigmoid_chain_f16"
// CHECK:         // 33554432 elements in 4194304 vectors of 8; 4 vectors per thread and grid-stride step, blockDim.x apart.
// CHECK:         for (; kiln_unit + 3 * (kiln_index_t)blockDim.x < kiln_count; kiln_unit += (kiln_index_t)gridDim.x * blockDim.x * 4) {
// CHECK:           const kiln_vec<__half, 8> vin0_0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[i0];
// CHECK-NEXT:      const kiln_vec<__half, 8> vin0_1 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[i1];
// CHECK-NEXT:      const kiln_vec<__half, 8> vin0_2 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[i2];
// CHECK-NEXT:      const kiln_vec<__half, 8> vin0_3 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[i3];
// CHECK-NEXT:      const float x0 = __half2float(vin0_0.v[0]);
// CHECK-NEXT:      const float v1 = (x0 * 1.5f);
// CHECK-NEXT:      const float v2 = (v1 + 0.25f);
// CHECK-NEXT:      const float v3 = kiln_sigmoid_f16(v2);
// CHECK:           reinterpret_cast<kiln_vec<__half, 8>*>(out0)[i3] = vout0_3;
// CHECK:         for (kiln_index_t i = kiln_unit; i < kiln_count; i += (kiln_index_t)blockDim.x) {
// CHECK:           reinterpret_cast<kiln_vec<__half, 8>*>(out0)[i] = vout0_0;
// CHECK-NOT:     elements after the last whole vector
// CHECK-NOT:     in0[
func.func @sigmoid_chain_f16(%x: tensor<4096x8192xf16>) -> tensor<4096x8192xf16> {
  %e = kiln.empty : tensor<4096x8192xf16>
  %r = kiln.kernel "sigmoid_chain_f16" pointwise ins(%x : tensor<4096x8192xf16>) outs(%e : tensor<4096x8192xf16>) {
  ^bb0(%a: tensor<4096x8192xf16>, %o: tensor<4096x8192xf16>):
    %k = kiln.constant dense<1.5> : tensor<f16>
    %b = kiln.constant dense<0.25> : tensor<f16>
    %m = kiln.mul %a, %k : tensor<4096x8192xf16>, tensor<f16> -> tensor<4096x8192xf16>
    %s = kiln.add %m, %b : tensor<4096x8192xf16>, tensor<f16> -> tensor<4096x8192xf16>
    %g = kiln.sigmoid %s : tensor<4096x8192xf16> -> tensor<4096x8192xf16>
    %y = kiln.mul %g, %a : tensor<4096x8192xf16>, tensor<4096x8192xf16> -> tensor<4096x8192xf16>
    kiln.yield %y : tensor<4096x8192xf16>
  } -> tensor<4096x8192xf16>
  return %r : tensor<4096x8192xf16>
}

// 3003 bf16 elements: 375 vectors of 8, then 3 elements one per thread; the
// scalar input is one uniform load in both loops.
// CHECK-LABEL: kiln.kernel "tail_bf16"
// CHECK:         // 3003 elements in 375 vectors of 8 and a tail of 3; 1 vector per thread and grid-stride step.
// CHECK:           const kiln_vec<__nv_bfloat16, 8> vin0_0 = reinterpret_cast<const kiln_vec<__nv_bfloat16, 8>*>(in0)[i];
// CHECK-NEXT:      const float x0 = __bfloat162float(vin0_0.v[0]);
// CHECK-NEXT:      const float x1 = __bfloat162float(in1[0]);
// CHECK:           reinterpret_cast<kiln_vec<__nv_bfloat16, 8>*>(out0)[i] = vout0_0;
// CHECK:         // The 3 elements after the last whole vector.
// CHECK-NEXT:    for (kiln_index_t i = 3000 + (kiln_index_t)blockIdx.x * blockDim.x + threadIdx.x; i < 3003; i += (kiln_index_t)gridDim.x * blockDim.x) {
// CHECK-NEXT:      const float x{{[0-9]+}} = __bfloat162float(in0[i]);
// CHECK-NEXT:      const float x{{[0-9]+}} = __bfloat162float(in1[0]);
// CHECK:           out0[i] = __float2bfloat16_rn(v{{[0-9]+}});
func.func @tail_bf16(%x: tensor<3x1001xbf16>, %s: tensor<bf16>) -> tensor<3x1001xbf16> {
  %e = kiln.empty : tensor<3x1001xbf16>
  %r = kiln.kernel "tail_bf16" pointwise ins(%x, %s : tensor<3x1001xbf16>, tensor<bf16>) outs(%e : tensor<3x1001xbf16>) {
  ^bb0(%a: tensor<3x1001xbf16>, %b: tensor<bf16>, %o: tensor<3x1001xbf16>):
    %m = kiln.sub %a, %b : tensor<3x1001xbf16>, tensor<bf16> -> tensor<3x1001xbf16>
    %t = kiln.tanh %m : tensor<3x1001xbf16> -> tensor<3x1001xbf16>
    kiln.yield %t : tensor<3x1001xbf16>
  } -> tensor<3x1001xbf16>
  return %r : tensor<3x1001xbf16>
}

// A row broadcast ([4096] to [4, 4096], a bias): the row is whole vectors,
// so a vector of the output reads the row's vector at the unit modulo the
// row's vector count.
// CHECK-LABEL: kiln.kernel "row_broadcast_f32"
// CHECK:         // 16384 elements in 4096 vectors of 4; 1 vector per thread and grid-stride step.
// CHECK:           const kiln_vec<float, 4> vin0_0 = reinterpret_cast<const kiln_vec<float, 4>*>(in0)[i];
// CHECK-NEXT:      const kiln_vec<float, 4> vin1_0 = reinterpret_cast<const kiln_vec<float, 4>*>(in1)[(i % 1024)];
// CHECK-NEXT:      const float x0 = vin0_0.v[0];
// CHECK-NEXT:      const float x1 = vin1_0.v[0];
// CHECK:           const float x13 = vin1_0.v[3];
// CHECK:           reinterpret_cast<kiln_vec<float, 4>*>(out0)[i] = vout0_0;
func.func @row_broadcast_f32(%x: tensor<4x4096xf32>, %b: tensor<4096xf32>) -> tensor<4x4096xf32> {
  %e = kiln.empty : tensor<4x4096xf32>
  %r = kiln.kernel "row_broadcast_f32" pointwise ins(%x, %b : tensor<4x4096xf32>, tensor<4096xf32>) outs(%e : tensor<4x4096xf32>) {
  ^bb0(%a: tensor<4x4096xf32>, %c: tensor<4096xf32>, %o: tensor<4x4096xf32>):
    %s = kiln.add %a, %c : tensor<4x4096xf32>, tensor<4096xf32> -> tensor<4x4096xf32>
    %y = kiln.relu %s : tensor<4x4096xf32> -> tensor<4x4096xf32>
    kiln.yield %y : tensor<4x4096xf32>
  } -> tensor<4x4096xf32>
  return %r : tensor<4x4096xf32>
}

// A [1, 1, 20] f16 row over [2, 5, 20]: 20 is not a multiple of 8, so
// vectors of 4 (a whole number per row); the [1, 1, 20] index is the row's.
// CHECK-LABEL: kiln.kernel "row_broadcast_3d_f16"
// CHECK:         // 200 elements in 50 vectors of 4; 1 vector per thread and grid-stride step.
// CHECK:           const kiln_vec<__half, 4> vin1_0 = reinterpret_cast<const kiln_vec<__half, 4>*>(in1)[(i % 5)];
// CHECK:           const float x1 = __half2float(vin1_0.v[0]);
func.func @row_broadcast_3d_f16(%x: tensor<2x5x20xf16>, %b: tensor<1x1x20xf16>) -> tensor<2x5x20xf16> {
  %e = kiln.empty : tensor<2x5x20xf16>
  %r = kiln.kernel "row_broadcast_3d_f16" pointwise ins(%x, %b : tensor<2x5x20xf16>, tensor<1x1x20xf16>) outs(%e : tensor<2x5x20xf16>) {
  ^bb0(%a: tensor<2x5x20xf16>, %c: tensor<1x1x20xf16>, %o: tensor<2x5x20xf16>):
    %s = kiln.mul %a, %c : tensor<2x5x20xf16>, tensor<1x1x20xf16> -> tensor<2x5x20xf16>
    kiln.yield %s : tensor<2x5x20xf16>
  } -> tensor<2x5x20xf16>
  return %r : tensor<2x5x20xf16>
}

// A column broadcast ([4, 1] to [4, 4096], a statistic per row) is one
// element per vector of x: x by vectors, the statistic read once per vector
// and used by its four lanes.
// CHECK-LABEL: kiln.kernel "column_broadcast_f32"
// CHECK:         // 16384 elements in 4096 vectors of 4; 1 vector per thread and grid-stride step.
// CHECK:           const kiln_vec<float, 4> vin0_0 = reinterpret_cast<const kiln_vec<float, 4>*>(in0)[i];
// CHECK-NEXT:      const float x0 = vin0_0.v[0];
// CHECK-NEXT:      const float x1 = in1[((i * 4) / 4096)];
// CHECK-NEXT:      const float v2 = (x0 + x1);
// CHECK-NEXT:      const float x3 = vin0_0.v[1];
// CHECK-NEXT:      const float v4 = (x3 + x1);
// CHECK-NOT:       in1[
// CHECK:           reinterpret_cast<kiln_vec<float, 4>*>(out0)[i] = vout0_0;
func.func @column_broadcast_f32(%x: tensor<4x4096xf32>, %b: tensor<4x1xf32>) -> tensor<4x4096xf32> {
  %e = kiln.empty : tensor<4x4096xf32>
  %r = kiln.kernel "column_broadcast_f32" pointwise ins(%x, %b : tensor<4x4096xf32>, tensor<4x1xf32>) outs(%e : tensor<4x4096xf32>) {
  ^bb0(%a: tensor<4x4096xf32>, %c: tensor<4x1xf32>, %o: tensor<4x4096xf32>):
    %s = kiln.add %a, %c : tensor<4x4096xf32>, tensor<4x1xf32> -> tensor<4x4096xf32>
    kiln.yield %s : tensor<4x4096xf32>
  } -> tensor<4x4096xf32>
  return %r : tensor<4x4096xf32>
}

// A view inside the kernel keeps the element order: the reshaped input is
// read by vector too.
// CHECK-LABEL: kiln.kernel "view_f16"
// CHECK:         // 512 elements in 64 vectors of 8; 1 vector per thread and grid-stride step.
// CHECK:           const kiln_vec<__half, 8> vin0_0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[i];
// CHECK-NEXT:      const kiln_vec<__half, 8> vin1_0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in1)[i];
// CHECK-NEXT:      const float x0 = __half2float(vin0_0.v[0]);
// CHECK-NEXT:      const float x1 = __half2float(vin1_0.v[0]);
func.func @view_f16(%x: tensor<64x8xf16>, %y: tensor<512xf16>) -> tensor<512xf16> {
  %e = kiln.empty : tensor<512xf16>
  %r = kiln.kernel "view_f16" pointwise ins(%x, %y : tensor<64x8xf16>, tensor<512xf16>) outs(%e : tensor<512xf16>) {
  ^bb0(%a: tensor<64x8xf16>, %b: tensor<512xf16>, %o: tensor<512xf16>):
    %shape = kiln.constant dense<[512]> : tensor<1xi64>
    %v = kiln.reshape %a, %shape : tensor<64x8xf16>, tensor<1xi64> -> tensor<512xf16>
    %s = kiln.add %v, %b : tensor<512xf16>, tensor<512xf16> -> tensor<512xf16>
    kiln.yield %s : tensor<512xf16>
  } -> tensor<512xf16>
  return %r : tensor<512xf16>
}

// A squeeze-excite scale: sigmoid(s) * x with s [N, 1, 1, C] over NHWC x
// [N, H, W, C]. s keeps the innermost dim, so a vector of 8 channels of x
// reads a vector of s at (n, vector of channels): the output in vectors is
// [2, 7, 7, 4], s [2, 1, 1, 4]. The sigmoid on s is computed lane by lane.
// CHECK-LABEL: kiln.kernel "se_scale_f16"
// CHECK:         // 3136 elements in 392 vectors of 8; 1 vector per thread and grid-stride step.
// CHECK:           const kiln_vec<__half, 8> vin0_0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[((i / 196) * 4 + (i % 4))];
// CHECK-NEXT:      const kiln_vec<__half, 8> vin1_0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in1)[i];
// CHECK-NEXT:      const float x0 = __half2float(vin0_0.v[0]);
// CHECK-NEXT:      const float v1 = kiln_sigmoid_f16(x0);
// CHECK-NEXT:      const float x2 = __half2float(vin1_0.v[0]);
// CHECK-NEXT:      const float v3 = (v1 * x2);
// CHECK:           const float x28 = __half2float(vin0_0.v[7]);
// CHECK-NOT:       in0[
// CHECK:           reinterpret_cast<kiln_vec<__half, 8>*>(out0)[i] = vout0_0;
func.func @se_scale_f16(%s: tensor<2x1x1x32xf16>, %x: tensor<2x7x7x32xf16>) -> tensor<2x7x7x32xf16> {
  %e = kiln.empty : tensor<2x7x7x32xf16>
  %r = kiln.kernel "se_scale_f16" pointwise ins(%s, %x : tensor<2x1x1x32xf16>, tensor<2x7x7x32xf16>) outs(%e : tensor<2x7x7x32xf16>) {
  ^bb0(%a: tensor<2x1x1x32xf16>, %b: tensor<2x7x7x32xf16>, %o: tensor<2x7x7x32xf16>):
    %g = kiln.sigmoid %a : tensor<2x1x1x32xf16> -> tensor<2x1x1x32xf16>
    %y = kiln.mul %g, %b : tensor<2x1x1x32xf16>, tensor<2x7x7x32xf16> -> tensor<2x7x7x32xf16>
    kiln.yield %y : tensor<2x7x7x32xf16>
  } -> tensor<2x7x7x32xf16>
  return %r : tensor<2x7x7x32xf16>
}

// 20 channels (MobileNet-V3's SE widths are not all multiples of 8): vectors
// of 4, 5 per pixel; a scale broadcast over W only ([2, 3, 1, 20]) keeps the
// innermost dim too: its vector is at (n, h, vector of channels).
// CHECK-LABEL: kiln.kernel "se_scale_c20_f16"
// CHECK:         // 360 elements in 90 vectors of 4; 1 vector per thread and grid-stride step.
// CHECK:           const kiln_vec<__half, 4> vin0_0 = reinterpret_cast<const kiln_vec<__half, 4>*>(in0)[((i / 45) * 5 + (i % 5))];
// CHECK-NEXT:      const kiln_vec<__half, 4> vin1_0 = reinterpret_cast<const kiln_vec<__half, 4>*>(in1)[(((i / 45) * 3 + ((i / 15) % 3)) * 5 + (i % 5))];
// CHECK-NEXT:      const kiln_vec<__half, 4> vin2_0 = reinterpret_cast<const kiln_vec<__half, 4>*>(in2)[i];
// CHECK-NOT:       in{{[0-9]}}[
// CHECK:           reinterpret_cast<kiln_vec<__half, 4>*>(out0)[i] = vout0_0;
func.func @se_scale_c20_f16(%s: tensor<2x1x1x20xf16>, %t: tensor<2x3x1x20xf16>, %x: tensor<2x3x3x20xf16>) -> tensor<2x3x3x20xf16> {
  %e = kiln.empty : tensor<2x3x3x20xf16>
  %r = kiln.kernel "se_scale_c20_f16" pointwise ins(%s, %t, %x : tensor<2x1x1x20xf16>, tensor<2x3x1x20xf16>, tensor<2x3x3x20xf16>) outs(%e : tensor<2x3x3x20xf16>) {
  ^bb0(%a: tensor<2x1x1x20xf16>, %c: tensor<2x3x1x20xf16>, %b: tensor<2x3x3x20xf16>, %o: tensor<2x3x3x20xf16>):
    %g = kiln.hard_sigmoid %a {alpha = 0.1666666 : f32, beta = 0.5 : f32} : tensor<2x1x1x20xf16> -> tensor<2x1x1x20xf16>
    %m = kiln.mul %g, %c : tensor<2x1x1x20xf16>, tensor<2x3x1x20xf16> -> tensor<2x3x1x20xf16>
    %y = kiln.mul %b, %m : tensor<2x3x3x20xf16>, tensor<2x3x1x20xf16> -> tensor<2x3x3x20xf16>
    kiln.yield %y : tensor<2x3x3x20xf16>
  } -> tensor<2x3x3x20xf16>
  return %r : tensor<2x3x3x20xf16>
}

// A channel concat of NHWC pieces (DenseNet's, with its BatchNorm-ReLU
// epilogue): 16 and 8 channels are whole vectors of 8, so each vector of the
// result lies in one piece; the piece is chosen per vector (3 per pixel) and
// loaded whole. The per-channel scale is a row read by vectors.
// CHECK-LABEL: kiln.kernel "channel_concat_f16"
// CHECK:         // 768 elements in 96 vectors of 8; 1 vector per thread and grid-stride step.
// CHECK:           const kiln_vec<__half, 8> vin2_0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in2)[(i % 3)];
// CHECK-NEXT:      const kiln_index_t [[PX:px[0-9]+]] = (i / 3);
// CHECK-NEXT:      const kiln_index_t [[CV:cv[0-9]+]] = (i % 3);
// CHECK-NEXT:      kiln_vec<__half, 8> vcat0_0;
// CHECK-NEXT:      if ([[CV]] < 2) {
// CHECK-NEXT:        vcat0_0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[([[PX]] * 2 + [[CV]])];
// CHECK-NEXT:      }
// CHECK-NEXT:      else {
// CHECK-NEXT:        vcat0_0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in1)[([[PX]] + ([[CV]] - 2))];
// CHECK-NEXT:      }
// CHECK-NEXT:      const float x{{[0-9]+}} = __half2float(vin2_0.v[0]);
// CHECK-NEXT:      const float v{{[0-9]+}} = (__half2float(vcat0_0.v[0]) * x{{[0-9]+}});
// CHECK-NOT:       in0[
// CHECK:           reinterpret_cast<kiln_vec<__half, 8>*>(out0)[i] = vout0_0;
func.func @channel_concat_f16(%a: tensor<2x4x4x16xf16>, %b: tensor<2x4x4x8xf16>, %s: tensor<24xf16>) -> tensor<2x4x4x24xf16> {
  %e = kiln.empty : tensor<2x4x4x24xf16>
  %r = kiln.kernel "channel_concat_f16" pointwise ins(%a, %b, %s : tensor<2x4x4x16xf16>, tensor<2x4x4x8xf16>, tensor<24xf16>) outs(%e : tensor<2x4x4x24xf16>) {
  ^bb0(%x: tensor<2x4x4x16xf16>, %y: tensor<2x4x4x8xf16>, %c: tensor<24xf16>, %o: tensor<2x4x4x24xf16>):
    %t = kiln.concat %x, %y {axis = 3 : i64} : tensor<2x4x4x16xf16>, tensor<2x4x4x8xf16> -> tensor<2x4x4x24xf16>
    %m = kiln.mul %t, %c : tensor<2x4x4x24xf16>, tensor<24xf16> -> tensor<2x4x4x24xf16>
    %z = kiln.relu %m : tensor<2x4x4x24xf16> -> tensor<2x4x4x24xf16>
    kiln.yield %z : tensor<2x4x4x24xf16>
  } -> tensor<2x4x4x24xf16>
  return %r : tensor<2x4x4x24xf16>
}

// A data_movement concat of three f32 pieces of 8, 4 and 12 channels
// (axis -1): vectors of 4, the gcd of the pieces; the last piece needs no
// test.
// CHECK-LABEL: kiln.kernel "channel_concat_f32"
// CHECK:         // 288 elements in 72 vectors of 4; 1 vector per thread and grid-stride step.
// CHECK:           if ([[CV:cv[0-9]+]] < 2) {
// CHECK-NEXT:        vcat0_0 = reinterpret_cast<const kiln_vec<float, 4>*>(in0)[([[PX:px[0-9]+]] * 2 + [[CV]])];
// CHECK-NEXT:      }
// CHECK-NEXT:      else if ([[CV]] < 3) {
// CHECK-NEXT:        vcat0_0 = reinterpret_cast<const kiln_vec<float, 4>*>(in1)[([[PX]] + ([[CV]] - 2))];
// CHECK-NEXT:      }
// CHECK-NEXT:      else {
// CHECK-NEXT:        vcat0_0 = reinterpret_cast<const kiln_vec<float, 4>*>(in2)[([[PX]] * 3 + ([[CV]] - 3))];
// CHECK-NEXT:      }
// CHECK-NEXT:      kiln_vec<float, 4> vout0_0;
// CHECK-NEXT:      vout0_0.v[0] = vcat0_0.v[0];
func.func @channel_concat_f32(%a: tensor<3x4x8xf32>, %b: tensor<3x4x4xf32>, %c: tensor<3x4x12xf32>) -> tensor<3x4x24xf32> {
  %e = kiln.empty : tensor<3x4x24xf32>
  %r = kiln.kernel "channel_concat_f32" data_movement ins(%a, %b, %c : tensor<3x4x8xf32>, tensor<3x4x4xf32>, tensor<3x4x12xf32>) outs(%e : tensor<3x4x24xf32>) {
  ^bb0(%x: tensor<3x4x8xf32>, %y: tensor<3x4x4xf32>, %z: tensor<3x4x12xf32>, %o: tensor<3x4x24xf32>):
    %t = kiln.concat %x, %y, %z {axis = -1 : i64} : tensor<3x4x8xf32>, tensor<3x4x4xf32>, tensor<3x4x12xf32> -> tensor<3x4x24xf32>
    kiln.yield %t : tensor<3x4x24xf32>
  } -> tensor<3x4x24xf32>
  return %r : tensor<3x4x24xf32>
}

// A concat whose pieces are 12 and 6 f16 channels: no vector of two or more
// lies in one piece at every position but vectors of 2 (gcd 6 -> 2).
// CHECK-LABEL: kiln.kernel "channel_concat_odd_f16"
// CHECK:         // 144 elements in 72 vectors of 2; 1 vector per thread and grid-stride step.
// CHECK:           vcat0_0 = reinterpret_cast<const kiln_vec<__half, 2>*>(in0)[([[PX:px[0-9]+]] * 6 + [[CV:cv[0-9]+]])];
func.func @channel_concat_odd_f16(%a: tensor<8x12xf16>, %b: tensor<8x6xf16>) -> tensor<8x18xf16> {
  %e = kiln.empty : tensor<8x18xf16>
  %r = kiln.kernel "channel_concat_odd_f16" data_movement ins(%a, %b : tensor<8x12xf16>, tensor<8x6xf16>) outs(%e : tensor<8x18xf16>) {
  ^bb0(%x: tensor<8x12xf16>, %y: tensor<8x6xf16>, %o: tensor<8x18xf16>):
    %t = kiln.concat %x, %y {axis = 1 : i64} : tensor<8x12xf16>, tensor<8x6xf16> -> tensor<8x18xf16>
    kiln.yield %t : tensor<8x18xf16>
  } -> tensor<8x18xf16>
  return %r : tensor<8x18xf16>
}

// f32 to f16: vectors of 4, 16 bytes read and 8 written per vector.
// CHECK-LABEL: kiln.kernel "cast_f32_f16"
// CHECK:           const kiln_vec<float, 4> vin0_0 = reinterpret_cast<const kiln_vec<float, 4>*>(in0)[i];
// CHECK:           reinterpret_cast<kiln_vec<__half, 4>*>(out0)[i] = vout0_0;
// CHECK:       // nvrtc: 12 kernels for sm_90 in
func.func @cast_f32_f16(%x: tensor<256xf32>) -> tensor<256xf16> {
  %e = kiln.empty : tensor<256xf16>
  %r = kiln.kernel "cast_f32_f16" pointwise ins(%x : tensor<256xf32>) outs(%e : tensor<256xf16>) {
  ^bb0(%a: tensor<256xf32>, %o: tensor<256xf16>):
    %c = kiln.cast %a {to = f16} : tensor<256xf32> -> tensor<256xf16>
    kiln.yield %c : tensor<256xf16>
  } -> tensor<256xf16>
  return %r : tensor<256xf16>
}
