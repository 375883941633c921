// ElementalEmitter: code buffer, scoped value cache, index arithmetic and
// dtype conversions used by every CUDA kernel template.
#include "kiln/Target/CUDA/ElementalEmitter.h"
#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Evaluator/ScalarSemantics.h"
#include "kiln/Target/CUDA/CUDAEmitter.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace kiln {

ElementIndex ElementIndex::fromLinear(std::string linear) {
  ElementIndex index;
  index.linear = std::move(linear);
  return index;
}

ElementIndex ElementIndex::fromDims(ArrayRef<std::string> dims) {
  ElementIndex index;
  index.hasDims = true;
  index.dims.assign(dims.begin(), dims.end());
  if (dims.empty())
    index.linear = "0";
  return index;
}

std::string ElementIndex::key() const {
  if (!linear.empty())
    return "L:" + linear;
  return "D:" + llvm::join(dims, ",");
}

ArrayRef<int64_t> indexedShapeOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  ArrayRef<int64_t> shape = type.getShape();
  if (llvm::count_if(shape, ShapedType::isDynamic) < 2)
    return shape;
  if (auto kernel = value.getParentRegion()
                        ? dyn_cast_or_null<KernelOp>(
                              value.getParentRegion()->getParentOp())
                        : KernelOp();
      kernel && kernelIndexesRunTimeExtentsByValue(kernel))
    return shape;
  // Several run-time extents in leading dims (the kernel kinds' contract):
  // indexed as one, the product of them, in the last one's place, with the
  // dims before it of size 1, so no index needs the value of any. The
  // context owns the collapsed type's shape.
  int64_t last = shape.size() - 1;
  while (!ShapedType::isDynamic(shape[last]))
    --last;
  SmallVector<int64_t> collapsed(shape);
  for (int64_t d = 0; d < last; ++d) {
    if (!ShapedType::isDynamic(shape[d]) && shape[d] != 1)
      return shape; // Not leading: the contract refuses such a kernel.
    collapsed[d] = 1;
  }
  return RankedTensorType::get(collapsed, type.getElementType()).getShape();
}

Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

int64_t elementCount(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      return ShapedType::kDynamic;
    count *= dim;
  }
  return count;
}

namespace {
/// True for identifiers and numbers, which need no parentheses or variable.
bool isAtom(StringRef text) {
  if (text.empty())
    return false;
  // Numeric literals may hold an exponent sign: 9.99999975e-06f.
  bool number = llvm::isDigit(text.front());
  for (char c : text)
    if (!llvm::isAlnum(c) && c != '_' && c != '.' &&
        !(number && (c == '-' || c == '+')))
      return false;
  return true;
}
/// True when |text| is one parenthesised group: "(a + (b))".
bool isParenthesised(StringRef text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return false;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : (text[i] == ')' ? -1 : 0);
    if (depth == 0 && i + 1 < text.size())
      return false;
  }
  return true;
}
std::string paren(const std::string &text) { return parenthesize(text); }
} // namespace

std::string parenthesize(const std::string &text) {
  return isAtom(text) || isParenthesised(text) ? text : "(" + text + ")";
}

ElementalEmitter::ElementalEmitter(KernelOp kernel) : kernel(kernel) {
  boundsChecks = hasBoundsChecks(kernel);
  if (kernel)
    dimParameters = getKernelDimParameters(kernel);
  scopes.emplace_back();
}

std::string ElementalEmitter::extentText(const DimExpr &extent) const {
  return extent.formatAsCode([&](StringRef name) -> std::string {
    auto found = llvm::find(dimParameters, name.str());
    if (found == dimParameters.end())
      return kUnknownExtentText.str();
    return "kiln_dim" + std::to_string(found - dimParameters.begin());
  });
}

Extents ElementalEmitter::extentsOf(Value value) const {
  Extents extents;
  ArrayRef<int64_t> shape = indexedShapeOf(value);
  extents.sizes.assign(shape.begin(), shape.end());
  std::vector<std::optional<DimExpr>> recorded;
  bool looked = false;
  auto type = cast<RankedTensorType>(value.getType());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!ShapedType::isDynamic(shape[d])) {
      extents.texts.push_back(std::to_string(shape[d]));
      continue;
    }
    if (!looked) {
      looked = true;
      Value outside = value;
      auto &body = const_cast<KernelOp &>(kernel).getBody().front();
      if (auto argument = dyn_cast<BlockArgument>(value);
          argument && argument.getOwner() == &body)
        outside = kernel->getOperand(argument.getArgNumber());
      if (auto result = dyn_cast<OpResult>(value);
          result && result.getOwner()->getBlock() == &body)
        recorded = getRecordedDimExprs(result.getOwner());
      else
        recorded = getRecordedExtents(outside);
    }
    // A collapsed prefix (indexedShapeOf) is the product of the type's dims up
    // to this one.
    std::optional<DimExpr> extent =
        d < recorded.size() ? recorded[d] : std::nullopt;
    if (extent && type.getShape()[d] != shape[d])
      extent = std::nullopt;
    if (extent && d > 0 && shape.take_front(d) != type.getShape().take_front(d))
      for (size_t before = 0; before < d && extent; ++before)
        extent = before < recorded.size() && recorded[before]
                     ? *recorded[before] * *extent
                     : std::nullopt;
    extents.texts.push_back(extent ? extentText(*extent)
                                   : kUnknownExtentText.str());
  }
  return extents;
}

namespace {
/// Binds a data-dependent index into a dim of size |bound| (CUDA text) to a
/// new name: checked into the fault record, or clamped (wrapIndex).
std::string emitWrappedIndex(ElementalEmitter &emitter,
                             const std::string &value, const std::string &bound,
                             int64_t axis, unsigned site) {
  std::string name = emitter.fresh("g");
  if (emitter.checksBounds())
    emitter.line("const kiln_index_t " + name +
                 " = (kiln_index_t)kiln_checked_index(" + value + ", " +
                 bound + ", " + std::to_string(axis) + ", " +
                 std::to_string(site) + "u, kiln_bounds, kiln_step);");
  else
    emitter.line("const kiln_index_t " + name +
                 " = (kiln_index_t)kiln_gather_index(" + value + ", " + bound +
                 ");");
  return name;
}
} // namespace

std::string ElementalEmitter::wrapIndex(const std::string &value,
                                        const Extents &extents, int64_t axis,
                                        unsigned site) {
  if (!ShapedType::isDynamic(extents[axis]))
    return wrapIndex(value, extents[axis], axis, site);
  return emitWrappedIndex(*this, value, extents.texts[axis], axis, site);
}

std::string ElementalEmitter::wrapIndex(const std::string &value, int64_t size,
                                        int64_t axis, unsigned site) {
  return emitWrappedIndex(*this, value, std::to_string(size) + "LL", axis,
                          site);
}

void ElementalEmitter::line(const Twine &text) {
  code.append(indent * 2, ' ');
  code += text.str();
  code += '\n';
}

void ElementalEmitter::insertLines(size_t mark, ArrayRef<std::string> lines) {
  std::string text;
  for (const std::string &statement : lines)
    text += std::string(indent * 2, ' ') + statement + '\n';
  code.insert(mark, text);
}

void ElementalEmitter::open(const Twine &header) {
  line(header + " {");
  ++indent;
  scopes.emplace_back();
  scopes.back().id = ++scopesOpened;
}

bool ElementalEmitter::isScopeOpen(unsigned id) const {
  return llvm::any_of(scopes,
                      [&](const Scope &scope) { return scope.id == id; });
}

void ElementalEmitter::close(StringRef trailer) {
  --indent;
  line("}" + trailer);
  scopes.pop_back();
}

std::string ElementalEmitter::fresh(StringRef prefix) {
  return (prefix + Twine(counter++)).str();
}

void ElementalEmitter::addGlobal(const Twine &text) {
  globalDecls += text.str();
  globalDecls += '\n';
}

std::string ElementalEmitter::cacheKey(Value value,
                                       const ElementIndex &index) const {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << value.getAsOpaquePointer() << '@' << index.key();
  return key;
}

void ElementalEmitter::bind(Value value, const ElementIndex &index,
                            const std::string &expression) {
  scopes.back().cache[cacheKey(value, index)] = expression;
}

std::string ElementalEmitter::materialize(Type elementType,
                                          const std::string &expression,
                                          StringRef prefix) {
  if (isAtom(expression))
    return expression;
  std::string name = fresh(prefix);
  line("const " + computeType(elementType) + " " + name + " = " + expression +
       ";");
  return name;
}

const std::string *ElementalEmitter::lookup(Value value,
                                            const ElementIndex &index) const {
  std::string key = cacheKey(value, index);
  for (auto scope = scopes.rbegin(); scope != scopes.rend(); ++scope) {
    auto it = scope->cache.find(key);
    if (it != scope->cache.end())
      return &it->second;
  }
  return nullptr;
}

namespace {
/// Past this nesting of emit() calls, a chain is emitted bottom-up: each op
/// costs a few stack frames, and 10,000 chained ops overflowed the stack.
constexpr unsigned kChainDepth = 64;

/// The operand that |op| reads at its own result index: an operand of the
/// result's shape of an elementwise op (the scalar-semantics table's ops and
/// Cast; broadcastIndex keeps the index when the shapes are equal).
SmallVector<Value, 2> sameIndexOperands(Operation *op) {
  SmallVector<Value, 2> operands;
  if (op->getNumResults() != 1 ||
      !(eval::getElementwiseKind(op) || isa<CastOp>(op)))
    return operands;
  Type result = op->getResult(0).getType();
  for (Value operand : op->getOperands())
    if (auto type = dyn_cast<RankedTensorType>(operand.getType());
        type && type.getShape() == cast<RankedTensorType>(result).getShape())
      operands.push_back(operand);
  return operands;
}
} // namespace

LogicalResult ElementalEmitter::emitChainBottomUp(Value value,
                                                  const ElementIndex &index) {
  SmallVector<Value> chain;
  Value current = value;
  while (Operation *op = current.getDefiningOp()) {
    Value next;
    for (Value operand : sameIndexOperands(op))
      if (operand.getDefiningOp() && !lookup(operand, index)) {
        next = operand;
        break;
      }
    if (!next)
      break;
    chain.push_back(next);
    current = next;
  }
  for (Value link : llvm::reverse(chain))
    if (failed(emit(link, index)))
      return failure();
  return success();
}

FailureOr<std::string>
ElementalEmitter::emitOwnModel(Value value, const ElementIndex &index) {
  bool inserted = ownModel.insert(value).second;
  FailureOr<std::string> result = emit(value, index);
  if (inserted)
    ownModel.erase(value);
  return result;
}

FailureOr<std::string> ElementalEmitter::emit(Value value,
                                              const ElementIndex &index) {
  if (valueOverride && !ownModel.contains(value))
    if (std::optional<std::string> expr = valueOverride(value, index))
      return *expr;
  if (const std::string *cached = lookup(value, index))
    return *cached;
  ++depth;
  auto leave = llvm::make_scope_exit([&] { --depth; });
  if (depth > kChainDepth && value.getDefiningOp() &&
      failed(emitChainBottomUp(value, index)))
    return failure();
  std::string key = cacheKey(value, index);

  std::string expression;
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (argument.getOwner() != &kernel.getBody().front())
      return error(nullptr) << "reads a block argument of another region";
    unsigned number = argument.getArgNumber();
    if (number >= getNumInputs())
      return error(nullptr) << "reads its output argument " << number
                            << "; outputs are write-only in generated code";
    std::optional<std::string> storage;
    if (loadOverride)
      storage = loadOverride(number, index);
    if (!storage) {
      std::string linear = elementCount(indexedShapeOf(value)) == 1
                               ? "0"
                               : linearOf(index, extentsOf(value));
      storage = pointerName(number) + "[" + linear + "]";
    }
    expression =
        materialize(elementTypeOf(value),
                    loadConversion(elementTypeOf(value), *storage), "x");
  } else {
    Operation *op = value.getDefiningOp();
    auto elemental = dyn_cast<ElementalOpInterface>(op);
    if (!elemental)
      return error(op) << "has no elemental CUDA implementation";
    if (op->getNumResults() != 1)
      return error(op) << "has " << op->getNumResults()
                       << " results; elemental ops have one";
    FailureOr<std::string> result = elemental.emitElement(*this, index);
    if (failed(result))
      return failure();
    expression = materialize(elementTypeOf(value), *result);
  }
  scopes.back().cache[key] = expression;
  return expression;
}

std::string ElementalEmitter::pointerName(unsigned number) const {
  unsigned inputs = getNumInputs();
  return number < inputs ? "in" + std::to_string(number)
                         : "out" + std::to_string(number - inputs);
}

unsigned ElementalEmitter::getNumInputs() const {
  return const_cast<KernelOp &>(kernel).getInputs().size();
}

InFlightDiagnostic ElementalEmitter::error(Operation *op) {
  Operation *at = op ? op : kernel.getOperation();
  InFlightDiagnostic diag = at->emitError();
  if (op)
    diag << "CUDA emitter: in kernel '" << kernel.getSymName() << "', '"
         << op->getName() << "' ";
  else
    diag << "CUDA emitter: kernel '" << kernel.getSymName() << "' ";
  return diag;
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

namespace {
/// |shape| as texts: static sizes as numbers, run-time dims as
/// kUnknownExtentText (shape-only callers have no expression for them).
Extents staticExtents(ArrayRef<int64_t> shape) {
  Extents extents;
  extents.sizes.assign(shape.begin(), shape.end());
  for (int64_t size : shape)
    extents.texts.push_back(ShapedType::isDynamic(size)
                                ? kUnknownExtentText.str()
                                : std::to_string(size));
  return extents;
}
} // namespace

std::string ElementalEmitter::dimOf(const ElementIndex &index,
                                    ArrayRef<int64_t> shape,
                                    unsigned dim) const {
  return dimOf(index, staticExtents(shape), dim);
}

std::string ElementalEmitter::dimOf(const ElementIndex &index,
                                    const Extents &extents,
                                    unsigned dim) const {
  if (index.hasDims)
    return index.dims[dim];
  ArrayRef<int64_t> shape = extents.sizes;
  if (shape[dim] == 1)
    return "0";
  // The stride: the static dims after |dim| multiplied out, times the
  // run-time ones' texts.
  int64_t stride = 1;
  std::string runTimeStride;
  for (size_t d = dim + 1; d < shape.size(); ++d) {
    if (!ShapedType::isDynamic(shape[d])) {
      stride *= shape[d];
      continue;
    }
    runTimeStride +=
        (runTimeStride.empty() ? "" : " * ") + paren(extents.texts[d]);
  }
  std::string linear = paren(index.linear);
  // A lane of a vector unit (unit * W + l, l < W) has its unit's first
  // lane's quotient by a stride that W divides: every lane spells it so.
  if (auto lane = vectorLanes.find(index.linear); lane != vectorLanes.end() &&
                                                  runTimeStride.empty() &&
                                                  stride % vectorLaneWidth == 0)
    linear = paren(lane->second);
  bool first = true;
  for (unsigned d = 0; d < dim; ++d)
    first &= shape[d] == 1;
  std::string quotient;
  if (!runTimeStride.empty())
    quotient = "(" + linear + " / (" + runTimeStride +
               (stride == 1 ? "" : " * " + std::to_string(stride)) + "))";
  else
    quotient = stride == 1
                   ? linear
                   : "(" + linear + " / " + std::to_string(stride) + ")";
  if (first)
    return quotient;
  return "(" + quotient + " % " + paren(extents.texts[dim]) + ")";
}

SmallVector<std::string, 4>
ElementalEmitter::dimsOf(const ElementIndex &index,
                         ArrayRef<int64_t> shape) const {
  return dimsOf(index, staticExtents(shape));
}

SmallVector<std::string, 4>
ElementalEmitter::dimsOf(const ElementIndex &index,
                         const Extents &extents) const {
  SmallVector<std::string, 4> dims;
  for (unsigned d = 0; d < extents.size(); ++d)
    dims.push_back(dimOf(index, extents, d));
  return dims;
}

std::string ElementalEmitter::linearOf(const ElementIndex &index,
                                       ArrayRef<int64_t> shape) const {
  return linearOf(index, staticExtents(shape));
}

std::string ElementalEmitter::linearOf(const ElementIndex &index,
                                       const Extents &extents) const {
  if (!index.linear.empty())
    return index.linear;
  // Horner form; size-1 dims contribute nothing (their index is 0).
  std::string result;
  for (size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] == 1)
      continue;
    const std::string &entry = index.dims[d];
    if (result.empty()) {
      if (entry != "0")
        result = entry;
      continue;
    }
    result = "(" + paren(result) + " * " + paren(extents.texts[d]) +
             (entry == "0" ? "" : " + " + paren(entry)) + ")";
  }
  return result.empty() ? "0" : result;
}

ElementIndex
ElementalEmitter::broadcastIndex(const ElementIndex &resultIndex,
                                 ArrayRef<int64_t> resultShape,
                                 ArrayRef<int64_t> operandShape) const {
  if (resultShape == operandShape)
    return resultIndex;
  return broadcastIndex(resultIndex, staticExtents(resultShape),
                        staticExtents(operandShape));
}

ElementIndex ElementalEmitter::broadcastIndex(const ElementIndex &resultIndex,
                                              const Extents &result,
                                              const Extents &operand) const {
  if (result == operand)
    return resultIndex;
  SmallVector<std::string, 4> dims;
  size_t offset = result.size() - operand.size();
  for (size_t d = 0; d < operand.size(); ++d)
    dims.push_back(operand[d] == 1 && result[offset + d] != 1
                       ? std::string("0")
                       : dimOf(resultIndex, result, offset + d));
  return ElementIndex::fromDims(dims);
}

} // namespace kiln
