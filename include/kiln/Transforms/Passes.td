// Declarations of kiln's graph passes.
#ifndef KILN_TRANSFORMS_PASSES_TD
#define KILN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def KilnSpecializeShapes : Pass<"kiln-specialize-shapes", "mlir::ModuleOp"> {
  let summary = "Gives the entry function's dynamic input dimensions fixed sizes.";
  let description = [{
    Each `shapes` entry is `name=DxDx...` for a graph input (every dim of the
    input; a `?` keeps a dim dynamic) or `name=D` for a symbolic dimension name
    recorded in `kiln.dim_names` (every input dim with that name). Static dims
    that disagree are an error naming the input. Only argument types change;
    run `kiln-refine-types` afterwards to propagate them.

    Before (`--kiln-specialize-shapes=shapes=x=2x8`):

    ```mlir
    func.func @main(%x: tensor<?x8xf32> {kiln.dim_names = ["batch", ""]}) ...
    ```

    After:

    ```mlir
    func.func @main(%x: tensor<2x8xf32> {kiln.dim_names = ["batch", ""]}) ...
    ```
  }];
  let options = [
    ListOption<"shapes", "shapes", "std::string",
               "Input or dimension sizes, e.g. ids=8x128 or seq=128">
  ];
}

def KilnRefineTypes : Pass<"kiln-refine-types", "mlir::func::FuncOp"> {
  let summary = "Re-infers every kiln op's result type and keeps the more static one.";
  let description = [{
    Walks the function in order and replaces each result type by the type the
    op infers from its (possibly refined or constant) operands when that is
    more static, then updates the function's result types to match its return.
    Types only become more precise; an inference error is reported at the op.

    Before:

    ```mlir
    %0 = kiln.relu %x : tensor<2x8xf32> -> tensor<?x8xf32>
    ```

    After:

    ```mlir
    %0 = kiln.relu %x : tensor<2x8xf32> -> tensor<2x8xf32>
    ```
  }];
  let dependentDialects = ["kiln::KilnDialect"];
}

def KilnFoldConstants : Pass<"kiln-fold-constants", "mlir::func::FuncOp"> {
  let summary = "Evaluates ops whose operands are all constant with the CPU evaluator.";
  let description = [{
    An op whose operands are all `kiln.constant` is evaluated by the CPU
    evaluator and replaced by a constant, when every result is static and no
    larger than `max-bytes` (64 KiB by default); larger results, such as
    transposed weights, stay for the load-time init program. Ops whose result
    depends only on operand *shapes* (`kiln.shape`) fold through their folders.

    Before:

    ```mlir
    %a = kiln.constant dense<[2, 3]> : tensor<2xi64>
    %b = kiln.constant dense<[4]> : tensor<1xi64>
    %c = kiln.concat %a, %b {axis = 0 : i64} : tensor<2xi64>, tensor<1xi64> -> tensor<3xi64>
    ```

    After:

    ```mlir
    %c = kiln.constant dense<[2, 3, 4]> : tensor<3xi64>
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "65536",
           "Largest result, in bytes, that is folded into a constant">
  ];
  let dependentDialects = ["kiln::KilnDialect"];
}

def KilnUnrollLoops : Pass<"kiln-unroll-loops", "mlir::func::FuncOp"> {
  let summary = "Unrolls each kiln.loop whose trip count and conditions are constants.";
  let description = [{
    A `kiln.loop` (ONNX Loop) is replaced by one copy of its body per
    iteration, with the iteration number a constant, once its trip count, its
    initial condition and the condition each copy computes evaluate to
    constants (through evaluable ops on constants). Scan outputs become a
    concat of the iterations' values along a new axis 0. A loop that cannot be
    unrolled yet is left unchanged; `kiln-simplify-graph` runs this in each
    round, so a trip count that only folds after shape specialisation (Range's
    `ceil((limit - start) / delta)`) still unrolls, and `kiln-require-static`
    reports a loop that is left.

    Before:

    ```mlir
    %m = kiln.constant dense<2> : tensor<i64>
    %r = kiln.loop trip_count(%m : tensor<i64>) carried(%x : tensor<f32>) {
    ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
      %w = kiln.add %v, %d : tensor<f32>, tensor<f32> -> tensor<f32>
      kiln.yield %c, %w : tensor<i1>, tensor<f32>
    } : tensor<f32>
    ```

    After:

    ```mlir
    %w0 = kiln.add %x, %d : tensor<f32>, tensor<f32> -> tensor<f32>
    %w1 = kiln.add %w0, %d : tensor<f32>, tensor<f32> -> tensor<f32>
    ```
  }];
  let dependentDialects = ["kiln::KilnDialect"];
}

def KilnInlineConstantIfs : Pass<"kiln-inline-constant-ifs", "mlir::func::FuncOp"> {
  let summary = "Replaces each kiln.if whose condition is a constant by its taken branch.";
  let description = [{
    A `kiln.if` (ONNX If whose branches give values of different shapes) is
    replaced by the ops of the branch its constant condition takes, moved
    before it, and its results by the values that branch yields; types are
    then refined (the results' joined types were dynamic or unranked). An if
    whose condition is not a constant yet is left unchanged;
    `kiln-simplify-graph` runs this in each round, so a condition that
    compares shapes folds once they are specialised and the if goes, and
    `kiln-require-static` reports an if that is left.

    Before:

    ```mlir
    %c = kiln.constant dense<false> : tensor<i1>
    %r = kiln.if %c : tensor<i1> then {
      %u = kiln.unsqueeze %x, %axes : tensor<4x4xi64>, tensor<1xi64> -> tensor<1x4x4xi64>
      kiln.yield %u : tensor<1x4x4xi64>
    } else {
      kiln.yield %y : tensor<1x1x4x4xi64>
    } : tensor<*xi64>
    %n = kiln.neg %r : tensor<*xi64> -> tensor<*xi64>
    ```

    After:

    ```mlir
    %n = kiln.neg %y : tensor<1x1x4x4xi64> -> tensor<1x1x4x4xi64>
    ```
  }];
  let dependentDialects = ["kiln::KilnDialect"];
}

def KilnSimplifyGraph : Pass<"kiln-simplify-graph", "mlir::ModuleOp"> {
  let summary = "Canonicalises, folds constants and refines types until nothing changes.";
  let description = [{
    The graph-level cleanup that runs after import: canonicalisation patterns
    (Identity removal, reshape chains), constant folding with the CPU evaluator
    and type refinement, repeated until the IR stops changing, then dead code
    removal. Shape arithmetic (`Shape -> Gather -> Unsqueeze -> Concat ->
    Reshape`) disappears when the shapes involved are static.

    Before:

    ```mlir
    %s = kiln.shape %x : tensor<2x8xf32> -> tensor<2xi64>
    %y = kiln.reshape %x, %s : tensor<2x8xf32>, tensor<2xi64> -> tensor<?x?xf32>
    ```

    After:

    ```mlir
    return %x : tensor<2x8xf32>
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "65536",
           "Largest result, in bytes, that is folded into a constant">
  ];
  let dependentDialects = ["kiln::KilnDialect"];
}

def KilnFoldBatchNorm : Pass<"kiln-fold-batch-norm", "mlir::func::FuncOp"> {
  let summary = "Folds an inference BatchNormalization into the convolution before it.";
  let description = [{
    `batch_norm(conv(x, w, b), scale, bias, mean, var)` with constant
    parameters and the convolution's only user being the batch norm becomes
    `conv(x, w', b')` with `factor = scale / sqrt(var + eps)`,
    `w' = w * reshape(factor, [K, 1, 1, 1])` and
    `b' = (b - mean) * factor + bias`. The new weights are kiln ops on
    constants: small ones fold at compile time, `w'` (when larger than the
    fold cap) becomes part of the init program that runs at load.
  }];
}

def KilnPatchConvolutions : Pass<"kiln-patch-convolutions", "mlir::func::FuncOp"> {
  let summary = "Runs a convolution whose windows tile its input without overlap as one GEMM over the patches.";
  let description = [{
    A 2-D NCHW `kiln.conv` with kernel = stride, no padding or dilation,
    group 1, a kernel of more than one tap, H and W multiples of the kernel,
    static shapes, input channels that are not a multiple of 8 (cuDNN's
    tensor cores want them; 8 or more stay with cuDNN) and a weight (and
    bias) computed from constants is a matrix product of its patches with
    its filters (a vision transformer's patch embedding):

    ```mlir
    %y = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64,
        pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 16, 16>}
        : tensor<8x3x224x224xf32>, tensor<768x3x16x16xf32>, tensor<768xf32>
        -> tensor<8x768x14x14xf32>
    // becomes
    %s = kiln.reshape %x, [8, 3, 14, 16, 14, 16]
    %p = kiln.transpose %s {perm = array<i64: 0, 2, 4, 1, 3, 5>}
    %r = kiln.reshape %p, [8, 14, 14, 768]
    %f = kiln.transpose (kiln.reshape %w, [768, 768]) {perm = array<i64: 1, 0>}
    %m = kiln.add (kiln.matmul %r, %f), %b : ... -> tensor<8x14x14x768xf32>
    %y = kiln.transpose %m {perm = array<i64: 0, 3, 1, 2>}
    ```

    The filters' reshape and transpose are a weight transform; the bias add
    becomes the GEMM's bias epilogue.
  }];
}

def KilnAssignLayout : Pass<"kiln-assign-layout", "mlir::func::FuncOp"> {
  let summary = "Runs the convolutions cuDNN takes in NHWC and sinks the layout transposes between them.";
  let description = [{
    Every 2-D `kiln.conv` that cuDNN would run (static, f32/f16/bf16,
    symmetric pads) with a weight computed from constants becomes a
    channels-last convolution between two transposes; the weight transpose is
    a weight transform (folded, or part of the init program). Then, to a fixed
    point, transposes that cancel fold away and pointwise ops whose operands
    are transposes with one permutation run on the untransposed values:

    ```mlir
    %y = kiln.conv %x, %w {...} : tensor<1x8x4x4xf16>, ... -> tensor<1x8x4x4xf16>
    %r = kiln.relu %y : tensor<1x8x4x4xf16>
    // becomes
    %xt = kiln.transpose %x {perm = array<i64: 0, 2, 3, 1>} : ...
    %wt = kiln.transpose %w {perm = array<i64: 0, 2, 3, 1>} : ...
    %c = kiln.conv %xt, %wt {layout = "NHWC", ...} : ... -> tensor<1x4x4x8xf16>
    %r = kiln.relu %c : tensor<1x4x4x8xf16>
    %y = kiln.transpose %r {perm = array<i64: 0, 3, 1, 2>} : ...
    ```

    A 2-D max or average pool of `transpose(x, [0, 3, 1, 2])` runs
    channels-last on `x` (`layout = "NHWC"`) with the transpose after it, and
    a sum, mean or max reduction with constant axes of such a transpose
    reduces `x` over the permuted axes: a global average pool of an NHWC
    value reduces axes [1, 2] (when that strided reduction covers at most
    1024 elements per output; longer ones keep the transpose and their row
    form). Finally a transpose of an activation that
    moves only size-1 dims (the pooled `[N, 1, 1, C]` to `[N, C, 1, 1]`)
    becomes a `kiln.reshape`, which costs no kernel.

    With `half-only` (what the graph pipeline uses) only f16 and bf16
    convolutions change: tensor cores want channels-last, while cuDNN's
    fp32 convolutions measured slower in NHWC on the H200 (ResNet-50 bs8:
    5.9 ms against 4.1 ms in NCHW).
  }];
  let options = [
    Option<"halfOnly", "half-only", "bool", "false",
           "Only rewrite f16/bf16 convolutions">,
  ];
}

def KilnMoveRowPermutations : Pass<"kiln-move-row-permutations", "mlir::func::FuncOp"> {
  let summary = "Moves transposes of leading dims across row-wise ops to the views they compose with.";
  let description = [{
    A `kiln.transpose` that permutes only leading dims (its first k dims; the
    last dim stays) moves whole rows, so it commutes with every op that
    computes each row of its result from the same row of one operand: an
    elementwise op whose other operands do not vary along those dims (a bias
    row), a matmul with a 2-D rhs (x·W along the last dim), a gemm of a
    non-transposed `a` whose `c` is a row, a layer_norm after those dims, and
    a reshape that keeps them, or merges them into one dim as its outermost
    factor (their product alone, or times the dims after them: a 2-D gemm's
    rows) and splits them back. The transpose moves up across such ops (each
    result with one use) when a transpose or a `kiln.attention` makes the
    value it reaches, or otherwise down when every user of the value it
    reaches is a view, a transpose or a slice; each transpose moves once.
    `nn.MultiheadAttention`'s `[b, s, e] -> [s, b, e]` transposes around its
    projections then join the head split and merge, which the attention
    kernel reads and writes by strides. Static shapes only.

    Before:

    ```mlir
    %t = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
    %p = kiln.matmul %t, %w : tensor<4x2x8xf32>, tensor<8x24xf32> -> tensor<4x2x24xf32>
    %r = kiln.reshape %p, %shape : tensor<4x2x24xf32>, tensor<4xi64> -> tensor<4x2x3x8xf32>
    %u = kiln.unsqueeze %r, %axes : ...
    ```

    After:

    ```mlir
    %p = kiln.matmul %x, %w : tensor<2x4x8xf32>, tensor<8x24xf32> -> tensor<2x4x24xf32>
    %r = kiln.reshape %p, %shape : tensor<2x4x24xf32>, tensor<4xi64> -> tensor<2x4x3x8xf32>
    %t = kiln.transpose %r {perm = array<i64: 1, 0, 2, 3>} : tensor<2x4x3x8xf32> -> tensor<4x2x3x8xf32>
    %u = kiln.unsqueeze %t, %axes : ...
    ```
  }];
  let dependentDialects = ["kiln::KilnDialect"];
}

def KilnMergeProjections : Pass<"kiln-merge-projections", "mlir::func::FuncOp"> {
  let summary = "Merges matmuls of one activation with constant weights into one matmul and slices.";
  let description = [{
    A transformer's Q, K and V projections read the same activation with
    three weights. Every group of at least two `kiln.matmul`s with the same
    lhs and 2-D constant rhs of the same K and element type becomes one
    matmul with the weights concatenated along N (a weight transform: folded
    when small, else part of the init program) and one `kiln.slice` of the
    last axis per original result, which fuses into its consumers:

    ```mlir
    %q = kiln.matmul %x, %wq : tensor<8x128x768xf32>, tensor<768x768xf32> -> ...
    %k = kiln.matmul %x, %wk : ...
    // becomes
    %w = kiln.concat %wq, %wk {axis = 1 : i64} : ... -> tensor<768x1536xf32>
    %qk = kiln.matmul %x, %w : ... -> tensor<8x128x1536xf32>
    %q = kiln.slice %qk, %c0, %c768, %cm1, %c1 : ...
    %k = kiln.slice %qk, %c768, %c1536, %cm1, %c1 : ...
    ```

    When every member's only use adds a constant bias row to it ([n] or
    [1, .., 1, n], either operand order; BERT's MatMul + Add), the biases
    are concatenated too and added once, before the slices, which replace
    the adds; fusion then runs that add as the merged GEMM's cuBLASLt bias
    epilogue. If any member lacks such an add, only the matmuls merge:

    ```mlir
    %b = kiln.concat %bq, %bk {axis = 0 : i64} : ... -> tensor<1536xf32>
    %qkb = kiln.add %qk, %b : tensor<8x128x1536xf32>, tensor<1536xf32> -> ...
    %q = kiln.slice %qkb, %c0, %c768, %cm1, %c1 : ...
    ```
  }];
}

def KilnRecognizePatterns : Pass<"kiln-recognize-patterns", "mlir::func::FuncOp"> {
  let summary = "Replaces decomposed GELU and attention subgraphs by kiln.gelu and kiln.attention.";
  let description = [{
    Recognises what PyTorch exporters write for GELU and scaled-dot-product
    attention, after constants are folded so that their values are visible:

    - erf GELU: a product of `x`, `0.5` and `1 + erf(x / sqrt(2))` (or
      `x * 0.70710678`) in any association and operand order;
    - tanh GELU: a product of `x`, `0.5` and `1 + tanh(0.79788456 * (x +
      0.044715 * x^3))`, with `x^3` as `pow(x, 3)` or `x * x * x`;
    - attention: `matmul(softmax(scale * matmul(q, kT) + mask), v)` with the
      softmax over the last axis, a scalar scale (mul, div or none) and an
      optional additive mask; `k` is `kT` with its last two dims swapped,
      composed into the transpose that makes `kT` when there is one.

    Constants are compared with a relative tolerance of 1e-6 (or the
    element type's precision). Only subgraphs whose intermediates have no
    other users are replaced.

    Before:

    ```mlir
    %s = kiln.matmul %q, %kt : tensor<2x8x64xf32>, tensor<2x64x8xf32> -> tensor<2x8x8xf32>
    %t = kiln.mul %s, %c : tensor<2x8x8xf32>, tensor<f32> -> tensor<2x8x8xf32>
    %p = kiln.softmax %t : tensor<2x8x8xf32> -> tensor<2x8x8xf32>
    %o = kiln.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x64xf32> -> tensor<2x8x64xf32>
    ```

    After:

    ```mlir
    %k = kiln.transpose %kt {perm = array<i64: 0, 2, 1>} : tensor<2x64x8xf32> -> tensor<2x8x64xf32>
    %o = kiln.attention %q, %k, %v {scale = 1.250000e-01 : f32}
        : tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32> -> tensor<2x8x64xf32>
    ```
  }];
  let dependentDialects = ["kiln::KilnDialect"];
}

def KilnConvertPrecision : Pass<"kiln-convert-precision", "mlir::ModuleOp"> {
  let summary = "Computes the entry function's floating-point tensors in fp16 or bf16.";
  let description = [{
    With `precision=fp16` (or `bf16`), every f32 tensor of the entry function
    becomes f16 (bf16): f32 inputs are cast on entry, results cast back to
    f32 before they are returned, and f32 constants are cast (small ones fold
    at compile time, weights become part of the init program). Templates
    keep accumulating in fp32: GEMMs run with fp32 compute, and softmax,
    normalisation statistics and reductions accumulate in float. Constants
    outside the target's range saturate to its largest finite value (so a
    mask value of -3.4e38 becomes -65504 in fp16, not -inf). Index arithmetic
    stays f32: float ops computed only from integers and dense constants whose
    results end in integers (a cast to an integer type, a comparison), such
    as T5's relative-position bucket, keep their f32 types and constants; a
    truncation to an integer would turn fp16's rounding into a whole step.
    Weight arithmetic stays f32 too: ops computed only from constants (a
    folded BatchNorm's w * scale / sqrt(var + eps)) keep f32 and are cast
    once where an op outside them reads them (at load, in the init program);
    ops that only move a weight (a transpose) read it cast first.
    Reduction statistics compute in f32: a sum or mean computed with
    further (T5's RMSNorm mean(x^2) + eps), the arithmetic of statistics
    alone (sqrt, 1 / x) and the prologue computed only for them (x^2) keep
    f32, reading activations widened; an op reading a statistic and an
    activation (x * rstd) computes in f32 and rounds to T once. A softmax
    reads its logits in f32: the ops computed only for it (q kT plus a
    position bias and mask) keep f32, a GEMM's product among them widened
    (kiln-fuse-kernels gives that cast to the GEMM, which writes f32).
    An inference batch norm with constant parameters that no convolution
    absorbed (DenseNet's pre-activation norms) computes in f32: it reads its
    input widened, keeps its parameters f32 (its factor scale / sqrt(var +
    eps) then folds in f32, not in f16 steps) and rounds to T once.
    `tf32` changes no
    types: it marks the module so that fp32 GEMMs may use TF32 tensor cores.
    The precision is recorded as `kiln.precision` on the module.

    ```mlir
    // precision=fp16
    func.func @main(%x: tensor<8x768xf32>) -> tensor<8x768xf32> {
      %0 = kiln.cast %x {to = f16} : tensor<8x768xf32> -> tensor<8x768xf16>
      %1 = kiln.relu %0 : tensor<8x768xf16> -> tensor<8x768xf16>
      %2 = kiln.cast %1 {to = f32} : tensor<8x768xf16> -> tensor<8x768xf32>
      return %2 : tensor<8x768xf32>
    }
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"fp32\"",
           "fp32 | tf32 | fp16 | bf16">,
  ];
}

def KilnOutlineInit : Pass<"kiln-outline-init", "mlir::ModuleOp"> {
  let summary = "Moves weight transforms into @kiln_init, which runs once at load.";
  let description = [{
    Runs after the graph pipeline. Ops of the entry function whose operands
    are all weights (constants, or results of other such ops) and that
    constant folding left alone because their results are large (weight
    transposes, casts to fp16, BatchNorm folds, concatenated projections)
    move into a private function `@kiln_init`, compiled like the entry
    function. Its results replace them as data-less weights:

    ```mlir
    %w = kiln.constant {kiln.init_result = 0 : i64}
           dense_resource<kiln_init.0> : tensor<768x768xf16>
    ```

    The packager makes `@kiln_init` an entry point "kiln_init" whose steps
    write those weights; the runtime runs it once after uploading the
    weights. Pure view chains of constants stay in the entry function.
  }];
}

def KilnRequireStatic : Pass<"kiln-require-static", "mlir::func::FuncOp"> {
  let summary = "Reports every value whose shape is still not fully known.";
  let description = [{
    Code generation needs static shapes. This check runs before fusion and
    emits one error per dynamic dimension left, naming the ONNX node (from the
    op's location) and, for arguments, the input and its symbolic dim name,
    with the `--input-shape` that would fix it.

    ```mlir
    func.func @main(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]})
    // error: input 'x' has dynamic dim 0 ('batch'); pass --input-shape batch=N or x=Nx8
    ```
  }];
}

def KilnFuseKernels : Pass<"kiln-fuse-kernels", "mlir::func::FuncOp"> {
  let summary = "Groups ops into destination-style kiln.kernel regions.";
  let description = [{
    Walks the function from its results backwards; each op not yet in a
    kernel roots a new one, which then absorbs producers whose every use is
    inside it and which the kernel kind can compute elementally (pointwise
    ops, views, data movement; a row reduction as the anchor of a pointwise
    epilogue). Constants with at most 16 elements are cloned into the kernel;
    larger ones, views outside kernels and MatMul/Gemm (`library` kernels)
    stay separate. docs/fusion.md documents the cost model.

    Before:

    ```mlir
    %0 = kiln.add %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %1 = kiln.relu %0 : tensor<4xf32> -> tensor<4xf32>
    ```

    After:

    ```mlir
    %e = kiln.empty : tensor<4xf32>
    %1 = kiln.kernel "fused_add_relu_0" pointwise ins(%a, %b : ...) outs(%e : ...) {
      ...
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = ["kiln::KilnDialect"];
}

def KilnTileKernels : Pass<"kiln-tile-kernels", "mlir::func::FuncOp"> {
  let summary = "Chooses launch geometry for every kiln.kernel.";
  let description = [{
    Records, as attributes of each kernel, the block size, grid size,
    elements per thread, 16-byte vector width where every access allows it,
    for kinds with several templates the variant (row reductions:
    `warp_rows`, one warp per row for rows of up to 1024 elements, or
    `block_rows`, one block per row) and rows per block.
    Attributes already present are kept, so tests can pin them.

    ```mlir
    kiln.kernel "k" pointwise ... attributes {block_size = 256 : i64,
        elements_per_thread = 4 : i64, grid_size = 8 : i64, vector_width = 4 : i64}
    ```
  }];
  let options = [
    Option<"multiprocessors", "multiprocessors", "int64_t", "132",
           "Multiprocessors of the target GPU (H200: 132), to size grids">,
    Option<"buckets", "buckets", "bool", "true",
           "Record kiln.buckets where a kernel with run-time extents would "
           "be configured differently at smaller counts (false: every count "
           "runs the configuration of the largest)">
  ];
}

def KilnSchedule : Pass<"kiln-schedule", "mlir::func::FuncOp"> {
  let summary = "Assigns the kernels' launch DAG to CUDA streams, joined by events.";
  let description = [{
    Independent branches of the launch DAG run on different streams: a kernel
    continues the stream of its first producer while that stream still ends
    with the producer, else takes a new stream (at most `max-streams`).
    Dependencies that cross streams become events: the producer records one
    (`record_event`), the consumer waits on it (`wait_events`); vector clocks
    drop waits that earlier ones already imply. Streams that read only inputs
    wait on the fork event recorded on stream 0 at entry; stream 0 waits on
    `kiln.join_events` at the end.

    Before: two independent library kernels `%m0`, `%m1` and a kernel
    reading both. After:

    ```mlir
    func.func @f(...) attributes {kiln.fork_event = 0 : i64,
        kiln.num_events = 2 : i64, kiln.num_streams = 2 : i64} {
      %m0 = kiln.kernel "matmul_0" library ... attributes {stream = 0 : i64}
      %m1 = kiln.kernel "matmul_1" library ... attributes {record_event = 1 : i64,
          stream = 1 : i64, wait_events = array<i64: 0>}
      %a = kiln.kernel "add_2" pointwise ins(%m0, %m1 ...) ... attributes {
          stream = 0 : i64, wait_events = array<i64: 1>}
    ```
  }];
  let options = [
    Option<"maxStreams", "max-streams", "int64_t", "4",
           "Most streams the schedule uses">
  ];
}

def KilnPlanMemory : Pass<"kiln-plan-memory", "mlir::ModuleOp"> {
  let summary = "Gives activations arena offsets by liveness on the scheduled DAG, and weights weight-arena offsets.";
  let description = [{
    Runs after kiln-schedule. Each `kiln.empty` either becomes a function
    result that kernels write directly (`result_index`) or gets a 256-byte
    aligned `arena_offset`; two activations share memory only when the
    schedule (streams and events) orders every use of one before every use
    of the other, so buffers of concurrent streams never overlap. Views alias
    their source. Weights (`kiln.constant` read by kernels or returned) get a
    `weight_offset` in a separate arena, shared by every function of the
    module (identical constants once). The results of `@kiln_init` get the
    weight offset of the `kiln.init_result` constant they become, as the
    result attribute `kiln.weight_offset`. The peak sizes are recorded on
    each function as `kiln.activation_arena_bytes` and
    `kiln.weight_arena_bytes`.

    ```mlir
    func.func @f(...) attributes {kiln.activation_arena_bytes = 8192 : i64,
        kiln.weight_arena_bytes = 33280 : i64, ...} {
      %w = kiln.constant {weight_offset = 0 : i64} dense_resource<w0> : ...
      %e0 = kiln.empty {arena_offset = 0 : i64} : tensor<8x128xf32>
      %e1 = kiln.empty {arena_offset = 4096 : i64} : tensor<8x128xf32>
      %e2 = kiln.empty {result_index = 0 : i64} : tensor<8x10xf32>
    ```
  }];
}

#endif // KILN_TRANSFORMS_PASSES_TD
