// kiln-schedule: assigns the launch DAG of a fused function to CUDA streams,
// with events for the dependencies that cross streams.
//
// Algorithm:
//  1. Build the launch DAG (LaunchGraph): kernels in program order, each with
//     the kernels it depends on through the memory it reads and writes.
//  2. Visit kernels in program order and pick a stream: the stream of the
//     first producer whose stream still ends with that producer (the kernel
//     continues the chain); else a new stream while fewer than `max-streams`
//     exist; else the first producer's stream, or, for a kernel without
//     producers, the stream whose last kernel is oldest.
//  3. Track a vector clock per stream (what each stream has seen of every
//     other one). For each producer the stream has not seen yet, latest
//     producer first, the producer records an event and the kernel waits on
//     it; producers already covered by an earlier wait add nothing. The first
//     kernel of a stream other than 0 that waits on nothing waits on the
//     fork event, recorded on stream 0 at entry (inputs are written there).
//  4. Join: stream 0 waits at the end on the last kernel of every stream it
//     has not seen the end of, so all work finishes on stream 0.
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNSCHEDULE
#include "kiln/Transforms/Passes.h.inc"

namespace {

using Clock = SmallVector<int64_t, 4>;

void mergeClock(Clock &into, const Clock &from) {
  for (size_t s = 0; s < into.size(); ++s)
    into[s] = std::max(into[s], from[s]);
}

struct StreamState {
  std::optional<unsigned> tail; // The last kernel on the stream.
  int64_t sequence = 0;         // Kernels on the stream so far.
};

struct ScheduleKernelsPass : impl::KilnScheduleBase<ScheduleKernelsPass> {
  using KilnScheduleBase::KilnScheduleBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (maxStreams < 1) {
      function.emitError("kiln-schedule: max-streams must be at least 1");
      return signalPassFailure();
    }
    FailureOr<LaunchGraph> graph = LaunchGraph::build(function);
    if (failed(graph))
      return signalPassFailure();
    unsigned limit = maxStreams;
    Builder builder(function.getContext());

    // Step 2: streams.
    SmallVector<unsigned> streamOf;
    SmallVector<StreamState> streams;
    for (auto [index, producers] : llvm::enumerate(graph->producers)) {
      std::optional<unsigned> chosen;
      for (unsigned producer : producers)
        if (streams[streamOf[producer]].tail == producer) {
          chosen = streamOf[producer];
          break;
        }
      if (!chosen && streams.size() < limit) {
        chosen = streams.size();
        streams.emplace_back();
      }
      if (!chosen && !producers.empty())
        chosen = streamOf[producers.front()];
      if (!chosen) {
        chosen = 0;
        for (unsigned s = 1; s < streams.size(); ++s)
          if (*streams[s].tail < *streams[*chosen].tail)
            chosen = s;
      }
      streamOf.push_back(*chosen);
      streams[*chosen].tail = index;
    }
    unsigned numStreams = std::max<size_t>(streams.size(), 1);

    // Step 3: events from vector clocks.
    for (StreamState &stream : streams) {
      stream.tail.reset();
      stream.sequence = 0;
    }
    SmallVector<Clock> streamClocks(numStreams, Clock(numStreams, 0));
    SmallVector<Clock> kernelClocks;
    SmallVector<int64_t> sequenceOf;
    SmallVector<std::optional<int64_t>> recordEvent(graph->kernels.size());
    int64_t numEvents = 0;
    std::optional<int64_t> forkEvent;
    auto eventOf = [&](unsigned kernel) {
      if (!recordEvent[kernel])
        recordEvent[kernel] = numEvents++;
      return *recordEvent[kernel];
    };
    for (auto [index, kernel] : llvm::enumerate(graph->kernels)) {
      unsigned stream = streamOf[index];
      Clock clock = streamClocks[stream];
      SmallVector<unsigned, 4> producers(graph->producers[index]);
      llvm::sort(producers, std::greater<unsigned>());
      SmallVector<int64_t> waits;
      for (unsigned producer : producers) {
        if (clock[streamOf[producer]] >= sequenceOf[producer])
          continue; // Already ordered: same stream or an earlier wait.
        waits.push_back(eventOf(producer));
        mergeClock(clock, kernelClocks[producer]);
      }
      if (stream != 0 && !streams[stream].tail && waits.empty()) {
        if (!forkEvent)
          forkEvent = numEvents++;
        waits.push_back(*forkEvent);
      }
      clock[stream] = ++streams[stream].sequence;
      streams[stream].tail = index;
      streamClocks[stream] = clock;
      kernelClocks.push_back(clock);
      sequenceOf.push_back(clock[stream]);

      kernel->setAttr(kStreamAttr, builder.getI64IntegerAttr(stream));
      if (waits.empty())
        kernel->removeAttr(kWaitEventsAttr);
      else
        kernel->setAttr(kWaitEventsAttr, builder.getDenseI64ArrayAttr(waits));
      kernel->removeAttr(kRecordEventAttr);
    }

    // Step 4: join every stream back into stream 0, latest tail first.
    SmallVector<unsigned> tails;
    for (unsigned s = 1; s < streams.size(); ++s)
      tails.push_back(*streams[s].tail);
    llvm::sort(tails, std::greater<unsigned>());
    SmallVector<int64_t> joins;
    Clock &mainClock = streamClocks[0];
    for (unsigned tail : tails) {
      if (mainClock[streamOf[tail]] >= sequenceOf[tail])
        continue;
      joins.push_back(eventOf(tail));
      mergeClock(mainClock, kernelClocks[tail]);
    }

    for (auto [index, kernel] : llvm::enumerate(graph->kernels))
      if (recordEvent[index])
        kernel->setAttr(kRecordEventAttr,
                        builder.getI64IntegerAttr(*recordEvent[index]));
    function->setAttr(kNumStreamsAttr, builder.getI64IntegerAttr(numStreams));
    function->setAttr(kNumEventsAttr, builder.getI64IntegerAttr(numEvents));
    if (forkEvent)
      function->setAttr(kForkEventAttr, builder.getI64IntegerAttr(*forkEvent));
    else
      function->removeAttr(kForkEventAttr);
    if (joins.empty())
      function->removeAttr(kJoinEventsAttr);
    else
      function->setAttr(kJoinEventsAttr, builder.getDenseI64ArrayAttr(joins));
  }
};

} // namespace
} // namespace kiln
