// Run-time shapes of a format-3 session: range checks of the inputs' shapes,
// and the shapes, sizes, grids and dim parameters that follow from them.
#include "run_time_shapes.h"

#include <algorithm>

#include "artifact_reader.h"
#include "status.h"

#include "kiln/escaped_text.h"

namespace kiln::runtime {

using namespace kiln::artifact;

namespace {
template <typename T> uint32_t count(const flatbuffers::Vector<T> *vector) {
  return vector ? vector->size() : 0;
}

} // namespace

kiln_status_t RunTimeShapes::create(const Model &model,
                                    const EntryPoint &entry,
                                    RunTimeShapes *out) {
  RunTimeShapes shapes;
  std::vector<std::string> names = dimRangeNames(model);
  for (uint32_t i = 0; i < count(model.dim_ranges()); ++i) {
    const DimRange &range = *model.dim_ranges()->Get(i);
    shapes.ranges.push_back({names[i], range.lo(), range.hi(), range.opt()});
    shapes.dims.push_back(range.hi());
  }
  // The validator has parsed every expression: failures here are internal.
  auto read = [&](const flatbuffers::Vector<flatbuffers::Offset<
                      flatbuffers::String>> *exprs,
                  const flatbuffers::Vector<int64_t> *shape, DType dtype,
                  uint64_t bytes, Extents *extents) -> kiln_status_t {
    for (uint32_t d = 0; d < count(shape); ++d)
      extents->staticShape.push_back(shape->Get(d));
    extents->elementBytes = dtypeSize(dtype);
    extents->bytes = bytes;
    for (uint32_t d = 0; d < count(exprs); ++d) {
      std::string why;
      std::optional<DimExpression> expression =
          DimExpression::parse(exprs->Get(d)->str(), names, &why);
      if (!expression)
        return Error(KILN_STATUS_INTERNAL)
               << "a validated dim expression does not parse: " << why;
      extents->dims.push_back(*expression);
    }
    return nullptr;
  };
  for (uint32_t i = 0; i < count(entry.buffers()); ++i) {
    const Buffer &buffer = *entry.buffers()->Get(i);
    shapes.buffers.emplace_back();
    KILN_RETURN_IF_ERROR(read(buffer.dim_exprs(), buffer.shape(),
                              buffer.dtype(), buffer.bytes(),
                              &shapes.buffers.back()));
  }
  for (bool input : {true, false}) {
    auto *list = input ? entry.inputs() : entry.outputs();
    for (uint32_t i = 0; i < count(list); ++i) {
      const TensorSignature &tensor = *list->Get(i);
      auto &target = input ? shapes.inputs : shapes.outputs;
      target.emplace_back();
      KILN_RETURN_IF_ERROR(read(
          tensor.dim_exprs(), tensor.shape(), tensor.dtype(),
          entry.buffers()->Get(tensor.buffer())->bytes(), &target.back()));
      if (input)
        shapes.inputNames.push_back(tensor.name()->str());
    }
  }
  for (uint32_t i = 0; i < count(entry.steps()); ++i) {
    const Step &step = *entry.steps()->Get(i);
    Launch launch;
    if (const LaunchExtents *extents = step.run_time_extents()) {
      std::string why;
      std::optional<DimExpression> countExpression = DimExpression::parse(
          extents->element_count()->str(), names, &why);
      if (!countExpression)
        return Error(KILN_STATUS_INTERNAL)
               << "a validated element count does not parse: " << why;
      launch.ranged = true;
      launch.count = *countExpression;
      // The kernel's dim parameters, in manifest order (validated).
      for (uint32_t a = 0; a < count(extents->dim_args()); ++a)
        launch.dims.push_back(
            uint32_t(std::find(names.begin(), names.end(),
                               extents->dim_args()->Get(a)->str()) -
                     names.begin()));
      launch.unitsPerBlock = extents->units_per_block();
      launch.maxGrid = step.grid()->Get(0);
      for (uint32_t b = 0; b < count(extents->buckets()); ++b) {
        const LaunchBucket &bucket = *extents->buckets()->Get(b);
        launch.buckets.push_back(
            {bucket.max_count(), bucket.units_per_block(), bucket.grid()});
      }
    }
    shapes.launches.push_back(std::move(launch));
  }
  *out = std::move(shapes);
  return nullptr;
}

kiln_status_t RunTimeShapes::setInputShape(size_t index, const int64_t *given,
                                           size_t rank) {
  const Extents &input = inputs[index];
  std::string name =
      "input '" + text::escapeName(inputNames[index].c_str()) + "'";
  if (rank != input.staticShape.size())
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << name << ": a shape of rank " << rank << " for a tensor of rank "
           << input.staticShape.size();
  std::vector<int64_t> next = dims;
  // Dims that are a ranged dim itself give its value.
  for (size_t d = 0; d < rank; ++d) {
    if (input.dims.empty() || !input.dims[d].asDim())
      continue;
    uint32_t dim = *input.dims[d].asDim();
    const Range &range = ranges[dim];
    if (given[d] < range.lo || given[d] > range.hi)
      return Error(KILN_STATUS_INVALID_ARGUMENT)
             << name << ": dim " << d << " ('" << range.name << "') is "
             << given[d] << ", outside its range " << range.lo << ".."
             << range.hi;
    next[dim] = given[d];
  }
  // Every dim must then be what its extent says: a static size, or an
  // expression of the ranged dims.
  for (size_t d = 0; d < rank; ++d) {
    std::optional<int64_t> expected =
        input.dims.empty() ? std::optional<int64_t>(input.staticShape[d])
                           : input.dims[d].evaluate(next);
    if (expected != given[d])
      return Error(KILN_STATUS_INVALID_ARGUMENT)
             << name << ": dim " << d << " is " << given[d]
             << " but the artifact's is "
             << (expected ? std::to_string(*expected) : std::string("?"))
             << (input.dims.empty() ? std::string(" (static)")
                                    : " (at " + describeValues(next) + ")");
  }
  dims = std::move(next);
  return nullptr;
}

std::vector<int64_t> RunTimeShapes::shapeAt(const Extents &extents) const {
  if (extents.dims.empty())
    return extents.staticShape;
  std::vector<int64_t> shape;
  for (const DimExpression &dim : extents.dims)
    shape.push_back(dim.evaluate(dims).value_or(0));
  return shape;
}

std::vector<int64_t> RunTimeShapes::inputShape(size_t index) const {
  return shapeAt(inputs[index]);
}

std::vector<int64_t> RunTimeShapes::outputShape(size_t index) const {
  return shapeAt(outputs[index]);
}

uint64_t RunTimeShapes::bufferBytes(uint32_t id) const {
  const Extents &buffer = buffers[id];
  if (buffer.dims.empty())
    return buffer.bytes;
  uint64_t bytes = buffer.elementBytes;
  for (int64_t dim : shapeAt(buffer))
    bytes *= uint64_t(dim);
  return bytes;
}

bool RunTimeShapes::hasLaunchExtents(size_t index) const {
  return index < launches.size() && launches[index].ranged;
}

RunTimeShapes::LaunchChoice RunTimeShapes::launchChoice(size_t index) const {
  const Launch &launch = launches[index];
  uint64_t elements =
      uint64_t(std::max<int64_t>(launch.count.evaluate(dims).value_or(0), 0));
  LaunchChoice choice;
  for (size_t b = 0; b < launch.buckets.size() && choice.bucket < 0; ++b)
    if (elements <= launch.buckets[b].maxCount)
      choice.bucket = int(b);
  uint64_t units = choice.bucket < 0
                       ? launch.unitsPerBlock
                       : launch.buckets[choice.bucket].unitsPerBlock;
  uint32_t maxGrid = choice.bucket < 0 ? launch.maxGrid
                                       : launch.buckets[choice.bucket].maxGrid;
  uint64_t blocks = (elements + units - 1) / units;
  choice.gridX =
      uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(blocks, maxGrid)));
  return choice;
}

std::vector<long long> RunTimeShapes::launchDims(size_t index) const {
  std::vector<long long> values;
  for (uint32_t dim : launches[index].dims)
    values.push_back(dims[dim]);
  return values;
}

std::string RunTimeShapes::describeValues() const {
  return describeValues(dims);
}

std::string
RunTimeShapes::describeValues(const std::vector<int64_t> &values) const {
  std::string text;
  for (size_t i = 0; i < ranges.size(); ++i)
    text += (i ? ", " : "") + ranges[i].name + " = " +
            std::to_string(values[i]);
  return text;
}

} // namespace kiln::runtime
