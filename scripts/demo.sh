#!/usr/bin/env bash
# demo.sh - the main job on a bundled example: import a PyTorch ONNX export
# into accel IR and show what the importer recognised.
#
# The pipeline currently ends at accel IR; lowering to the NPU ISA, packaging
# and emulation are not built yet (see docs/getting-started.md).
set -euo pipefail
build=${1:-build}
bin="$build/bin"
model=examples/models/dlrm_small/model.onnx
out="$build/demo"
mkdir -p "$out"

echo "== Importing $model (DLRM-style recommender) into the accel dialect"
"$bin/nnaccel-translate" --import-onnx "$model" \
  --mlir-elide-resource-strings-if-larger=16 -o "$out/dlrm_small.mlir"
sed -n '/^module/,/^}/p' "$out/dlrm_small.mlir"

echo
echo "== Op summary (decompositions recognised: Gather+ReduceSum -> embedding_bag,"
echo "   activations fused into fully_connected)"
grep -oE 'accel\.[a-z_]+' "$out/dlrm_small.mlir" | sort | uniq -c

echo
echo "== Transformer encoder with its dynamic sequence axis fixed to 37"
"$bin/nnaccel-translate" --import-onnx examples/models/transformer_small/model.onnx \
  --input-shape=ids:1x37 --mlir-elide-resource-strings-if-larger=16 \
  -o "$out/transformer_small.mlir"
grep -oE 'accel\.[a-z_]+' "$out/transformer_small.mlir" | sort | uniq -c
echo
echo "IR written to $out/"
