#!/usr/bin/env python3
"""Recurrent layers with block floating-point W and R (quantize-block-float-
rnn.test). W and R are initializers so accel-quantize-block-float converts
them; at the default target's N = 64 an ms-fp8 k tile row is 36 bytes and
an mxint8 one 66, so k tiles of a row start at unaligned DRAM addresses and
the kernel loads each row group's k tiles with one DMA:

  l1 = LSTM  I = 128, H = 128, B, batch 1, 4 steps: W and R two k tiles
             each, R resident
  g1 = GRU   I = 64, H = 64, bidirectional, linear_before_reset 0, B and
             initial_h, batch 2
  g2 = GRU   I = 192, H = 32, linear_before_reset 1, B, batch 1: three k
             tiles of W in 96-row groups (a partial 32-row one)
  Inputs X1, X2, H2, X3 in that order.

  bfp-rnn-model.py model FILE

Pure Python (no numpy), like the other input scripts.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values  # noqa: E402

# name, dims, scale, seed
WEIGHTS = [
    ("W1", [1, 512, 128], 0.15, 301), ("R1", [1, 512, 128], 0.15, 302),
    ("B1", [1, 1024], 0.3, 303),
    ("W2", [2, 192, 64], 0.2, 304), ("R2", [2, 192, 64], 0.2, 305),
    ("B2", [2, 384], 0.3, 306),
    ("W3", [1, 96, 192], 0.15, 307), ("R3", [1, 96, 32], 0.3, 308),
    ("B3", [1, 192], 0.3, 309),
]

INPUTS = ("float[4, 1, 128] X1, float[3, 2, 64] X2, float[2, 2, 64] H2, "
          "float[5, 1, 192] X3")
OUTPUTS = ("float[4, 1, 1, 128] y1, float[1, 1, 128] h1, float[1, 1, 128] c1, "
           "float[3, 2, 2, 64] y2, float[2, 2, 64] h2, "
           "float[5, 1, 1, 32] y3, float[1, 1, 32] h3")

NODES = """
  y1, h1, c1 = LSTM <hidden_size = 128> (X1, W1, R1, B1)
  y2, h2 = GRU <hidden_size = 64, direction = "bidirectional"> (X2, W2, R2, B2, , H2)
  y3, h3 = GRU <hidden_size = 32, linear_before_reset = 1> (X3, W3, R3, B3)
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
    return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"
            "bfprnn (%s) => (%s)\n<%s>\n{%s}\n" %
            (INPUTS, OUTPUTS, ", ".join(initializers), NODES))


def main(argv):
    if len(argv) == 3 and argv[1] == "model":
        with open(argv[2], "w") as f:
            f.write(model_text())
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
