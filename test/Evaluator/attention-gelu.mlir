// kiln.attention and kiln.gelu in the CPU evaluator: the recognised graph
// (kiln-interpret runs kiln-recognize-patterns) and its fused kernels compute
// what the decomposed ops compute. Row 2 of the causal mask is all -inf, so
// its outputs are NaN both ways (NaN matches only NaN).
// RUN: %{make_tensor} %t/q.npy float32 1x2x3x4 0.203,0.833,-0.836,0.043,1.57,1.58,-1.5,-1.17,-1.79,-0.237,-1.88,-0.173,0.597,-0.886,0.705,0.363,-1.9,0.235,-0.963,-0.34,-0.866,0.773,-0.238,-1.37
// RUN: %{make_tensor} %t/k.npy float32 1x3x2x4 0.179,1.12,-0.775,-1.11,-0.448,1.75,1.9,0.69,1.61,1.38,-0.488,-1.63,0.614,0.231,-0.554,-1.1,-0.374,-0.124,-0.923,-0.833,-0.169,1.44,0.345,-0.866
// RUN: %{make_tensor} %t/v.npy float32 1x2x3x4 -0.888,-0.182,-1.18,-1.19,0.056,-1.65,-0.066,-0.551,0.831,0.987,0.764,0.757,-0.506,0.673,-0.641,0.291,-0.697,-0.219,-1.75,-1.03,1.89,-1.08,0.766,0.602
// RUN: %{make_tensor} %t/m.npy float32 1x1x3x3 0,-inf,-inf,0,0,-inf,-inf,-inf,-inf
// RUN: %{make_tensor} %t/x.npy float32 2x5 0.896,-0.1,0.387,-1.73,-1.71,-1.2,-1.39,-1.6,-1.48,0.213
// RUN: kiln-interpret %s --simplify=false --inputs %t/q.npy,%t/k.npy,%t/v.npy,%t/m.npy,%t/x.npy --output-dir %t/decomposed
// RUN: kiln-opt %s --kiln-recognize-patterns | FileCheck %s --check-prefix=RECOGNISED
// RUN: kiln-interpret %s --inputs %t/q.npy,%t/k.npy,%t/v.npy,%t/m.npy,%t/x.npy --expect %t/decomposed --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: kiln-opt %s --kiln-recognize-patterns --kiln-fuse-kernels --kiln-tile-kernels -o %t/fused.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t/fused.mlir
// RUN: kiln-interpret %t/fused.mlir --simplify=false --inputs %t/q.npy,%t/k.npy,%t/v.npy,%t/m.npy,%t/x.npy --expect %t/decomposed --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RECOGNISED-COUNT-1: kiln.attention
// RECOGNISED-COUNT-2: kiln.gelu
// RECOGNISED-NOT: kiln.softmax
// FUSED: kiln.kernel "attention_{{[0-9]+}}" attention
// CHECK: output 0 'attention': {{.*}} ok
// CHECK: output 1 'gelu_erf': {{.*}} ok
// CHECK: output 2 'gelu_tanh': {{.*}} ok

func.func @main(%q: tensor<1x2x3x4xf32> {kiln.name = "q"}, %k: tensor<1x3x2x4xf32> {kiln.name = "k"},
                %v: tensor<1x2x3x4xf32> {kiln.name = "v"}, %mask: tensor<1x1x3x3xf32> {kiln.name = "mask"},
                %x: tensor<2x5xf32> {kiln.name = "x"})
    -> (tensor<1x2x3x4xf32>, tensor<2x5xf32>, tensor<2x5xf32>)
    attributes {kiln.output_names = ["attention", "gelu_erf", "gelu_tanh"]} {
  %scale = kiln.constant dense<0.5> : tensor<f32>
  %kt = kiln.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x2x4xf32> -> tensor<1x2x4x3xf32>
  %0 = kiln.matmul %q, %kt : tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32> -> tensor<1x2x3x3xf32>
  %1 = kiln.mul %0, %scale : tensor<1x2x3x3xf32>, tensor<f32> -> tensor<1x2x3x3xf32>
  %2 = kiln.add %1, %mask : tensor<1x2x3x3xf32>, tensor<1x1x3x3xf32> -> tensor<1x2x3x3xf32>
  %3 = kiln.softmax %2 : tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  %4 = kiln.matmul %3, %v : tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>

  %sqrt2 = kiln.constant dense<1.41421354> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %half = kiln.constant dense<0.5> : tensor<f32>
  %5 = kiln.div %x, %sqrt2 : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  %6 = kiln.erf %5 : tensor<2x5xf32> -> tensor<2x5xf32>
  %7 = kiln.add %6, %one : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  %8 = kiln.mul %x, %7 : tensor<2x5xf32>, tensor<2x5xf32> -> tensor<2x5xf32>
  %9 = kiln.mul %8, %half : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>

  %three = kiln.constant dense<3.0> : tensor<f32>
  %c = kiln.constant dense<4.471500e-02> : tensor<f32>
  %s = kiln.constant dense<0.797884583> : tensor<f32>
  %10 = kiln.mul %x, %half : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  %11 = kiln.pow %x, %three : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  %12 = kiln.mul %11, %c : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  %13 = kiln.add %x, %12 : tensor<2x5xf32>, tensor<2x5xf32> -> tensor<2x5xf32>
  %14 = kiln.mul %13, %s : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  %15 = kiln.tanh %14 : tensor<2x5xf32> -> tensor<2x5xf32>
  %16 = kiln.add %15, %one : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  %17 = kiln.mul %10, %16 : tensor<2x5xf32>, tensor<2x5xf32> -> tensor<2x5xf32>
  return %4, %9, %17 : tensor<1x2x3x4xf32>, tensor<2x5xf32>, tensor<2x5xf32>
}
