// The state shared by the CUDA kernel templates and the elemental op models:
// the code buffer with scopes, the (value, index) -> variable cache, index
// arithmetic on static shapes, and dtype conversions between storage and the
// computation type.
#ifndef KILN_TARGET_CUDA_ELEMENTALEMITTER_H
#define KILN_TARGET_CUDA_ELEMENTALEMITTER_H

#include "kiln/Dialect/Kiln/IR/DimExpr.h"
#include "kiln/Dialect/Kiln/IR/ElementalInterface.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// An index into a tensor of static shape, as C++ expressions of type
/// kiln_index_t: per-dim entries, the row-major linear index, or both. Ops
/// that keep the element order (elementwise ops on equal shapes, views) pass
/// the linear form through, so loads and template overrides can recognise
/// "the element this thread is working on" by its text.
struct ElementIndex {
  bool hasDims = false;
  llvm::SmallVector<std::string, 4> dims;
  std::string linear; // Empty when unknown.

  static ElementIndex fromLinear(std::string linear);
  static ElementIndex fromDims(llvm::ArrayRef<std::string> dims);
  /// A key that is equal for equal index texts (linear form preferred).
  std::string key() const;
};

/// A value's extents as the templates index it: its shape (indexedShapeOf; a
/// run-time dim is ShapedType::kDynamic) and each dim as CUDA text, a
/// static one its size and a run-time one its expression over the kernel's
/// `long long kiln_dim<i>` parameters (`(kiln_dim0 * kiln_dim1)`). The index
/// arithmetic that takes Extents needs no static size for a run-time dim.
struct Extents {
  llvm::SmallVector<int64_t, 4> sizes;
  llvm::SmallVector<std::string, 4> texts;
  operator llvm::ArrayRef<int64_t>() const { return sizes; }
  size_t size() const { return sizes.size(); }
  int64_t operator[](size_t dim) const { return sizes[dim]; }
  bool operator==(const Extents &other) const {
    return sizes == other.sizes && texts == other.texts;
  }
};

/// The text that stands for a run-time extent whose expression an index
/// needs but is not known; the kernel emitter reports a located error when
/// it finds it in a kernel's source instead of handing it to NVRTC.
inline constexpr llvm::StringLiteral kUnknownExtentText =
    "KILN_UNKNOWN_RUN_TIME_EXTENT";

/// How values of an element type are held while computing.
enum class ComputeKind { Float, Double, Int, Bool };

class ElementalEmitter {
public:
  explicit ElementalEmitter(KernelOp kernel);

  KernelOp getKernel() { return kernel; }

  //===--- Code buffer
  //-----------------------------------------------------===//
  /// Appends one statement line at the current indentation.
  void line(const llvm::Twine &text);
  /// `header {` and a new cache scope; close() ends both.
  void open(const llvm::Twine &header);
  void close(llvm::StringRef trailer = "");
  /// The innermost open scope (an id unique within the kernel), and whether
  /// scope |id| is still open: a template that declares a variable on first
  /// use reuses it only while the scope it was declared in is open (a use
  /// in a sibling branch must declare it again).
  unsigned currentScope() const { return scopes.back().id; }
  bool isScopeOpen(unsigned id) const;
  /// A new variable name: prefix + counter.
  std::string fresh(llvm::StringRef prefix);
  /// The statements emitted so far.
  const std::string &body() const { return code; }
  /// The lanes of vector units: each lane's linear index text ("(i * 8 +
  /// 3)", i a unit index >= 0) to its unit's first lane's ("(i * 8)"), the
  /// unit |width| elements. dimOf spells a dim whose stride |width| divides
  /// from the first lane's text (the same value for every lane of the
  /// unit), so that the lanes share that index arithmetic. Empty: none.
  void setVectorLanes(llvm::StringMap<std::string> lanes, int64_t width) {
    vectorLanes = std::move(lanes);
    vectorLaneWidth = width;
  }
  /// A position in the statements, and lines inserted there later at the
  /// current indentation (declarations that the code after it turned out to
  /// need).
  size_t mark() const { return code.size(); }
  void insertLines(size_t mark, llvm::ArrayRef<std::string> lines);
  /// File-scope declarations (constant tables) the kernel needs.
  const std::string &globals() const { return globalDecls; }
  void addGlobal(const llvm::Twine &text);
  void setIndent(unsigned level) { indent = level; }

  //===--- Values
  //----------------------------------------------------------===//
  /// The value of |value| at |index| in its computation type: a kernel
  /// input load, a template override, a cached variable or the op's
  /// ElementalOpInterface expression bound to a new variable.
  mlir::FailureOr<std::string> emit(mlir::Value value,
                                    const ElementIndex &index);
  /// emit(), with the value override passed over for |value| itself (its
  /// own model computes it; its operands still see the override): for an
  /// override that answers |value| by computing it elsewhere (a row value
  /// at the row, a lane's at the unit's first lane).
  mlir::FailureOr<std::string> emitOwnModel(mlir::Value value,
                                            const ElementIndex &index);
  /// Records that |value| at |index| is |expression| in the current scope.
  void bind(mlir::Value value, const ElementIndex &index,
            const std::string &expression);
  /// Binds |expression| to a new `const T name = ...;` and returns the name
  /// (or returns |expression| itself when it is already a name or literal).
  std::string materialize(mlir::Type elementType, const std::string &expression,
                          llvm::StringRef prefix = "v");

  /// Hooks the templates set: an override for (value, index) (anchor results,
  /// tile reads) and one giving the storage expression that replaces
  /// `inN[linear]` for a kernel-input load (vector lanes).
  using ValueOverride = std::function<std::optional<std::string>(
      mlir::Value, const ElementIndex &)>;
  void setValueOverride(ValueOverride hook) { valueOverride = std::move(hook); }
  using LoadOverride = std::function<std::optional<std::string>(
      unsigned argument, const ElementIndex &)>;
  void setLoadOverride(LoadOverride hook) { loadOverride = std::move(hook); }

  //===--- Kernel arguments -----------------------------------------------===//
  /// The pointer parameter of body argument |number| (`in2`, `out0`).
  std::string pointerName(unsigned number) const;
  unsigned getNumInputs() const;

  //===--- Index arithmetic -----------------------------------------------===//
  /// On static shapes (a run-time dim whose size an index needs gives
  /// kUnknownExtentText), or on Extents, whose run-time dims are texts.
  std::string dimOf(const ElementIndex &index, llvm::ArrayRef<int64_t> shape,
                    unsigned dim) const;
  std::string dimOf(const ElementIndex &index, const Extents &extents,
                    unsigned dim) const;
  llvm::SmallVector<std::string, 4> dimsOf(const ElementIndex &index,
                                           llvm::ArrayRef<int64_t> shape) const;
  llvm::SmallVector<std::string, 4> dimsOf(const ElementIndex &index,
                                           const Extents &extents) const;
  std::string linearOf(const ElementIndex &index,
                       llvm::ArrayRef<int64_t> shape) const;
  std::string linearOf(const ElementIndex &index, const Extents &extents) const;
  /// The index into an operand of |operandShape| that NumPy broadcasting to
  /// |resultShape| reads; the same index when the shapes are equal.
  ElementIndex broadcastIndex(const ElementIndex &resultIndex,
                              llvm::ArrayRef<int64_t> resultShape,
                              llvm::ArrayRef<int64_t> operandShape) const;
  ElementIndex broadcastIndex(const ElementIndex &resultIndex,
                              const Extents &result,
                              const Extents &operand) const;

  //===--- Run-time extents (issue 18) -----------------------------------===//
  /// |value|'s extents: indexedShapeOf, with each run-time dim as its
  /// expression (kiln.dim_exprs of the op that defines it, of the kernel
  /// input's producer, or the function argument's kiln.dim_names) over the
  /// kernel's dim parameters (getKernelDimParameters); kUnknownExtentText where
  /// no expression is recorded.
  Extents extentsOf(mlir::Value value) const;
  /// The CUDA text of |extent| over the kernel's dim parameters.
  std::string extentText(const DimExpr &extent) const;

  //===--- Types
  //-----------------------------------------------------------===//
  static std::optional<ComputeKind> computeKind(mlir::Type elementType);
  /// float, double, long long or bool; empty for unsupported types.
  static std::string computeType(mlir::Type elementType);
  /// The element type in memory: __half, __nv_bfloat16, int, unsigned char
  /// (for i1), ...
  static std::string storageType(mlir::Type elementType);
  static std::string loadConversion(mlir::Type elementType,
                                    const std::string &storageExpr);
  static std::string storeConversion(mlir::Type elementType,
                                     const std::string &computeExpr);
  /// Wraps a long long to an integer dtype narrower than 64 bits (or tests
  /// for non-zero for i1), as the evaluator does on every store.
  static std::string wrapInteger(mlir::Type elementType,
                                 const std::string &expr);
  static bool isUnsignedInteger(mlir::Type elementType);
  /// A literal of the computation type of |elementType|.
  static std::string floatLiteral(mlir::Type elementType, double value);
  static std::string intLiteral(int64_t value);

  //===--- Data-dependent indices ----------------------------------------===//
  /// Whether the kernel checks its data-dependent indices (the module was
  /// compiled with bounds checks, kiln::hasBoundsChecks).
  bool checksBounds() const { return boundsChecks; }
  /// Emits `const kiln_index_t g = ...;` for an index read from data into a
  /// dimension of size |size|, |axis| of the indexed tensor, for the ONNX op
  /// |site| (a kiln::artifact::BoundsCheckSite), and returns the name. A
  /// negative index counts from the back once. Without bounds checks one
  /// still out of range is clamped into [0, size) (kiln_gather_index); with
  /// them it is recorded in the kernel's fault record and reads index 0.
  std::string wrapIndex(const std::string &value, int64_t size, int64_t axis,
                        unsigned site);
  /// As above, into a dim of |extents|, which may be a run-time extent.
  std::string wrapIndex(const std::string &value, const Extents &extents,
                        int64_t axis, unsigned site);

  /// A located error at |op| (or the kernel when null).
  mlir::InFlightDiagnostic error(mlir::Operation *op);

private:
  bool boundsChecks = false;
  struct Scope {
    llvm::StringMap<std::string> cache;
    unsigned id = 0;
  };
  std::string cacheKey(mlir::Value value, const ElementIndex &index) const;
  /// The cached expression of |value| at |index|, or null.
  const std::string *lookup(mlir::Value value, const ElementIndex &index) const;
  /// Emits the chain of elementwise operands below |value| at |index|
  /// bottom-up, so that emitting |value| finds them cached instead of
  /// recursing once per op.
  mlir::LogicalResult emitChainBottomUp(mlir::Value value,
                                        const ElementIndex &index);

  KernelOp kernel;
  /// The ranged dims the kernel takes as parameters, in parameter order.
  std::vector<std::string> dimParameters;
  std::string code;
  std::string globalDecls;
  unsigned indent = 1;
  unsigned counter = 0;
  /// Nesting of emit() calls, which emitChainBottomUp keeps bounded.
  unsigned depth = 0;
  std::vector<Scope> scopes;
  unsigned scopesOpened = 0;
  llvm::DenseMap<mlir::Value, unsigned> valueIds;
  ValueOverride valueOverride;
  LoadOverride loadOverride;
  /// Values emitOwnModel is computing, which the value override passes over.
  llvm::DenseSet<mlir::Value> ownModel;
  llvm::StringMap<std::string> vectorLanes;
  int64_t vectorLaneWidth = 1;
};

/// A tensor type's shape as the templates index it (kiln::shapeOf is the
/// type's): static, except in a kernel with run-time extents.
/// Several run-time extents in leading dims come back collapsed into one,
/// the last of them, with the dims before it 1 ([?, ?, 768] is [1, ?, 768]):
/// the contract has every value of such a kernel agree on its prefix, so the
/// collapsed indices are the same and no index needs an extent's value. In
/// a kernel that indexes run-time extents by value
/// (kernelIndexesRunTimeExtentsByValue) the shape is the type's, and the
/// models take the run-time dims' texts from ElementalEmitter::extentsOf.
llvm::ArrayRef<int64_t> indexedShapeOf(mlir::Value value);
mlir::Type elementTypeOf(mlir::Value value);
/// The product of |shape|'s dims; ShapedType::kDynamic when one is dynamic.
int64_t elementCount(llvm::ArrayRef<int64_t> shape);
/// |text| in parentheses unless it is a name, a number or one group already.
std::string parenthesize(const std::string &text);

} // namespace kiln

#endif // KILN_TARGET_CUDA_ELEMENTALEMITTER_H
