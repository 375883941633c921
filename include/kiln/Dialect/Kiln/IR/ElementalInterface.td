// The elemental interface: an op that can give the value of its result at one
// multi-index as a CUDA C++ expression (DESIGN.md item 5).
#ifndef KILN_ELEMENTAL_INTERFACE_TD
#define KILN_ELEMENTAL_INTERFACE_TD

include "mlir/IR/OpBase.td"

def Kiln_ElementalOpInterface : OpInterface<"ElementalOpInterface"> {
  let cppNamespace = "::kiln";
  let description = [{
    Code generation for kiln kernels is elemental: a template asks for the
    value of a kernel's output at an index, and each op answers with an
    expression over the values of its operands at (re-mapped) indices, which
    it asks the emitter for. The CPU evaluator implements the same contract;
    both read the scalar-semantics table. The implementations are external
    models attached by the CUDA target (`registerCUDAElementalModels`), so
    the dialect does not depend on it.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns a CUDA C++ expression of the computation type of result 0
        (float for f16/bf16/f32, double for f64, long long for integers, bool
        for i1) at `index`, emitting any statements it needs through
        `emitter`; failure after a located error.
      }],
      "::mlir::FailureOr<std::string>", "emitElement",
      (ins "::kiln::ElementalEmitter &":$emitter,
           "const ::kiln::ElementIndex &":$index)>,
  ];
}

#endif // KILN_ELEMENTAL_INTERFACE_TD
