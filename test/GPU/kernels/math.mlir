// GPU kernel tests of the math and logic ops: trigonometry and rounding,
// activations with attribute parameters, Mod/Clip/PRelu/Min/Max with
// broadcasting, logic on comparisons, integer Mod and unsigned shifts, with
// 4097-element tails.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case math.trig_f32 (1 kernels, 1 launches)
// CHECK: wrote case math.activations_f32 (1 kernels, 1 launches)
// CHECK: wrote case math.binary_logic_f32 (1 kernels, 1 launches)
// CHECK: wrote case math.integer_mod_i32 (1 kernels, 1 launches)
// CHECK: wrote case math.shift_u32 (1 kernels, 1 launches)

// Every function of x in (-0.9, 0.9), where all of them are defined.
func.func @trig_f32(%x: tensor<8x4097xf32> {kiln.test_range = [-0.9, 0.9]}) -> tensor<8x4097xf32> {
  %two = kiln.constant dense<2.0> : tensor<f32>
  %three = kiln.constant dense<3.0> : tensor<f32>
  %0 = kiln.acos %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %1 = kiln.asin %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %2 = kiln.atan %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %3 = kiln.atanh %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %4 = kiln.cos %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %5 = kiln.sin %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %6 = kiln.tan %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %7 = kiln.cosh %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %8 = kiln.sinh %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %9 = kiln.asinh %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %c2 = kiln.add %7, %two : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  %10 = kiln.acosh %c2 : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %x3 = kiln.mul %x, %three : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  %11 = kiln.round %x3 : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %12 = kiln.floor %x3 : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %13 = kiln.ceil %x3 : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s0 = kiln.add %0, %1 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s1 = kiln.add %s0, %2 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s2 = kiln.add %s1, %3 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s3 = kiln.add %s2, %4 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s4 = kiln.add %s3, %5 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s5 = kiln.add %s4, %6 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s6 = kiln.add %s5, %8 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s7 = kiln.add %s6, %9 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s8 = kiln.add %s7, %10 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s9 = kiln.add %s8, %11 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s10 = kiln.add %s9, %12 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %s11 = kiln.add %s10, %13 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  return %s11 : tensor<8x4097xf32>
}

// Activations with their attribute parameters, each on the raw input.
func.func @activations_f32(%x: tensor<4x4097xf32> {kiln.test_range = [-4.0, 4.0]}) -> tensor<4x4097xf32> {
  %0 = kiln.elu %x {alpha = 2.0 : f32} : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %1 = kiln.selu %x : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %2 = kiln.celu %x {alpha = 0.5 : f32} : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %3 = kiln.leaky_relu %x {alpha = 0.1 : f32} : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %4 = kiln.hard_sigmoid %x : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %5 = kiln.hard_swish %x : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %6 = kiln.thresholded_relu %x {alpha = 1.5 : f32} : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %7 = kiln.shrink %x {bias = 0.5 : f32, lambd = 1.0 : f32} : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %8 = kiln.softplus %x : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %9 = kiln.softsign %x : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %10 = kiln.sign %x : tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s0 = kiln.add %0, %1 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s1 = kiln.add %s0, %2 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s2 = kiln.add %s1, %3 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s3 = kiln.add %s2, %4 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s4 = kiln.add %s3, %5 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s5 = kiln.add %s4, %6 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s6 = kiln.add %s5, %7 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s7 = kiln.add %s6, %8 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s8 = kiln.add %s7, %9 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %s9 = kiln.add %s8, %10 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  return %s9 : tensor<4x4097xf32>
}

// Broadcast binary ops; comparisons and logic select between two values.
func.func @binary_logic_f32(%x: tensor<4x4097xf32>, %y: tensor<4097xf32>, %lo: tensor<f32> {kiln.test_range = [-1.0, -0.5]}, %hi: tensor<f32> {kiln.test_range = [0.5, 1.0]}) -> tensor<4x4097xf32> {
  %0 = kiln.mod %x, %y {fmod = true} : tensor<4x4097xf32>, tensor<4097xf32> -> tensor<4x4097xf32>
  %1 = kiln.mod %x, %y : tensor<4x4097xf32>, tensor<4097xf32> -> tensor<4x4097xf32>
  %2 = kiln.min %0, %1 : tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  %3 = kiln.max %2, %y : tensor<4x4097xf32>, tensor<4097xf32> -> tensor<4x4097xf32>
  %4 = kiln.prelu %x, %y : tensor<4x4097xf32>, tensor<4097xf32> -> tensor<4x4097xf32>
  %5 = kiln.clip %4, %lo, %hi : tensor<4x4097xf32>, tensor<f32>, tensor<f32> -> tensor<4x4097xf32>
  %ge = kiln.greater_or_equal %x, %y : tensor<4x4097xf32>, tensor<4097xf32> -> tensor<4x4097xi1>
  %le = kiln.less_or_equal %x, %lo : tensor<4x4097xf32>, tensor<f32> -> tensor<4x4097xi1>
  %nan = kiln.is_nan %x : tensor<4x4097xf32> -> tensor<4x4097xi1>
  %inf = kiln.is_inf %x : tensor<4x4097xf32> -> tensor<4x4097xi1>
  %a = kiln.and %ge, %le : tensor<4x4097xi1>, tensor<4x4097xi1> -> tensor<4x4097xi1>
  %o = kiln.or %a, %nan : tensor<4x4097xi1>, tensor<4x4097xi1> -> tensor<4x4097xi1>
  %b = kiln.xor %o, %inf : tensor<4x4097xi1>, tensor<4x4097xi1> -> tensor<4x4097xi1>
  %c = kiln.xor %b, %ge : tensor<4x4097xi1>, tensor<4x4097xi1> -> tensor<4x4097xi1>
  %w = kiln.where %c, %3, %5 : tensor<4x4097xi1>, tensor<4x4097xf32>, tensor<4x4097xf32> -> tensor<4x4097xf32>
  return %w : tensor<4x4097xf32>
}

// Python- and C-style integer remainders with mixed signs (no zero divisor).
func.func @integer_mod_i32(%x: tensor<4097xi32> {kiln.test_range = [-100, 100]}, %y: tensor<4097xi32>) -> tensor<4097xi32> {
  %0 = kiln.mod %x, %y : tensor<4097xi32>, tensor<4097xi32> -> tensor<4097xi32>
  %1 = kiln.mod %x, %y {fmod = true} : tensor<4097xi32>, tensor<4097xi32> -> tensor<4097xi32>
  %2 = kiln.mul %0, %1 : tensor<4097xi32>, tensor<4097xi32> -> tensor<4097xi32>
  %3 = kiln.sign %x : tensor<4097xi32> -> tensor<4097xi32>
  %4 = kiln.min %2, %3 : tensor<4097xi32>, tensor<4097xi32> -> tensor<4097xi32>
  %5 = kiln.clip %x, %4, %y : tensor<4097xi32>, tensor<4097xi32>, tensor<4097xi32> -> tensor<4097xi32>
  %6 = kiln.add %5, %2 : tensor<4097xi32>, tensor<4097xi32> -> tensor<4097xi32>
  return %6 : tensor<4097xi32>
}

// Shifts past the top bit lose it; right shifts are logical.
func.func @shift_u32(%x: tensor<4097xui32> {kiln.test_range = [0, 4000000000]}, %s: tensor<4097xui32> {kiln.test_range = [0, 31]}) -> tensor<4097xui32> {
  %0 = kiln.bit_shift %x, %s {direction = "left"} : tensor<4097xui32>, tensor<4097xui32> -> tensor<4097xui32>
  %1 = kiln.bit_shift %x, %s {direction = "right"} : tensor<4097xui32>, tensor<4097xui32> -> tensor<4097xui32>
  %2 = kiln.add %0, %1 : tensor<4097xui32>, tensor<4097xui32> -> tensor<4097xui32>
  return %2 : tensor<4097xui32>
}
