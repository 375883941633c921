// Unrolling kiln.loop (ONNX Loop) once its trip count and conditions are
// constants, shared by kiln-unroll-loops, kiln-simplify-graph and
// kiln-require-static.
#ifndef KILN_TRANSFORMS_LOOPUNROLLING_H
#define KILN_TRANSFORMS_LOOPUNROLLING_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace kiln {

/// Most iterations a loop is unrolled into.
constexpr int64_t kMaxUnrolledIterations = 4096;

/// Replaces every outermost kiln.loop of |function| whose trip count and
/// per-iteration conditions evaluate to constants by copies of its body (one
/// per iteration) and its scan outputs by a concat of the iterations' values.
/// Loops that cannot be unrolled yet stay. Returns true when anything changed.
bool unrollConstantLoops(mlir::func::FuncOp function);

/// Why |loop| cannot be unrolled, as a one-line message naming the graph
/// inputs to bind (for kiln-require-static, whose diagnostic location names
/// the ONNX node).
std::string describeLoopBlocker(LoopOp loop);

/// How to make |value|, which is not a compile-time constant, one: "bind
/// input 'm' with --bind-input m=FILE.pb", the inputs it is computed from, or
/// "pass --input-shape" when it depends on dynamic shapes only.
std::string describeHowToMakeConstant(mlir::Value value);

} // namespace kiln

#endif // KILN_TRANSFORMS_LOOPUNROLLING_H
