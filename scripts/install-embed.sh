#!/usr/bin/env bash
# Installs the runtime package from the build folder into OUT/prefix
# (`cmake --install --component runtime`) and builds examples/embed against it
# twice, as a user would: with CMake's find_package(kiln) into OUT/cmake-build
# (embed_c, embed_cpp) and the C example with pkg-config into
# OUT/pkgconfig-build/embed_c. Needs a built build/ (scripts/build.sh).
#   scripts/install-embed.sh OUT
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
out="${1:?usage: scripts/install-embed.sh OUT}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -rf "$out/prefix" "$out/cmake-build" "$out/pkgconfig-build"

echo "== cmake --install $build --prefix $out/prefix --component runtime"
cmake --install "$build" --prefix "$out/prefix" --component runtime

echo "== examples/embed with find_package(kiln)"
launcher=()
command -v ccache >/dev/null &&
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root/examples/embed" -B "$out/cmake-build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$out/prefix" "${launcher[@]}"
cmake --build "$out/cmake-build"

echo "== examples/embed/embed.c with pkg-config"
libdir="$(dirname "$(find "$out/prefix" -name kiln-runtime.pc | head -1)")"
mkdir -p "$out/pkgconfig-build"
# pkg-config's flags only: no rpath, so the program finds the library as any
# installed library is found (here LD_LIBRARY_PATH; ldconfig for /usr/local).
flags="$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs kiln-runtime)"
echo "pkg-config --cflags --libs kiln-runtime: $flags"
# shellcheck disable=SC2086
cc -std=c99 -Wall -Wextra -O2 "$root/examples/embed/embed.c" $flags \
  -o "$out/pkgconfig-build/embed_c"
echo "installed: $out/prefix; programs: $out/cmake-build/embed_{c,cpp}, $out/pkgconfig-build/embed_c"
