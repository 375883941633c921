#!/usr/bin/env bash
# The install suite: installs the runtime package from the build folder into a
# throwaway prefix, builds examples/embed against it (CMake find_package and
# pkg-config; scripts/install-embed.sh) and checks what was installed and
# what the programs do without a GPU: the SONAME and exported symbols, the
# versions, usage and file errors, and a compiled MLP artifact (exit 3, no
# CUDA device, here; 0 with matching outputs on a GPU: scripts/gpu-test.sh).
# Prints a line per check and `N passed, M failed, 0 skipped`.
#   scripts/test-install.sh [WORKDIR]     (default: a temporary folder)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
work="${1:-}"
if [ -z "$work" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
passed=0 failed=0

# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
  local name="$1"; shift
  if "$@" >"$work/check.log" 2>&1; then
    passed=$((passed + 1)); echo "PASS: $name"
  else
    failed=$((failed + 1)); echo "FAIL: $name"; sed 's/^/    /' "$work/check.log" | tail -15
  fi
}
# exits CODE PATTERN COMMAND...: COMMAND exits CODE and prints PATTERN.
exits() {
  local code="$1" pattern="$2"; shift 2
  local output status
  output="$("$@" 2>&1)"; status=$?
  echo "$output"
  [ "$status" = "$code" ] || { echo "exit status $status, expected $code"; return 1; }
  grep -qE -- "$pattern" <<<"$output" || { echo "no match for: $pattern"; return 1; }
}

if ! "$root/scripts/install-embed.sh" "$work" >"$work/install.log" 2>&1; then
  tail -30 "$work/install.log"
  echo "FAIL: install and build examples/embed (scripts/install-embed.sh)"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
passed=$((passed + 1)); echo "PASS: install and build examples/embed (CMake and pkg-config)"

prefix="$work/prefix"
version="$(sed -nE 's/^project\(kiln VERSION ([0-9.]+).*/\1/p' "$root/CMakeLists.txt")"
api="$(sed -nE 's/^#define KILN_RUNTIME_API_VERSION ([0-9]+)$/\1/p' "$root/runtime/include/kiln/runtime.h")"
lib="$(find "$prefix" -name "libkiln_runtime.so.$version" | head -1)"
libdir="$(dirname "${lib:-$prefix/lib/x}")"

installed_files() {
  for file in "$libdir/libkiln_runtime.so" "$libdir/libkiln_runtime.so.$api" "$lib" \
      "$prefix/include/kiln/runtime.h" "$prefix/include/kiln/runtime.hpp" \
      "$libdir/cmake/kiln/kilnConfig.cmake" "$libdir/cmake/kiln/kilnConfigVersion.cmake" \
      "$libdir/cmake/kiln/kilnTargets.cmake" "$libdir/pkgconfig/kiln-runtime.pc"; do
    [ -e "$file" ] || { echo "missing: $file"; return 1; }
  done
  # Nothing of the static library, the tools or internal headers.
  ! find "$prefix" -name "*.a" | grep -q . || { echo "a static library was installed"; return 1; }
}
soname() {
  readelf -d "$lib" | grep -F "Library soname: [libkiln_runtime.so.$api]"
}
# The C API and nothing else: FlatBuffers, C++ internals and CUDA stay local.
exported_symbols() {
  local symbols
  symbols="$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRW]$/ {print $3}' | sed 's/@.*//' | sort -u)"
  echo "$symbols" | head -5
  grep -qx kiln_runtime_version <<<"$symbols" || { echo "kiln_runtime_version not exported"; return 1; }
  grep -qx kiln_session_run <<<"$symbols" || { echo "kiln_session_run not exported"; return 1; }
  ! grep -v '^kiln_' <<<"$symbols" | grep -q . || { echo "other symbols exported:"; grep -v '^kiln_' <<<"$symbols" | head; return 1; }
}
check "installed files (library, SONAME link, headers, CMake config, .pc)" installed_files
check "SONAME libkiln_runtime.so.$api" soname
check "exports only kiln_* symbols" exported_symbols
check "pkg-config --modversion kiln-runtime is $version" \
  bash -c "[ \"\$(PKG_CONFIG_PATH='$libdir/pkgconfig' pkg-config --modversion kiln-runtime)\" = '$version' ]"

export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
programs=("$work/cmake-build/embed_c" "$work/cmake-build/embed_cpp" "$work/pkgconfig-build/embed_c")
labels=("embed_c (CMake)" "embed_cpp (CMake)" "embed_c (pkg-config)")

# An artifact to load: the MLP, compiled here.
artifact="$work/mlp.kiln"
"$build/bin/kiln-compile" "$root/examples/mlp.onnx" --input-shape batch=8 --quiet -o "$artifact"
head -c 100 "$artifact" >"$work/truncated.kiln"
for i in "${!programs[@]}"; do
  program="${programs[$i]}" label="${labels[$i]}"
  check "$label --version: runtime $version, API $api" \
    exits 0 "kiln runtime $version, API $api \\(header $api\\), artifact format [0-9]+" "$program" --version
  check "$label without arguments: usage, exit 2" exits 2 "usage:" "$program"
  check "$label on a missing file: exit 2" exits 2 "NOT_FOUND" "$program" "$work/missing.kiln"
  check "$label on a truncated artifact: exit 2" exits 2 "DATA_LOSS" "$program" "$work/truncated.kiln"
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    check "$label runs the MLP" exits 0 "output 'probabilities' f32\\[8x10\\]" "$program" "$artifact"
  else
    check "$label on the MLP without a GPU: exit 3" exits 3 "UNAVAILABLE" "$program" "$artifact"
  fi
done

echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" = 0 ]
