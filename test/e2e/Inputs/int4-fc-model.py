#!/usr/bin/env python3
"""Products with 4-bit weights at the shapes the fully_connected kernel
treats specially (int4-fc.test).

  int4-fc-model.py model FILE
      Writes the ONNX text model with its weights as initializers
      (deterministic pseudo-random values), so accel-quantize can quantize
      them. At the default target's N = 64 an i4 k tile row is 32 bytes,
      half a DRAM granule, so k tiles are loaded in aligned pairs:
        Y1 = Gemm(X1 [4, 160], W1 [96, 160])   two full k tiles and a
                                               partial one (32) that starts
                                               a pair; output tiles 64 + 32
        Y2 = Gemm(X2 [3, 192], W2 [75, 192])   an odd count of full k tiles;
                                               an 11-row output tile (its
                                               planes padded to 12 rows)
        Y3 = Gemm(X3 [200, 512], W3 [75, 512]) two chunks of rows: the
                                               weight stays resident (or is
                                               pinned), 11-row tiles too
        Y4 = Relu(MatMul(X4 [2, 3, 128], M4 [128, 64]) + B4)
                                               a matmul by a constant, its
                                               bias and ReLU folded in
        Y5 = Gemm(X5 [2, 96], W5 [32, 96])     a partial k tile half-way
                                               into a granule: 8-bit weights
        Y6 = Gemm(X6 [2, 14], W6 [16, 14])     one k tile of 14: 4-bit
        Y7 = Gemm(X7 [2, 13], W7 [16, 13])     odd K: 8-bit weights
      Inputs X1..X7 in that order.

Pure Python (no numpy), like the other input scripts.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values  # noqa: E402

# name, dims, scale, seed
WEIGHTS = [
    ("W1", [96, 160], 0.2, 201), ("B1", [96], 0.5, 202),
    ("W2", [75, 192], 0.2, 203), ("B2", [75], 0.5, 204),
    ("W3", [75, 512], 0.1, 205), ("B3", [75], 0.5, 206),
    ("M4", [128, 64], 0.2, 207), ("B4", [64], 0.5, 208),
    ("W5", [32, 96], 0.2, 209), ("B5", [32], 0.5, 210),
    ("W6", [16, 14], 0.5, 211), ("B6", [16], 0.5, 212),
    ("W7", [16, 13], 0.5, 213), ("B7", [16], 0.5, 214),
]

INPUTS = ("float[4, 160] X1, float[3, 192] X2, float[200, 512] X3, "
          "float[2, 3, 128] X4, float[2, 96] X5, float[2, 14] X6, "
          "float[2, 13] X7")
OUTPUTS = ("float[4, 96] Y1, float[3, 75] Y2, float[200, 75] Y3, "
           "float[2, 3, 64] Y4, float[2, 32] Y5, float[2, 16] Y6, "
           "float[2, 16] Y7")

NODES = """
  Y1 = Gemm <transB = 1> (X1, W1, B1)
  Y2 = Gemm <transB = 1> (X2, W2, B2)
  Y3 = Gemm <transB = 1> (X3, W3, B3)
  m4 = MatMul (X4, M4)
  a4 = Add (m4, B4)
  Y4 = Relu (a4)
  Y5 = Gemm <transB = 1> (X5, W5, B5)
  Y6 = Gemm <transB = 1> (X6, W6, B6)
  Y7 = Gemm <transB = 1> (X7, W7, B7)
"""


def model_text():
    initializers = []
    for name, dims, scale, seed in WEIGHTS:
        count = 1
        for d in dims:
            count *= d
        values = ", ".join("%.6g" % v for v in random_values(count, seed, scale))
        initializers.append("float[%s] %s = {%s}" %
                            (", ".join(map(str, dims)), name, values))
    return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\n"
            "int4fc (%s) => (%s)\n<%s>\n{%s}\n" %
            (INPUTS, OUTPUTS, ", ".join(initializers), NODES))


def main(argv):
    if len(argv) == 3 and argv[1] == "model":
        with open(argv[2], "w") as f:
            f.write(model_text())
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
