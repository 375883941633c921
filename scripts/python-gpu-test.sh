#!/usr/bin/env bash
# GPU machine: runs the Python package's bundle (scripts/python-bundle.sh):
# installs the runtime-only wheel with pip from the bundle alone (no index),
# runs the pytest suite (the GPU and torch tests with the artifacts compiled
# on the build machine) and examples/python/resnet_from_torch.py (its compile
# served by the bundle's cache). Prints a line per part, then
# `N passed, M failed, K skipped` (pytest's tests plus the example), and writes
# OUTDIR/results.json and OUTDIR/pytest.xml.
# Usage: bash OUTDIR/run.sh   (PYTHON: the interpreter, default python3)
set -uo pipefail
out="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
passed=0 failed=0 skipped=0

command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "python: $("$python" --version 2>&1) at $(command -v "$python")"

# 1. The wheel, installed the way docs/python.md says (no index, no build).
if ! "$python" -m pip install --no-index --find-links "$out/wheels" \
    --force-reinstall --no-deps --disable-pip-version-check -q kiln; then
  echo "install: FAIL (pip install --no-index --find-links $out/wheels kiln)"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
"$python" -c 'import kiln, sys; print(f"kiln {kiln.__version__} from {kiln.__file__}; '\
'compiler: {kiln.compiler_available()}")'

# 2. pytest, from another folder so that the installed package is imported.
(cd "$work" && KILN_PYTHON_TEST_DATA="$out/data" "$python" -m pytest -p no:cacheprovider \
  -rs -v --junitxml="$out/pytest.xml" "$out/tests" 2>&1) | tee "$work/pytest.log" |
  grep -E "PASSED|FAILED|ERROR|SKIPPED|^=+ "
summary="$(grep -E "^=+ .* in [0-9.]+s" "$work/pytest.log" | tail -1)"
n="$(echo "$summary" | grep -oE "[0-9]+ passed" | cut -d' ' -f1)"
passed=$((passed + ${n:-0}))
for n in $(echo "$summary" | grep -oE "[0-9]+ (failed|errors?)" | cut -d' ' -f1); do
  failed=$((failed + n))
done
n="$(echo "$summary" | grep -oE "[0-9]+ skipped" | cut -d' ' -f1)"
skipped=$((skipped + ${n:-0}))
[ -n "$summary" ] || { echo "pytest: no summary"; failed=$((failed + 1)); }

# 3. The example: torchvision's ResNet-50 exported here, its artifact from
# the cache (this machine has no compiler), run and compared with torch.
export ATEN_CPU_CAPABILITY=avx2 # The build machine's kernels: the same weights.
if (cd "$work" && KILN_CACHE_DIR="$out/cache" "$python" "$out/examples/resnet_from_torch.py" \
    2>&1 | tee "$work/example.log"; exit "${PIPESTATUS[0]}"); then
  echo "example resnet_from_torch.py: pass"
  passed=$((passed + 1))
else
  echo "example resnet_from_torch.py: FAIL"
  failed=$((failed + 1))
fi

"$python" - "$out/results.json" "$passed" "$failed" "$skipped" "$work/example.log" <<'EOF'
import json, sys
path, passed, failed, skipped, example = sys.argv[1:]
json.dump({"passed": int(passed), "failed": int(failed), "skipped": int(skipped),
           "example": open(example).read().strip().splitlines()[-1:]},
          open(path, "w"), indent=2)
EOF
rm -rf "$work"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
