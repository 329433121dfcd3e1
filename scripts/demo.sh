#!/usr/bin/env bash
# demo.sh - the main job on a bundled example: compile the DLRM-style
# recommender from ONNX into a model package, run it on the emulated card
# (host fallback for what the card does not run yet) and compare with
# PyTorch's reference outputs; then the same model quantized (int8 dense
# layers, 4-bit embedding tables) with its accuracy against PyTorch.
set -euo pipefail
build=${1:-build}
bin="$build/bin"
model=examples/models/dlrm_small
out="$build/demo"
mkdir -p "$out"

echo "== nnaccel-compile $model/model.onnx (target: targets/default.json)"
"$bin/nnaccel-compile" "$model/model.onnx" -o "$out/dlrm_small.nnpkg" \
  --report --report-json="$out/dlrm_small.report.json"
echo
"$bin/nnaccel-pkg" info "$out/dlrm_small.nnpkg" | head -12
echo
echo "== nnaccel-run on test_data_set_0, compared with PyTorch"
"$bin/nnaccel-run" "$out/dlrm_small.nnpkg" --input "$model/test_data_set_0" \
  --expect "$model/test_data_set_0" --output "$out/outputs"
echo
echo "== first outputs (click-through probabilities)"
python3 - "$out/outputs/output_0.npy" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
header_len = struct.unpack("<H", data[8:10])[0]
values = struct.unpack("<8f", data[10 + header_len:10 + header_len + 32])
print("  " + "  ".join(f"{v:.5f}" for v in values))
PY
echo
echo "== quantized: int8 dense layers (calibrated on test sets 1-3) and 4-bit tables"
calib="$out/calibration"
mkdir -p "$calib"
for k in 1 2 3; do
  ln -sfn "$PWD/$model/test_data_set_$k" "$calib/test_data_set_$k"
done
"$bin/nnaccel-compile" "$model/model.onnx" -o "$out/dlrm_small.int8.nnpkg" \
  --quantize=int8,int4-emb --calibration="$calib"
"$bin/nnaccel-pkg" info "$out/dlrm_small.int8.nnpkg" | grep -E '^(file|weights)'
"$bin/nnaccel-run" "$out/dlrm_small.int8.nnpkg" \
  --input "$model/test_data_set_0" --expect "$model/test_data_set_0" \
  --min-cosine=0.99 --max-ne-delta=0.5 | grep -E 'latency|output 0|NE delta'
echo
echo "Package, report and outputs are in $out/"
