#!/usr/bin/env bash
# GPU machine: runs the ONNX node-test bundle written by
# scripts/gpu-node-bundle.sh (python3's standard library only). Prints a table
# per op and `N passed, M failed, K skipped`; writes OUTDIR/results.json.
#   OUTDIR/run.sh [--update-list [FILE]] [--filter REGEX] [-j N]
#   scripts/gpu-node-run.sh OUTDIR [options]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -f "$here/run.py" ]]; then
  script="$here/run.py"                   # inside a bundle
else
  script="$here/gpu-node-run.py"          # in the source tree
fi
if [[ $# -ge 1 && -d "$1" ]]; then
  exec python3 "$script" "$@"
fi
exec python3 "$script" "$here" "$@"
