// The math and logic ops in the loop template: each becomes its scalar-table
// template (prelude device functions), attribute parameters become literals
// of the computation type, integer results are wrapped to their dtype. Every
// kernel is also compiled with NVRTC for sm_90.
// RUN: kiln-translate %s --emit-cuda | FileCheck %s

// CHECK-LABEL: kiln.kernel "float_unary"
// CHECK:      const float v{{[0-9]+}} = kiln_acos(x0);
// CHECK-NEXT: const float v{{[0-9]+}} = kiln_acosh(v{{[0-9]+}});
// CHECK:      kiln_tan(
// CHECK:      kiln_round(
// CHECK:      kiln_sign(
// CHECK:      kiln_softplus(
// CHECK:      kiln_softsign(
// CHECK:      kiln_hard_swish(
// CHECK:      kiln_elu(v{{[0-9]+}}, 2.0f)
// CHECK:      kiln_selu(v{{[0-9]+}}, 1.67326319f, 1.05070102f)
// CHECK:      kiln_celu(v{{[0-9]+}}, 0.5f)
// CHECK:      kiln_leaky_relu(v{{[0-9]+}}, 0.00999999978f)
// CHECK:      kiln_hard_sigmoid(v{{[0-9]+}}, 0.200000003f, 0.5f)
// CHECK:      kiln_thresholded_relu(v{{[0-9]+}}, 1.0f)
// CHECK:      kiln_shrink(v{{[0-9]+}}, 1.5f, (-0.5f))
func.func @float_unary(%a: tensor<4x33xf32>) -> tensor<4x33xf32> {
  %e = kiln.empty : tensor<4x33xf32>
  %r = kiln.kernel "float_unary" pointwise ins(%a : tensor<4x33xf32>) outs(%e : tensor<4x33xf32>) attributes {block_size = 128 : i64, grid_size = 2 : i64} {
  ^bb0(%x: tensor<4x33xf32>, %o: tensor<4x33xf32>):
    %0 = kiln.acos %x : tensor<4x33xf32> -> tensor<4x33xf32>
    %1 = kiln.acosh %0 : tensor<4x33xf32> -> tensor<4x33xf32>
    %2 = kiln.asin %1 : tensor<4x33xf32> -> tensor<4x33xf32>
    %3 = kiln.asinh %2 : tensor<4x33xf32> -> tensor<4x33xf32>
    %4 = kiln.atan %3 : tensor<4x33xf32> -> tensor<4x33xf32>
    %5 = kiln.atanh %4 : tensor<4x33xf32> -> tensor<4x33xf32>
    %6 = kiln.cos %5 : tensor<4x33xf32> -> tensor<4x33xf32>
    %7 = kiln.cosh %6 : tensor<4x33xf32> -> tensor<4x33xf32>
    %8 = kiln.sin %7 : tensor<4x33xf32> -> tensor<4x33xf32>
    %9 = kiln.sinh %8 : tensor<4x33xf32> -> tensor<4x33xf32>
    %10 = kiln.tan %9 : tensor<4x33xf32> -> tensor<4x33xf32>
    %11 = kiln.ceil %10 : tensor<4x33xf32> -> tensor<4x33xf32>
    %12 = kiln.floor %11 : tensor<4x33xf32> -> tensor<4x33xf32>
    %13 = kiln.round %12 : tensor<4x33xf32> -> tensor<4x33xf32>
    %14 = kiln.sign %13 : tensor<4x33xf32> -> tensor<4x33xf32>
    %15 = kiln.softplus %14 : tensor<4x33xf32> -> tensor<4x33xf32>
    %16 = kiln.softsign %15 : tensor<4x33xf32> -> tensor<4x33xf32>
    %17 = kiln.hard_swish %16 : tensor<4x33xf32> -> tensor<4x33xf32>
    %18 = kiln.elu %17 {alpha = 2.0 : f32} : tensor<4x33xf32> -> tensor<4x33xf32>
    %19 = kiln.selu %18 : tensor<4x33xf32> -> tensor<4x33xf32>
    %20 = kiln.celu %19 {alpha = 0.5 : f32} : tensor<4x33xf32> -> tensor<4x33xf32>
    %21 = kiln.leaky_relu %20 : tensor<4x33xf32> -> tensor<4x33xf32>
    %22 = kiln.hard_sigmoid %21 : tensor<4x33xf32> -> tensor<4x33xf32>
    %23 = kiln.thresholded_relu %22 : tensor<4x33xf32> -> tensor<4x33xf32>
    %24 = kiln.shrink %23 {bias = 1.5 : f32, lambd = -0.5 : f32} : tensor<4x33xf32> -> tensor<4x33xf32>
    kiln.yield %24 : tensor<4x33xf32>
  } -> tensor<4x33xf32>
  return %r : tensor<4x33xf32>
}

// f64 computes in double: parameters are double literals so that the device
// overloads resolve. Binary ops broadcast by index arithmetic.
// CHECK-LABEL: kiln.kernel "double_binary"
// CHECK:      kiln_mod(x{{[0-9]+}}, x{{[0-9]+}})
// CHECK:      kiln_fmod(
// CHECK:      kiln_min(
// CHECK:      kiln_max(
// CHECK:      kiln_prelu(
// CHECK:      kiln_clip(
// CHECK:      kiln_elu(v{{[0-9]+}}, 1.0)
// CHECK:      (v{{[0-9]+}} >= x{{[0-9]+}})
// CHECK:      (v{{[0-9]+}} <= x{{[0-9]+}})
// CHECK:      kiln_isinf(v{{[0-9]+}}, 0.0, 1.0)
// CHECK:      (v{{[0-9]+}} != v{{[0-9]+}})
func.func @double_binary(%a: tensor<3x5xf64>, %b: tensor<5xf64>) -> (tensor<3x5xf64>, tensor<3x5xi1>) {
  %e = kiln.empty : tensor<3x5xf64>
  %eb = kiln.empty : tensor<3x5xi1>
  %r:2 = kiln.kernel "double_binary" pointwise ins(%a, %b : tensor<3x5xf64>, tensor<5xf64>) outs(%e, %eb : tensor<3x5xf64>, tensor<3x5xi1>) attributes {block_size = 128 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<3x5xf64>, %y: tensor<5xf64>, %o: tensor<3x5xf64>, %ob: tensor<3x5xi1>):
    %0 = kiln.mod %x, %y : tensor<3x5xf64>, tensor<5xf64> -> tensor<3x5xf64>
    %1 = kiln.mod %0, %y {fmod = true} : tensor<3x5xf64>, tensor<5xf64> -> tensor<3x5xf64>
    %2 = kiln.min %1, %y : tensor<3x5xf64>, tensor<5xf64> -> tensor<3x5xf64>
    %3 = kiln.max %2, %y : tensor<3x5xf64>, tensor<5xf64> -> tensor<3x5xf64>
    %4 = kiln.prelu %3, %y : tensor<3x5xf64>, tensor<5xf64> -> tensor<3x5xf64>
    %5 = kiln.clip %4, %y, %x : tensor<3x5xf64>, tensor<5xf64>, tensor<3x5xf64> -> tensor<3x5xf64>
    %6 = kiln.elu %5 : tensor<3x5xf64> -> tensor<3x5xf64>
    %7 = kiln.greater_or_equal %6, %y : tensor<3x5xf64>, tensor<5xf64> -> tensor<3x5xi1>
    %8 = kiln.less_or_equal %6, %y : tensor<3x5xf64>, tensor<5xf64> -> tensor<3x5xi1>
    %9 = kiln.is_inf %6 {detect_positive = false} : tensor<3x5xf64> -> tensor<3x5xi1>
    %10 = kiln.is_nan %6 : tensor<3x5xf64> -> tensor<3x5xi1>
    %11 = kiln.and %7, %8 : tensor<3x5xi1>, tensor<3x5xi1> -> tensor<3x5xi1>
    %12 = kiln.or %11, %9 : tensor<3x5xi1>, tensor<3x5xi1> -> tensor<3x5xi1>
    %13 = kiln.xor %12, %10 : tensor<3x5xi1>, tensor<3x5xi1> -> tensor<3x5xi1>
    kiln.yield %6, %13 : tensor<3x5xf64>, tensor<3x5xi1>
  } -> tensor<3x5xf64>, tensor<3x5xi1>
  return %r#0, %r#1 : tensor<3x5xf64>, tensor<3x5xi1>
}

// Integers: signedness reaches the templates as $U, results wrap to the
// dtype's width.
// CHECK-LABEL: kiln.kernel "integers"
// CHECK:      kiln_imod(x0, x1, false)
// CHECK:      kiln_ifmod(
// CHECK:      kiln_imin(
// CHECK:      kiln_isign(
// CHECK:      kiln_iclip(
// CHECK:      (!kiln_iless(
// CHECK-LABEL: kiln.kernel "unsigned_shift"
// CHECK:      kiln_shl(x0, x1)
// CHECK:      kiln_shr(
// CHECK:      kiln_imod({{.*}}, true)
func.func @integers(%a: tensor<16xi8>, %b: tensor<16xi8>) -> (tensor<16xi8>, tensor<16xi1>) {
  %e = kiln.empty : tensor<16xi8>
  %eb = kiln.empty : tensor<16xi1>
  %r:2 = kiln.kernel "integers" pointwise ins(%a, %b : tensor<16xi8>, tensor<16xi8>) outs(%e, %eb : tensor<16xi8>, tensor<16xi1>) attributes {block_size = 32 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<16xi8>, %y: tensor<16xi8>, %o: tensor<16xi8>, %ob: tensor<16xi1>):
    %0 = kiln.mod %x, %y : tensor<16xi8>, tensor<16xi8> -> tensor<16xi8>
    %1 = kiln.mod %0, %y {fmod = true} : tensor<16xi8>, tensor<16xi8> -> tensor<16xi8>
    %2 = kiln.min %1, %x : tensor<16xi8>, tensor<16xi8> -> tensor<16xi8>
    %3 = kiln.sign %2 : tensor<16xi8> -> tensor<16xi8>
    %4 = kiln.clip %3, %x, %y : tensor<16xi8>, tensor<16xi8>, tensor<16xi8> -> tensor<16xi8>
    %5 = kiln.greater_or_equal %4, %y : tensor<16xi8>, tensor<16xi8> -> tensor<16xi1>
    kiln.yield %4, %5 : tensor<16xi8>, tensor<16xi1>
  } -> tensor<16xi8>, tensor<16xi1>
  %u = kiln.cast %a {to = ui8} : tensor<16xi8> -> tensor<16xui8>
  %v = kiln.cast %b {to = ui8} : tensor<16xi8> -> tensor<16xui8>
  %eu = kiln.empty : tensor<16xui8>
  %s = kiln.kernel "unsigned_shift" pointwise ins(%u, %v : tensor<16xui8>, tensor<16xui8>) outs(%eu : tensor<16xui8>) attributes {block_size = 32 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<16xui8>, %y: tensor<16xui8>, %o: tensor<16xui8>):
    %0 = kiln.bit_shift %x, %y {direction = "left"} : tensor<16xui8>, tensor<16xui8> -> tensor<16xui8>
    %1 = kiln.bit_shift %0, %y {direction = "right"} : tensor<16xui8>, tensor<16xui8> -> tensor<16xui8>
    %2 = kiln.mod %1, %y : tensor<16xui8>, tensor<16xui8> -> tensor<16xui8>
    kiln.yield %2 : tensor<16xui8>
  } -> tensor<16xui8>
  return %r#0, %r#1 : tensor<16xi8>, tensor<16xi1>
}



// pow by a constant 2 (float or integer exponent) is the square x * x
// (kiln_square): one rounded product instead of powf's log2/exp2 path; any
// other exponent stays powf, an integer base's pow stays kiln_ipow.
// CHECK-LABEL: kiln.kernel "powers"
// CHECK:      const float [[X:x[0-9]+]] = __half2float(in0[
// CHECK-NEXT: = kiln_square([[X]]);
// CHECK-NEXT: = kiln_square([[X]]);
// CHECK:      = kiln_pow([[X]], (float)2.5f);
func.func @powers(%a: tensor<16xf16>) -> tensor<16xf16> {
  %e = kiln.empty : tensor<16xf16>
  %r = kiln.kernel "powers" pointwise ins(%a : tensor<16xf16>) outs(%e : tensor<16xf16>) attributes {block_size = 32 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<16xf16>, %o: tensor<16xf16>):
    %two = kiln.constant dense<2.0> : tensor<f16>
    %itwo = kiln.constant dense<2> : tensor<i32>
    %other = kiln.constant dense<2.5> : tensor<f16>
    %0 = kiln.pow %x, %two : tensor<16xf16>, tensor<f16> -> tensor<16xf16>
    %1 = kiln.pow %x, %itwo : tensor<16xf16>, tensor<i32> -> tensor<16xf16>
    %2 = kiln.pow %x, %other : tensor<16xf16>, tensor<f16> -> tensor<16xf16>
    %3 = kiln.add %0, %1 : tensor<16xf16>, tensor<16xf16> -> tensor<16xf16>
    %4 = kiln.add %3, %2 : tensor<16xf16>, tensor<16xf16> -> tensor<16xf16>
    kiln.yield %4 : tensor<16xf16>
  } -> tensor<16xf16>
  return %r : tensor<16xf16>
}
