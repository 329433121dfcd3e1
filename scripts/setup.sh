#!/usr/bin/env bash
# setup.sh - install the Debian 12 packages nnaccel needs, if any are missing.
#
# Idempotent and silent when everything is present. Runs apt-get as root, or
# through sudo otherwise.
set -euo pipefail

packages=(
  # Build tools.
  cmake ninja-build ccache g++ make git python3
  # Compiler half: LLVM/MLIR 19 (lit, FileCheck, not, mlir-tblgen come with these).
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  # ONNX import: libonnx and its protobuf, plus the backend node tests.
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  # Shared libraries and formats.
  libfmt-dev nlohmann-json3-dev libflatbuffers-dev flatbuffers-compiler zlib1g-dev
  # Tests and formatting.
  catch2 clang-format-19
)
# `make check-sanitize` and `make fuzz` (setup.sh --sanitize) also need clang
# with its sanitizer runtimes and libFuzzer; `make check` does not.
if [[ "${1:-}" == "--sanitize" ]]; then
  packages+=(clang-19 libclang-rt-19-dev libfuzzer-19-dev)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "setup: installing ${missing[*]}"
SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
