// RUN: kiln-opt %s --split-input-file --kiln-schedule --verify-diagnostics

// The schedule needs fused kernels: a graph op left at the top level is an
// error at that op.
func.func @unfused(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.relu' outside a kiln.kernel; run kiln-fuse-kernels first}}
  %0 = kiln.relu %a : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

