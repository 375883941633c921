#!/usr/bin/env bash
# Build machine: builds kiln-translate and kiln-kernel-test and writes the GPU
# kernel-test bundle to OUTDIR (every case of test/GPU/kernels/*.mlir):
#   OUTDIR/cases/<case>/   manifest.txt, *.cubin, *.cu, inputs, expected outputs
#   OUTDIR/bin/kiln-kernel-test, OUTDIR/lib/libcudart.so.*  (the runner)
#   OUTDIR/src/            the runner's source, rebuilt there if needed
#   OUTDIR/run.sh          = scripts/gpu-kernel-run.sh, runs everything
# Then runs the runner here (no GPU: every case must report as skipped) and
# keeps each part under 44 MiB (with the repository, a device call carries
# 64): the largest cases move to OUTDIR-2 when the whole is over.
# Usage: scripts/gpu-kernel-tests.sh OUTDIR   (KILN_GPU_ARCH=sm_90 by default;
#        KILN_KERNEL_CASES="attention conv" for a subset of test/GPU/kernels)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
out="${1:?usage: scripts/gpu-kernel-tests.sh OUTDIR}"
arch="${KILN_GPU_ARCH:-sm_90}"

"$root/scripts/build.sh" kiln-translate kiln-kernel-test
rm -rf "$out"
mkdir -p "$out/cases" "$out/bin" "$out/lib" "$out/src"
# KILN_KERNEL_CASES="attention conv" bundles only those files (default: all).
cases_glob=("$root"/test/GPU/kernels/*.mlir)
if [[ -n "${KILN_KERNEL_CASES:-}" ]]; then
  cases_glob=()
  for name in $KILN_KERNEL_CASES; do cases_glob+=("$root/test/GPU/kernels/$name.mlir"); done
fi
for case in "${cases_glob[@]}"; do
  "$build/bin/kiln-translate" "$case" --kernel-test-bundle "$out/cases" \
    --gpu-arch "$arch"
done

cp "$build/bin/kiln-kernel-test" "$out/bin/"
cudart="$(ldd "$build/bin/kiln-kernel-test" | awk '/libcudart/ {print $3}')"
[[ -n "$cudart" ]] && cp -L "$cudart" "$out/lib/"
cp "$root"/runtime/kernel-test/*.cpp "$root"/runtime/kernel-test/*.h \
   "$root"/runtime/kernel-test/CMakeLists.txt "$out/src/"
cp "$root/scripts/gpu-kernel-run.sh" "$out/run.sh"
chmod +x "$out/run.sh"

cases=$(find "$out/cases" -name manifest.txt | wc -l)
echo "--- local run of the runner (no GPU here: expect all skipped)"
"$out/bin/kiln-kernel-test" "$out/cases" --json "$out/local-results.json" | tail -2

# A device call carries 64 MiB with the repository's tracked files (about
# 16 MiB): past 44 MiB of cases the largest move to a second part,
# OUTDIR-2, with its own copy of the runner (a device call of its own).
limit=$((44 * 1024 * 1024))
bytes=$(du -sb "$out" | cut -f1)
if (( bytes >= limit )); then
  second="${out%/}-2"
  rm -rf "$second"
  mkdir -p "$second/cases"
  cp -r "$out/bin" "$out/lib" "$out/src" "$out/run.sh" "$second/"
  for dir in $(du -sb "$out"/cases/*/ | sort -rn | cut -f2); do
    (( $(du -sb "$out" | cut -f1) < limit )) && break
    mv "$dir" "$second/cases/"
  done
  echo "bundle: $second ($(find "$second/cases" -name manifest.txt | wc -l) cases, $(( $(du -sb "$second" | cut -f1) / 1024 )) KiB): the largest cases, a second part"
fi
bytes=$(du -sb "$out" | cut -f1)
echo "bundle: $out ($(find "$out/cases" -name manifest.txt | wc -l) of $cases cases, $((bytes / 1024)) KiB, cubins for $arch)"
for part in "$out" "${second:-}"; do
  [[ -n "$part" ]] || continue
  bytes=$(du -sb "$part" | cut -f1)
  if (( bytes >= limit )); then
    echo "error: $part is $bytes bytes, over the $((limit / 1048576)) MiB a part may take" >&2
    exit 1
  fi
done
echo "on the GPU machine: $out/run.sh   (or scripts/gpu-kernel-run.sh $out)"
[[ -n "${second:-}" ]] && echo "  and, a call of its own: $second/run.sh"
exit 0
