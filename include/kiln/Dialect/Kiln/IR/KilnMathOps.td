// Elementwise math and logic ops: trigonometric, rounding, activations with
// attribute parameters, Mod, logical and bit ops, Max/Min, PRelu and Clip.
#ifndef KILN_MATH_OPS_TD
#define KILN_MATH_OPS_TD

// Included from KilnOps.td, which defines the base classes used here.

def Kiln_UnsignedTensor : TensorOf<[UI8, UI16, UI32, UI64]>;

//===----------------------------------------------------------------------===//
// Float unary math
//===----------------------------------------------------------------------===//

def Kiln_AcosOp : Kiln_UnaryOp<"acos", "arccos(x)", Kiln_FloatTensor>;
def Kiln_AcoshOp : Kiln_UnaryOp<"acosh", "arcosh(x)", Kiln_FloatTensor>;
def Kiln_AsinOp : Kiln_UnaryOp<"asin", "arcsin(x)", Kiln_FloatTensor>;
def Kiln_AsinhOp : Kiln_UnaryOp<"asinh", "arsinh(x)", Kiln_FloatTensor>;
def Kiln_AtanOp : Kiln_UnaryOp<"atan", "arctan(x)", Kiln_FloatTensor>;
def Kiln_AtanhOp : Kiln_UnaryOp<"atanh", "artanh(x)", Kiln_FloatTensor>;
def Kiln_CosOp : Kiln_UnaryOp<"cos", "cos(x)", Kiln_FloatTensor>;
def Kiln_CoshOp : Kiln_UnaryOp<"cosh", "cosh(x)", Kiln_FloatTensor>;
def Kiln_SinOp : Kiln_UnaryOp<"sin", "sin(x)", Kiln_FloatTensor>;
def Kiln_SinhOp : Kiln_UnaryOp<"sinh", "sinh(x)", Kiln_FloatTensor>;
def Kiln_TanOp : Kiln_UnaryOp<"tan", "tan(x)", Kiln_FloatTensor>;
def Kiln_CeilOp : Kiln_UnaryOp<"ceil", "ceil(x)", Kiln_FloatTensor>;
def Kiln_FloorOp : Kiln_UnaryOp<"floor", "floor(x)", Kiln_FloatTensor>;
def Kiln_RoundOp
    : Kiln_UnaryOp<"round", "x rounded to the nearest integer, ties to even",
                   Kiln_FloatTensor>;
def Kiln_SignOp : Kiln_UnaryOp<"sign", "-1, 0 or 1 by the sign of x (NaN stays)">;
def Kiln_SoftplusOp
    : Kiln_UnaryOp<"softplus", "ln(1 + e^x)", Kiln_FloatTensor>;
def Kiln_SoftsignOp
    : Kiln_UnaryOp<"softsign", "x / (1 + |x|)", Kiln_FloatTensor>;
def Kiln_HardSwishOp
    : Kiln_UnaryOp<"hard_swish", "x * max(0, min(1, x / 6 + 1 / 2))",
                   Kiln_FloatTensor>;

//===----------------------------------------------------------------------===//
// Float tests (bool results)
//===----------------------------------------------------------------------===//

def Kiln_IsNaNOp : Kiln_TypedOp<"is_nan"> {
  let summary = "Elementwise NaN test: y = isnan(x)";
  let description = [{
    True where the element is NaN (ONNX `IsNaN`); the result has the input's
    shape and element type i1.

    Example:

    ```mlir
    %y = kiln.is_nan %x : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input);
  let results = (outs Kiln_BoolTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Kiln_IsInfOp : Kiln_TypedOp<"is_inf"> {
  let summary = "Elementwise infinity test: y = isinf(x), by sign";
  let description = [{
    True where the element is +inf (when `detect_positive`) or -inf (when
    `detect_negative`), as ONNX `IsInf`.

    Example:

    ```mlir
    %y = kiln.is_inf %x {detect_negative = false} : tensor<6xf32> -> tensor<6xi1>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input,
                   DefaultValuedAttr<BoolAttr, "true">:$detect_positive,
                   DefaultValuedAttr<BoolAttr, "true">:$detect_negative);
  let results = (outs Kiln_BoolTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

//===----------------------------------------------------------------------===//
// Activations with attribute parameters
//===----------------------------------------------------------------------===//

// y = f(x; parameters), float only; the parameters are f32 attributes with
// ONNX's defaults.
class Kiln_ActivationOp<string mnemonic, string onnxName, string formula,
                        dag parameters>
    : Kiln_TypedOp<mnemonic> {
  let summary = "Elementwise " # onnxName # ": y = " # formula;
  let description = "Computes `y = " # formula # "` for every element, "
    # "keeping shape and element type (ONNX `" # onnxName # "`). The "
    # "parameters are attributes with ONNX's default values.\n\n"
    # "Example:\n\n```mlir\n%y = kiln." # mnemonic
    # " %x : tensor<3x4xf32> -> tensor<3x4xf32>\n```";
  let arguments = !con((ins Kiln_FloatTensor:$input), parameters);
  let results = (outs Kiln_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Kiln_EluOp : Kiln_ActivationOp<"elu", "Elu",
    "x < 0 ? alpha * (e^x - 1) : x",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)>;
def Kiln_SeluOp : Kiln_ActivationOp<"selu", "Selu",
    "x <= 0 ? gamma * (alpha * e^x - alpha) : gamma * x",
    (ins DefaultValuedAttr<F32Attr, "1.67326319217681884765625">:$alpha,
         DefaultValuedAttr<F32Attr, "1.05070102214813232421875">:$gamma)>;
def Kiln_CeluOp : Kiln_ActivationOp<"celu", "Celu",
    "max(0, x) + min(0, alpha * (e^(x / alpha) - 1))",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)>;
def Kiln_LeakyReluOp : Kiln_ActivationOp<"leaky_relu", "LeakyRelu",
    "x < 0 ? alpha * x : x",
    (ins DefaultValuedAttr<F32Attr, "0.01">:$alpha)>;
def Kiln_HardSigmoidOp : Kiln_ActivationOp<"hard_sigmoid", "HardSigmoid",
    "max(0, min(1, alpha * x + beta))",
    (ins DefaultValuedAttr<F32Attr, "0.2">:$alpha,
         DefaultValuedAttr<F32Attr, "0.5">:$beta)>;
def Kiln_ThresholdedReluOp : Kiln_ActivationOp<"thresholded_relu",
    "ThresholdedRelu", "x > alpha ? x : 0",
    (ins DefaultValuedAttr<F32Attr, "1.0">:$alpha)>;
def Kiln_ShrinkOp : Kiln_ActivationOp<"shrink", "Shrink",
    "x < -lambd ? x + bias : (x > lambd ? x - bias : 0)",
    (ins DefaultValuedAttr<F32Attr, "0.0">:$bias,
         DefaultValuedAttr<F32Attr, "0.5">:$lambd)>;

//===----------------------------------------------------------------------===//
// Binary with broadcasting
//===----------------------------------------------------------------------===//

def Kiln_MaxOp
    : Kiln_BinaryOp<"max", "max(x, y) (NaN if either is NaN)">;
def Kiln_MinOp
    : Kiln_BinaryOp<"min", "min(x, y) (NaN if either is NaN)">;
def Kiln_GreaterOrEqualOp
    : Kiln_BinaryOp<"greater_or_equal", "x >= y (false with NaN)",
                    Kiln_NumericTensor, Kiln_BoolTensor>;
def Kiln_LessOrEqualOp
    : Kiln_BinaryOp<"less_or_equal", "x <= y (false with NaN)",
                    Kiln_NumericTensor, Kiln_BoolTensor>;
// Logical ops on bool tensors.
class Kiln_LogicalOp<string mnemonic, string formula>
    : Kiln_BinaryOp<mnemonic, formula, Kiln_BoolTensor> {
  let description = "Computes `z = " # formula # "` elementwise on bool "
    # "tensors after NumPy broadcasting (ONNX `"
    # !toupper(!substr(mnemonic, 0, 1)) # !substr(mnemonic, 1) # "`).\n\n"
    # "Example:\n\n```mlir\n%z = kiln." # mnemonic
    # " %x, %y : tensor<4x1xi1>, tensor<3xi1> -> tensor<4x3xi1>\n```";
}
def Kiln_AndOp : Kiln_LogicalOp<"and", "x && y">;
def Kiln_OrOp : Kiln_LogicalOp<"or", "x || y">;
def Kiln_XorOp : Kiln_LogicalOp<"xor", "x != y">;
def Kiln_PReluOp
    : Kiln_BinaryOp<"prelu", "x < 0 ? slope * x : x (y is the slope)">;

def Kiln_ModOp : Kiln_TypedOp<"mod"> {
  let summary = "Elementwise remainder with broadcasting: z = x mod y";
  let description = [{
    ONNX `Mod`. With `fmod = false` the remainder has the sign of the divisor
    (Python's `%`, integers); with `fmod = true` it has the sign of the
    dividend (C's `fmod`). Integer division by zero is an evaluation error.

    Example:

    ```mlir
    %z = kiln.mod %x, %y {fmod = true} : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$lhs, Kiln_NumericTensor:$rhs,
                   DefaultValuedAttr<BoolAttr, "false">:$fmod);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) "
                       "`->` type($output)";
}

def Kiln_BitShiftOp : Kiln_TypedOp<"bit_shift"> {
  let summary = "Elementwise bit shift with broadcasting: z = x << y or x >> y";
  let description = [{
    ONNX `BitShift` on unsigned integers: shifts `lhs` left or right
    (`direction` is "left" or "right") by `rhs` bits; bits shifted out of the
    type's width are lost, shifts by the width or more give 0.

    Example:

    ```mlir
    %z = kiln.bit_shift %x, %y {direction = "left"} : tensor<3xui8>, tensor<3xui8> -> tensor<3xui8>
    ```
  }];
  let arguments = (ins Kiln_UnsignedTensor:$lhs, Kiln_UnsignedTensor:$rhs,
                   StrAttr:$direction);
  let results = (outs Kiln_UnsignedTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) "
                       "`->` type($output)";
}

def Kiln_ClipOp : Kiln_TypedOp<"clip"> {
  let summary = "Elementwise clamp with broadcasting: y = min(max(x, lo), hi)";
  let description = [{
    ONNX `Clip` in its opset-11 form: the bounds are operands (usually
    scalars). The importer materialises absent bounds as the lowest and
    highest values of the element type and turns the attributes of older
    opsets into constants. A NaN input stays NaN.

    Example:

    ```mlir
    %y = kiln.clip %x, %lo, %hi : tensor<3x4xf32>, tensor<f32>, tensor<f32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, Kiln_NumericTensor:$min,
                   Kiln_NumericTensor:$max);
  let results = (outs Kiln_NumericTensor:$output);
  let assemblyFormat = "$input `,` $min `,` $max attr-dict `:` type($input) "
                       "`,` type($min) `,` type($max) `->` type($output)";
}

#endif // KILN_MATH_OPS_TD
