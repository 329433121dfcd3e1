#!/usr/bin/env python3
"""A batch of images whose per-image conv results are not DRAM-aligned
(batched-conv.test): X [2, 5, 17, 17] ->
  a = Clip(Conv 1x1 5->15)            (15 x 17 x 17 f32: 17,340 bytes an image)
  d = Clip(Conv dw 3x3 s2, 15)        (15 x 9 x 9: 4,860 bytes an image)
  Y = Conv 1x1 15->7                  (7 x 9 x 9: 2,268 bytes an image)

  batched-conv-model.py FILE
Pure Python (no numpy), like the other input scripts.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values  # noqa: E402

WEIGHTS = [
    ("W0", [15, 5, 1, 1], 0.5, 301), ("B0", [15], 0.5, 302),
    ("W1", [15, 1, 3, 3], 0.5, 303), ("B1", [15], 0.2, 304),
    ("W2", [7, 15, 1, 1], 0.3, 305), ("B2", [7], 0.2, 306),
]

NODES = """
  zero = Constant <value = float {0.0}> ()
  six = Constant <value = float {6.0}> ()
  a0 = Conv (X, W0, B0)
  a = Clip (a0, zero, six)
  d0 = Conv <group = 15, strides = [2, 2], pads = [1, 1, 1, 1]> (a, W1, B1)
  d = Clip (d0, zero, six)
  Y = Conv (d, W2, B2)
"""


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    inits = []
    for name, dims, scale, seed in WEIGHTS:
        count = 1
        for d in dims:
            count *= d
        values = ", ".join("%.6g" % v for v in random_values(count, seed, scale))
        inits.append("float[%s] %s = {%s}" %
                     (", ".join(map(str, dims)), name, values))
    with open(argv[1], "w") as f:
        f.write("<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\n"
                "batched (float[2, 5, 17, 17] X) => (float[2, 7, 9, 9] Y)\n"
                "<%s>\n{%s}\n" % (", ".join(inits), NODES))


if __name__ == "__main__":
    main(sys.argv)
