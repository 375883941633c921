// The kinds of kiln.kernel: which code template (or library call) runs it.
// docs/architecture.md "Kernel kinds" gives each kind's contract
// (KernelKinds.h: what fusion may admit, what the verifier checks). The
// kernel op stores its kind as a Kiln_KernelKindAttr; kernel.getKind() is
// the typed accessor.
#ifndef KILN_KERNEL_KINDS_TD
#define KILN_KERNEL_KINDS_TD

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Kiln_KernelKind : I32EnumAttr<"KernelKind", "kernel kind", [
  I32EnumAttrCase<"Pointwise", 0, "pointwise">,
  I32EnumAttrCase<"RowReduce", 1, "row_reduce">,
  I32EnumAttrCase<"Transpose", 2, "transpose">,
  I32EnumAttrCase<"DataMovement", 3, "data_movement">,
  I32EnumAttrCase<"Library", 4, "library">,
  I32EnumAttrCase<"Attention", 5, "attention">
]> {
  let cppNamespace = "::kiln";
  // The attribute is the dialect's Kiln_KernelKindAttr below.
  let genSpecializedAttr = 0;
  let description = [{
    The code template family that runs a `kiln.kernel` (or, for `library`,
    the cuBLASLt/cuDNN call).
  }];
}

def Kiln_KernelKindAttr : EnumAttr<Kiln_Dialect, Kiln_KernelKind,
                                   "kernel_kind"> {
  let summary = "The kind of a kiln.kernel";
  let description = [{
    Printed as a bare keyword after the kernel's name:
    `kiln.kernel "add_relu" pointwise ...`; the parser accepts only the
    `KernelKind` names.
  }];
}

def Kiln_KernelVariant : I32EnumAttr<"KernelVariant", "kernel template variant", [
  I32EnumAttrCase<"Loop", 0, "loop">,
  I32EnumAttrCase<"ChannelsLastPool", 1, "channels_last_pool">,
  I32EnumAttrCase<"Tiles", 2, "tiles">,
  I32EnumAttrCase<"ShortRows", 3, "short_rows">,
  I32EnumAttrCase<"QueryRows", 4, "query_rows">,
  I32EnumAttrCase<"Flash", 5, "flash">,
  I32EnumAttrCase<"WarpRows", 6, "warp_rows">,
  I32EnumAttrCase<"BlockRows", 7, "block_rows">
]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
  let description = [{
    Which of its kind's templates runs a kernel: pointwise `loop` or
    `channels_last_pool`; data_movement `loop`; transpose `tiles` (32x32) or
    `short_rows`; attention `query_rows` or `flash`; row_reduce `warp_rows`
    (a warp per row) or `block_rows` (a block per row)
    (KernelConfiguration.h).
  }];
}

def Kiln_KernelVariantAttr : EnumAttr<Kiln_Dialect, Kiln_KernelVariant,
                                      "variant"> {
  let summary = "The template variant kiln-tile-kernels chose for a kernel";
  let description = [{
    Recorded by kiln-tile-kernels from the variant's checked preconditions
    (with its kind's general template as the fallback), checked against the
    body by the kernel op's verifier, carried out by the emitter:
    `variant = #kiln.variant<short_rows>`.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Kiln_LibraryAddend : I32EnumAttr<"LibraryAddend", "library epilogue addend", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Bias", 1, "bias">,
  I32EnumAttrCase<"Residual", 2, "residual">,
  I32EnumAttrCase<"BiasResidual", 3, "bias_residual">
]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
}

def Kiln_LibraryActivation : I32EnumAttr<"LibraryActivation",
                                         "library epilogue activation", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Relu", 1, "relu">,
  I32EnumAttrCase<"GeluTanh", 2, "gelu_tanh">
]> {
  let cppNamespace = "::kiln";
  let genSpecializedAttr = 0;
}

def Kiln_LibraryEpilogueAttr : AttrDef<Kiln_Dialect, "LibraryEpilogue"> {
  let mnemonic = "epilogue";
  let summary = "What cuBLASLt or cuDNN fuses after a library kernel's call";
  let description = [{
    Recorded by kiln-fuse-kernels on a `library` kernel whose body continues
    after the call: `addend` (a bias row, cuBLASLt's bias epilogue; a
    residual of the result's type, read as C with beta 1 or as cuDNN's z; or
    a bias row and then a residual, both in one cuBLASLt call), then `activation` (relu; tanh GELU for a GEMM), and `output_cast` (the
    f16/bf16 product is written as f32). The kernel op's verifier checks it
    against the body (LibraryEpilogue.h); the packager reads it.

    ```mlir
    epilogue = #kiln.epilogue<addend = bias, activation = relu>
    ```
  }];
  let parameters = (ins
    DefaultValuedParameter<"::kiln::LibraryAddend",
                           "::kiln::LibraryAddend::None">:$addend,
    DefaultValuedParameter<"::kiln::LibraryActivation",
                           "::kiln::LibraryActivation::None">:$activation,
    DefaultValuedParameter<"bool", "false">:$output_cast);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // KILN_KERNEL_KINDS_TD
