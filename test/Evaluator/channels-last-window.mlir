// The channels-last window template's kernels on the CPU evaluator: a
// depthwise conv whose weight kiln-pack-depthwise-weights stored [R, S, 1, C]
// (read through the transpose its kernel takes in) and a column mean with
// a SiLU prologue compute exactly what the unfused function does.
// RUN: %{make_tensor} %t/x.npy float32 1x4x3x4 -1.05,0.18,-0.52,0.42,0.5,-1.74,-1.95,1.35,-0.96,-1.06,1.98,-0.12,1.35,-0.09,0.56,-1.4,0.54,1.47,0.09,0.97,0.69,-1.74,1.03,0.36,-0.79,-1.88,1.46,-0.11,0.88,1.52,0.86,1.68,-0.42,1.2,-0.22,1.74,1.52,-1.61,-1.46,-1.13,1.86,-0.26,0.51,-0.8,0.03,-0.46,-0.6,0.34
// RUN: kiln-interpret %s --inputs %t/x.npy --output-dir %t/unfused
// RUN: kiln-opt %s --kiln-pack-depthwise-weights --kiln-fuse-kernels --kiln-tile-kernels -o %t/fused.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t/fused.mlir
// RUN: kiln-interpret %t/fused.mlir --simplify=false --inputs %t/x.npy --expect %t/unfused --rtol 0 --atol 0 | FileCheck %s
// FUSED: kiln.kernel "transpose_conv_relu_{{[0-9]+}}" pointwise ins(%{{.+}}, %{{.+}} : tensor<3x3x1x4xf32>, tensor<1x4x3x4xf32>) {{.*}} variant = #kiln.variant<channels_last_pool>, vector_width = 4 : i64}
// FUSED: kiln.kernel "sigmoid_mul_reduce_mean_{{[0-9]+}}" pointwise {{.*}} variant = #kiln.variant<channels_last_pool>, vector_width = 4 : i64}
// CHECK: output 0 'depthwise': {{.*}} ok
// CHECK: output 1 'squeeze': {{.*}} ok

func.func @main(%x: tensor<1x4x3x4xf32> {kiln.name = "x"}) -> (tensor<1x4x3x4xf32>, tensor<1x1x1x4xf32>)
    attributes {kiln.output_names = ["depthwise", "squeeze"]} {
  %w = kiln.constant dense<[[[[-0.75], [-0.25], [0.25]], [[0.75], [1.25], [-0.75]], [[-0.25], [0.25], [0.75]]], [[[1.25], [-0.75], [-0.25]], [[0.25], [0.75], [1.25]], [[-0.75], [-0.25], [0.25]]], [[[0.75], [1.25], [-0.75]], [[-0.25], [0.25], [0.75]], [[1.25], [-0.75], [-0.25]]], [[[0.25], [0.75], [1.25]], [[-0.75], [-0.25], [0.25]], [[0.75], [1.25], [-0.75]]]]> : tensor<4x3x3x1xf32>
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x3x4xf32>, tensor<4x3x3x1xf32> -> tensor<1x4x3x4xf32>
  %r = kiln.relu %c : tensor<1x4x3x4xf32> -> tensor<1x4x3x4xf32>
  %s = kiln.sigmoid %x : tensor<1x4x3x4xf32> -> tensor<1x4x3x4xf32>
  %a = kiln.mul %x, %s : tensor<1x4x3x4xf32>, tensor<1x4x3x4xf32> -> tensor<1x4x3x4xf32>
  %m = kiln.reduce_mean %a, %axes : tensor<1x4x3x4xf32>, tensor<2xi64> -> tensor<1x1x1x4xf32>
  return %r, %m : tensor<1x4x3x4xf32>, tensor<1x1x1x4xf32>
}
