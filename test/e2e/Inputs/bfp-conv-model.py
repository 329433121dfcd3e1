#!/usr/bin/env python3
"""A small MobileNet-like CNN for the block floating-point conv test
(quantize-block-float-conv.test).

  bfp-conv-model.py model FILE
      Writes the ONNX text model with its weights as initializers
      (deterministic pseudo-random values, weights scaled by 1/sqrt(fan-in)
      so the activations stay near 1). X [1, 32, 12, 12] ->
        a = Clip(Conv 1x1 32->96)      (K = 32: one k tile; 96 filters:
                                        two groups of filter rows)
        d = Clip(Conv dw 3x3, 96)      (depthwise: stays f32)
        p = Conv 1x1 96->80            (K = 96: msfp8 tiles of 48, mxint8
                                        of 32; the last 16 filter rows go
                                        through SHARED)
        s = Relu(Conv 1x1 s2 80->64)   (strided; K = 80: msfp8 tiles of 16,
                                        mxint8 keeps it f32)
        e = Relu(Conv 3x3 64->40)      (implicit GEMM, K = 576: k tiles of
                                        64; 40 filter rows of 36-byte msfp8
                                        tiles go through SHARED)
        q = Clip(Conv 1x1 40->128)     (K = 40: stays f32)
        Y = Gemm(GlobalAveragePool(q)) (the last product: stays f32)
      Outputs p and Y.
  bfp-conv-model.py wide FILE
      One 1x1 conv, X [2, 64, 4, 4] -> Y [2, 192, 4, 4] with bias: three
      groups of 64 filter rows, for a target whose MRF holds two of them
      but not all three (the groups then take turns in two slots).

Pure Python (no numpy), like the other input scripts.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values  # noqa: E402

# name, dims, scale, seed (weights: 1.7 / sqrt(fan-in), a uniform
# distribution's variance-preserving scale)
WEIGHTS = [
    ("Wa", [96, 32, 1, 1], 1.7 / math.sqrt(32), 201), ("Ba", [96], 0.2, 202),
    ("Wd", [96, 1, 3, 3], 1.7 / 3, 203), ("Bd", [96], 0.2, 204),
    ("Wp", [80, 96, 1, 1], 1.7 / math.sqrt(96), 205), ("Bp", [80], 0.2, 206),
    ("Ws", [64, 80, 1, 1], 1.7 / math.sqrt(80), 207), ("Bs", [64], 0.2, 208),
    ("We", [40, 64, 3, 3], 1.7 / math.sqrt(576), 209), ("Be", [40], 0.2, 210),
    ("Wq", [128, 40, 1, 1], 1.7 / math.sqrt(40), 211), ("Bq", [128], 0.2, 212),
    ("Wf", [10, 128], 1.7 / math.sqrt(128), 213), ("Bf", [10], 0.1, 214),
]

NODES = """
  zero = Constant <value = float {0.0}> ()
  six = Constant <value = float {6.0}> ()
  a0 = Conv (X, Wa, Ba)
  a = Clip (a0, zero, six)
  d0 = Conv <group = 96, pads = [1, 1, 1, 1]> (a, Wd, Bd)
  d = Clip (d0, zero, six)
  p = Conv (d, Wp, Bp)
  s0 = Conv <strides = [2, 2]> (p, Ws, Bs)
  s = Relu (s0)
  e0 = Conv <pads = [1, 1, 1, 1]> (s, We, Be)
  e = Relu (e0)
  q0 = Conv (e, Wq, Bq)
  q = Clip (q0, zero, six)
  pool = GlobalAveragePool (q)
  flat = Flatten (pool)
  Y = Gemm <transB = 1> (flat, Wf, Bf)
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
            "bfpconv (float[1, 32, 12, 12] X) => (float[1, 80, 12, 12] p, "
            "float[1, 10] Y)\n<%s>\n{%s}\n" %
            (", ".join(initializers), NODES))


def wide_text():
    weights = ", ".join("%.6g" % v for v in
                        random_values(192 * 64, 221, 1.7 / math.sqrt(64)))
    bias = ", ".join("%.6g" % v for v in random_values(192, 222, 0.2))
    return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\n"
            "wide (float[2, 64, 4, 4] X) => (float[2, 192, 4, 4] Y)\n"
            "<float[192, 64, 1, 1] W = {%s}, float[192] B = {%s}>\n"
            "{\n  Y = Conv (X, W, B)\n}\n" % (weights, bias))


def main(argv):
    if len(argv) == 3 and argv[1] == "model":
        with open(argv[2], "w") as f:
            f.write(model_text())
    elif len(argv) == 3 and argv[1] == "wide":
        with open(argv[2], "w") as f:
            f.write(wide_text())
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
