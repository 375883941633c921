// Errors: NVRTC rejections name the kernel, its kiln.kernel op and the NVRTC
// log (a test hook makes the source invalid); invalid tiling attributes are
// located errors from the emitter (a kernel that breaks its kind's contract
// is the verifier's: test/Dialect/Kiln/kernel.mlir); bad --gpu-arch values
// are reported.
// RUN: not kiln-translate %s --emit-cuda --test-nvrtc-inject-error 2>&1 >/dev/null | FileCheck %s --check-prefix=NVRTC
// RUN: not kiln-translate %s --emit-cuda --gpu-arch sm_90,volta 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: kiln-translate %s --emit-cuda --gpu-arch sm_90,sm_80 --keep-ptx --nvrtc-timing | FileCheck %s --check-prefix=ARCHS
// RUN: not kiln-translate %S/Inputs/bad-attributes.mlir --emit-cuda 2>&1 | FileCheck %s --check-prefix=ATTR

// NVRTC: kiln-translate: error: NVRTC failed to compile kernel kiln_pointwise_{{[0-9a-f]+}} (kiln.kernel "exp" (ONNX nodes: exp_0 (Exp))) for sm_90: NVRTC_ERROR_COMPILATION
// NVRTC: kiln_test_hook_invalid_line
// ARCH: kiln-translate: error: invalid GPU arch 'volta' (expected e.g. sm_90)
// ARCHS: // nvrtc: kiln_pointwise_{{[0-9a-f]+}} {{[0-9.]+}} ms
// ARCHS: // nvrtc: 1 kernels for sm_90,sm_80 (+PTX) in {{[0-9.]+}} ms ({{[0-9.]+}} ms/kernel, 1 programs, NVRTC {{[0-9.]+}}, {{[0-9]+}} threads)

func.func @exp(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = kiln.empty : tensor<64xf32>
  %r = kiln.kernel "exp" pointwise ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<64xf32>, %o: tensor<64xf32>):
    %t = kiln.exp %x : tensor<64xf32> -> tensor<64xf32> loc(fused<"Exp">["exp_0"])
    kiln.yield %t : tensor<64xf32>
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// ATTR: bad-attributes.mlir:4:{{[0-9]+}}: error: CUDA emitter: kernel 'big_block' has block_size 2048; CUDA allows at most 1024 threads per block
// ATTR: bad-attributes.mlir:13:{{[0-9]+}}: error: CUDA emitter: kernel 'wide_vector' vector_width 8 makes vectors of 'f32' wider than 16 bytes
// ATTR: bad-attributes.mlir:22:{{[0-9]+}}: error: CUDA emitter: kernel 'untiled' has no block_size attribute; run kiln-tile-kernels first
// ATTR: bad-attributes.mlir:31:{{[0-9]+}}: error: CUDA emitter: kernel 'warp_rows' block_size 96 != 32 x 2 rows_per_block
