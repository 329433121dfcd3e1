#!/usr/bin/env bash
# setup.sh - install the Debian 12 packages nnaccel needs, if any are missing.
#
#   bash scripts/setup.sh              build and test packages (make build/check)
#   bash scripts/setup.sh --sanitize   also clang-19 and its sanitizer and
#                                      fuzzer runtimes (make check-sanitize, fuzz)
#   bash scripts/setup.sh --bench      also the optional benchmark packages
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
sanitize_packages=(clang-19 libclang-rt-19-dev libfuzzer-19-dev)

# bench/models.py's PyTorch yardstick (issue 17): the bundled ONNX models
# converted to PyTorch by bench/torch_reference.py, which runs on Debian's
# /usr/bin/python3. Debian's torch calls the generic libblas.so.3 for
# Linear and MatMul, which is the netlib reference BLAS (up to 15x slower)
# unless OpenBLAS is installed; it becomes the system's libblas.so.3
# through update-alternatives. The OpenMP build shares libgomp's thread
# pool with torch's own ops (the pthread build adds a second pool competing
# for the same cores). Large, and needed by no build or test, so only on
# request.
bench_packages=(python3-torch python3-onnx libopenblas0-openmp)

case "${1:-}" in
  "") ;;
  --sanitize) packages+=("${sanitize_packages[@]}") ;;
  --bench) packages+=("${bench_packages[@]}") ;;
  *) echo "usage: $0 [--sanitize | --bench]" >&2; exit 2 ;;
esac

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
