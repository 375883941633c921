"""Reads what `kiln-run --profile` prints (tools/kiln-run/bench_profile.cpp).

The header line, when kiln-run loaded CUPTI:

    profile: 150 kernel steps, 0.4100 ms kernel time (cupti), 0.8700 ms step replays

and without it (libcupti missing, KILN_CUPTI=0, a CUPTI error):

    profile: 150 kernel steps, 0.8700 ms step replays (events: <why>)

"kernel time" is the sum of the steps' kernel (and copy) durations from
CUPTI's activity records: the GPU work itself. "step replays" is the sum of
each step's CUDA graph replayed alone between two CUDA events, which adds the
graph launch's device-side overhead (a few microseconds a step). The table
rows below it read: kernel, kind, time(us) (the kernel time, or the replay
without CUPTI), replay(us), kernels, share, GB/s, TFLOP/s, algorithm, nodes.
"""
import re

_HEADER = re.compile(
    r"^profile: (\d+) kernel steps, ([0-9.]+) ms "
    r"(?:kernel time \(cupti\), ([0-9.]+) ms step replays"
    r"|step replays \((events: .*)\))$", re.M)


def parse_profile(text):
    """The header line of |text| as a dict: steps, kernel_ms (CUPTI's sum;
    None without CUPTI), replay_ms (the event-timed sum) and source ("cupti"
    or "events: <why>"); None when |text| has no profile."""
    match = _HEADER.search(text)
    if not match:
        return None
    first = float(match.group(2))
    if match.group(3) is not None:
        return dict(steps=int(match.group(1)), kernel_ms=first,
                    replay_ms=float(match.group(3)), source="cupti")
    return dict(steps=int(match.group(1)), kernel_ms=None, replay_ms=first,
                source=match.group(4))


# A table row: kernel, kind, time(us), replay(us), kernels, share, GB/s,
# TFLOP/s, algorithm, ONNX nodes (the last may hold spaces).
_ROW = re.compile(
    r"^  (\S+)\s+(\S+)\s+([0-9.]+)\s+([0-9.]+)\s+(\S+)\s+([0-9.]+)%\s+([0-9.]+)"
    r"\s+([0-9.]+)\s+(\S+)\s*(.*)$", re.M)

# The H200's ceilings the brief measures against: device-to-device copy
# bandwidth and dense fp16 tensor-core throughput.
COPY_GB_S = 4200.0
FP16_TFLOP_S = 740.0


def table_rows(text, limit=10):
    """The first |limit| rows of the profile table (slowest first) as dicts:
    kernel, kind, time_us, replay_us, share (percent), gb_s, tflop_s,
    algorithm, nodes, and ceiling_fraction: the larger of GB/s over the
    copy bandwidth and TFLOP/s over the fp16 peak, the roof nearest to it."""
    header = _HEADER.search(text)
    if not header:
        return []
    rows = []
    for match in _ROW.finditer(text, header.end()):
        gb_s, tflop_s = float(match.group(7)), float(match.group(8))
        rows.append(dict(kernel=match.group(1), kind=match.group(2),
                         time_us=float(match.group(3)), replay_us=float(match.group(4)),
                         share=float(match.group(6)), gb_s=gb_s, tflop_s=tflop_s,
                         algorithm=match.group(9), nodes=match.group(10).strip(),
                         ceiling_fraction=round(max(gb_s / COPY_GB_S,
                                                    tflop_s / FP16_TFLOP_S), 4)))
        if len(rows) == limit:
            break
    return rows


def step_ms(text, kind):
    """(time_ms, replay_ms) of the slowest step of |kind| ("gemm") in the
    table: time is CUPTI's kernel time when the header says so, else equal to
    the replay. None when no row has that kind."""
    row = re.search(rf"^\s+\S+\s+{re.escape(kind)}\s+([0-9.]+)\s+([0-9.]+)\s",
                    text, re.M)
    if not row:
        return None
    return float(row.group(1)) * 1e-3, float(row.group(2)) * 1e-3


if __name__ == "__main__":
    # Self-check on the two header forms and a table row.
    cupti = parse_profile(
        "bench: ...\nprofile: 3 kernel steps, 0.0261 ms kernel time (cupti), "
        "0.0345 ms step replays\n  gemm_0  gemm  10.0  14.0  1  38.3%\n")
    assert cupti == dict(steps=3, kernel_ms=0.0261, replay_ms=0.0345,
                         source="cupti"), cupti
    events = parse_profile(
        "profile: 2 kernel steps, 0.0345 ms step replays (events: no CUPTI "
        "library found (tried libcupti.so.13))\n")
    assert events == dict(steps=2, kernel_ms=None, replay_ms=0.0345,
                          source="events: no CUPTI library found (tried "
                                 "libcupti.so.13)"), events
    assert step_ms("  gemm_0  gemm  10.0  14.0  1  38.3%\n", "gemm") == (
        0.01, 0.014)
    assert parse_profile("bench: median 1 ms\n") is None
    rows = table_rows(
        "profile: 2 kernel steps, 0.0261 ms kernel time (cupti), 0.0345 ms step "
        "replays\n  kernel  kind  time(us)  replay(us)  kernels  share  GB/s  TFLOP/s"
        "  algorithm  ONNX nodes\n"
        "  conv_3  conv  20.0  24.0  1  76.6%  1050.0  370.00  graph:eng4  /a/Conv, /a/Relu\n"
        "  add_1   pointwise  6.1  9.0  1  23.4%  3780.0  0.10  -  /b/Add\n")
    assert [r["kernel"] for r in rows] == ["conv_3", "add_1"], rows
    assert rows[0]["ceiling_fraction"] == 0.5 and rows[0]["nodes"] == "/a/Conv, /a/Relu"
    assert rows[1]["ceiling_fraction"] == 0.9 and rows[1]["algorithm"] == "-"
    print("profile_log: ok")
