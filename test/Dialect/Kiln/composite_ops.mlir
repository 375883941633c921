// RUN: kiln-opt %s --split-input-file | kiln-opt --split-input-file | FileCheck %s
// Round trip of kiln.gelu and kiln.attention (KilnCompositeOps.td), with the
// result types they infer.

// CHECK-LABEL: func.func @gelu
// CHECK: kiln.gelu %{{.+}} : tensor<2x?xf32> -> tensor<2x?xf32>
// CHECK: kiln.gelu %{{.+}} {approximate = "tanh"} : tensor<8xbf16> -> tensor<8xbf16>
func.func @gelu(%x: tensor<2x?xf32>, %h: tensor<8xbf16>) -> (tensor<2x?xf32>, tensor<8xbf16>) {
  %0 = kiln.gelu %x {approximate = "none"} : tensor<2x?xf32> -> tensor<2x?xf32>
  %1 = kiln.gelu %h {approximate = "tanh"} : tensor<8xbf16> -> tensor<8xbf16>
  return %0, %1 : tensor<2x?xf32>, tensor<8xbf16>
}

// -----

// Batch dims broadcast (1 against 12); the mask broadcasts to the scores.
// CHECK-LABEL: func.func @attention
// CHECK: kiln.attention %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {scale = 1.250000e-01 : f32} : tensor<2x12x?x64xf16>, tensor<2x1x77x64xf16>, tensor<2x1x77x40xf16>, tensor<2x1x1x77xf16> -> tensor<2x12x?x40xf16>
// CHECK: kiln.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<5x8xf32>, tensor<6x8xf32>, tensor<6x3xf32> -> tensor<5x3xf32>
func.func @attention(%q: tensor<2x12x?x64xf16>, %k: tensor<2x1x77x64xf16>, %v: tensor<2x1x77x40xf16>, %m: tensor<2x1x1x77xf16>,
                     %q2: tensor<5x8xf32>, %k2: tensor<6x8xf32>, %v2: tensor<6x3xf32>) -> (tensor<2x12x?x40xf16>, tensor<5x3xf32>) {
  %0 = kiln.attention %q, %k, %v, %m {scale = 0.125 : f32} : tensor<2x12x?x64xf16>, tensor<2x1x77x64xf16>, tensor<2x1x77x40xf16>, tensor<2x1x1x77xf16> -> tensor<2x12x?x40xf16>
  %1 = kiln.attention %q2, %k2, %v2 : tensor<5x8xf32>, tensor<6x8xf32>, tensor<6x3xf32> -> tensor<5x3xf32>
  return %0, %1 : tensor<2x12x?x40xf16>, tensor<5x3xf32>
}
