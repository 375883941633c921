// kiln-interpret on kiln IR: NumPy broadcasting, output values, --expect
// comparison (match, mismatch with exit status 1) and --output-dir.
// RUN: %{make_tensor} %t/a.npy float32 2x1 10,20
// RUN: %{make_tensor} %t/b.npy float32 3 1.5,-2,0.25
// RUN: kiln-interpret %s --inputs %t/a.npy,%t/b.npy --print-values --output-dir %t/out | FileCheck %s --check-prefix=VALUES
// VALUES: output 0 'sum': float32[2x3]
// VALUES-NEXT: values: [11.5, 8, 10.25, 21.5, 18, 20.25]
// VALUES-NEXT: output 1 'relu_of_neg': float32[3]
// VALUES-NEXT: values: [0, 2, 0]

// The outputs just written are the expected values of a second run.
// RUN: kiln-interpret %s --inputs %t/a.npy,%t/b.npy --expect %t/out | FileCheck %s --check-prefix=MATCH
// MATCH: output 0 'sum': float32[2x3] max_abs_error=0 max_rel_error=0 ok
// MATCH: output 1 'relu_of_neg': float32[3] max_abs_error=0 max_rel_error=0 ok

// Within tolerance (rtol 1e-3) still matches; outside it is a mismatch.
// RUN: %{make_tensor} %t/close.npy float32 2x3 11.501,8,10.25,21.5,18,20.25
// RUN: %{make_tensor} %t/far.npy float32 2x3 11.5,8,10.25,21.6,18,20.25
// RUN: kiln-interpret %s --inputs %t/a.npy,%t/b.npy --expect %t/close.npy,%t/out/output_1.npy | FileCheck %s --check-prefix=CLOSE
// CLOSE: output 0 'sum': {{.*}} ok
// RUN: %{exit_status} kiln-interpret %s --inputs %t/a.npy,%t/b.npy --expect %t/far.npy,%t/out/output_1.npy | FileCheck %s --check-prefix=FAR
// FAR: output 0 'sum': float32[2x3] max_abs_error=0.1 {{.*}} MISMATCH (1 of 6 elements differ; first at [1, 0]: got 21.5, expected 21.6000004)
// FAR: output 1 'relu_of_neg': {{.*}} ok
// FAR: exit status: 1

func.func @main(%a: tensor<2x1xf32> {kiln.name = "a"}, %b: tensor<3xf32> {kiln.name = "b"})
    -> (tensor<2x3xf32>, tensor<3xf32>)
    attributes {kiln.output_names = ["sum", "relu_of_neg"]} {
  %0 = kiln.add %a, %b : tensor<2x1xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %1 = kiln.neg %b : tensor<3xf32> -> tensor<3xf32>
  %2 = kiln.relu %1 : tensor<3xf32> -> tensor<3xf32>
  return %0, %2 : tensor<2x3xf32>, tensor<3xf32>
}
