// Checks every index and size in a verified manifest, so that later code can
// index without checks.
#include "artifact_reader.h"
#include "dim_exprs.h"
#include "library_step_validation.h"
#include "status.h"

#include "kiln/artifact_format.h"

#include <set>

namespace kiln::runtime {

using namespace kiln::artifact;

namespace {

constexpr uint32_t kMaxStreams = 64;
constexpr uint32_t kMaxEvents = 1u << 16;
/// CUDA's launch limits (every GPU since compute capability 3.0): a grid of
/// at most (2^31 - 1) x 65535 x 65535 blocks, a block of at most
/// 1024 x 1024 x 64 threads and 1024 threads in all.
constexpr uint32_t kMaxGridDims[3] = {(1u << 31) - 1, 65535, 65535};
constexpr uint32_t kMaxBlockDims[3] = {1024, 1024, 64};
constexpr uint64_t kMaxBlockThreads = 1024;

/// DATA_LOSS unless an arena or workspace size is within kMaxArenaBytes.
kiln_status_t checkArenaSize(uint64_t bytes, const std::string &what) {
  if (bytes > kMaxArenaBytes)
    return Error(KILN_STATUS_DATA_LOSS)
           << what << " of " << bytes
           << " bytes is beyond the runtime's limit of " << kMaxArenaBytes
           << " bytes";
  return nullptr;
}

/// DATA_LOSS unless an arena offset is a multiple of kSectionAlignment (what
/// the packager writes; kernels and cuBLASLt rely on it).
kiln_status_t checkArenaOffset(uint64_t offset, const std::string &what) {
  if (offset % kSectionAlignment != 0)
    return Error(KILN_STATUS_DATA_LOSS)
           << what << ": offset " << offset << " is not a multiple of "
           << kSectionAlignment;
  return nullptr;
}

template <typename T> uint32_t count(const flatbuffers::Vector<T> *vector) {
  return vector ? vector->size() : 0;
}

/// |a + b <= limit| without overflow.
bool fits(uint64_t offset, uint64_t bytes, uint64_t limit) {
  return offset <= limit && bytes <= limit - offset;
}

/// Bytes of a dense tensor of |shape| and |dtype| with checked arithmetic;
/// DATA_LOSS naming |what| on an invalid dtype, a negative dim, or a size
/// beyond kMaxArenaBytes (so no later size computed from it overflows).
kiln_status_t denseBytes(const flatbuffers::Vector<int64_t> *shape, DType dtype,
                         const std::string &what, uint64_t *bytes) {
  uint64_t total = dtypeSize(dtype);
  if (total == 0)
    return Error(KILN_STATUS_DATA_LOSS)
           << what << ": invalid dtype " << int(dtype);
  for (uint32_t i = 0; i < count(shape); ++i) {
    int64_t dim = shape->Get(i);
    if (dim < 0)
      return Error(KILN_STATUS_DATA_LOSS)
             << what << ": dimension " << i << " is " << dim;
    if (dim > 0 && total > kMaxArenaBytes / static_cast<uint64_t>(dim))
      return Error(KILN_STATUS_DATA_LOSS) << what << ": a tensor of more than "
                                          << kMaxArenaBytes << " bytes";
    total *= static_cast<uint64_t>(dim);
  }
  *bytes = total;
  return nullptr;
}

/// DATA_LOSS unless |buffer|'s shape is valid and its bytes hold a tensor
/// of that shape and dtype (the packager writes exactly that size).
kiln_status_t checkBufferShape(const Buffer &buffer, const std::string &what) {
  uint64_t bytes = 0;
  KILN_RETURN_IF_ERROR(
      denseBytes(buffer.shape(), buffer.dtype(), what, &bytes));
  if (buffer.bytes() < bytes)
    return Error(KILN_STATUS_DATA_LOSS)
           << what << ": " << buffer.bytes() << " bytes, but its shape and "
           << "dtype need " << bytes;
  return nullptr;
}

class EntryPointValidator {
public:
  EntryPointValidator(const Model &model, const EntryPoint &entry,
                      uint32_t index)
      : model(model), entry(entry), numBuffers(count(entry.buffers())) {
    where = "entry point " + std::to_string(index) + " ('" + shownName(entry.name()) +
            "')";
  }

  kiln_status_t validate() {
    if (entry.num_streams() > kMaxStreams || entry.num_events() > kMaxEvents)
      return Error(KILN_STATUS_DATA_LOSS)
             << where << ": " << entry.num_streams() << " streams and "
             << entry.num_events() << " events is beyond the runtime's limits";
    KILN_RETURN_IF_ERROR(checkArenaSize(entry.activation_arena_bytes(),
                                        where + ": an activation arena"));
    KILN_RETURN_IF_ERROR(
        checkArenaSize(entry.workspace_bytes(), where + ": a workspace"));
    for (uint32_t i = 0; i < numBuffers; ++i)
      KILN_RETURN_IF_ERROR(validateBuffer(i));
    KILN_RETURN_IF_ERROR(
        validateSignature(entry.inputs(), BufferKind_Input, "input"));
    KILN_RETURN_IF_ERROR(
        validateSignature(entry.outputs(), BufferKind_Output, "output"));
    for (uint32_t i = 0; i < count(entry.steps()); ++i)
      KILN_RETURN_IF_ERROR(
          annotate(validateStep(*entry.steps()->Get(i)),
                   where + " step " + std::to_string(i) + " ('" +
                       shownName(entry.steps()->Get(i)->name()) + "')"));
    return nullptr;
  }

private:
  kiln_status_t validateBuffer(uint32_t id) {
    const Buffer &buffer = *entry.buffers()->Get(id);
    std::string name = where + " buffer " + std::to_string(id);
    KILN_RETURN_IF_ERROR(checkBufferShape(buffer, name));
    KILN_RETURN_IF_ERROR(
        validateDimExprs(buffer.dim_exprs(), buffer.shape(), model, name));
    switch (buffer.kind()) {
    case BufferKind_Input:
    case BufferKind_Output: {
      uint32_t ios = buffer.kind() == BufferKind_Input ? count(entry.inputs())
                                                       : count(entry.outputs());
      if (buffer.io_index() >= ios)
        return Error(KILN_STATUS_DATA_LOSS)
               << name << ": io_index " << buffer.io_index()
               << " but the signature has " << ios;
      return nullptr;
    }
    case BufferKind_Weight:
      KILN_RETURN_IF_ERROR(checkArenaOffset(buffer.offset(), name));
      if (!fits(buffer.offset(), buffer.bytes(), model.weight_arena_bytes()))
        return Error(KILN_STATUS_DATA_LOSS)
               << name << ": [" << buffer.offset() << ", +" << buffer.bytes()
               << ") is outside the " << model.weight_arena_bytes()
               << "-byte weight arena";
      return nullptr;
    case BufferKind_Activation:
      KILN_RETURN_IF_ERROR(checkArenaOffset(buffer.offset(), name));
      if (!fits(buffer.offset(), buffer.bytes(),
                entry.activation_arena_bytes()))
        return Error(KILN_STATUS_DATA_LOSS)
               << name << ": [" << buffer.offset() << ", +" << buffer.bytes()
               << ") is outside the " << entry.activation_arena_bytes()
               << "-byte activation arena";
      return nullptr;
    case BufferKind_Alias: {
      // Follow the chain; it must end at a non-alias within numBuffers hops,
      // and the bytes it views (from the chain's summed offsets, each a
      // multiple of 256) must lie in that buffer.
      uint32_t target = id;
      uint64_t offset = 0;
      for (uint32_t hops = 0; hops <= numBuffers; ++hops) {
        const Buffer &link = *entry.buffers()->Get(target);
        KILN_RETURN_IF_ERROR(checkArenaOffset(link.offset(), name));
        if (link.offset() > kMaxArenaBytes - offset)
          return Error(KILN_STATUS_DATA_LOSS)
                 << name << ": alias offsets beyond " << kMaxArenaBytes
                 << " bytes";
        offset += link.offset();
        uint32_t next = link.alias_of();
        if (next >= numBuffers)
          return Error(KILN_STATUS_DATA_LOSS)
                 << name << ": alias_of " << next
                 << " is not a buffer (there are " << numBuffers << ")";
        target = next;
        if (entry.buffers()->Get(target)->kind() != BufferKind_Alias) {
          // A slice view's range is static: of a static buffer, itself
          // static (run-time extents would move it).
          if (offset != 0 &&
              (count(buffer.dim_exprs()) != 0 ||
               count(entry.buffers()->Get(target)->dim_exprs()) != 0))
            return Error(KILN_STATUS_DATA_LOSS)
                   << name << ": a slice view (alias offset " << offset
                   << ") of or with run-time extents";
          if (!fits(offset, buffer.bytes(),
                    entry.buffers()->Get(target)->bytes()))
            return Error(KILN_STATUS_DATA_LOSS)
                   << name << ": an alias of " << buffer.bytes()
                   << " bytes at offset " << offset << " views buffer "
                   << target << " of " << entry.buffers()->Get(target)->bytes();
          return nullptr;
        }
      }
      return Error(KILN_STATUS_DATA_LOSS)
             << name << ": its alias_of chain is a cycle";
    }
    }
    return Error(KILN_STATUS_DATA_LOSS)
           << name << ": invalid kind " << int(buffer.kind());
  }

  kiln_status_t validateSignature(
      const flatbuffers::Vector<flatbuffers::Offset<TensorSignature>> *list,
      BufferKind kind, const char *what) {
    std::set<std::string> names;
    for (uint32_t i = 0; i < count(list); ++i) {
      const TensorSignature &tensor = *list->Get(i);
      std::string name = where + " " + what + " " + std::to_string(i) + " ('" +
                         shownName(tensor.name()) + "')";
      if (!tensor.name() || tensor.name()->size() == 0 ||
          !names.insert(str(tensor.name())).second)
        return Error(KILN_STATUS_DATA_LOSS)
               << name << ": missing or duplicate name";
      uint64_t bytes = 0;
      KILN_RETURN_IF_ERROR(
          denseBytes(tensor.shape(), tensor.dtype(), name, &bytes));
      if (tensor.buffer() >= numBuffers)
        return Error(KILN_STATUS_DATA_LOSS)
               << name << ": buffer " << tensor.buffer() << " but there are "
               << numBuffers;
      KILN_RETURN_IF_ERROR(
          validateDimExprs(tensor.dim_exprs(), tensor.shape(), model, name));
      const Buffer &buffer = *entry.buffers()->Get(tensor.buffer());
      if (count(tensor.dim_exprs()) != count(buffer.dim_exprs()))
        return Error(KILN_STATUS_DATA_LOSS)
               << name << ": its dim expressions are not its buffer's";
      if (buffer.kind() != kind || buffer.io_index() != i ||
          buffer.dtype() != tensor.dtype() || buffer.bytes() != bytes)
        return Error(KILN_STATUS_DATA_LOSS)
               << name << ": buffer " << tensor.buffer()
               << " does not match it (kind, io_index, dtype or " << bytes
               << " bytes)";
    }
    return nullptr;
  }

  kiln_status_t checkBuffer(int64_t id, const char *role) const {
    return checks.checkBuffer(id, role);
  }

  kiln_status_t checkWritable(uint32_t id, const char *role) const {
    return checks.checkWritable(id, role);
  }

  /// DATA_LOSS unless |dims| has 1 to 3 entries, each in [1, |limits|[i]],
  /// and (for a block) at most kMaxBlockThreads in all.
  static kiln_status_t checkDims(const flatbuffers::Vector<uint32_t> *dims,
                                 const char *what, const uint32_t *limits,
                                 uint64_t maxProduct) {
    if (count(dims) == 0 || count(dims) > 3)
      return Error(KILN_STATUS_DATA_LOSS) << what << " must have 1 to 3 dims";
    uint64_t product = 1;
    for (uint32_t i = 0; i < dims->size(); ++i) {
      if (dims->Get(i) == 0 || dims->Get(i) > limits[i])
        return Error(KILN_STATUS_DATA_LOSS)
               << what << "[" << i << "] = " << dims->Get(i)
               << " is outside CUDA's range [1, " << limits[i] << "]";
      product *= dims->Get(i);
    }
    if (product > maxProduct)
      return Error(KILN_STATUS_DATA_LOSS)
             << what << " of " << product << " threads is more than CUDA's "
             << maxProduct;
    return nullptr;
  }

  /// A launch's buckets (LaunchBucket): by ascending max_count below the
  /// ranges' largest count, each a kernel of the model launched with the
  /// step's arguments in a valid geometry.
  kiln_status_t validateBuckets(const Step &step) {
    const LaunchExtents *extents = step.run_time_extents();
    if (!extents || !extents->buckets())
      return nullptr;
    uint64_t previous = 0;
    for (uint32_t b = 0; b < extents->buckets()->size(); ++b) {
      const LaunchBucket &bucket = *extents->buckets()->Get(b);
      std::string what = "bucket " + std::to_string(b);
      if (bucket.max_count() <= previous)
        return Error(KILN_STATUS_DATA_LOSS)
               << what << ": max_count " << bucket.max_count()
               << " is not above the previous bucket's";
      previous = bucket.max_count();
      if (bucket.kernel() >= count(model.kernels()))
        return Error(KILN_STATUS_DATA_LOSS)
               << what << ": kernel " << bucket.kernel() << " but there are "
               << count(model.kernels());
      if (bucket.grid() == 0 || bucket.block() == 0 ||
          bucket.block() > kMaxBlockThreads || bucket.units_per_block() == 0)
        return Error(KILN_STATUS_DATA_LOSS)
               << what << ": grid " << bucket.grid() << ", block "
               << bucket.block() << " and " << bucket.units_per_block()
               << " units per block";
      if (parameterCounts[bucket.kernel()] != count(step.args()))
        return Error(KILN_STATUS_DATA_LOSS)
               << what << ": kernel " << bucket.kernel() << " is launched with "
               << count(step.args()) << " arguments here and "
               << parameterCounts[bucket.kernel()] << " elsewhere";
    }
    return nullptr;
  }

  kiln_status_t validateStep(const Step &step) {
    if (step.stream() >= std::max<uint32_t>(entry.num_streams(), 1))
      return Error(KILN_STATUS_DATA_LOSS)
             << "stream " << step.stream() << " but there are "
             << entry.num_streams();
    for (uint32_t i = 0; i < count(step.args()); ++i)
      KILN_RETURN_IF_ERROR(checkBuffer(step.args()->Get(i), "argument"));
    switch (step.kind()) {
    case StepKind_Launch:
      if (step.kernel() >= count(model.kernels()))
        return Error(KILN_STATUS_DATA_LOSS)
               << "kernel " << step.kernel() << " but there are "
               << count(model.kernels());
      KILN_RETURN_IF_ERROR(
          checkDims(step.grid(), "grid", kMaxGridDims, UINT64_MAX));
      KILN_RETURN_IF_ERROR(
          checkDims(step.block(), "block", kMaxBlockDims, kMaxBlockThreads));
      if (count(step.args()) > kMaxKernelParameters)
        return Error(KILN_STATUS_DATA_LOSS)
               << count(step.args()) << " kernel arguments";
      KILN_RETURN_IF_ERROR(validateLaunchExtents(step, model));
      if (step.outputs() > count(step.args()))
        return Error(KILN_STATUS_DATA_LOSS)
               << step.outputs() << " outputs among " << count(step.args())
               << " kernel arguments";
      for (uint32_t i = count(step.args()) - step.outputs();
           i < count(step.args()); ++i)
        KILN_RETURN_IF_ERROR(checkWritable(step.args()->Get(i), "output"));
      // Every launch of a kernel passes its parameters: the same count.
      if (step.kernel() < parameterCounts.size() &&
          parameterCounts[step.kernel()] != count(step.args()))
        return Error(KILN_STATUS_DATA_LOSS)
               << "kernel " << step.kernel() << " is launched with "
               << count(step.args()) << " arguments here and "
               << parameterCounts[step.kernel()] << " elsewhere";
      return validateBuckets(step);
    case StepKind_Gemm:
      KILN_RETURN_IF_ERROR(validateGemmStep(checks, step.gemm()));
      return validateLibraryExtent(step, model);
    case StepKind_Conv:
      KILN_RETURN_IF_ERROR(validateConvStep(checks, step.conv()));
      return validateLibraryExtent(step, model);
    case StepKind_Copy:
      if (count(step.args()) != 2)
        return Error(KILN_STATUS_DATA_LOSS) << "a copy needs 2 arguments";
      KILN_RETURN_IF_ERROR(
          checkWritable(step.args()->Get(1), "copy destination"));
      if (entry.buffers()->Get(step.args()->Get(0))->bytes() <
          entry.buffers()->Get(step.args()->Get(1))->bytes())
        return Error(KILN_STATUS_DATA_LOSS)
               << "the copy source is smaller than its destination";
      return nullptr;
    case StepKind_RecordEvent:
    case StepKind_WaitEvent:
      if (step.event() >= entry.num_events())
        return Error(KILN_STATUS_DATA_LOSS)
               << "event " << step.event() << " but there are "
               << entry.num_events();
      return nullptr;
    }
    return Error(KILN_STATUS_DATA_LOSS)
           << "invalid step kind " << int(step.kind());
  }

  const Model &model;
  const EntryPoint &entry;
  uint32_t numBuffers;
  BufferChecks checks{entry, numBuffers};
  std::string where;
  std::vector<uint32_t> parameterCounts = kernelParameterCounts(model);
};

} // namespace

std::vector<uint32_t> kernelParameterCounts(const Model &model) {
  std::vector<uint32_t> counts(count(model.kernels()), kNotLaunched);
  for (uint32_t e = 0; e < count(model.entry_points()); ++e) {
    const EntryPoint &entry = *model.entry_points()->Get(e);
    for (uint32_t s = 0; s < count(entry.steps()); ++s) {
      const Step &step = *entry.steps()->Get(s);
      if (step.kind() != StepKind_Launch)
        continue;
      // The step's kernel and its buckets' take the same parameters.
      std::vector<uint32_t> kernels = {step.kernel()};
      if (const LaunchExtents *extents = step.run_time_extents())
        for (uint32_t b = 0; b < count(extents->buckets()); ++b)
          kernels.push_back(extents->buckets()->Get(b)->kernel());
      for (uint32_t kernel : kernels)
        if (kernel < counts.size() && counts[kernel] == kNotLaunched)
          counts[kernel] = count(step.args());
    }
  }
  return counts;
}

kiln_status_t BufferChecks::checkBuffer(int64_t id, const char *role) const {
  if (id < 0 || id >= numBuffers)
    return Error(KILN_STATUS_DATA_LOSS)
           << role << " buffer " << id << " is not a buffer (there are "
           << numBuffers << ")";
  return nullptr;
}

kiln_status_t BufferChecks::checkWritable(uint32_t id,
                                          const char *role) const {
  const Buffer *buffer = entry.buffers()->Get(id);
  while (buffer->kind() == BufferKind_Alias)
    buffer = entry.buffers()->Get(buffer->alias_of());
  BufferKind kind = buffer->kind();
  // The init program writes the derived weights.
  bool isInit = entry.name() && entry.name()->str() == kInitEntryPoint;
  if (kind == BufferKind_Input || (kind == BufferKind_Weight && !isInit))
    return Error(KILN_STATUS_DATA_LOSS)
           << role << " buffer " << id
           << " is an input or weight, which are read-only";
  return nullptr;
}

kiln_status_t validateManifest(const Model &model) {
  KILN_RETURN_IF_ERROR(validateDimRanges(model));
  uint32_t sections = count(model.sections());
  for (uint32_t i = 0; i < count(model.kernels()); ++i) {
    const Kernel &kernel = *model.kernels()->Get(i);
    std::string name =
        "kernel " + std::to_string(i) +  " ('" + shownName(kernel.symbol()) + "')";
    if (!kernel.symbol() || kernel.symbol()->size() == 0)
      return Error(KILN_STATUS_DATA_LOSS) << name << ": no symbol";
    for (uint32_t j = 0; j < count(kernel.images()); ++j)
      if (kernel.images()->Get(j)->section() >= sections)
        return Error(KILN_STATUS_DATA_LOSS)
               << name << ": image section "
               << kernel.images()->Get(j)->section() << " but there are "
               << sections;
    if (kernel.ptx_section() < -1 || kernel.ptx_section() >= int64_t(sections))
      return Error(KILN_STATUS_DATA_LOSS)
             << name << ": ptx_section " << kernel.ptx_section()
             << " but there are " << sections;
    if (count(kernel.images()) == 0 && kernel.ptx_section() < 0)
      return Error(KILN_STATUS_DATA_LOSS) << name << ": neither cubins nor PTX";
  }
  KILN_RETURN_IF_ERROR(
      checkArenaSize(model.weight_arena_bytes(), "a weight arena"));
  uint32_t weightBuffers = count(model.weight_buffers());
  for (uint32_t i = 0; i < weightBuffers; ++i) {
    const Buffer &buffer = *model.weight_buffers()->Get(i);
    KILN_RETURN_IF_ERROR(
        checkBufferShape(buffer, "weight buffer " + std::to_string(i)));
    KILN_RETURN_IF_ERROR(checkArenaOffset(
        buffer.offset(), "weight buffer " + std::to_string(i)));
    if (buffer.kind() != BufferKind_Weight ||
        !fits(buffer.offset(), buffer.bytes(), model.weight_arena_bytes()))
      return Error(KILN_STATUS_DATA_LOSS)
             << "weight buffer " << i << ": not a weight inside the "
             << model.weight_arena_bytes() << "-byte weight arena";
  }
  for (uint32_t i = 0; i < count(model.weights()); ++i) {
    const Weight &weight = *model.weights()->Get(i);
    std::string name = "weight " + std::to_string(i);
    if (weight.buffer() >= weightBuffers)
      return Error(KILN_STATUS_DATA_LOSS)
             << name << ": buffer " << weight.buffer() << " but there are "
             << weightBuffers;
    uint64_t bytes = model.weight_buffers()->Get(weight.buffer())->bytes();
    if (weight.section() >= 0) {
      if (weight.section() >= int64_t(sections) ||
          model.sections()->Get(weight.section())->size() != bytes)
        return Error(KILN_STATUS_DATA_LOSS)
               << name << ": section " << weight.section()
               << " is not a section of " << bytes << " bytes";
    } else if (!weight.external_file() || weight.external_file()->size() == 0 ||
               weight.external_length() != bytes || weight.section() != -1) {
      return Error(KILN_STATUS_DATA_LOSS)
             << name << ": neither an inline section nor an external range of "
             << bytes << " bytes";
    }
  }
  for (uint32_t i = 0; i < count(model.entry_points()); ++i) {
    EntryPointValidator validator(model, *model.entry_points()->Get(i), i);
    KILN_RETURN_IF_ERROR(validator.validate());
  }
  // Slice views (an alias at an offset) are what format 4 adds: a runtime
  // before it would read them at the viewed buffer's start.
  bool views = hasSliceViews(model);
  if (views != (model.format_version() == kSliceViewsFormatVersion))
    return Error(KILN_STATUS_DATA_LOSS)
           << "format " << model.format_version()
           << (views ? " with" : " without") << " slice views (format "
           << kSliceViewsFormatVersion << " has them, others not)";
  return nullptr;
}

bool hasSliceViews(const Model &model) {
  for (uint32_t e = 0; e < count(model.entry_points()); ++e) {
    const EntryPoint &entry = *model.entry_points()->Get(e);
    for (uint32_t b = 0; b < count(entry.buffers()); ++b) {
      const Buffer &buffer = *entry.buffers()->Get(b);
      if (buffer.kind() == BufferKind_Alias && buffer.offset() != 0)
        return true;
    }
  }
  return false;
}

} // namespace kiln::runtime
