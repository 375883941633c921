#!/usr/bin/env bash
# Makes a Debian 12 machine ready to build and test kiln: installs the missing
# apt packages, checks the CUDA toolkit and creates .venv from
# scripts/requirements.txt. Idempotent; fast when everything is already there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Debian packages kiln builds and tests with. libmlir-22-dev conflicts with
# libmlir-19-dev: never add it.
packages=(
  cmake ninja-build g++
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  libonnx-dev libonnx-testdata protobuf-compiler libprotobuf-dev
  libflatbuffers-dev flatbuffers-compiler libgtest-dev python3-venv python3-dev ccache
  clang-19 libclang-rt-19-dev  # sanitizer and libFuzzer builds (scripts/clang-build.sh)
  pkg-config
)

say() { echo "setup: $*"; }

# Several engineers (and their test runs) may call this at once: serialise.
exec 8>"/tmp/kiln-setup-$(echo "$root" | sha256sum | cut -c1-16).lock"
flock 8

# --- apt packages ---------------------------------------------------------------
missing=()
for package in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
  [ "$status" = "install ok installed" ] || missing+=("$package")
done
if [ "${#missing[@]}" -eq 0 ]; then
  say "apt packages: all ${#packages[@]} present"
else
  say "apt packages: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { say "error: not root and no sudo"; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
  say "apt packages: installed ${#missing[@]}"
fi

# --- CUDA toolkit (installed by the machine image, not by this script) ------------
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [ -x "$cuda/bin/nvcc" ] && [ -f "$cuda/include/nvrtc.h" ]; then
  say "CUDA toolkit: $("$cuda/bin/nvcc" --version | sed -n 's/^Cuda compilation tools, //p')" \
    "at $cuda"
else
  say "error: no CUDA toolkit at $cuda (need bin/nvcc and include/nvrtc.h)."
  say "       kiln's CMake needs it (find_package(CUDAToolkit)); install the"
  say "       CUDA 13 toolkit there or set CUDA_HOME. Nothing else is affected."
  exit 1
fi

# --- Python venv ------------------------------------------------------------------
requirements="$root/scripts/requirements.txt"
venv="$root/.venv"
stamp="$venv/.kiln-requirements.sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
venv_works() { [ -x "$venv/bin/python" ] && "$venv/bin/python" -c '' 2>/dev/null; }
if venv_works && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  say "venv: .venv up to date ($("$venv/bin/python" --version 2>&1))"
else
  if ! venv_works; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    say "venv: created .venv with $("$venv/bin/python" --version 2>&1)"
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    -r "$requirements"
  echo "$want" >"$stamp"
  say "venv: installed scripts/requirements.txt"
fi
