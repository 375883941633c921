#!/usr/bin/env bash
# Build machine: the GPU bundle of the model zoo and the random-graph property
# test in one folder, for one device call: OUTDIR/zoo (scripts/zoo-tests.py
# --gpu-bundle: every test/zoo file at fp32 and fp16, batch 2, weights
# external and regenerated there) and OUTDIR/graphs (scripts/random-graphs.py
# --gpu-bundle: KILN_GRAPH_COUNT random graphs, 300 by default, with the CPU
# evaluator's outputs), each under the 64 MiB a device call carries.
# Usage: scripts/gpu-zoo-bundle.sh OUTDIR     (KILN_GPU_ARCH=sm_90 by default;
#   KILN_ZOO_FILTER=REGEX bundles only those zoo files, to split the zoo over
#   two calls if it outgrows 64 MiB)
# On the GPU machine, in the repository (the zoo runner reads test/zoo and
# scripts/fill-weights.py), one call per part:
#   python3 OUTDIR/zoo/run.py OUTDIR/zoo         (writes OUTDIR/zoo/results.json)
#   python3 OUTDIR/graphs/run.py OUTDIR/graphs   (writes OUTDIR/graphs/results.json)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: scripts/gpu-zoo-bundle.sh OUTDIR}"
python="$root/.venv/bin/python"
rm -rf "$out"
mkdir -p "$out"
"$python" "$root/scripts/zoo-tests.py" --gpu-bundle "$out/zoo" \
  ${KILN_ZOO_FILTER:+--filter "$KILN_ZOO_FILTER"}
"$python" "$root/scripts/random-graphs.py" --gpu-bundle "$out/graphs" \
  --count "${KILN_GRAPH_COUNT:-300}" --first-seed "${KILN_GRAPH_FIRST_SEED:-0}"
for part in zoo graphs; do
  bytes=$(du -sb "$out/$part" | cut -f1)
  echo "bundle: $out/$part ($((bytes / 1024)) KiB)"
  if (( bytes >= 64 * 1024 * 1024 )); then
    echo "error: $out/$part is over the 64 MiB a device call carries" >&2
    exit 1
  fi
done
echo "on the GPU machine, in the repository, one device call each (each part under 64 MiB):"
echo "  python3 $out/zoo/run.py $out/zoo"
echo "  python3 $out/graphs/run.py $out/graphs"
