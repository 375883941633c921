// Composite ops: GELU and scaled-dot-product attention. kiln-recognize-patterns
// builds them from the decomposed graphs exporters write (ONNX Gelu imports
// to kiln.gelu directly). Included from KilnOps.td.
#ifndef KILN_COMPOSITE_OPS_TD
#define KILN_COMPOSITE_OPS_TD

def Kiln_GeluOp : Kiln_TypedOp<"gelu"> {
  let summary = "Elementwise GELU: y = x * Phi(x), exact (erf) or tanh form";
  let description = [{
    ONNX `Gelu` (opset 20). With `approximate = "none"`,
    `y = 0.5 * x * (1 + erf(x / sqrt(2)))`; with `approximate = "tanh"`,
    `y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.
    Shape and element type are kept. `kiln-recognize-patterns` also makes it
    from the decomposed forms that PyTorch exporters write (BERT's erf form,
    GPT-2's tanh form).

    Example:

    ```mlir
    %y = kiln.gelu %x {approximate = "tanh"} : tensor<8x3072xf32> -> tensor<8x3072xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                   DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Kiln_AttentionOp : Kiln_TypedOp<"attention"> {
  let summary = "Scaled dot-product attention: softmax(scale * q k^T + mask) v";
  let description = [{
    `query` is `[..., sq, d]`, `key` `[..., sk, d]` (not transposed) and
    `value` `[..., sk, dv]`; the three have one rank (>= 2) and batch dims
    that broadcast (each 1 or equal). The optional additive `mask`
    broadcasts to the scores `[..., sq, sk]` (NumPy rules, no larger than
    them). The result is `[..., sq, dv]`:
    `softmax(scale * query @ key^T + mask, axis = -1) @ value`. Scores,
    softmax statistics and the products accumulate in fp32 (f64 for f64). A
    row whose scores are all -inf gives NaN, as the decomposed softmax does.
    `kiln-recognize-patterns` makes it from MatMul/Mul/Add/Softmax/MatMul.
    A query or key multiplied by a constant scalar (nn.MultiheadAttention
    scales both by d^-1/4) canonicalises into `scale` when the product has
    no other use.

    Example:

    ```mlir
    %o = kiln.attention %q, %k, %v, %mask {scale = 1.250000e-01 : f32}
        : tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>,
          tensor<1x1x128x128xf32> -> tensor<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$query, Kiln_FloatTensor:$key,
                   Kiln_FloatTensor:$value, Optional<Kiln_FloatTensor>:$mask,
                   DefaultValuedAttr<F32Attr, "1.0">:$scale);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$query `,` $key `,` $value (`,` $mask^)? attr-dict `:` "
                       "type($query) `,` type($key) `,` type($value) "
                       "(`,` type($mask)^)? `->` type($output)";
  let hasCanonicalizer = 1;
}

#endif // KILN_COMPOSITE_OPS_TD
