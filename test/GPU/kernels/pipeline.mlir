// GPU kernel tests of unfused functions: kiln-translate runs the kernel
// pipeline (kiln-fuse-kernels, kiln-tile-kernels) and tests what it makes.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case pipeline.mlp_block
// CHECK: wrote case pipeline.layer_norm_like

func.func @mlp_block(%x: tensor<8x4097xf32>, %b: tensor<4097xf32>) -> (tensor<8x4097xf32>, tensor<4097x8xf32>) {
  %s = kiln.add %x, %b : tensor<8x4097xf32>, tensor<4097xf32> -> tensor<8x4097xf32>
  %r = kiln.relu %s : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %p = kiln.softmax %r {axis = -1 : i64} : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %t = kiln.transpose %s {perm = array<i64: 1, 0>} : tensor<8x4097xf32> -> tensor<4097x8xf32>
  return %p, %t : tensor<8x4097xf32>, tensor<4097x8xf32>
}

func.func @layer_norm_like(%x: tensor<16x768xf32>) -> tensor<16x768xf32> {
  %axes = kiln.constant dense<[-1]> : tensor<1xi64>
  %m = kiln.reduce_mean %x, %axes {keepdims = true} : tensor<16x768xf32>, tensor<1xi64> -> tensor<16x1xf32>
  %d = kiln.sub %x, %m : tensor<16x768xf32>, tensor<16x1xf32> -> tensor<16x768xf32>
  %sq = kiln.mul %d, %d : tensor<16x768xf32>, tensor<16x768xf32> -> tensor<16x768xf32>
  %v = kiln.reduce_mean %sq, %axes {keepdims = true} : tensor<16x768xf32>, tensor<1xi64> -> tensor<16x1xf32>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  %ve = kiln.add %v, %eps : tensor<16x1xf32>, tensor<f32> -> tensor<16x1xf32>
  %sd = kiln.sqrt %ve : tensor<16x1xf32> -> tensor<16x1xf32>
  %y = kiln.div %d, %sd : tensor<16x768xf32>, tensor<16x1xf32> -> tensor<16x768xf32>
  return %y : tensor<16x768xf32>
}
