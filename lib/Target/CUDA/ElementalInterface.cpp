// The generated definitions of ElementalOpInterface (declared with the
// dialect, implemented by this target's external models).
#include "kiln/Dialect/Kiln/IR/ElementalInterface.h"

#include "kiln/Target/CUDA/ElementalEmitter.h"

#include "kiln/Dialect/Kiln/IR/ElementalInterface.cpp.inc"
