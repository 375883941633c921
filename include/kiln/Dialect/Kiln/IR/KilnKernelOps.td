// kiln.kernel and its companions: the fused, destination-style units of work
// that fusion produces, tiling annotates and the CUDA emitter turns into code.
#ifndef KILN_KERNEL_OPS_TD
#define KILN_KERNEL_OPS_TD

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "kiln/Dialect/Kiln/IR/KilnKernelKinds.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kiln_EmptyOp : Kiln_Op<"empty", [Pure]> {
  let summary = "An uninitialised tensor that a kernel writes into";
  let description = [{
    The destination operand of a `kiln.kernel`; the memory planner gives it an
    arena offset. Its contents are undefined until a kernel writes it. A
    dynamic dim is a run-time extent of a ranged dim (issue 18; its
    expression is the op's `kiln.dim_exprs`), planned at the range's
    maximum.

    Example:

    ```mlir
    %e = kiln.empty : tensor<8x128xf32>
    ```
  }];
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

def Kiln_YieldOp : Kiln_Op<"yield", [Pure, Terminator,
                                      ParentOneOf<["KernelOp", "LoopOp", "IfOp"]>]> {
  let summary = "The values a kernel, loop or if region produces";
  let description = [{
    Terminates a `kiln.kernel` body (operand i is written to output i), a
    `kiln.loop` body (the next condition, carried values and scan outputs) or
    a `kiln.if` branch (one value per result).

    Example:

    ```mlir
    kiln.yield %v : tensor<8x128xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyTensor>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

def Kiln_KernelOp : Kiln_Op<"kernel", [
    IsolatedFromAbove, AttrSizedOperandSegments, RecursiveMemoryEffects,
    DestinationStyleOpInterface]> {
  let summary = "A fused GPU kernel in destination style";
  let description = [{
    A region of kiln ops that becomes one CUDA kernel (or, for `library`
    kernels, one cuBLASLt call; a kernel may lower to several launches, e.g. a
    split reduction). The region is isolated from above: block arguments are
    the `ins` followed by the `outs`; `kiln.yield` gives the value written to
    each output, so results are tied to `outs` and in-place updates are
    explicit. `kind` (a `KernelKind`, printed as a keyword) selects the code
    template:

    - `pointwise`: elementwise chains with broadcasts and views;
    - `row_reduce`: reductions / softmax over the innermost axis with
      pointwise prologue and epilogue;
    - `transpose`: a tiled permutation of the two innermost moving dims;
    - `data_movement`: slice, concat, gather, expand and copies;
    - `library`: MatMul/Gemm executed by cuBLASLt (2-D Conv: cuDNN) in the
      runtime, with the `epilogue` the call fuses;
    - `attention`: one `kiln.attention` (softmax(scale q k^T + mask) v).

    Tiling adds the launch geometry as attributes (`block_size`, `grid_size`,
    `elements_per_thread`, `vector_width`, `rows_per_block`, and for
    query-row attention `key_chunk`, the keys scored per pass) and,
    for kinds with several templates, the `variant` that runs the kernel;
    the emitter reads only those, so changing one changes the emitted CUDA.

    Example:

    ```mlir
    %e = kiln.empty : tensor<4x8xf32>
    %r = kiln.kernel "add_relu" pointwise ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>)
        outs(%e : tensor<4x8xf32>) {
    ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %o: tensor<4x8xf32>):
      %s = kiln.add %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
      %t = kiln.relu %s : tensor<4x8xf32> -> tensor<4x8xf32>
      kiln.yield %t : tensor<4x8xf32>
    } -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins StrAttr:$sym_name, Kiln_KernelKindAttr:$kind,
                   Variadic<AnyTensor>:$inputs,
                   Variadic<AnyRankedTensor>:$outputs,
                   OptionalAttr<I64Attr>:$block_size,
                   OptionalAttr<I64Attr>:$grid_size,
                   OptionalAttr<I64Attr>:$elements_per_thread,
                   OptionalAttr<I64Attr>:$vector_width,
                   OptionalAttr<I64Attr>:$rows_per_block,
                   OptionalAttr<I64Attr>:$key_chunk,
                   OptionalAttr<Kiln_KernelVariantAttr>:$variant,
                   OptionalAttr<Kiln_LibraryEpilogueAttr>:$epilogue);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `` $kind (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `outs` `(` $outputs `:` type($outputs) `)` attr-dict-with-keyword
    $body `->` type($results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutputsMutable();
    }
    /// The yield that ends the body.
    YieldOp getYield();
  }];
}

#endif // KILN_KERNEL_OPS_TD
