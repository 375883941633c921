// The shapes of a session of an artifact with run-time extents (format 3,
// issue 18): each ranged dim's value for the next run, set through the
// inputs' shapes and checked against its range, and what follows from them:
// the outputs' shapes, buffer sizes, and each launch's grid and dim
// parameters.
#ifndef KILN_RUNTIME_RUN_TIME_SHAPES_H
#define KILN_RUNTIME_RUN_TIME_SHAPES_H

#include "dim_exprs.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kiln::runtime {

class RunTimeShapes {
public:
  /// Reads the ranges and expressions of |entry| (validated manifests
  /// only). Every ranged dim starts at its range's hi: the shapes
  /// kiln_model_input_info describes.
  static kiln_status_t create(const kiln::artifact::Model &model,
                              const kiln::artifact::EntryPoint &entry,
                              RunTimeShapes *out);

  /// Whether the artifact has ranged dims at all.
  bool ranged() const { return !ranges.empty(); }

  /// Sets input |index|'s shape for the next runs: each dim must be its
  /// static size or a value of its ranged dim's range, and dims that are
  /// expressions of ranged dims must agree with them. INVALID_ARGUMENT
  /// naming the input, the dim, its name and the range otherwise; nothing
  /// changes then.
  kiln_status_t setInputShape(size_t index, const int64_t *dims, size_t rank);

  /// The shape of input or output |index| at the current values.
  std::vector<int64_t> inputShape(size_t index) const;
  std::vector<int64_t> outputShape(size_t index) const;

  /// The bytes of buffer |id| at the current values (its manifest bytes
  /// when it has no run-time extents).
  uint64_t bufferBytes(uint32_t id) const;

  /// Whether step |index| is a launch with run-time extents; its grid.x and
  /// the `long long` values of its dim parameters at the current values.
  bool hasLaunchExtents(size_t index) const;
  /// What launch |index| runs at the current values: |bucket|, the first
  /// bucket (LaunchBucket) whose max_count admits its element count, or -1
  /// for the step's own kernel; |gridX|, that kernel's grid.x for the count.
  struct LaunchChoice {
    int bucket = -1;
    uint32_t gridX = 1;
  };
  LaunchChoice launchChoice(size_t index) const;
  std::vector<long long> launchDims(size_t index) const;

  /// The current value of each ranged dim, in manifest order (a key for
  /// the CUDA graph captured at these shapes).
  const std::vector<int64_t> &values() const { return dims; }
  /// "batch = 7, seq = 77", for messages.
  std::string describeValues() const;

private:
  struct Range {
    std::string name;
    int64_t lo = 1, hi = 1, opt = 1;
  };
  struct Extents {
    std::vector<DimExpression> dims;     // Empty: static.
    std::vector<int64_t> staticShape;    // The manifest's shape.
    uint64_t elementBytes = 0, bytes = 0;
  };
  struct Bucket {
    uint64_t maxCount = 0, unitsPerBlock = 1;
    uint32_t maxGrid = 1;
  };
  struct Launch {
    bool ranged = false;
    DimExpression count = DimExpression::constant(0);
    std::vector<uint32_t> dims;
    uint64_t unitsPerBlock = 1;
    uint32_t maxGrid = 1;
    std::vector<Bucket> buckets; // By ascending maxCount.
  };
  std::vector<int64_t> shapeAt(const Extents &extents) const;
  std::string describeValues(const std::vector<int64_t> &values) const;

  std::vector<Range> ranges;
  std::vector<int64_t> dims;
  std::vector<std::string> inputNames;
  std::vector<Extents> inputs, outputs, buffers;
  std::vector<Launch> launches;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_RUN_TIME_SHAPES_H
