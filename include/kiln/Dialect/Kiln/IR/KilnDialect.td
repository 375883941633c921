// The kiln dialect: ONNX-semantics tensor operations that kiln compiles to CUDA.
#ifndef KILN_DIALECT_TD
#define KILN_DIALECT_TD

include "mlir/IR/OpBase.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let summary = "Tensor operations with ONNX semantics, the input of kiln's fusion and code generation.";
  let description = [{
    Each ONNX operator that kiln supports becomes one `kiln` operation on builtin
    `tensor` values. Operations keep ONNX semantics (NumPy broadcasting, negative
    axes, opset-normalised operands) so that the importer is a one-to-one mapping
    and the CPU evaluator can check every later stage against onnxruntime.

    Opset differences are removed at import: operands that some opsets pass as
    attributes (`axes`, `starts`, `shape`) are always operands here, usually
    produced by `kiln.constant`. Symbolic ONNX dimensions import as dynamic
    dimensions; their names are kept in the `kiln.dim_names` argument attribute
    of the entry function.
  }];
  let cppNamespace = "::kiln";
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

#endif // KILN_DIALECT_TD
