// Convolution, pooling and quantisation ops of the kiln dialect (included by KilnOps.td).
#ifndef KILN_CONV_OPS_TD
#define KILN_CONV_OPS_TD

def Kiln_QuantizedTensor : TensorOf<[I8, UI8]>;
def Kiln_DequantizableTensor : TensorOf<[I8, UI8, I32]>;

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

// Window geometry shared by convolutions and pools. The importer resolves
// `auto_pad` and `output_shape` into explicit `pads` (all begins, then all
// ends, one per spatial dim), so every op here has one form.
class Kiln_ConvLikeOp<string mnemonic> : Kiln_TypedOp<mnemonic> {
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "type($input) `,` type($weight) (`,` type($bias)^)? "
                       "`->` type($output)";
}

def Kiln_ConvOp : Kiln_ConvLikeOp<"conv"> {
  let summary = "N-D grouped convolution (cross-correlation) with optional bias";
  let description = [{
    ONNX `Conv` on `[N, C, D1..Dk]` inputs (k = 1..3) and `[M, C/group,
    K1..Kk]` weights; `bias` is `[M]`. Output dim i is
    `floor((D_i + pads[i] + pads[k+i] - dilations[i]*(K_i-1) - 1) / strides[i]) + 1`.
    Integer element types (i32) compute with wrapping arithmetic; the
    importer builds `ConvInteger` and `QLinearConv` on them.

    Example:

    ```mlir
    %y = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64,
        pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
        : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
    ```

    `layout = "NHWC"` (2-D only, set by `kiln-assign-layout`) takes a
    channels-last `[N, H, W, C]` input and `[M, K1, K2, C/group]` weight and
    gives an `[N, H', W', M]` output; without it the layout is NCHW.
  }];
  let arguments = (ins Kiln_NumericTensor:$input, Kiln_NumericTensor:$weight,
                   Optional<Kiln_NumericTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group,
                   OptionalAttr<StrAttr>:$layout);
  let extraClassDeclaration = extraTypedOpDeclaration # [{
    /// True for `layout = "NHWC"` (channels last).
    bool isChannelsLast() {
      return getLayout() && *getLayout() == "NHWC";
    }
  }];
}

def Kiln_ConvTransposeOp : Kiln_ConvLikeOp<"conv_transpose"> {
  let summary = "N-D grouped transposed convolution with optional bias";
  let description = [{
    ONNX `ConvTranspose` on `[N, C, D1..Dk]` inputs and `[C, M/group,
    K1..Kk]` weights. Output dim i is `strides[i]*(D_i-1) +
    output_padding[i] + dilations[i]*(K_i-1) + 1 - pads[i] - pads[k+i]`;
    `output_shape` and `auto_pad` are turned into `pads` by the importer.

    Example:

    ```mlir
    %y = kiln.conv_transpose %x, %w {dilations = array<i64: 1>, group = 1 : i64,
        output_padding = array<i64: 0>, pads = array<i64: 0, 0>, strides = array<i64: 1>}
        : tensor<1x1x3xf32>, tensor<1x2x3xf32> -> tensor<1x2x5xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, Kiln_NumericTensor:$weight,
                   Optional<Kiln_NumericTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$output_padding,
                   DefaultValuedAttr<I64Attr, "1">:$group);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class Kiln_PoolOp<string mnemonic> : Kiln_TypedOp<mnemonic> {
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  // For the pools that take a `layout` (max and average, like kiln.conv).
  code layoutDeclaration = [{
    /// True for `layout = "NHWC"` (channels last).
    bool isChannelsLast() {
      return getLayout() && *getLayout() == "NHWC";
    }
  }];
}

def Kiln_MaxPoolOp : Kiln_PoolOp<"max_pool"> {
  let summary = "N-D max pooling";
  let description = [{
    The values output of ONNX `MaxPool`. Output dim i is
    `floor_or_ceil((D_i + pads[i] + pads[k+i] - dilations[i]*(K_i-1) - 1) /
    strides[i]) + 1`; with `ceil_mode` a window that would start in the end
    padding is dropped. Padding never wins the maximum. `kiln.max_pool_indices`
    gives the optional `Indices` output.

    Example:

    ```mlir
    %y = kiln.max_pool %x {ceil_mode = false, dilations = array<i64: 1, 1>,
        kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
        strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
    ```

    `layout = "NHWC"` (2-D only, set by `kiln-assign-layout` where the input
    comes from channels-last convolutions) takes an `[N, H, W, C]` input and
    gives an `[N, H', W', C]` output; without it the layout is NCHW.
  }];
  let arguments = (ins Kiln_NumericTensor:$input,
                   DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   OptionalAttr<StrAttr>:$layout);
  let results = (outs Kiln_NumericTensor:$output);
  let extraClassDeclaration = extraTypedOpDeclaration # layoutDeclaration;
}

def Kiln_MaxPoolIndicesOp : Kiln_PoolOp<"max_pool_indices"> {
  let summary = "Flat input index of each N-D max pooling window's maximum";
  let description = [{
    The `Indices` output of ONNX `MaxPool`: the index of the first maximum of
    each window into the whole flattened input (batch and channel included);
    spatial dims are flattened row-major, or column-major when
    `storage_order` is 1. A separate op so that every kiln op has one result
    and one elemental expression.

    Example:

    ```mlir
    %i = kiln.max_pool_indices %x {ceil_mode = false, dilations = array<i64: 1, 1>,
        kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
        storage_order = 0 : i64, strides = array<i64: 2, 2>}
        : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xi64>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input,
                   DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<I64Attr, "0">:$storage_order);
  let results = (outs Kiln_I64Tensor:$output);
}

def Kiln_AveragePoolOp : Kiln_PoolOp<"average_pool"> {
  let summary = "N-D average pooling";
  let description = [{
    ONNX `AveragePool`; output dims as for `kiln.max_pool`. The divisor
    counts the window's elements inside the input, or with
    `count_include_pad` those inside the padded input (never the part of a
    `ceil_mode` window beyond the end padding).

    Example:

    ```mlir
    %y = kiln.average_pool %x {ceil_mode = false, count_include_pad = false,
        dilations = array<i64: 1>, kernel_shape = array<i64: 3>,
        pads = array<i64: 1, 1>, strides = array<i64: 1>}
        : tensor<1x3x8xf32> -> tensor<1x3x8xf32>
    ```

    `layout = "NHWC"` (2-D only) as for `kiln.max_pool`: `[N, H, W, C]` in,
    `[N, H', W', C]` out.
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                   DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                   OptionalAttr<StrAttr>:$layout);
  let results = (outs Kiln_FloatTensor:$output);
  let extraClassDeclaration = extraTypedOpDeclaration # layoutDeclaration;
}

//===----------------------------------------------------------------------===//
// Quantisation
//===----------------------------------------------------------------------===//

def Kiln_QuantizeLinearOp : Kiln_TypedOp<"quantize_linear"> {
  let summary = "y = saturate(round_half_even(x / scale) + zero_point)";
  let description = [{
    ONNX `QuantizeLinear`, per tensor (scalar `scale` and `zero_point`) or
    per axis (1-D ones along `axis`). The result has the zero point's element
    type (i8 or u8) and saturates to its range; the importer materialises an
    absent zero point as a u8 zero.

    Example:

    ```mlir
    %q = kiln.quantize_linear %x, %s, %z {axis = 1 : i64}
        : tensor<2x3xf32>, tensor<f32>, tensor<ui8> -> tensor<2x3xui8>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$scale,
                   Kiln_QuantizedTensor:$zero_point,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Kiln_QuantizedTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $zero_point attr-dict `:` "
                       "type($input) `,` type($scale) `,` type($zero_point) "
                       "`->` type($output)";
}

def Kiln_DequantizeLinearOp : Kiln_TypedOp<"dequantize_linear"> {
  let summary = "y = (x - zero_point) * scale";
  let description = [{
    ONNX `DequantizeLinear`, per tensor or per axis like
    `kiln.quantize_linear`; the result has the scale's element type. The
    importer materialises an absent zero point as a zero of x's type.

    Example:

    ```mlir
    %x = kiln.dequantize_linear %q, %s, %z {axis = 1 : i64}
        : tensor<2x3xui8>, tensor<3xf32>, tensor<3xui8> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Kiln_DequantizableTensor:$input,
                   Kiln_FloatTensor:$scale,
                   Kiln_DequantizableTensor:$zero_point,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $zero_point attr-dict `:` "
                       "type($input) `,` type($scale) `,` type($zero_point) "
                       "`->` type($output)";
}

#endif // KILN_CONV_OPS_TD
