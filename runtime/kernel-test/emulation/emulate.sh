#!/usr/bin/env bash
# Runs kernel-test cases on the host: compiles each case's generated CUDA
# sources against cuda_emulation.h (one std::thread per CUDA thread) and
# compares with the expected outputs. A logic check of the emitter for
# machines without a GPU; the GPU run (kiln-kernel-test) is the real test.
# Usage: emulate.sh CASES_DIR [CASE_FILTER]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cases="${1:?usage: emulate.sh CASES_DIR [FILTER]}"
filter="${2:-}"
cuda_include="${KILN_CUDA_INCLUDE_DIR:-/usr/local/cuda/include}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
flags=(-std=c++20 -O1 -pthread -w -I"$here" -I"$cuda_include")
g++ "${flags[@]}" -c "$here/../Manifest.cpp" -o "$work/Manifest.o" &&
  g++ "${flags[@]}" -c "$here/../Compare.cpp" -o "$work/Compare.o" || exit 2
passed=0 failed=0 skipped=0
for dir in "$cases"/*/; do
  dir="${dir%/}"
  name="$(basename "$dir")"
  [[ -n "$filter" && "$name" != *"$filter"* ]] && continue
  list="$work/$name.inc"
  {
    n=0
    for cu in "$dir"/*.cu; do
      [[ -e "$cu" ]] || continue
      echo "namespace k$n {"; echo "#include \"$cu\""; echo "}"; n=$((n + 1))
    done
    echo "const EmulatedKernel kEmulatedKernels[] = {"
    n=0
    for cu in "$dir"/*.cu; do
      [[ -e "$cu" ]] || continue
      k="$(basename "$cu" .cu)"
      echo "  {\"$k\", [](void **p) { callKernel(k$n::$k, p); }},"; n=$((n + 1))
    done
    echo "  {\"\", nullptr}};"
  } > "$list"
  if ! g++ "${flags[@]}" -DKILN_EMULATED_KERNELS="\"$list\"" "$here/Emulator.cpp" \
       "$work/Manifest.o" "$work/Compare.o" -o "$work/$name" 2> "$work/$name.log"; then
    if grep -q "^skip" "$dir/manifest.txt"; then
      echo "SKIP $name"; skipped=$((skipped + 1)); continue
    fi
    echo "FAIL $name: host compile failed:"; head -20 "$work/$name.log"
    failed=$((failed + 1)); continue
  fi
  out="$("$work/$name" "$dir")"; status=$?
  echo "$out"
  case "$out" in
    PASS*) passed=$((passed + 1)) ;;
    SKIP*) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
done
echo "$passed passed, $failed failed, $skipped skipped (host emulation)"
[[ $failed -eq 0 ]]
