#!/usr/bin/env bash
# Build machine: the GPU bundle of the model zoo and the random-graph property
# test in one folder, for one device call: OUTDIR/zoo (scripts/zoo-tests.py
# --gpu-bundle: every test/zoo file at fp32 and fp16, batch 2, weights
# external and regenerated there) and OUTDIR/graphs (scripts/random-graphs.py
# --gpu-bundle: KILN_GRAPH_COUNT random graphs, 300 by default, with the CPU
# evaluator's outputs), plus OUTDIR/run.sh that runs both.
# Usage: scripts/gpu-zoo-bundle.sh OUTDIR     (KILN_GPU_ARCH=sm_90 by default)
# On the GPU machine, in the repository (it reads test/zoo and
# scripts/fill-weights.py): OUTDIR/run.sh   (prints both summaries; writes
# OUTDIR/zoo/results.json and OUTDIR/graphs/results.json)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: scripts/gpu-zoo-bundle.sh OUTDIR}"
python="$root/.venv/bin/python"
rm -rf "$out"
mkdir -p "$out"
"$python" "$root/scripts/zoo-tests.py" --gpu-bundle "$out/zoo"
"$python" "$root/scripts/random-graphs.py" --gpu-bundle "$out/graphs" \
  --count "${KILN_GRAPH_COUNT:-300}" --first-seed "${KILN_GRAPH_FIRST_SEED:-0}"
cat >"$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the zoo and the random graphs on the GPU machine (from the repository root).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
status=0
python3 "$here/zoo/run.py" "$here/zoo" || status=1
python3 "$here/graphs/run.py" "$here/graphs" || status=1
exit $status
RUN
chmod +x "$out/run.sh"
bytes=$(du -sb "$out" | cut -f1)
echo "bundle: $out ($((bytes / 1024)) KiB)"
if (( bytes >= 64 * 1024 * 1024 )); then
  echo "error: the bundle is over the 64 MiB a device call carries" >&2
  exit 1
fi
echo "on the GPU machine, in the repository: $out/run.sh"
