#!/usr/bin/env bash
# Build machine: writes the GPU bundle of the ONNX node tests to OUTDIR (see
# scripts/gpu-node-bundle.py and docs/testing.md): for each test that passes on
# the CPU, a .kiln artifact, its reference data set and a fresh one, plus
# bin/kiln-run and run.sh for the GPU machine.
#   scripts/gpu-node-bundle.sh OUTDIR [--cpu-json FILE] [--filter REGEX] [-j N]
# KILN_GPU_ARCH (default sm_90) and KILN_BUILD_DIR are honoured. Needs a build
# of kiln-compile, kiln-interpret, kiln-inspect and kiln-run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="$root/.venv/bin/python"
[[ $# -ge 1 ]] || { echo "usage: scripts/gpu-node-bundle.sh OUTDIR [options]" >&2; exit 2; }
if [ ! -x "$python" ]; then
  echo "gpu-node-bundle: no .venv; run scripts/setup.sh first" >&2
  exit 2
fi
# Keep scripts/build.sh (exclusive lock) from relinking the tools mid-run.
build="${KILN_BUILD_DIR:-$root/build}"
if [ -d "$build" ]; then
  exec 8>"$build/.build-lock"
  flock -s -n 8 || { echo "(waiting for a build in progress in $build)"; flock -s 8; }
fi
exec "$python" "$root/scripts/gpu-node-bundle.py" --build-dir "$build" "$@"
