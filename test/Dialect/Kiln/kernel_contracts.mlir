// The kernel kinds' contracts (KernelKinds.h, docs/architecture.md "Kernel
// kinds"), checked by the kiln.kernel verifier: kernels every template can
// run verify; a kernel no template can run is a located error naming the op
// that breaks its kind's contract.
// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// A tiled transpose with another transpose (one that keeps the innermost
// dim) in its prologue and a pointwise epilogue: issue 14's first repro.
// CHECK-LABEL: func.func @transpose_with_prologue_transpose
// CHECK: kiln.kernel "t" transpose
func.func @transpose_with_prologue_transpose(%a: tensor<4x8x16xf32>) -> tensor<16x4x8xf32> {
  %e = kiln.empty : tensor<16x4x8xf32>
  %r = kiln.kernel "t" transpose ins(%a : tensor<4x8x16xf32>) outs(%e : tensor<16x4x8xf32>) {
  ^bb0(%x: tensor<4x8x16xf32>, %o: tensor<16x4x8xf32>):
    %0 = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<4x8x16xf32> -> tensor<8x4x16xf32>
    %1 = kiln.relu %0 : tensor<8x4x16xf32> -> tensor<8x4x16xf32>
    %2 = kiln.transpose %1 {perm = array<i64: 2, 1, 0>} : tensor<8x4x16xf32> -> tensor<16x4x8xf32>
    %3 = kiln.exp %2 : tensor<16x4x8xf32> -> tensor<16x4x8xf32>
    kiln.yield %3 : tensor<16x4x8xf32>
  } -> tensor<16x4x8xf32>
  return %r : tensor<16x4x8xf32>
}

// -----

func.func @transpose_without_tiled_transpose(%a: tensor<6x9x130xf32>) -> tensor<9x6x130xf32> {
  %e = kiln.empty : tensor<9x6x130xf32>
  // expected-error @+1 {{'t' breaks the transpose kernel contract: it needs exactly one kiln.transpose that moves the innermost dim, found 0}}
  %r = kiln.kernel "t" transpose ins(%a : tensor<6x9x130xf32>) outs(%e : tensor<9x6x130xf32>) {
  ^bb0(%x: tensor<6x9x130xf32>, %o: tensor<9x6x130xf32>):
    %t = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<6x9x130xf32> -> tensor<9x6x130xf32>
    kiln.yield %t : tensor<9x6x130xf32>
  } -> tensor<9x6x130xf32>
  return %r : tensor<9x6x130xf32>
}

// -----

func.func @two_tiled_transposes(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kiln.empty : tensor<4x8xf32>
  // expected-error @+1 {{'t' breaks the transpose kernel contract: it needs exactly one kiln.transpose that moves the innermost dim, found 2}}
  %r = kiln.kernel "t" transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>):
    // expected-note @+1 {{candidate 'kiln.transpose'}}
    %0 = kiln.transpose %x {perm = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
    // expected-note @+1 {{candidate 'kiln.transpose'}}
    %1 = kiln.transpose %0 {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
    kiln.yield %1 : tensor<4x8xf32>
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A reduction over another axis after the row reduction: issue 14's second
// repro, as fusion made it before the row_reduce contract was asked.
func.func @reduction_in_row_epilogue(%a: tensor<1x4x8xf32>) -> tensor<1x4x1xf32> {
  %e = kiln.empty : tensor<1x4x1xf32>
  // expected-error @+1 {{'r' breaks the row_reduce kernel contract: 'kiln.reduce_max' uses the result of the anchor 'kiln.reduce_sum' but is neither pointwise nor a view; the epilogue is computed at the anchor's own index}}
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<1x4x8xf32>) outs(%e : tensor<1x4x1xf32>) {
  ^bb0(%x: tensor<1x4x8xf32>, %o: tensor<1x4x1xf32>):
    %c2 = kiln.constant dense<2> : tensor<1xi64>
    %c0 = kiln.constant dense<0> : tensor<1xi64>
    %s = kiln.reduce_sum %x, %c2 : tensor<1x4x8xf32>, tensor<1xi64> -> tensor<1x4x1xf32>
    %m = kiln.reduce_max %s, %c0 : tensor<1x4x1xf32>, tensor<1xi64> -> tensor<1x4x1xf32>
    kiln.yield %m : tensor<1x4x1xf32>
  } -> tensor<1x4x1xf32>
  return %r : tensor<1x4x1xf32>
}

// -----

func.func @row_reduce_without_row_reduction(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kiln.empty : tensor<4x8xf32>
  // expected-error @+1 {{'r' breaks the row_reduce kernel contract: it needs exactly one row reduction (a reduce over trailing axes, a softmax or log_softmax over the last axis, or a static layer_norm), found 0}}
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>):
    %s = kiln.softmax %x {axis = 0 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
    kiln.yield %s : tensor<4x8xf32>
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A per-element epilogue: x + sum(x) over each row, the sum broadcast along
// the row, is computed where the template reads the row again.
func.func @per_element_epilogue(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kiln.empty : tensor<4x8xf32>
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>):
    %c1 = kiln.constant dense<1> : tensor<1xi64>
    %s = kiln.reduce_sum %x, %c1 : tensor<4x8xf32>, tensor<1xi64> -> tensor<4x1xf32>
    %b = kiln.add %x, %s : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
    kiln.yield %b : tensor<4x8xf32>
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// The sums read across rows (transposed, [1, 4] over [4, 4]): each element
// needs another row's sum.
func.func @transposed_row_epilogue(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = kiln.empty : tensor<4x4xf32>
  // expected-error @+1 {{'r' breaks the row_reduce kernel contract: it yields per element of the reduced input, but 'kiln.transpose' uses the reduced value and is neither pointwise nor a view}}
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: tensor<4x4xf32>, %o: tensor<4x4xf32>):
    %c1 = kiln.constant dense<1> : tensor<1xi64>
    %s = kiln.reduce_sum %x, %c1 : tensor<4x4xf32>, tensor<1xi64> -> tensor<4x1xf32>
    %t = kiln.transpose %s {perm = array<i64: 1, 0>} : tensor<4x1xf32> -> tensor<1x4xf32>
    %b = kiln.add %x, %t : tensor<4x4xf32>, tensor<1x4xf32> -> tensor<4x4xf32>
    kiln.yield %b : tensor<4x4xf32>
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A sum without keepdims read along the rows ([4] under [4, 4]: element
// (i, j) would take row j's sum) is not a row broadcast.
func.func @column_read_of_row_sums(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = kiln.empty : tensor<4x4xf32>
  // expected-error @+1 {{'r' breaks the row_reduce kernel contract: it yields per element of the reduced input, but 'kiln.div' reads the reduced value other than as a row broadcast}}
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: tensor<4x4xf32>, %o: tensor<4x4xf32>):
    %c1 = kiln.constant dense<1> : tensor<1xi64>
    %s = kiln.reduce_sum %x, %c1 {keepdims = false} : tensor<4x4xf32>, tensor<1xi64> -> tensor<4xf32>
    %b = kiln.div %x, %s : tensor<4x4xf32>, tensor<4xf32> -> tensor<4x4xf32>
    kiln.yield %b : tensor<4x4xf32>
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// Integer rows have no per-element form.
func.func @integer_per_element_epilogue(%a: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %e = kiln.empty : tensor<4x8xi32>
  // expected-error @+1 {{'r' breaks the row_reduce kernel contract: it yields per element of the reduced input, but the anchor does not reduce a static float tensor}}
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<4x8xi32>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%x: tensor<4x8xi32>, %o: tensor<4x8xi32>):
    %c1 = kiln.constant dense<1> : tensor<1xi64>
    %s = kiln.reduce_sum %x, %c1 : tensor<4x8xi32>, tensor<1xi64> -> tensor<4x1xi32>
    %b = kiln.add %x, %s : tensor<4x8xi32>, tensor<4x1xi32> -> tensor<4x8xi32>
    kiln.yield %b : tensor<4x8xi32>
  } -> tensor<4x8xi32>
  return %r : tensor<4x8xi32>
}

// -----

func.func @library_without_call(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kiln.empty : tensor<4x8xf32>
  // expected-error @+1 {{'l' breaks the library kernel contract: it needs exactly one kiln.matmul, kiln.gemm or kiln.conv, found 0}}
  %r = kiln.kernel "l" library ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>):
    %y = kiln.relu %x : tensor<4x8xf32> -> tensor<4x8xf32>
    kiln.yield %y : tensor<4x8xf32>
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @attention_in_pointwise(%q: tensor<1x4x8xf32>, %k: tensor<1x4x8xf32>, %v: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %e = kiln.empty : tensor<1x4x8xf32>
  // expected-error @+1 {{'p' breaks the pointwise kernel contract: 'kiln.attention' has no elemental form; it needs a kernel of its own kind}}
  %r = kiln.kernel "p" pointwise ins(%q, %k, %v : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>) outs(%e : tensor<1x4x8xf32>) {
  ^bb0(%a: tensor<1x4x8xf32>, %b: tensor<1x4x8xf32>, %c: tensor<1x4x8xf32>, %o: tensor<1x4x8xf32>):
    %y = kiln.attention %a, %b, %c {scale = 1.0 : f32} : tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32> -> tensor<1x4x8xf32>
    kiln.yield %y : tensor<1x4x8xf32>
  } -> tensor<1x4x8xf32>
  return %r : tensor<1x4x8xf32>
}

// -----

// The recorded configuration (KernelConfiguration.h): a variant whose
// preconditions hold verifies.
// CHECK-LABEL: func.func @short_rows_variant
// CHECK: kiln.kernel "t" transpose {{.*}} variant = #kiln.variant<short_rows>
func.func @short_rows_variant(%a: tensor<4x3x10x13xf32>) -> tensor<4x10x13x3xf32> {
  %e = kiln.empty : tensor<4x10x13x3xf32>
  %r = kiln.kernel "t" transpose ins(%a : tensor<4x3x10x13xf32>) outs(%e : tensor<4x10x13x3xf32>) attributes {block_size = 256 : i64, grid_size = 3 : i64, variant = #kiln.variant<short_rows>} {
  ^bb0(%x: tensor<4x3x10x13xf32>, %o: tensor<4x10x13x3xf32>):
    %t = kiln.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<4x3x10x13xf32> -> tensor<4x10x13x3xf32>
    kiln.yield %t : tensor<4x10x13x3xf32>
  } -> tensor<4x10x13x3xf32>
  return %r : tensor<4x10x13x3xf32>
}

// -----

func.func @short_rows_strided(%a: tensor<5x3x40xf32>) -> tensor<40x5x3xf32> {
  %e = kiln.empty : tensor<40x5x3xf32>
  // expected-error @+1 {{'t' records variant 'short_rows', whose precondition does not hold: the input's innermost dim does not become the output's second-innermost}}
  %r = kiln.kernel "t" transpose ins(%a : tensor<5x3x40xf32>) outs(%e : tensor<40x5x3xf32>) attributes {variant = #kiln.variant<short_rows>} {
  ^bb0(%x: tensor<5x3x40xf32>, %o: tensor<40x5x3xf32>):
    %t = kiln.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<5x3x40xf32> -> tensor<40x5x3xf32>
    kiln.yield %t : tensor<40x5x3xf32>
  } -> tensor<40x5x3xf32>
  return %r : tensor<40x5x3xf32>
}

// -----

func.func @short_rows_shared_memory(%a: tensor<16x40xf64>) -> tensor<40x16xf64> {
  %e = kiln.empty : tensor<40x16xf64>
  // expected-error @+1 {{'t' records variant 'short_rows', whose precondition does not hold: block_size 256 stages 34816 bytes of rows, more than 32768}}
  %r = kiln.kernel "t" transpose ins(%a : tensor<16x40xf64>) outs(%e : tensor<40x16xf64>) attributes {block_size = 256 : i64, variant = #kiln.variant<short_rows>} {
  ^bb0(%x: tensor<16x40xf64>, %o: tensor<40x16xf64>):
    %t = kiln.transpose %x {perm = array<i64: 1, 0>} : tensor<16x40xf64> -> tensor<40x16xf64>
    kiln.yield %t : tensor<40x16xf64>
  } -> tensor<40x16xf64>
  return %r : tensor<40x16xf64>
}

// -----

func.func @flash_f32(%q: tensor<1x64x64xf32>, %k: tensor<1x64x64xf32>, %v: tensor<1x64x64xf32>) -> tensor<1x64x64xf32> {
  %e = kiln.empty : tensor<1x64x64xf32>
  // expected-error @+1 {{'a' records variant 'flash', whose precondition does not hold: the query is not f16 or bf16}}
  %r = kiln.kernel "a" attention ins(%q, %k, %v : tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1x64x64xf32>) outs(%e : tensor<1x64x64xf32>) attributes {variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<1x64x64xf32>, %b: tensor<1x64x64xf32>, %c: tensor<1x64x64xf32>, %o: tensor<1x64x64xf32>):
    %y = kiln.attention %a, %b, %c {scale = 1.0 : f32} : tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>
    kiln.yield %y : tensor<1x64x64xf32>
  } -> tensor<1x64x64xf32>
  return %r : tensor<1x64x64xf32>
}

// -----

// The flash kernel's block is 128 threads per key group.
func.func @flash_block_size(%q: tensor<1x64x64xf16>, %k: tensor<1x64x64xf16>, %v: tensor<1x64x64xf16>) -> tensor<1x64x64xf16> {
  %e = kiln.empty : tensor<1x64x64xf16>
  // expected-error @+1 {{'a' records variant 'flash', whose precondition does not hold: block_size 192 is not 128 x 1 to 4 key groups}}
  %r = kiln.kernel "a" attention ins(%q, %k, %v : tensor<1x64x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf16>) outs(%e : tensor<1x64x64xf16>) attributes {block_size = 192 : i64, variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<1x64x64xf16>, %b: tensor<1x64x64xf16>, %c: tensor<1x64x64xf16>, %o: tensor<1x64x64xf16>):
    %y = kiln.attention %a, %b, %c {scale = 1.0 : f32} : tensor<1x64x64xf16>, tensor<1x64x64xf16>, tensor<1x64x64xf16> -> tensor<1x64x64xf16>
    kiln.yield %y : tensor<1x64x64xf16>
  } -> tensor<1x64x64xf16>
  return %r : tensor<1x64x64xf16>
}

// -----

// Four key groups of head size 128 need four K and V tiles of 64 x 136
// elements: 139264 bytes, more than the kernel may take (96 KiB).
func.func @flash_key_groups_shared_memory(%q: tensor<1x64x128xf16>, %k: tensor<1x256x128xf16>, %v: tensor<1x256x128xf16>) -> tensor<1x64x128xf16> {
  %e = kiln.empty : tensor<1x64x128xf16>
  // expected-error @+1 {{'a' records variant 'flash', whose precondition does not hold: block_size 512: 4 key groups need 139264 bytes of shared memory, more than 98304}}
  %r = kiln.kernel "a" attention ins(%q, %k, %v : tensor<1x64x128xf16>, tensor<1x256x128xf16>, tensor<1x256x128xf16>) outs(%e : tensor<1x64x128xf16>) attributes {block_size = 512 : i64, variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<1x64x128xf16>, %b: tensor<1x256x128xf16>, %c: tensor<1x256x128xf16>, %o: tensor<1x64x128xf16>):
    %y = kiln.attention %a, %b, %c {scale = 1.0 : f32} : tensor<1x64x128xf16>, tensor<1x256x128xf16>, tensor<1x256x128xf16> -> tensor<1x64x128xf16>
    kiln.yield %y : tensor<1x64x128xf16>
  } -> tensor<1x64x128xf16>
  return %r : tensor<1x64x128xf16>
}

// -----

func.func @block_rows_of_four(%a: tensor<8x2048xf32>) -> tensor<8xf32> {
  %e = kiln.empty : tensor<8xf32>
  // expected-error @+1 {{'r' records variant 'block_rows', whose precondition does not hold: rows_per_block is 4, not 1 (a block per row)}}
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<8x2048xf32>) outs(%e : tensor<8xf32>) attributes {block_size = 512 : i64, rows_per_block = 4 : i64, variant = #kiln.variant<block_rows>} {
  ^bb0(%x: tensor<8x2048xf32>, %o: tensor<8xf32>):
    %c1 = kiln.constant dense<1> : tensor<1xi64>
    %s = kiln.reduce_sum %x, %c1 {keepdims = false} : tensor<8x2048xf32>, tensor<1xi64> -> tensor<8xf32>
    kiln.yield %s : tensor<8xf32>
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

func.func @warp_rows_block_size(%a: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = kiln.empty : tensor<8x64xf32>
  // expected-error @+1 {{'r' records variant 'warp_rows', whose precondition does not hold: block_size 128 != 32 x 2 rows_per_block}}
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) attributes {block_size = 128 : i64, rows_per_block = 2 : i64, variant = #kiln.variant<warp_rows>} {
  ^bb0(%x: tensor<8x64xf32>, %o: tensor<8x64xf32>):
    %y = kiln.softmax %x {axis = 1 : i64} : tensor<8x64xf32> -> tensor<8x64xf32>
    kiln.yield %y : tensor<8x64xf32>
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

func.func @query_rows_key_chunk(%q: tensor<1x64x64xf32>, %k: tensor<1x64x64xf32>, %v: tensor<1x64x64xf32>) -> tensor<1x64x64xf32> {
  %e = kiln.empty : tensor<1x64x64xf32>
  // expected-error @+1 {{'a' records variant 'query_rows', whose precondition does not hold: key_chunk 128 is more than 64 (the keys, at most 4096, that the shared memory holds)}}
  %r = kiln.kernel "a" attention ins(%q, %k, %v : tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1x64x64xf32>) outs(%e : tensor<1x64x64xf32>) attributes {block_size = 128 : i64, key_chunk = 128 : i64, variant = #kiln.variant<query_rows>} {
  ^bb0(%a: tensor<1x64x64xf32>, %b: tensor<1x64x64xf32>, %c: tensor<1x64x64xf32>, %o: tensor<1x64x64xf32>):
    %y = kiln.attention %a, %b, %c {scale = 1.0 : f32} : tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1x64x64xf32> -> tensor<1x64x64xf32>
    kiln.yield %y : tensor<1x64x64xf32>
  } -> tensor<1x64x64xf32>
  return %r : tensor<1x64x64xf32>
}

// -----

func.func @query_rows_value_head(%q: tensor<1x8x64xf32>, %k: tensor<1x8x64xf32>, %v: tensor<1x8x2048xf32>) -> tensor<1x8x2048xf32> {
  %e = kiln.empty : tensor<1x8x2048xf32>
  // expected-error @+1 {{'a' records variant 'query_rows', whose precondition does not hold: value head size 2048 needs more than 32 outputs per thread at block_size 32}}
  %r = kiln.kernel "a" attention ins(%q, %k, %v : tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1x8x2048xf32>) outs(%e : tensor<1x8x2048xf32>) attributes {block_size = 32 : i64, variant = #kiln.variant<query_rows>} {
  ^bb0(%a: tensor<1x8x64xf32>, %b: tensor<1x8x64xf32>, %c: tensor<1x8x2048xf32>, %o: tensor<1x8x2048xf32>):
    %y = kiln.attention %a, %b, %c {scale = 1.0 : f32} : tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1x8x2048xf32> -> tensor<1x8x2048xf32>
    kiln.yield %y : tensor<1x8x2048xf32>
  } -> tensor<1x8x2048xf32>
  return %r : tensor<1x8x2048xf32>
}

// -----

func.func @variant_of_another_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = kiln.empty : tensor<4xf32>
  // expected-error @+1 {{'p' records variant 'flash', which is not a pointwise template (its templates: loop, channels_last_pool)}}
  %r = kiln.kernel "p" pointwise ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) attributes {variant = #kiln.variant<flash>} {
  ^bb0(%x: tensor<4xf32>, %o: tensor<4xf32>):
    %y = kiln.relu %x : tensor<4xf32> -> tensor<4xf32>
    kiln.yield %y : tensor<4xf32>
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @variant_of_row_reduce(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = kiln.empty : tensor<4x8xf32>
  // expected-error @+1 {{'r' records variant 'loop', which is not a row_reduce template (its templates: warp_rows, block_rows)}}
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) attributes {variant = #kiln.variant<loop>} {
  ^bb0(%x: tensor<4x8xf32>, %o: tensor<4x8xf32>):
    %y = kiln.softmax %x {axis = -1 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
    kiln.yield %y : tensor<4x8xf32>
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @channels_last_pool_without_pool(%a: tensor<1x4x4x8xf16>) -> tensor<1x4x4x8xf16> {
  %e = kiln.empty : tensor<1x4x4x8xf16>
  // expected-error @+1 {{'p' records variant 'channels_last_pool', whose precondition does not hold: its body has no window op (a channels-last pool, a depthwise conv or a column reduction)}}
  %r = kiln.kernel "p" pointwise ins(%a : tensor<1x4x4x8xf16>) outs(%e : tensor<1x4x4x8xf16>) attributes {variant = #kiln.variant<channels_last_pool>} {
  ^bb0(%x: tensor<1x4x4x8xf16>, %o: tensor<1x4x4x8xf16>):
    %y = kiln.relu %x : tensor<1x4x4x8xf16> -> tensor<1x4x4x8xf16>
    kiln.yield %y : tensor<1x4x4x8xf16>
  } -> tensor<1x4x4x8xf16>
  return %r : tensor<1x4x4x8xf16>
}

// -----

// The channels-last window template reads a depthwise conv's weight stored
// [R, S, 1, C] (kiln-pack-depthwise-weights); one in the conv's own layout
// is read by the loop template only.
func.func @channels_last_depthwise_unstored_weight(%a: tensor<1x4x4x8xf16>, %w: tensor<8x3x3x1xf16>) -> tensor<1x4x4x8xf16> {
  %e = kiln.empty : tensor<1x4x4x8xf16>
  // expected-error @+1 {{'d' records variant 'channels_last_pool', whose precondition does not hold: its depthwise conv's weight is not a kernel input stored channels innermost (kiln-pack-depthwise-weights)}}
  %r = kiln.kernel "d" pointwise ins(%a, %w : tensor<1x4x4x8xf16>, tensor<8x3x3x1xf16>) outs(%e : tensor<1x4x4x8xf16>) attributes {variant = #kiln.variant<channels_last_pool>, vector_width = 8 : i64} {
  ^bb0(%x: tensor<1x4x4x8xf16>, %v: tensor<8x3x3x1xf16>, %o: tensor<1x4x4x8xf16>):
    %c = kiln.conv %x, %v {dilations = array<i64: 1, 1>, group = 8 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x4x4x8xf16>, tensor<8x3x3x1xf16> -> tensor<1x4x4x8xf16>
    kiln.yield %c : tensor<1x4x4x8xf16>
  } -> tensor<1x4x4x8xf16>
  return %r : tensor<1x4x4x8xf16>
}

// -----

// A column reduction's block is a power of two of rows of vectors (here 2
// vectors of 8 f16 channels: a 32-byte sector).
func.func @column_reduction_block(%a: tensor<2x6x6x32xf16>) -> tensor<2x1x1x32xf16> {
  %e = kiln.empty : tensor<2x1x1x32xf16>
  // expected-error @+1 {{'m' records variant 'channels_last_pool', whose precondition does not hold: block_size 96 is not a power of two of rows of 2 vectors up to 1024 threads}}
  %r = kiln.kernel "m" pointwise ins(%a : tensor<2x6x6x32xf16>) outs(%e : tensor<2x1x1x32xf16>) attributes {block_size = 96 : i64, variant = #kiln.variant<channels_last_pool>, vector_width = 8 : i64} {
  ^bb0(%x: tensor<2x6x6x32xf16>, %o: tensor<2x1x1x32xf16>):
    %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
    %m = kiln.reduce_mean %x, %axes : tensor<2x6x6x32xf16>, tensor<2xi64> -> tensor<2x1x1x32xf16>
    kiln.yield %m : tensor<2x1x1x32xf16>
  } -> tensor<2x1x1x32xf16>
  return %r : tensor<2x1x1x32xf16>
}

// -----

// A column reduction reads its input through data movement: a channel
// concat in the prologue (DenseNet's norm, ReLU and global mean of the last
// dense block's concat).
// CHECK-LABEL: func.func @column_reduction_of_concat
// CHECK: kiln.kernel "m" pointwise
func.func @column_reduction_of_concat(%a: tensor<2x6x6x16xf16>, %b: tensor<2x6x6x16xf16>) -> tensor<2x1x1x32xf16> {
  %e = kiln.empty : tensor<2x1x1x32xf16>
  %r = kiln.kernel "m" pointwise ins(%a, %b : tensor<2x6x6x16xf16>, tensor<2x6x6x16xf16>) outs(%e : tensor<2x1x1x32xf16>) attributes {block_size = 64 : i64, variant = #kiln.variant<channels_last_pool>, vector_width = 8 : i64} {
  ^bb0(%x: tensor<2x6x6x16xf16>, %y: tensor<2x6x6x16xf16>, %o: tensor<2x1x1x32xf16>):
    %c = kiln.concat %x, %y {axis = 3 : i64} : tensor<2x6x6x16xf16>, tensor<2x6x6x16xf16> -> tensor<2x6x6x32xf16>
    %t = kiln.relu %c : tensor<2x6x6x32xf16> -> tensor<2x6x6x32xf16>
    %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
    %m = kiln.reduce_mean %t, %axes : tensor<2x6x6x32xf16>, tensor<2xi64> -> tensor<2x1x1x32xf16>
    kiln.yield %m : tensor<2x1x1x32xf16>
  } -> tensor<2x1x1x32xf16>
  return %r : tensor<2x1x1x32xf16>
}

// -----

// Only a column reduction reads through data movement: a channels-last pool
// of a concat is the loop template's.
func.func @channels_last_pool_of_concat(%a: tensor<1x4x4x8xf16>, %b: tensor<1x4x4x8xf16>) -> tensor<1x2x2x16xf16> {
  %e = kiln.empty : tensor<1x2x2x16xf16>
  // expected-error @+1 {{'p' records variant 'channels_last_pool', whose precondition does not hold: 'kiln.concat' moves data in a kernel whose window op is not a column reduction}}
  %r = kiln.kernel "p" pointwise ins(%a, %b : tensor<1x4x4x8xf16>, tensor<1x4x4x8xf16>) outs(%e : tensor<1x2x2x16xf16>) attributes {variant = #kiln.variant<channels_last_pool>} {
  ^bb0(%x: tensor<1x4x4x8xf16>, %y: tensor<1x4x4x8xf16>, %o: tensor<1x2x2x16xf16>):
    %c = kiln.concat %x, %y {axis = 3 : i64} : tensor<1x4x4x8xf16>, tensor<1x4x4x8xf16> -> tensor<1x4x4x16xf16>
    %p = kiln.max_pool %c {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, layout = "NHWC"} : tensor<1x4x4x16xf16> -> tensor<1x2x2x16xf16>
    kiln.yield %p : tensor<1x2x2x16xf16>
  } -> tensor<1x2x2x16xf16>
  return %r : tensor<1x2x2x16xf16>
}

// -----

// A reduction of integers reads its rows element by element: no vectors.
func.func @integer_rows_in_vectors(%a: tensor<8x64xi32>) -> tensor<8x1xi32> {
  %e = kiln.empty : tensor<8x1xi32>
  // expected-error @+1 {{'s' records variant 'warp_rows', whose precondition does not hold: vector_width 4 on a reduction of integers, which reads elements}}
  %r = kiln.kernel "s" row_reduce ins(%a : tensor<8x64xi32>) outs(%e : tensor<8x1xi32>) attributes {variant = #kiln.variant<warp_rows>, vector_width = 4 : i64} {
  ^bb0(%x: tensor<8x64xi32>, %o: tensor<8x1xi32>):
    %axes = kiln.constant dense<[1]> : tensor<1xi64>
    %s = kiln.reduce_sum %x, %axes : tensor<8x64xi32>, tensor<1xi64> -> tensor<8x1xi32>
    kiln.yield %s : tensor<8x1xi32>
  } -> tensor<8x1xi32>
  return %r : tensor<8x1xi32>
}

// -----

// A library kernel records the epilogue its call fuses (LibraryEpilogue.h):
// a bias row, then a relu.
// CHECK-LABEL: func.func @library_epilogue
// CHECK: kiln.kernel "l" library {{.*}} {epilogue = #kiln.epilogue<addend = bias, activation = relu>
func.func @library_epilogue(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16xf32>) -> tensor<4x16xf32> {
  %e = kiln.empty : tensor<4x16xf32>
  %r = kiln.kernel "l" library ins(%a, %b, %c : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) attributes {epilogue = #kiln.epilogue<addend = bias, activation = relu>} {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>, %z: tensor<16xf32>, %o: tensor<4x16xf32>):
    %m = kiln.matmul %x, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %s = kiln.add %m, %z : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
    %t = kiln.relu %s : tensor<4x16xf32> -> tensor<4x16xf32>
    kiln.yield %t : tensor<4x16xf32>
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// A bias row and then a residual: one cuBLASLt call (D = A·B + C + bias).
// CHECK-LABEL: func.func @library_bias_residual
// CHECK: kiln.kernel "l" library {{.*}} {epilogue = #kiln.epilogue<addend = bias_residual, activation = relu>
func.func @library_bias_residual(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16xf32>, %d: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = kiln.empty : tensor<4x16xf32>
  %r = kiln.kernel "l" library ins(%a, %b, %c, %d : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) attributes {epilogue = #kiln.epilogue<addend = bias_residual, activation = relu>} {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>, %z: tensor<16xf32>, %w: tensor<4x16xf32>, %o: tensor<4x16xf32>):
    %m = kiln.matmul %x, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %s = kiln.add %z, %m : tensor<16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
    %u = kiln.add %s, %w : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
    %t = kiln.relu %u : tensor<4x16xf32> -> tensor<4x16xf32>
    kiln.yield %t : tensor<4x16xf32>
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Two residuals are not one call: cuBLASLt has one C.
func.func @library_two_residuals(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = kiln.empty : tensor<4x16xf32>
  // expected-error @+1 {{'l' breaks the library kernel contract: two adds follow the library call, but not a bias row and then a residual of the result's type}}
  %r = kiln.kernel "l" library ins(%a, %b, %c : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) attributes {epilogue = #kiln.epilogue<addend = bias_residual>} {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>, %z: tensor<4x16xf32>, %o: tensor<4x16xf32>):
    %m = kiln.matmul %x, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %s = kiln.add %m, %z : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
    %u = kiln.add %s, %z : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
    kiln.yield %u : tensor<4x16xf32>
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

func.func @library_epilogue_not_recorded(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %e = kiln.empty : tensor<4x16xf32>
  // expected-error @+1 {{'l' breaks the library kernel contract: it records #kiln.epilogue<> but its body computes #kiln.epilogue<activation = relu>}}
  %r = kiln.kernel "l" library ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>, %o: tensor<4x16xf32>):
    %m = kiln.matmul %x, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %t = kiln.relu %m : tensor<4x16xf32> -> tensor<4x16xf32>
    kiln.yield %t : tensor<4x16xf32>
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

func.func @library_epilogue_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = kiln.empty : tensor<4x16xf32>
  // expected-error @+1 {{'l' breaks the library kernel contract: it records #kiln.epilogue<addend = bias> but its body computes #kiln.epilogue<addend = residual>}}
  %r = kiln.kernel "l" library ins(%a, %b, %c : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) attributes {epilogue = #kiln.epilogue<addend = bias>} {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>, %z: tensor<4x16xf32>, %o: tensor<4x16xf32>):
    %m = kiln.matmul %x, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %s = kiln.add %z, %m : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
    kiln.yield %s : tensor<4x16xf32>
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

func.func @library_unfusable_epilogue(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %e = kiln.empty : tensor<4x16xf32>
  // expected-error @+1 {{'l' breaks the library kernel contract: 'kiln.exp' follows the library call but is no part of the epilogue cuBLASLt fuses}}
  %r = kiln.kernel "l" library ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>, %o: tensor<4x16xf32>):
    %m = kiln.matmul %x, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %t = kiln.exp %m : tensor<4x16xf32> -> tensor<4x16xf32>
    kiln.yield %t : tensor<4x16xf32>
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

func.func @library_computed_operand(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %e = kiln.empty : tensor<4x16xf32>
  // expected-error @+1 {{'l' breaks the library kernel contract: 'kiln.neg' computes an operand of the library call, which reads its operands from memory (a MatMul operand may be transposed in its last two dims)}}
  %r = kiln.kernel "l" library ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>, %o: tensor<4x16xf32>):
    %t = kiln.neg %x : tensor<4x8xf32> -> tensor<4x8xf32>
    %m = kiln.matmul %t, %y : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    kiln.yield %m : tensor<4x16xf32>
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// A MatMul operand transposed in its last two dims is read so by cuBLASLt
// (trans_a / trans_b): the contract admits it; a transpose of a batch dim
// it does not.
func.func @library_transposed_operand(%a: tensor<2x8x4xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %e = kiln.empty : tensor<2x4x16xf32>
  %r = kiln.kernel "l" library ins(%a, %b : tensor<2x8x4xf32>, tensor<2x8x16xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%x: tensor<2x8x4xf32>, %y: tensor<2x8x16xf32>, %o: tensor<2x4x16xf32>):
    %t = kiln.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<2x8x4xf32> -> tensor<2x4x8xf32>
    %m = kiln.matmul %t, %y : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<2x4x16xf32>
    kiln.yield %m : tensor<2x4x16xf32>
  } -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// -----

func.func @library_transposed_batch(%a: tensor<4x2x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %e = kiln.empty : tensor<2x4x16xf32>
  // expected-error @+1 {{'l' breaks the library kernel contract: 'kiln.transpose' computes an operand of the library call}}
  %r = kiln.kernel "l" library ins(%a, %b : tensor<4x2x8xf32>, tensor<2x8x16xf32>) outs(%e : tensor<2x4x16xf32>) {
  ^bb0(%x: tensor<4x2x8xf32>, %y: tensor<2x8x16xf32>, %o: tensor<2x4x16xf32>):
    %t = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
    %m = kiln.matmul %t, %y : tensor<2x4x8xf32>, tensor<2x8x16xf32> -> tensor<2x4x16xf32>
    kiln.yield %m : tensor<2x4x16xf32>
  } -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// -----

func.func @conv_residual_without_relu(%x: tensor<1x2x8x8xf32>, %w: tensor<2x2x3x3xf32>, %b: tensor<2xf32>, %s: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %e = kiln.empty : tensor<1x2x8x8xf32>
  // expected-error @+1 {{'l' breaks the library kernel contract: cuDNN fuses relu(conv + bias [+ residual]) only}}
  %r = kiln.kernel "l" library ins(%x, %w, %b, %s : tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) attributes {epilogue = #kiln.epilogue<addend = residual>} {
  ^bb0(%a: tensor<1x2x8x8xf32>, %c: tensor<2x2x3x3xf32>, %d: tensor<2xf32>, %f: tensor<1x2x8x8xf32>, %o: tensor<1x2x8x8xf32>):
    %0 = kiln.conv %a, %c, %d {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<2x2x3x3xf32>, tensor<2xf32> -> tensor<1x2x8x8xf32>
    %1 = kiln.add %0, %f : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
    kiln.yield %1 : tensor<1x2x8x8xf32>
  } -> tensor<1x2x8x8xf32>
  return %r : tensor<1x2x8x8xf32>
}

// -----

// Run-time extents (the contract's third question): a pointwise kernel
// takes one in the outermost dim of each value.
// CHECK-LABEL: func.func @pointwise_run_time_extent
// CHECK: kiln.kernel "p" pointwise
func.func @pointwise_run_time_extent(%a: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %e = kiln.empty : tensor<?x8xf32>
  %r = kiln.kernel "p" pointwise ins(%a, %b : tensor<?x8xf32>, tensor<8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%x: tensor<?x8xf32>, %y: tensor<8xf32>, %o: tensor<?x8xf32>):
    %0 = kiln.add %x, %y : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
    kiln.yield %0 : tensor<?x8xf32>
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// A row_reduce kernel takes a run-time row count, not a run-time row
// length.
func.func @row_reduce_run_time_length(%a: tensor<?xf32>) -> tensor<?xf32> {
  %e = kiln.empty : tensor<?xf32>
  // expected-error @+1 {{'r' breaks the row_reduce kernel contract: 'kiln.softmax' has run-time extents: reduces over its run-time extent; the length it reduces would be a run-time value}}
  %r = kiln.kernel "r" row_reduce ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: tensor<?xf32>, %o: tensor<?xf32>):
    %0 = kiln.softmax %x {axis = -1 : i64} : tensor<?xf32> -> tensor<?xf32>
    kiln.yield %0 : tensor<?xf32>
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// An attention kernel takes run-time batch dims and sequence lengths, not
// a run-time head size.
func.func @attention_run_time_head(%q: tensor<2x4x?xf32>) -> tensor<2x4x?xf32> {
  %e = kiln.empty : tensor<2x4x?xf32>
  // expected-error @+1 {{'a' breaks the attention kernel contract: 'kiln.attention' has run-time extents: has a run-time head size (the last dim of q, k, v or the result); only the batch dims and the sequence lengths may be run-time extents}}
  %r = kiln.kernel "a" attention ins(%q : tensor<2x4x?xf32>) outs(%e : tensor<2x4x?xf32>) {
  ^bb0(%a: tensor<2x4x?xf32>, %o: tensor<2x4x?xf32>):
    %y = kiln.attention %a, %a, %a {scale = 1.0 : f32} : tensor<2x4x?xf32>, tensor<2x4x?xf32>, tensor<2x4x?xf32> -> tensor<2x4x?xf32>
    kiln.yield %y : tensor<2x4x?xf32>
  } -> tensor<2x4x?xf32>
  return %r : tensor<2x4x?xf32>
}

// -----

// A run-time extent after a static dim: an elementwise op indexes it by
// value; a reduction per output element, whose model indexes run-time
// extents only as a leading prefix, cannot.
func.func @inner_run_time_extent(%a: tensor<4x?x8xf32>) -> tensor<4x?x1xf32> {
  %e = kiln.empty : tensor<4x?x1xf32>
  // expected-error @+1 {{'p' breaks the pointwise kernel contract: 'kiln.reduce_max' has run-time extents: has run-time extents that are not a leading prefix its operands and result agree on, and its CUDA model indexes run-time extents only as such a prefix}}
  %r = kiln.kernel "p" pointwise ins(%a : tensor<4x?x8xf32>) outs(%e : tensor<4x?x1xf32>) {
  ^bb0(%x: tensor<4x?x8xf32>, %o: tensor<4x?x1xf32>):
    %axes = kiln.constant dense<2> : tensor<1xi64>
    %0 = kiln.relu %x : tensor<4x?x8xf32> -> tensor<4x?x8xf32>
    %1 = kiln.reduce_max %0, %axes {keepdims = true} : tensor<4x?x8xf32>, tensor<1xi64> -> tensor<4x?x1xf32>
    kiln.yield %1 : tensor<4x?x1xf32>
  } -> tensor<4x?x1xf32>
  return %r : tensor<4x?x1xf32>
}
