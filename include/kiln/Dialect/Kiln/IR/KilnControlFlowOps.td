// kiln.loop: ONNX Loop kept as a region until its trip count is known, then
// unrolled by the graph pipeline (kiln-unroll-loops).
#ifndef KILN_CONTROL_FLOW_OPS_TD
#define KILN_CONTROL_FLOW_OPS_TD

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kiln_LoopOp : Kiln_Op<"loop", [AttrSizedOperandSegments,
                                    RecursiveMemoryEffects]> {
  let summary = "ONNX Loop: a body run while i < trip_count and cond hold";
  let description = [{
    The body is run for `i = 0, 1, ...` while `i < trip_count` (when given)
    and the condition holds (`condition` before the first iteration, then the
    body's first yielded value). Its block arguments are the iteration number
    (`tensor<i64>`), the condition (`tensor<i1>`) and the loop-carried values;
    it yields the next condition, the next carried values and the scan
    outputs of the iteration. The results are the final carried values, then
    each scan output stacked along a new axis 0. The body may read values of
    the enclosing function (ONNX's outer scope). Carried values keep their
    type across iterations.

    Code generation never sees this op: `kiln-unroll-loops` (part of
    `kiln-simplify-graph`) unrolls it once the trip count and every
    iteration's condition are constants; the CPU evaluator also runs it as a
    loop.

    Example:

    ```mlir
    %sum, %all = kiln.loop trip_count(%m : tensor<i64>) cond(%c : tensor<i1>)
        carried(%y : tensor<1xf32>) {
    ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %y_in: tensor<1xf32>):
      %y_out = kiln.add %y_in, %x : tensor<1xf32>, tensor<1xf32> -> tensor<1xf32>
      kiln.yield %cond, %y_out, %y_out : tensor<i1>, tensor<1xf32>, tensor<1xf32>
    } : tensor<1xf32>, tensor<?x1xf32>
    ```
  }];
  let arguments = (ins Optional<TensorOf<[I64]>>:$trip_count,
                   Optional<TensorOf<[I1]>>:$condition,
                   Variadic<AnyTensor>:$initial_values);
  let results = (outs Variadic<AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`trip_count` `(` $trip_count^ `:` type($trip_count) `)`)?
    (`cond` `(` $condition^ `:` type($condition) `)`)?
    (`carried` `(` $initial_values^ `:` type($initial_values) `)`)?
    $body attr-dict `:` type($results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The yield that ends the body.
    YieldOp getYield();
    /// Number of carried values (the rest of the results are scan outputs).
    unsigned getNumCarried() { return getInitialValues().size(); }
  }];
}

#endif // KILN_CONTROL_FLOW_OPS_TD
