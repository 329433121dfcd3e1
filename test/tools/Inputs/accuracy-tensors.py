#!/usr/bin/env python3
"""Tensors for the nnaccel-run accuracy-report tests (nnaccel-run-accuracy.test).

The model there passes its inputs through unchanged, so the input files are
the "outputs" and these tensors decide every figure exactly.

  accuracy-tensors.py values PATH DIMS V1,V2,...
      Writes the values (nan/inf allowed) with shape DIMS ("4x3"); PATH
      ending in .npy is a NumPy file (an input), anything else an ONNX
      TensorProto (a reference, what nnaccel-run --expect reads).
  accuracy-tensors.py classifier OUT.npy REF.pb ROWS CLASSES SEED NOISE SWAP DEMOTE
      Reference logits: pseudo-random in [-4, 4) with the class r % CLASSES
      of row r raised to 5, so every row has a clear argmax. The output is
      the reference plus noise in [-NOISE, NOISE) (too small to move an
      argmax), except in the rows listed in SWAP, where the reference's class
      drops just below the row's largest other value (top-1 miss, still
      second: top-5 hit), and in the rows in DEMOTE, where it drops to -5
      (last: top-1 and top-5 miss). SWAP and DEMOTE are comma-separated row
      lists or "-".

Pure Python (no numpy); the file writers are test/e2e/Inputs/tensorfiles.py.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "e2e", "Inputs"))
from tensorfiles import random_values, write_npy, write_pb  # noqa: E402


def write(path, dims, values):
    if path.endswith(".npy"):
        write_npy(path, dims, values)
    else:
        write_pb(path, dims, struct.pack("<%df" % len(values), *values))


def rows_of(arg):
    return [] if arg == "-" else [int(r) for r in arg.split(",")]


def classifier(out_path, ref_path, rows, classes, seed, noise, swap, demote):
    ref = random_values(rows * classes, seed, 4.0)
    for r in range(rows):
        ref[r * classes + r % classes] = 5.0
    jitter = random_values(rows * classes, seed + 1, noise)
    out = [x + j for x, j in zip(ref, jitter)]
    for r in swap:
        row = out[r * classes:(r + 1) * classes]
        label = r % classes
        others = max(v for c, v in enumerate(row) if c != label)
        out[r * classes + label] = others - 0.001
    for r in demote:
        out[r * classes + r % classes] = -5.0
    write(out_path, [rows, classes], out)
    write(ref_path, [rows, classes], ref)


def main(argv):
    if len(argv) == 5 and argv[1] == "values":
        dims = [int(d) for d in argv[3].split("x")]
        write(argv[2], dims, [float(v) for v in argv[4].split(",")])
    elif len(argv) == 10 and argv[1] == "classifier":
        classifier(argv[2], argv[3], int(argv[4]), int(argv[5]), int(argv[6]),
                   float(argv[7]), rows_of(argv[8]), rows_of(argv[9]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
