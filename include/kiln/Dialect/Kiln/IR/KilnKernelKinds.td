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

#endif // KILN_KERNEL_KINDS_TD
