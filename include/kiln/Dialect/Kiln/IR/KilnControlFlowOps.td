// kiln.loop and kiln.if: ONNX Loop and If kept as regions until their trip
// count or condition is known, then unrolled (kiln-unroll-loops) or replaced by
// the taken branch (kiln-inline-constant-ifs) by the graph pipeline.
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

def Kiln_IfOp : Kiln_Op<"if", [RecursiveMemoryEffects]> {
  let summary = "ONNX If whose branches produce values of different shapes";
  let description = [{
    The results are the values the `then` branch yields when the one-element
    `condition` is true, else those of the `else` branch. The branches take
    no arguments and may read values of the enclosing function (ONNX's outer
    scope). Each result's type is the join of the two branches' types: a dim
    both give the same size keeps it, other dims are dynamic, and branches of
    different ranks give an unranked result.

    The importer makes this op only when the branches' types differ (with
    equal types an If becomes `kiln.where` per output, which needs no
    control flow) and the condition is not a constant yet: in exported models
    it is usually a comparison of shapes, which folds once shapes are
    specialised. `kiln-inline-constant-ifs` (part of `kiln-simplify-graph`)
    then replaces the op by the taken branch; `kiln-require-static` reports
    one that is left (its condition depends on data). The CPU evaluator runs
    the taken branch.

    Example:

    ```mlir
    %r = kiln.if %c : tensor<i1> then {
      %u = kiln.unsqueeze %x, %axes : tensor<?x?xi64>, tensor<1xi64> -> tensor<1x?x?xi64>
      kiln.yield %u : tensor<1x?x?xi64>
    } else {
      kiln.yield %y : tensor<1x1x?x?xi64>
    } : tensor<*xi64>
    ```
  }];
  let arguments = (ins TensorOf<[I1]>:$condition);
  let results = (outs Variadic<AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$then_branch,
                        SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $condition `:` type($condition) `then` $then_branch `else` $else_branch
    attr-dict `:` type($results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The yield that ends the then (|taken|) or else branch.
    YieldOp getBranchYield(bool taken);
    /// The join of two branch types (see the description): what a result of
    /// this op is given for a then value of |thenType| and an else value of
    /// |elseType|, which must have one element type.
    static mlir::Type joinBranchTypes(mlir::Type thenType, mlir::Type elseType);
  }];
}

#endif // KILN_CONTROL_FLOW_OPS_TD
