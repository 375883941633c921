// kiln ops for the further reductions, arg-reductions, log-softmax/hardmax,
// cumulative sums, normalisations and losses (included from KilnOps.td).
#ifndef KILN_NORM_OPS_TD
#define KILN_NORM_OPS_TD

//===----------------------------------------------------------------------===//
// Further reductions (opset-18 operand form, like kiln.reduce_sum)
//===----------------------------------------------------------------------===//

class Kiln_NormReduceOp<string mnemonic, string onnxName, string formula>
    : Kiln_TypedOp<mnemonic> {
  let summary = "Reduction over axes: " # formula;
  let description = "Reduces `data` over the dimensions listed in the optional "
    # "1-D `axes` operand (all dimensions when it is absent, or none when it is "
    # "absent and `noop_with_empty_axes` is set), keeping them as size 1 when "
    # "`keepdims` is set. This is the opset-18 form of ONNX `" # onnxName
    # "`; opsets with an `axes` attribute are imported into it.\n\n"
    # "Example:\n\n```mlir\n%y = kiln." # mnemonic
    # " %x, %axes {keepdims = true} : tensor<2x10xf32>, tensor<1xi64> -> tensor<2x1xf32>\n```";
  let arguments = (ins Kiln_NumericTensor:$data,
                   Optional<Kiln_I64Tensor>:$axes,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                   DefaultValuedAttr<BoolAttr, "false">:$noop_with_empty_axes);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$data (`,` $axes^)? attr-dict `:` type($data) "
                       "(`,` type($axes)^)? `->` type($output)";
}

def Kiln_ReduceMinOp : Kiln_NormReduceOp<"reduce_min", "ReduceMin",
    "minimum (NaN if any element is NaN; +inf / the type's maximum when empty)">;
def Kiln_ReduceProdOp : Kiln_NormReduceOp<"reduce_prod", "ReduceProd",
    "product (integers wrap; 1 when empty)">;
def Kiln_ReduceLogSumExpOp : Kiln_NormReduceOp<"reduce_log_sum_exp",
    "ReduceLogSumExp", "log(sum(e^x)), computed as max + log(sum(e^(x - max)))">;

class Kiln_ArgReduceOp<string mnemonic, string onnxName, string what>
    : Kiln_TypedOp<mnemonic> {
  let summary = "Index of the " # what # " along one axis (i64 result)";
  let description = "ONNX `" # onnxName # "`: the index of the " # what
    # " element along `axis`; ties pick the first index, or the last when "
    # "`select_last_index` is set (NaN counts as the " # what
    # "). The axis stays as size 1 when `keepdims` is set.\n\n"
    # "Example:\n\n```mlir\n%i = kiln." # mnemonic
    # " %x {axis = 1 : i64, keepdims = false} : tensor<2x10xf32> -> tensor<2xi64>\n```";
  let arguments = (ins Kiln_NumericTensor:$data,
                   DefaultValuedAttr<I64Attr, "0">:$axis,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                   DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs Kiln_I64Tensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data) `->` type($output)";
}

def Kiln_ArgMaxOp : Kiln_ArgReduceOp<"arg_max", "ArgMax", "maximum">;
def Kiln_ArgMinOp : Kiln_ArgReduceOp<"arg_min", "ArgMin", "minimum">;

//===----------------------------------------------------------------------===//
// Softmax relatives and scans along one axis
//===----------------------------------------------------------------------===//

def Kiln_LogSoftmaxOp : Kiln_TypedOp<"log_softmax"> {
  let summary = "Log-softmax along one axis: y = x - max - log(sum(e^(x - max)))";
  let description = [{
    Opset-13 semantics of ONNX `LogSoftmax`; older opsets, which flatten to
    2-D at `axis`, are rewritten to this form by the importer.

    Example:

    ```mlir
    %y = kiln.log_softmax %x {axis = -1 : i64} : tensor<2x10xf32> -> tensor<2x10xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                   DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Kiln_HardmaxOp : Kiln_TypedOp<"hardmax"> {
  let summary = "One-hot of the first maximum along one axis";
  let description = [{
    Opset-13 semantics of ONNX `Hardmax`: 1 at the first index of the maximum
    along `axis`, 0 elsewhere. Older opsets (flatten to 2-D) are rewritten to
    this form by the importer.

    Example:

    ```mlir
    %y = kiln.hardmax %x {axis = -1 : i64} : tensor<2x10xf32> -> tensor<2x10xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                   DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Kiln_CumSumOp : Kiln_TypedOp<"cumsum"> {
  let summary = "Cumulative sum along the axis given by a scalar operand";
  let description = [{
    ONNX `CumSum`: `axis` is a 0-D or 1-element i32/i64 tensor (negative
    counts from the back); `exclusive` leaves out the element itself and
    `reverse` sums from the end. Integers wrap; float sums accumulate in the
    computation type.

    Example:

    ```mlir
    %y = kiln.cumsum %x, %axis {reverse = true} : tensor<2x3xf32>, tensor<i64> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, Kiln_IndexTensor:$axis,
                   DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                   DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$input `,` $axis attr-dict `:` type($input) `,` "
                       "type($axis) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

def Kiln_LayerNormOp : Kiln_TypedOp<"layer_norm"> {
  let summary = "Layer normalisation over the dims from `axis` on";
  let description = [{
    ONNX `LayerNormalization` (output `Y`): each slice `x[i, ...]` over the
    dims `axis..rank-1` is normalised with its own mean and variance,
    computed in fp32 (f64 for f64 inputs), then scaled and shifted:
    `y = (x - mean) / sqrt(var + epsilon) * scale + bias`. `scale` and the
    optional `bias` broadcast against the normalised dims. The `Mean` and
    `InvStdDev` outputs are imported as separate reductions.

    Example:

    ```mlir
    %y = kiln.layer_norm %x, %gamma, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32}
        : tensor<8x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<8x768xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
                   Optional<Kiln_FloatTensor>:$bias,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale (`,` $bias^)? attr-dict `:` "
                       "type($input) `,` type($scale) (`,` type($bias)^)? "
                       "`->` type($output)";
}

def Kiln_InstanceNormOp : Kiln_TypedOp<"instance_norm"> {
  let summary = "Instance normalisation: per (n, c) over the spatial dims";
  let description = [{
    ONNX `InstanceNormalization` on `[N, C, D1, ...]`: each `x[n, c]` is
    normalised with its own mean and (biased) variance over the spatial dims,
    then `y = (x - mean) / sqrt(var + epsilon) * scale[c] + bias[c]`.

    Example:

    ```mlir
    %y = kiln.instance_norm %x, %s, %b {epsilon = 1.0e-05 : f32}
        : tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3x4x5xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
                   Kiln_FloatTensor:$bias,
                   DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $bias attr-dict `:` type($input)"
                       " `,` type($scale) `,` type($bias) `->` type($output)";
}

def Kiln_BatchNormOp : Kiln_TypedOp<"batch_norm"> {
  let summary = "Batch normalisation with running statistics (inference)";
  let description = [{
    ONNX `BatchNormalization` in inference mode on `[N, C, ...]`:
    `y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c]`.
    Training mode is rejected by the importer.

    Example:

    ```mlir
    %y = kiln.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
        : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
                   Kiln_FloatTensor:$bias, Kiln_FloatTensor:$mean,
                   Kiln_FloatTensor:$variance,
                   DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $bias `,` $mean `,` $variance "
                       "attr-dict `:` type($input) `,` type($scale) `,` "
                       "type($bias) `,` type($mean) `,` type($variance) `->` "
                       "type($output)";
}

def Kiln_LRNOp : Kiln_TypedOp<"lrn"> {
  let summary = "Local response normalisation across channels";
  let description = [{
    ONNX `LRN` on `[N, C, ...]`: `y = x / (bias + alpha / size * sum)^beta`
    where `sum` adds `x^2` over the channels
    `c - floor((size-1)/2) .. c + ceil((size-1)/2)` that exist.

    Example:

    ```mlir
    %y = kiln.lrn %x {size = 3 : i64, alpha = 1.0e-04 : f32, beta = 7.5e-01 : f32, bias = 1.0 : f32}
        : tensor<1x5x4x4xf32> -> tensor<1x5x4x4xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, I64Attr:$size,
                   DefaultValuedAttr<F32Attr, "1.0e-4">:$alpha,
                   DefaultValuedAttr<F32Attr, "0.75">:$beta,
                   DefaultValuedAttr<F32Attr, "1.0">:$bias);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def Kiln_NLLLossOp : Kiln_TypedOp<"nll_loss"> {
  let summary = "Negative log-likelihood loss of log-probabilities";
  let description = [{
    ONNX `NegativeLogLikelihoodLoss`: `input` is `[N, C, D1, ...]`, `target`
    `[N, D1, ...]`; each element's loss is `-input[n, target, d...] *
    weight[target]` (weight 1 when absent), 0 where the target equals
    `ignore_index`. `reduction` is `none` (the per-element losses), `sum`, or
    `mean` (the sum divided by the sum of the weights used). A target outside
    `[0, C)` other than `ignore_index` is an evaluation error.
    SoftmaxCrossEntropyLoss is imported as `kiln.log_softmax` (axis 1)
    followed by this op.

    Example:

    ```mlir
    %l = kiln.nll_loss %x, %t {reduction = "mean"} : tensor<3x5xf32>, tensor<3xi64> -> tensor<f32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_IndexTensor:$target,
                   Optional<Kiln_FloatTensor>:$weight,
                   DefaultValuedAttr<StrAttr, "\"mean\"">:$reduction,
                   OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input `,` $target (`,` $weight^)? attr-dict `:` "
                       "type($input) `,` type($target) (`,` type($weight)^)? "
                       "`->` type($output)";
  let hasVerifier = 1;
}

#endif // KILN_NORM_OPS_TD
