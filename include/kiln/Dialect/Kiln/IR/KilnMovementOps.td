// Shape and data-movement ops beyond the basics: pad, tile, range, scatter,
// gather variants, top-k, resize, einsum (included from KilnOps.td).
#ifndef KILN_MOVEMENT_OPS_TD
#define KILN_MOVEMENT_OPS_TD

//===----------------------------------------------------------------------===//
// Generators: ops whose output shape comes from operand values
//===----------------------------------------------------------------------===//

def Kiln_RangeOp : Kiln_TypedOp<"range"> {
  let summary = "A 1-D sequence start, start + delta, ... up to limit";
  let description = [{
    ONNX `Range`: `max(ceil((limit - start) / delta), 0)` elements. The three
    operands are scalars of one element type; the length is static only when
    they are constants.

    Example:

    ```mlir
    %y = kiln.range %start, %limit, %delta : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$start, Kiln_NumericTensor:$limit,
                   Kiln_NumericTensor:$delta);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$start `,` $limit `,` $delta attr-dict `:` type($start)"
                       " `,` type($limit) `,` type($delta) `->` type($output)";
}

def Kiln_ConstantOfShapeOp : Kiln_TypedOp<"constant_of_shape"> {
  let summary = "A tensor of the shape given by a 1-D i64 operand, one value";
  let description = [{
    ONNX `ConstantOfShape`: every element is the single element of `value`
    (whose element type is the result's); the importer fills ONNX's default
    (f32 zero).

    Example:

    ```mlir
    %y = kiln.constant_of_shape %shape {value = dense<1.0> : tensor<1xf32>} : tensor<2xi64> -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_I64Tensor:$shape, ElementsAttr:$value);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$shape attr-dict `:` type($shape) `->` type($output)";
}

def Kiln_EyeLikeOp : Kiln_TypedOp<"eye_like"> {
  let summary = "A 2-D identity-like matrix: ones on diagonal k";
  let description = [{
    ONNX `EyeLike`: the shape of the 2-D `input`, element type `dtype`, ones
    where `column - row == k` and zeros elsewhere.

    Example:

    ```mlir
    %y = kiln.eye_like %x {dtype = f32, k = 1 : i64} : tensor<4x5xi32> -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input, TypeAttr:$dtype,
                   DefaultValuedAttr<I64Attr, "0">:$k);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Kiln_SizeOp : Kiln_TypedOp<"size"> {
  let summary = "The number of elements of a tensor as an i64 scalar";
  let description = [{
    ONNX `Size`; folds to a constant when the input's shape is static.

    Example:

    ```mlir
    %n = kiln.size %x : tensor<3x?xf32> -> tensor<i64>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input);
  let results = (outs Kiln_I64Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Kiln_OneHotOp : Kiln_TypedOp<"one_hot"> {
  let summary = "One-hot encoding of indices along a new axis";
  let description = [{
    ONNX `OneHot`: inserts a dimension of size `depth` at `axis`; the element
    is `values[1]` where its position equals the index (negative indices count
    from `depth`), `values[0]` elsewhere. `depth` is a scalar or one-element
    tensor; the new dimension is static only when it is a constant.

    Example:

    ```mlir
    %y = kiln.one_hot %ids, %depth, %values {axis = -1 : i64} : tensor<3xi64>, tensor<f32>, tensor<2xf32> -> tensor<3x?xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$indices, Kiln_NumericTensor:$depth,
                   Kiln_AnyTensor:$values,
                   DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$indices `,` $depth `,` $values attr-dict `:` "
                       "type($indices) `,` type($depth) `,` type($values) `->` "
                       "type($output)";
}

//===----------------------------------------------------------------------===//
// Re-indexing
//===----------------------------------------------------------------------===//

def Kiln_PadOp : Kiln_TypedOp<"pad", [AttrSizedOperandSegments]> {
  let summary = "Pad with a constant, a reflection or the edge values";
  let description = [{
    ONNX `Pad` (opset 18 form): `pads` is `[begin_0, ..., begin_n, end_0, ...,
    end_n]` over the listed `axes` (all dims when absent); negative pads crop.
    `mode` is `constant` (with `constant_value`, default 0), `reflect`, `edge`
    or `wrap`.

    Example:

    ```mlir
    %y = kiln.pad %x, %pads value %v : tensor<f32> {mode = "constant"} : tensor<2x3xf32>, tensor<4xi64> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Kiln_I64Tensor:$pads,
                   Optional<Kiln_AnyTensor>:$constant_value,
                   Optional<Kiln_IndexTensor>:$axes,
                   DefaultValuedStrAttr<StrAttr, "constant">:$mode);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data `,` $pads (`value` $constant_value^ `:` "
                       "type($constant_value))? (`axes` $axes^ `:` "
                       "type($axes))? attr-dict `:` type($data) `,` "
                       "type($pads) `->` type($output)";
  let hasFolder = 1;
  let extraClassDeclaration = extraTypedOpDeclaration # [{
    /// The amounts per dim of the data, begins then ends (ONNX's `pads`
    /// layout over every dim: 0 for a dim `axes` does not list), when
    /// `pads` and `axes` are constants that fit the data's rank.
    std::optional<llvm::SmallVector<int64_t>> getConstantAmounts();
  }];
}

def Kiln_TileOp : Kiln_TypedOp<"tile"> {
  let summary = "Repeat a tensor along each dimension";
  let description = [{
    ONNX `Tile`: output dim i is `input dim i * repeats[i]`.

    Example:

    ```mlir
    %y = kiln.tile %x, %repeats : tensor<2x3xf32>, tensor<2xi64> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input, Kiln_I64Tensor:$repeats);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$input `,` $repeats attr-dict `:` type($input) `,` "
                       "type($repeats) `->` type($output)";
}

def Kiln_TriluOp : Kiln_TypedOp<"trilu"> {
  let summary = "Keep the upper or lower triangle of the last two dims";
  let description = [{
    ONNX `Trilu`: with `upper`, keeps elements where `column - row >= k`,
    otherwise where `column - row <= k`; the rest become zero. `k` is an
    optional i64 scalar (default 0).

    Example:

    ```mlir
    %y = kiln.trilu %x, %k {upper = true} : tensor<4x5xf32>, tensor<i64> -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input, Optional<Kiln_I64Tensor>:$k,
                   DefaultValuedAttr<BoolAttr, "true">:$upper);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$input (`,` $k^)? attr-dict `:` type($input) "
                       "(`,` type($k)^)? `->` type($output)";
}

def Kiln_DepthToSpaceOp : Kiln_TypedOp<"depth_to_space"> {
  let summary = "Move channel blocks into spatial blocks (NCHW)";
  let description = [{
    ONNX `DepthToSpace` on a 4-D NCHW input: `[N, C, H, W]` becomes
    `[N, C / b^2, H * b, W * b]`; `mode` is `DCR` (depth-column-row) or `CRD`.

    Example:

    ```mlir
    %y = kiln.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : tensor<1x8x2x3xf32> -> tensor<1x2x4x6xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input, I64Attr:$blocksize,
                   DefaultValuedStrAttr<StrAttr, "DCR">:$mode);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Kiln_SpaceToDepthOp : Kiln_TypedOp<"space_to_depth"> {
  let summary = "Move spatial blocks into channels (NCHW)";
  let description = [{
    ONNX `SpaceToDepth` on a 4-D NCHW input: `[N, C, H, W]` becomes
    `[N, C * b^2, H / b, W / b]` (the inverse of DCR `DepthToSpace`).

    Example:

    ```mlir
    %y = kiln.space_to_depth %x {blocksize = 2 : i64} : tensor<1x1x4x6xf32> -> tensor<1x4x2x3xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input, I64Attr:$blocksize);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Kiln_ReverseSequenceOp : Kiln_TypedOp<"reverse_sequence"> {
  let summary = "Reverse the first sequence_lens[b] steps of each batch entry";
  let description = [{
    ONNX `ReverseSequence`: for batch entry `b` (along `batch_axis`), the first
    `sequence_lens[b]` elements along `time_axis` are reversed, the rest copied.

    Example:

    ```mlir
    %y = kiln.reverse_sequence %x, %lens {batch_axis = 1 : i64, time_axis = 0 : i64} : tensor<4x4xf32>, tensor<4xi64> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input, Kiln_I64Tensor:$sequence_lens,
                   DefaultValuedAttr<I64Attr, "1">:$batch_axis,
                   DefaultValuedAttr<I64Attr, "0">:$time_axis);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$input `,` $sequence_lens attr-dict `:` type($input) "
                       "`,` type($sequence_lens) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Gathers and scatters by index tensors
//===----------------------------------------------------------------------===//

def Kiln_GatherElementsOp : Kiln_TypedOp<"gather_elements"> {
  let summary = "Gather single elements along an axis by an index tensor";
  let description = [{
    ONNX `GatherElements`: the result has the shape of `indices`;
    `out[i..., j, k...] = data[i..., indices[i..., j, k...], k...]` along
    `axis`. Negative indices count from the back.

    Example:

    ```mlir
    %y = kiln.gather_elements %x, %ids {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Kiln_IndexTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` "
                       "type($indices) `->` type($output)";
}

def Kiln_GatherNDOp : Kiln_TypedOp<"gather_nd"> {
  let summary = "Gather slices addressed by the last dim of an index tensor";
  let description = [{
    ONNX `GatherND`: the last dim of `indices` (size m) addresses the first m
    non-batch dims of `data`; the result shape is `indices.shape[:-1] +
    data.shape[batch_dims + m:]`.

    Example:

    ```mlir
    %y = kiln.gather_nd %x, %ids {batch_dims = 0 : i64} : tensor<2x2x2xf32>, tensor<2x1x2xi64> -> tensor<2x1x2xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Kiln_I64Tensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` "
                       "type($indices) `->` type($output)";
}

def Kiln_ScatterElementsOp : Kiln_TypedOp<"scatter_elements"> {
  let summary = "Write updates into a copy of data at per-element indices";
  let description = [{
    ONNX `ScatterElements` (and the deprecated `Scatter`): a copy of `data`
    where `out[..., indices[i...], ...] = updates[i...]` along `axis`.
    `reduction` is `none` (the last update in row-major order wins), `add`,
    `mul`, `max` or `min`.

    Example:

    ```mlir
    %y = kiln.scatter_elements %x, %ids, %u {axis = 1 : i64, reduction = "add"} : tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32> -> tensor<1x5xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Kiln_IndexTensor:$indices,
                   Kiln_AnyTensor:$updates,
                   DefaultValuedAttr<I64Attr, "0">:$axis,
                   DefaultValuedStrAttr<StrAttr, "none">:$reduction);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data `,` $indices `,` $updates attr-dict `:` "
                       "type($data) `,` type($indices) `,` type($updates) `->` "
                       "type($output)";
}

def Kiln_ScatterNDOp : Kiln_TypedOp<"scatter_nd"> {
  let summary = "Write update slices into a copy of data at N-d indices";
  let description = [{
    ONNX `ScatterND`: the last dim of `indices` addresses a slice of `data`
    that receives the matching slice of `updates`; `reduction` as for
    `kiln.scatter_elements`.

    Example:

    ```mlir
    %y = kiln.scatter_nd %x, %ids, %u {reduction = "none"} : tensor<4x4xf32>, tensor<2x1xi64>, tensor<2x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Kiln_I64Tensor:$indices,
                   Kiln_AnyTensor:$updates,
                   DefaultValuedStrAttr<StrAttr, "none">:$reduction);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data `,` $indices `,` $updates attr-dict `:` "
                       "type($data) `,` type($indices) `,` type($updates) `->` "
                       "type($output)";
}

def Kiln_TopKOp : Kiln_TypedOp<"top_k"> {
  let summary = "Indices of the k largest (or smallest) elements along an axis";
  let description = [{
    The index output of ONNX `TopK`: the i64 positions along `axis` of the
    `k` largest (`largest`) or smallest elements, ordered by value, ties by
    the lower index (a NaN counts as larger than any number). The importer
    gets the values output as `kiln.gather_elements` of the input at these
    indices, so both outputs are elemental. `k` is a one-element i64 tensor;
    the axis length is static only when it is a constant.

    Example:

    ```mlir
    %i = kiln.top_k %x, %k {axis = -1 : i64, largest = true} : tensor<3x4xf32>, tensor<1xi64> -> tensor<3x?xi64>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, Kiln_I64Tensor:$k,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<BoolAttr, "true">:$largest);
  let results = (outs Kiln_I64Tensor:$output);
  let assemblyFormat = "$input `,` $k attr-dict `:` type($input) `,` type($k) "
                       "`->` type($output)";
}

//===----------------------------------------------------------------------===//
// Resize and Einsum
//===----------------------------------------------------------------------===//

def Kiln_ResizeOp : Kiln_TypedOp<"resize", [AttrSizedOperandSegments]> {
  let summary = "Resize by scales or to sizes with nearest/linear/cubic sampling";
  let description = [{
    ONNX `Resize` (and `Upsample`, imported as `asymmetric` resize). Exactly
    one of `scales` (f32, one per dim) and `sizes` (i64) is present; `roi`
    is read by `tf_crop_and_resize`. `mode` is `nearest`, `linear` or `cubic`
    (interpolating over every dim whose size changes);
    `coordinate_transformation_mode` is `half_pixel`, `pytorch_half_pixel`,
    `align_corners`, `asymmetric`, `tf_half_pixel_for_nn` or
    `tf_crop_and_resize`; `nearest_mode` is `round_prefer_floor`,
    `round_prefer_ceil`, `floor` or `ceil`.

    Example:

    ```mlir
    %y = kiln.resize %x scales %s : tensor<4xf32> {mode = "linear"} : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input,
                   Optional<Kiln_FloatTensor>:$roi,
                   Optional<Kiln_FloatTensor>:$scales,
                   Optional<Kiln_I64Tensor>:$sizes,
                   DefaultValuedStrAttr<StrAttr, "nearest">:$mode,
                   DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_transformation_mode,
                   DefaultValuedStrAttr<StrAttr, "round_prefer_floor">:$nearest_mode,
                   DefaultValuedAttr<F32Attr, "-0.75">:$cubic_coeff_a,
                   DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                   DefaultValuedAttr<F32Attr, "0.0">:$extrapolation_value);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$input (`roi` $roi^ `:` type($roi))? (`scales` $scales^"
                       " `:` type($scales))? (`sizes` $sizes^ `:` "
                       "type($sizes))? attr-dict `:` type($input) `->` "
                       "type($output)";
}

def Kiln_EinsumOp : Kiln_TypedOp<"einsum"> {
  let summary = "Einstein summation over the labelled dims of the inputs";
  let description = [{
    ONNX `Einsum`: `equation` such as `bij,bjk->bik` labels each input's dims
    (`...` stands for broadcast leading dims); labels missing from the output
    (or all repeated ones, in implicit mode) are summed. A label repeated in
    one input takes its diagonal.

    Example:

    ```mlir
    %y = kiln.einsum %a, %b {equation = "bij,bjk->bik"} : tensor<5x2x3xf64>, tensor<5x3x4xf64> -> tensor<5x2x4xf64>
    ```
  }];
  let arguments = (ins Variadic<Kiln_NumericTensor>:$inputs, StrAttr:$equation);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($output)";
}

#endif // KILN_MOVEMENT_OPS_TD
