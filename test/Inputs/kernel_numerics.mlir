// The model of test/Tools/kernel-numerics.test: (x + 1000) - 1000.
func.func @main(%x: tensor<4xf32> {kiln.name = "x"}) -> tensor<4xf32> attributes {kiln.output_names = ["y"]} {
  %c = kiln.constant dense<1000.0> : tensor<f32>
  %0 = kiln.add %x, %c : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = kiln.sub %0, %c : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
