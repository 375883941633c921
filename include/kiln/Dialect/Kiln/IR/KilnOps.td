// Operations of the kiln dialect: one op per supported ONNX operator.
#ifndef KILN_OPS_TD
#define KILN_OPS_TD

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Kiln_FloatTensor : TensorOf<[F16, BF16, F32, F64]>;
def Kiln_IntegerTensor : TensorOf<[I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def Kiln_NumericTensor
    : TensorOf<[F16, BF16, F32, F64, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def Kiln_AnyTensor
    : TensorOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64, UI8, UI16, UI32, UI64]>;
def Kiln_BoolTensor : TensorOf<[I1]>;
def Kiln_IndexTensor : TensorOf<[I32, I64]>;
def Kiln_I64Tensor : TensorOf<[I64]>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

// Every kiln op is pure and infers its result type from operands, attributes
// and, where an operand carries a shape (Reshape, Expand, Slice, ...), that
// operand's constant value. Result types only need to be *compatible* with the
// inferred ones (a dynamic dim matches any size), so refinement can proceed op
// by op.
class Kiln_TypedOp<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor])> {
  code extraTypedOpDeclaration = [{
    static bool isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                        ::mlir::TypeRange rhs) {
      return ::kiln::areCompatibleTensorTypes(lhs, rhs);
    }
  }];
  let extraClassDeclaration = extraTypedOpDeclaration;
}

// y = f(x), elementwise, same element type.
class Kiln_UnaryOp<string mnemonic, string formula,
                   Type operandType = Kiln_NumericTensor>
    : Kiln_TypedOp<mnemonic> {
  let summary = "Elementwise " # mnemonic # ": y = " # formula;
  let description = "Computes `y = " # formula # "` for every element of the "
    # "input, keeping shape and element type (ONNX `" # mnemonic # "`).\n\n"
    # "Example:\n\n```mlir\n%y = kiln." # mnemonic
    # " %x : tensor<2x?xf32> -> tensor<2x?xf32>\n```";
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

// z = f(x, y) with NumPy broadcasting; both operands share one element type.
class Kiln_BinaryOp<string mnemonic, string formula,
                    Type operandType = Kiln_NumericTensor,
                    Type resultType = operandType>
    : Kiln_TypedOp<mnemonic> {
  let summary = "Elementwise " # mnemonic # " with broadcasting: z = " # formula;
  let description = "Computes `z = " # formula # "` elementwise after "
    # "broadcasting both operands to a common shape with NumPy rules (ONNX `"
    # mnemonic # "`). The operands have the same element type.\n\n"
    # "Example:\n\n```mlir\n%z = kiln." # mnemonic
    # " %x, %y : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3x"
    # !if(!eq(resultType, Kiln_BoolTensor), "i1", "f32") # ">\n```";
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs resultType:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) "
                       "`->` type($output)";
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

def Kiln_NegOp : Kiln_UnaryOp<"neg", "-x">;
def Kiln_AbsOp : Kiln_UnaryOp<"abs", "|x|">;
def Kiln_ExpOp : Kiln_UnaryOp<"exp", "e^x", Kiln_FloatTensor>;
def Kiln_LogOp : Kiln_UnaryOp<"log", "ln(x)", Kiln_FloatTensor>;
def Kiln_SqrtOp : Kiln_UnaryOp<"sqrt", "sqrt(x)", Kiln_FloatTensor>;
def Kiln_ReciprocalOp : Kiln_UnaryOp<"reciprocal", "1 / x", Kiln_FloatTensor>;
def Kiln_ReluOp : Kiln_UnaryOp<"relu", "max(x, 0)">;
def Kiln_SigmoidOp : Kiln_UnaryOp<"sigmoid", "1 / (1 + e^-x)", Kiln_FloatTensor>;
def Kiln_TanhOp : Kiln_UnaryOp<"tanh", "tanh(x)", Kiln_FloatTensor>;
def Kiln_ErfOp : Kiln_UnaryOp<"erf", "erf(x)", Kiln_FloatTensor>;
def Kiln_NotOp : Kiln_UnaryOp<"not", "!x", Kiln_BoolTensor>;
def Kiln_IdentityOp : Kiln_UnaryOp<"identity", "x", Kiln_AnyTensor> {
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary and ternary
//===----------------------------------------------------------------------===//

def Kiln_AddOp : Kiln_BinaryOp<"add", "x + y">;
def Kiln_SubOp : Kiln_BinaryOp<"sub", "x - y">;
def Kiln_MulOp : Kiln_BinaryOp<"mul", "x * y">;
def Kiln_DivOp : Kiln_BinaryOp<"div", "x / y (integers truncate toward zero)">;
def Kiln_EqualOp
    : Kiln_BinaryOp<"equal", "x == y", Kiln_AnyTensor, Kiln_BoolTensor>;
def Kiln_LessOp
    : Kiln_BinaryOp<"less", "x < y", Kiln_NumericTensor, Kiln_BoolTensor>;
def Kiln_GreaterOp
    : Kiln_BinaryOp<"greater", "x > y", Kiln_NumericTensor, Kiln_BoolTensor>;

def Kiln_PowOp : Kiln_TypedOp<"pow"> {
  let summary = "Elementwise power with broadcasting: z = x ^ y";
  let description = [{
    Raises `base` to `exponent` elementwise after NumPy broadcasting (ONNX
    `Pow`). The exponent may have a different element type; the result has the
    element type of `base`.

    Example:

    ```mlir
    %z = kiln.pow %x, %e : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$base, Kiln_NumericTensor:$exponent);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$base `,` $exponent attr-dict `:` type($base) `,` "
                       "type($exponent) `->` type($output)";
}

def Kiln_WhereOp : Kiln_TypedOp<"where"> {
  let summary = "Elementwise select with broadcasting: z = cond ? x : y";
  let description = [{
    Picks `x` where `condition` is true and `y` elsewhere, after broadcasting all
    three operands to a common shape (ONNX `Where`).

    Example:

    ```mlir
    %z = kiln.where %c, %x, %y : tensor<4x1xi1>, tensor<3xf32>, tensor<f32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Kiln_BoolTensor:$condition, Kiln_AnyTensor:$x,
                   Kiln_AnyTensor:$y);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$condition `,` $x `,` $y attr-dict `:` type($condition)"
                       " `,` type($x) `,` type($y) `->` type($output)";
}

def Kiln_CastOp : Kiln_TypedOp<"cast"> {
  let summary = "Elementwise conversion to the element type `to`";
  let description = [{
    Converts every element to the element type `to` with ONNX `Cast` semantics:
    float to integer truncates toward zero, to bool tests for non-zero, float to
    narrower float rounds to nearest even.

    Example:

    ```mlir
    %y = kiln.cast %x {to = f16} : tensor<8xf32> -> tensor<8xf16>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input, TypeAttr:$to);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Kiln_MatMulOp : Kiln_TypedOp<"matmul"> {
  let summary = "Matrix product with NumPy semantics (batched, broadcasting)";
  let description = [{
    Multiplies the last two dimensions of `lhs` and `rhs`, broadcasting the
    leading (batch) dimensions; 1-D operands are promoted and the promoted
    dimension removed from the result, as in `numpy.matmul` (ONNX `MatMul`).

    Example:

    ```mlir
    %c = kiln.matmul %a, %b : tensor<8x?x64xf32>, tensor<64x128xf32> -> tensor<8x?x128xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$lhs, Kiln_NumericTensor:$rhs);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) "
                       "`->` type($output)";
}

def Kiln_GemmOp : Kiln_TypedOp<"gemm"> {
  let summary = "General matrix product: y = alpha * op(a) * op(b) + beta * c";
  let description = [{
    ONNX `Gemm` on 2-D operands: `op(x)` transposes `x` when `trans_a` or
    `trans_b` is set; the optional `c` is broadcast to the result shape.

    Example:

    ```mlir
    %y = kiln.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
        : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$a, Kiln_NumericTensor:$b,
                   Optional<Kiln_NumericTensor>:$c,
                   DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.0">:$beta,
                   DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                   DefaultValuedAttr<BoolAttr, "false">:$trans_b);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$a `,` $b (`,` $c^)? attr-dict `:` type($a) `,` type($b)"
                       " (`,` type($c)^)? `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Reductions and normalisation
//===----------------------------------------------------------------------===//

def Kiln_SoftmaxOp : Kiln_TypedOp<"softmax"> {
  let summary = "Softmax along one axis: y = e^x / sum(e^x)";
  let description = [{
    Normalises `input` along `axis` (negative counts from the back) with the
    opset-13 semantics of ONNX `Softmax`; older opsets, which flatten to 2-D,
    are rewritten to this form by the importer.

    Example:

    ```mlir
    %y = kiln.softmax %x {axis = -1 : i64} : tensor<2x10xf32> -> tensor<2x10xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                   DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

class Kiln_ReduceOp<string mnemonic, string formula>
    : Kiln_TypedOp<mnemonic> {
  let summary = "Reduction over axes: " # formula;
  let description = "Reduces `data` over the dimensions listed in the optional "
    # "1-D `axes` operand (all dimensions when it is absent, or none when it is "
    # "absent and `noop_with_empty_axes` is set), keeping them as size 1 when "
    # "`keepdims` is set. This is the opset-18 form of ONNX `Reduce"
    # !toupper(!substr(mnemonic, 7, 1)) # !substr(mnemonic, 8) # "`; opsets "
    # "with an `axes` attribute are imported into it.\n\n"
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

def Kiln_ReduceSumOp : Kiln_ReduceOp<"reduce_sum", "sum">;
def Kiln_ReduceMeanOp : Kiln_ReduceOp<"reduce_mean", "arithmetic mean">;
def Kiln_ReduceMaxOp : Kiln_ReduceOp<"reduce_max", "maximum">;

//===----------------------------------------------------------------------===//
// Shape manipulation and data movement
//===----------------------------------------------------------------------===//

def Kiln_ReshapeOp : Kiln_TypedOp<"reshape"> {
  let summary = "View a tensor with a new shape";
  let description = [{
    ONNX `Reshape`: `shape` is a 1-D i64 tensor where -1 infers one dimension and
    0 copies the input's dimension (unless `allowzero` is set).

    Example:

    ```mlir
    %y = kiln.reshape %x, %shape : tensor<2x?xf32>, tensor<2xi64> -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Kiln_I64Tensor:$shape,
                   DefaultValuedAttr<BoolAttr, "false">:$allowzero);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data `,` $shape attr-dict `:` type($data) `,` "
                       "type($shape) `->` type($output)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_TransposeOp : Kiln_TypedOp<"transpose"> {
  let summary = "Permute dimensions: output dim i is input dim perm[i]";
  let description = [{
    ONNX `Transpose`; the importer always fills `perm` (ONNX's default reverses
    the dimensions).

    Example:

    ```mlir
    %y = kiln.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, DenseI64ArrayAttr:$perm);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data) `->` type($output)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_ConcatOp : Kiln_TypedOp<"concat"> {
  let summary = "Join tensors along one axis";
  let description = [{
    ONNX `Concat`: every input has the same rank and the same dimensions except
    along `axis`.

    Example:

    ```mlir
    %y = kiln.concat %a, %b {axis = 0 : i64} : tensor<2xi64>, tensor<1xi64> -> tensor<3xi64>
    ```
  }];
  let arguments = (ins Variadic<Kiln_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($output)";
}

def Kiln_SliceOp : Kiln_TypedOp<"slice"> {
  let summary = "Strided slice along listed axes";
  let description = [{
    ONNX `Slice` (opset 13 form): `starts`, `ends`, `axes` and `steps` are 1-D
    tensors of one length; the importer materialises the optional `axes` and
    `steps` and turns the attribute form of opset 1 into constants. Indices are
    clamped as ONNX specifies.

    Example:

    ```mlir
    %y = kiln.slice %x, %starts, %ends, %axes, %steps
        : tensor<4x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Kiln_IndexTensor:$starts,
                   Kiln_IndexTensor:$ends, Kiln_IndexTensor:$axes,
                   Kiln_IndexTensor:$steps);
  let results = (outs Kiln_AnyTensor:$output);
  let hasFolder = 1;
  let assemblyFormat = "$data `,` $starts `,` $ends `,` $axes `,` $steps "
                       "attr-dict `:` type($data) `,` type($starts) `,` "
                       "type($ends) `,` type($axes) `,` type($steps) `->` "
                       "type($output)";
}

def Kiln_GatherOp : Kiln_TypedOp<"gather"> {
  let summary = "Gather slices along an axis by index";
  let description = [{
    ONNX `Gather`: the result shape is `data.shape[:axis] + indices.shape +
    data.shape[axis+1:]`; negative indices count from the back. A gather of
    float data by one constant scalar index along a static dim canonicalises
    to `squeeze(slice(data, [i], [i + 1], [axis]), [axis])`
    (nn.MultiheadAttention's q, k, v picked from the joint projection).

    Example:

    ```mlir
    %y = kiln.gather %table, %ids {axis = 0 : i64} : tensor<1000x64xf32>, tensor<2x7xi64> -> tensor<2x7x64xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Kiln_IndexTensor:$indices,
                   DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` "
                       "type($indices) `->` type($output)";
  // A float gather of one constant index is a slice and a squeeze: views a
  // kernel reads by strides.
  let hasCanonicalizer = 1;
}

def Kiln_UnsqueezeOp : Kiln_TypedOp<"unsqueeze"> {
  let summary = "Insert dimensions of size 1";
  let description = [{
    ONNX `Unsqueeze` (opset 13 form): `axes` lists positions in the result.

    Example:

    ```mlir
    %y = kiln.unsqueeze %x, %axes : tensor<3xf32>, tensor<1xi64> -> tensor<1x3xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Kiln_I64Tensor:$axes);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data `,` $axes attr-dict `:` type($data) `,` "
                       "type($axes) `->` type($output)";
}

def Kiln_SqueezeOp : Kiln_TypedOp<"squeeze"> {
  let summary = "Remove dimensions of size 1";
  let description = [{
    ONNX `Squeeze` (opset 13 form): removes the listed `axes`, or every size-1
    dimension when `axes` is absent.

    Example:

    ```mlir
    %y = kiln.squeeze %x, %axes : tensor<1x3xf32>, tensor<1xi64> -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data, Optional<Kiln_I64Tensor>:$axes);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$data (`,` $axes^)? attr-dict `:` type($data) "
                       "(`,` type($axes)^)? `->` type($output)";
}

def Kiln_FlattenOp : Kiln_TypedOp<"flatten"> {
  let summary = "Collapse to 2-D around an axis";
  let description = [{
    ONNX `Flatten`: the result is `[prod(shape[:axis]), prod(shape[axis:])]`.

    Example:

    ```mlir
    %y = kiln.flatten %x {axis = 1 : i64} : tensor<2x3x4xf32> -> tensor<2x12xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input,
                   DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Kiln_ExpandOp : Kiln_TypedOp<"expand"> {
  let summary = "Broadcast to a shape";
  let description = [{
    ONNX `Expand`: the result shape is the NumPy broadcast of the input's shape
    and the 1-D i64 `shape` operand.

    Example:

    ```mlir
    %y = kiln.expand %x, %shape : tensor<3x1xf32>, tensor<2xi64> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$input, Kiln_I64Tensor:$shape);
  let results = (outs Kiln_AnyTensor:$output);
  let assemblyFormat = "$input `,` $shape attr-dict `:` type($input) `,` "
                       "type($shape) `->` type($output)";
  let hasFolder = 1;
}

def Kiln_ShapeOp : Kiln_TypedOp<"shape"> {
  let summary = "The shape of a tensor as a 1-D i64 tensor";
  let description = [{
    ONNX `Shape` with the opset-15 `start`/`end` slice of the dimension list.
    Folds to a constant when the selected dimensions are static.

    Example:

    ```mlir
    %s = kiln.shape %x : tensor<?x128xf32> -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Kiln_AnyTensor:$data,
                   DefaultValuedAttr<I64Attr, "0">:$start,
                   OptionalAttr<I64Attr>:$end);
  let results = (outs Kiln_I64Tensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($data) `->` type($output)";
  let hasFolder = 1;
}

def Kiln_ConstantOp : Kiln_Op<"constant", [ConstantLike, Pure]> {
  let summary = "A constant tensor (small values inline, weights as resources)";
  let description = [{
    Holds a tensor value. Weights imported from a model are
    `dense_resource` blobs so that large models neither print as text nor
    copy through the attribute uniquer; folded results are small `dense`
    attributes.

    Example:

    ```mlir
    %c = kiln.constant dense<[2, -1]> : tensor<2xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Kiln_AnyTensor:$output);
  let hasCustomAssemblyFormat = 1;
  let hasFolder = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
    build($_builder, $_state, value.getType(), value);
  }]>];
}

include "kiln/Dialect/Kiln/IR/KilnNormOps.td"
include "kiln/Dialect/Kiln/IR/KilnConvOps.td"
include "kiln/Dialect/Kiln/IR/KilnMovementOps.td"
include "kiln/Dialect/Kiln/IR/KilnMathOps.td"
include "kiln/Dialect/Kiln/IR/KilnCompositeOps.td"
include "kiln/Dialect/Kiln/IR/KilnKernelOps.td"
include "kiln/Dialect/Kiln/IR/KilnControlFlowOps.td"

#endif // KILN_OPS_TD
