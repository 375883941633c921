#!/usr/bin/env bash
# Runs the ONNX node tests through kiln-interpret with the venv's python (it
# reads the models with onnx). Arguments go to scripts/onnx-node-tests.py; with
# none, it checks for regressions against test/onnx-node/cpu-expected-pass.txt.
#   scripts/onnx-node-tests.sh                       # regression check
#   scripts/onnx-node-tests.sh --update-list         # accept what passes now
#   scripts/onnx-node-tests.sh --filter '^test_add' --show-failures 20
#   scripts/onnx-node-tests.sh --no-list             # every failure fails
# The GPU half (docs/testing.md): on the build machine, --gpu-bundle OUTDIR
# writes the node-test bundle (scripts/gpu-node-bundle.sh); on the GPU machine,
# --gpu-run OUTDIR runs it (scripts/gpu-node-run.sh; OUTDIR/run.sh does the same).
#   scripts/onnx-node-tests.sh --gpu-bundle /tmp/node-bundle [--cpu-json FILE]
#   scripts/onnx-node-tests.sh --gpu-run /tmp/node-bundle [--update-list]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
  --gpu-bundle) shift; exec "$root/scripts/gpu-node-bundle.sh" "$@" ;;
  --gpu-run) shift; exec "$root/scripts/gpu-node-run.sh" "$@" ;;
esac
python="$root/.venv/bin/python"
if [ ! -x "$python" ]; then
  echo "onnx-node-tests: no .venv; run scripts/setup.sh first" >&2
  exit 2
fi
has_list=0
args=()
for arg in "$@"; do
  case "$arg" in
    --expect-list|--expect-list=*) has_list=1 ;;
    --no-list) has_list=1; continue ;;
  esac
  args+=("$arg")
done
set -- ${args[@]+"${args[@]}"}
if [ "$has_list" = 0 ]; then
  set -- --expect-list "$root/test/onnx-node/cpu-expected-pass.txt" "$@"
fi
# Keep scripts/build.sh (exclusive lock) from relinking kiln-interpret mid-run.
build="${KILN_BUILD_DIR:-$root/build}"
if [ -d "$build" ]; then
  exec 8>"$build/.build-lock"
  flock -s -n 8 || { echo "(waiting for a build in progress in $build)"; flock -s 8; }
fi
exec "$python" "$root/scripts/onnx-node-tests.py" "$@"
