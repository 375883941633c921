// Library steps with a run-time extent (issue 18): a Gemm's M or a Conv's N
// as an expression of the ranged dims; the step's table and its cuBLASLt or
// cuDNN plan per value of the extent, the algorithm chosen at the first run
// with that value and kept for later runs (and their CUDA graphs).
#include "session.h"
#include "status.h"

namespace kiln::runtime {

using namespace kiln::artifact;

namespace {

/// The step's run-time extent (Gemm.m_expr, Conv.n_expr), if it has one.
const flatbuffers::String *extentText(const Step &step) {
  if (step.kind() == StepKind_Gemm)
    return step.gemm()->m_expr();
  return step.conv()->n_expr();
}

/// |step|'s table with its extent at |value|: a Gemm of |value| rows (one
/// product, so the strides are those of one matrix), a Conv of batch
/// |value|.
flatbuffers::DetachedBuffer tableAt(const Step &step, int64_t value) {
  flatbuffers::FlatBufferBuilder builder;
  if (step.kind() == StepKind_Gemm) {
    GemmT gemm;
    step.gemm()->UnPackTo(&gemm);
    gemm.m = value;
    gemm.stride_a = value * gemm.k;
    gemm.stride_out = value * gemm.n;
    if (gemm.c >= 0)
      gemm.stride_c = gemm.stride_out;
    builder.Finish(Gemm::Pack(builder, &gemm));
  } else {
    ConvT conv;
    step.conv()->UnPackTo(&conv);
    conv.n = value;
    builder.Finish(Conv::Pack(builder, &conv));
  }
  return builder.Release();
}

/// Builds |prepared|'s plan for its extent's current value from a table
/// made for it (the algorithm not chosen yet).
kiln_status_t buildPlanAtValue(kiln_session_s *session, const Step &step,
                               PreparedStep &prepared, int64_t value) {
  prepared.libraryExtentValue = value;
  prepared.libraryTable = tableAt(step, value);
  prepared.algorithmChosen = false;
  prepared.algorithm.clear();
  if (step.kind() == StepKind_Gemm)
    return prepareGemm(
        session, *flatbuffers::GetRoot<Gemm>(prepared.libraryTable.data()),
        prepared);
  return prepareConv(session,
                     *flatbuffers::GetRoot<Conv>(prepared.libraryTable.data()),
                     prepared);
}

/// The extent's value at the session's current shapes, within the table's
/// value at the ranges' maximum (the validator checked that one).
kiln_status_t currentValue(const kiln_session_s &session,
                           const PreparedStep &prepared, int64_t largest,
                           int64_t *value) {
  std::optional<int64_t> evaluated =
      prepared.libraryExtent->evaluate(session.shapes.values());
  if (!evaluated || *evaluated < 1 || *evaluated > largest)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "the run-time extent of the library call is "
           << (evaluated ? std::to_string(*evaluated) : "out of range")
           << " at " << session.shapes.describeValues() << ", outside 1.."
           << largest;
  *value = *evaluated;
  return nullptr;
}

int64_t largestValue(const Step &step) {
  return step.kind() == StepKind_Gemm ? step.gemm()->m() : step.conv()->n();
}

} // namespace

kiln_status_t prepareLibraryStep(kiln_session_s *session, const Step &step,
                                 PreparedStep &prepared) {
  if (step.kind() == StepKind_Gemm) {
    const Gemm &gemm = *step.gemm();
    prepared.gemmBuffers[0] = gemm.a();
    prepared.gemmBuffers[1] = gemm.b();
    prepared.gemmBuffers[4] = gemm.out();
    prepared.gemmC = gemm.c();
    prepared.gemmBias = gemm.bias();
  } else {
    const Conv &conv = *step.conv();
    prepared.convBuffers[0] = conv.x();
    prepared.convBuffers[1] = conv.w();
    prepared.convBuffers[2] = conv.out();
    prepared.convBias = conv.bias();
    prepared.convResidual = conv.residual();
  }
  const flatbuffers::String *text = extentText(step);
  if (!text) {
    if (step.kind() == StepKind_Gemm)
      return prepareGemm(session, *step.gemm(), prepared);
    return prepareConv(session, *step.conv(), prepared);
  }
  // The validator parsed it against the ranges.
  std::string why;
  prepared.libraryExtent = DimExpression::parse(
      text->str(), dimRangeNames(session->model->manifest()), &why);
  if (!prepared.libraryExtent)
    return Error(KILN_STATUS_DATA_LOSS)
           << "run-time extent '" << text->str() << "': " << why;
  int64_t value = 0;
  KILN_RETURN_IF_ERROR(
      currentValue(*session, prepared, largestValue(step), &value));
  return buildPlanAtValue(session, step, prepared, value);
}

kiln_status_t useLibraryPlansAtShape(kiln_session_s *session, bool captured) {
  const EntryPoint &entry = *session->entry;
  bool built = false;
  for (size_t i = 0; i < session->steps.size(); ++i) {
    PreparedStep &prepared = session->steps[i];
    if (!prepared.libraryExtent)
      continue;
    const Step &step = *entry.steps()->Get(static_cast<uint32_t>(i));
    int64_t value = 0;
    KILN_RETURN_IF_ERROR(
        annotate(currentValue(*session, prepared, largestValue(step), &value),
                 prepared.describe(i)));
    if (value == prepared.libraryExtentValue)
      continue;
    auto kept = prepared.otherLibraryPlans.find(value);
    if (kept == prepared.otherLibraryPlans.end() && captured)
      return Error(KILN_STATUS_FAILED_PRECONDITION)
             << prepared.describe(i) << ": the first run at "
             << session->shapes.describeValues()
             << " chooses its library algorithms, which synchronises; run "
                "once at these shapes before capturing a run";
    // Keep the current plan: the CUDA graph captured with it replays it.
    ShapedLibraryPlan &parked =
        prepared.otherLibraryPlans[prepared.libraryExtentValue];
    parked.table = std::move(prepared.libraryTable);
    parked.gemm = std::move(prepared.gemm);
    parked.conv = std::move(prepared.conv);
    parked.algorithm = std::move(prepared.algorithm);
    if (kept != prepared.otherLibraryPlans.end()) {
      prepared.libraryExtentValue = value;
      prepared.libraryTable = std::move(kept->second.table);
      prepared.gemm = std::move(kept->second.gemm);
      prepared.conv = std::move(kept->second.conv);
      prepared.algorithm = std::move(kept->second.algorithm);
      prepared.algorithmChosen = true;
      prepared.otherLibraryPlans.erase(kept);
      continue;
    }
    KILN_RETURN_IF_ERROR(
        annotate(buildPlanAtValue(session, step, prepared, value),
                 prepared.describe(i)));
    built = true;
  }
  if (!built)
    return nullptr;
  // The choice runs on the session's own stream with the streams'
  // workspaces, which the previous run may still be using.
  if (session->hasRun)
    KILN_RETURN_IF_ERROR(cudaStatus(cudaEventSynchronize(session->runDone),
                                    "waiting for the previous run"));
  return chooseLibraryAlgorithms(session);
}

} // namespace kiln::runtime
