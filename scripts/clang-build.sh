#!/usr/bin/env bash
# Configures (once) and builds kiln with clang-19 and sanitizers, at low
# priority so that the ordinary builds on the shared machine keep theirs:
#   scripts/clang-build.sh fuzz [targets]  # the libFuzzer targets (ASan+UBSan)
#                                          # in build-fuzz/, linking the
#                                          # compiler libraries of build/
#   scripts/clang-build.sh asan [targets]  # everything with ASan+UBSan in
#                                          # build-sanitize/ (sanitize.sh)
#   scripts/clang-build.sh tsan [targets]  # ThreadSanitizer in build-tsan/
# KILN_FUZZ_BUILD_DIR, KILN_SANITIZE_BUILD_DIR, KILN_TSAN_BUILD_DIR choose
# other folders, KILN_BUILD_DIR the ordinary build, KILN_CLANG_JOBS (default
# 2) the parallel jobs.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kind="${1:-}"
shift || true
case "$kind" in
  fuzz)
    build="${KILN_FUZZ_BUILD_DIR:-$root/build-fuzz}"
    options=(-DKILN_SANITIZE=address,undefined -DKILN_FUZZ=ON
             "-DKILN_FUZZ_LIBRARY_DIR=${KILN_BUILD_DIR:-$root/build}/lib") ;;
  asan)
    build="${KILN_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
    options=(-DKILN_SANITIZE=address,undefined) ;;
  tsan)
    build="${KILN_TSAN_BUILD_DIR:-$root/build-tsan}"
    options=(-DKILN_SANITIZE=thread) ;;
  *) echo "usage: $0 fuzz|asan|tsan [ninja targets]" >&2; exit 2 ;;
esac
for tool in clang-19 clang++-19; do
  command -v "$tool" >/dev/null ||
    { echo "clang-build.sh: $tool is missing (scripts/setup.sh installs it)" >&2; exit 1; }
done
mkdir -p "$build"
exec 9>"$build/.build-lock"
flock 9
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$root")}" CCACHE_NOHASHDIR=1
fi
if [ ! -f "$build/build.ninja" ]; then
  # -O1: sanitizer builds compile faster and still inline enough to run the
  # suites at a usable speed. NDEBUG as in the release build (Debian's MLIR
  # is built with it). --as-needed as Debian's GCC links by default: CMake's
  # CUDA::nvrtc drags in the driver library, which a machine without a GPU
  # lacks, and nothing here calls it directly.
  nice -n 15 cmake -G Ninja -S "$root" -B "$build" "${launcher[@]}" "${options[@]}" \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed -DCMAKE_SHARED_LINKER_FLAGS=-Wl,--as-needed \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py >/dev/null
fi
nice -n 15 ninja -C "$build" -j "${KILN_CLANG_JOBS:-2}" "$@"
