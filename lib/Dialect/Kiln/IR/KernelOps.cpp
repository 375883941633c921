// Verifier and helpers of kiln.kernel, kiln.yield and kiln.empty.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"

using namespace mlir;
using namespace kiln;

YieldOp KernelOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult KernelOp::verify() {
  if (getOutputs().size() != getResults().size())
    return emitOpError("has ") << getOutputs().size() << " outputs but "
                               << getResults().size() << " results";
  for (auto [output, result] : llvm::zip(getOutputs(), getResults()))
    if (output.getType() != result.getType())
      return emitOpError("result type ")
             << result.getType() << " differs from its output "
             << output.getType();
  Block &body = getBody().front();
  size_t expected = getInputs().size() + getOutputs().size();
  if (body.getNumArguments() != expected)
    return emitOpError("body has ") << body.getNumArguments()
                                    << " arguments, expected " << expected
                                    << " (inputs then outputs)";
  for (auto [argument, operand] :
       llvm::zip(body.getArguments(), getOperands()))
    if (argument.getType() != operand.getType())
      return emitOpError("body argument type ")
             << argument.getType() << " differs from operand "
             << operand.getType();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with kiln.yield");
  if (yield.getValues().size() != getResults().size())
    return emitOpError("yields ") << yield.getValues().size()
                                  << " values for " << getResults().size()
                                  << " results";
  for (auto [value, result] : llvm::zip(yield.getValues(), getResults()))
    if (!areCompatibleTensorTypes(value.getType(), result.getType()))
      return emitOpError("yields ")
             << value.getType() << " for result of type " << result.getType();
  for (auto name : {"block_size", "grid_size", "elements_per_thread",
                    "vector_width", "rows_per_block", "key_chunk"})
    if (auto value = (*this)->getAttrOfType<IntegerAttr>(name))
      if (value.getInt() <= 0)
        return emitOpError(name) << " must be positive, got " << value.getInt();
  // What the kind's template can run (KernelKinds.h).
  return verifyKernelContract(*this);
}
