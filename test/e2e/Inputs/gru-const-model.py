#!/usr/bin/env python3
"""A GRU with constant weights at the shape of issue 18's real model, for
test/e2e/recurrent-padded.test.

  gru-const-model.py model FILE
      ONNX text: X [100, 1, 16] -> GRU (hidden_size 500, linear_before_reset
      1, W, R and B initializers with deterministic pseudo-random values)
      -> Y [100, 1, 1, 500], Y_h [1, 1, 500]. A step of Y is 2000 bytes,
      not a multiple of 64, and the sequence does not fit on chip, so
      accel-pad-recurrent pads the constants to hidden size 512 at compile
      time.

Pure Python (no numpy), like the other input scripts.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values  # noqa: E402

H, I, S = 500, 16, 100


def initializer(name, dims, scale, seed):
    count = 1
    for d in dims:
        count *= d
    values = ",".join("%.5g" % v for v in random_values(count, seed, scale))
    return "float[%s] %s = {%s}" % (", ".join(map(str, dims)), name, values)


def main(argv):
    if len(argv) != 3 or argv[1] != "model":
        sys.exit(__doc__)
    inits = [initializer("W", [1, 3 * H, I], 0.2, 501),
             initializer("R", [1, 3 * H, H], 0.05, 502),
             initializer("B", [1, 6 * H], 0.2, 503)]
    with open(argv[2], "w") as f:
        f.write("<\n  ir_version: 8,\n  opset_import: [\"\" : 14]\n>\n"
                "gruconst (float[%d, 1, %d] X) => (float[%d, 1, 1, %d] Y, "
                "float[1, 1, %d] Y_h)\n<%s>\n{\n  Y, Y_h = GRU <hidden_size = "
                "%d, linear_before_reset = 1> (X, W, R, B)\n}\n" %
                (S, I, S, H, H, ", ".join(inits), H))


if __name__ == "__main__":
    main(sys.argv)
