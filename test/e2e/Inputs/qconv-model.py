#!/usr/bin/env python3
"""A small MobileNetV2-like model for the int8 convolution test (qconv.test).

  qconv-model.py model FILE [BATCH SIZE]
      Writes the ONNX text model (images BATCH x 8 x SIZE x SIZE, SIZE
      even; default 1 and 12) with its weights as initializers
      (deterministic pseudo-random values), so accel-quantize can quantize
      them. X [1, 8, 12, 12] ->
        a  = Clip(Conv 1x1 8->16)           (the first conv: stays f32)
        e  = Clip(Conv 1x1 16->48)          (int8, u8 in and out)
        d  = Clip(Conv dw 3x3 s1, 48)       (int8 depthwise, stride 1)
        p  = Conv 1x1 48->16                (int8, requantized for the add)
        r  = p + a                          (int8 residual add)
        e3 = Clip(Conv 1x1 16->32)          (int8, i8 input)
        p3 = Conv 1x1 32->16
        r2 = p3 + r                         (f32: a graph output; reads r
                                             through a dequantize)
        f  = Clip(Conv 1x1 16->64)
        g  = Clip(Conv dw 3x3 s2, 64)       (int8 depthwise, stride 2)
        h  = Relu(Conv dw 5x5 s1, 64)       (int8 depthwise, 5x5)
        p2 = Conv 1x1 64->24                (int8, real result)
        Y  = Gemm(GlobalAveragePool(p2))    (the last product: stays f32)
      Outputs r2, p2 and Y.

Pure Python (no numpy), like the other input scripts.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values  # noqa: E402

# name, dims, scale, seed
WEIGHTS = [
    ("W0", [16, 8, 1, 1], 0.5, 101), ("B0", [16], 0.5, 102),
    ("We", [48, 16, 1, 1], 0.3, 103), ("Be", [48], 0.5, 104),
    ("Wd", [48, 1, 3, 3], 0.5, 105), ("Bd", [48], 0.2, 106),
    ("Wp", [16, 48, 1, 1], 0.2, 107), ("Bp", [16], 0.2, 108),
    ("We3", [32, 16, 1, 1], 0.3, 119), ("Be3", [32], 0.3, 120),
    ("Wp3", [16, 32, 1, 1], 0.2, 121), ("Bp3", [16], 0.2, 122),
    ("We2", [64, 16, 1, 1], 0.3, 109), ("Be2", [64], 0.3, 110),
    ("Wd2", [64, 1, 3, 3], 0.5, 111), ("Bd2", [64], 0.2, 112),
    ("Wd3", [64, 1, 5, 5], 0.2, 113), ("Bd3", [64], 0.1, 114),
    ("Wp2", [24, 64, 1, 1], 0.2, 115), ("Bp2", [24], 0.2, 116),
    ("Wf", [10, 24], 0.5, 117), ("Bf", [10], 0.1, 118),
]

NODES = """
  zero = Constant <value = float {0.0}> ()
  six = Constant <value = float {6.0}> ()
  a0 = Conv (X, W0, B0)
  a = Clip (a0, zero, six)
  e0 = Conv (a, We, Be)
  e = Clip (e0, zero, six)
  d0 = Conv <group = 48, pads = [1, 1, 1, 1]> (e, Wd, Bd)
  d = Clip (d0, zero, six)
  p = Conv (d, Wp, Bp)
  r = Add (p, a)
  e30 = Conv (r, We3, Be3)
  e3 = Clip (e30, zero, six)
  p3 = Conv (e3, Wp3, Bp3)
  r2 = Add (p3, r)
  f0 = Conv (r2, We2, Be2)
  f = Clip (f0, zero, six)
  g0 = Conv <group = 64, strides = [2, 2], pads = [1, 1, 1, 1]> (f, Wd2, Bd2)
  g = Clip (g0, zero, six)
  h0 = Conv <group = 64, pads = [2, 2, 2, 2]> (g, Wd3, Bd3)
  h = Relu (h0)
  p2 = Conv (h, Wp2, Bp2)
  pool = GlobalAveragePool (p2)
  flat = Flatten (pool)
  Y = Gemm <transB = 1> (flat, Wf, Bf)
"""


def model_text(batch=1, size=12):
    initializers = []
    for name, dims, scale, seed in WEIGHTS:
        count = 1
        for d in dims:
            count *= d
        values = ", ".join("%.6g" % v for v in random_values(count, seed, scale))
        initializers.append("float[%s] %s = {%s}" %
                            (", ".join(map(str, dims)), name, values))
    half = size // 2
    return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\n"
            "qconv (float[%d, 8, %d, %d] X) => (float[%d, 16, %d, %d] r2, "
            "float[%d, 24, %d, %d] p2, float[%d, 10] Y)\n<%s>\n{%s}\n" %
            (batch, size, size, batch, size, size, batch, half, half, batch,
             ", ".join(initializers), NODES))


def main(argv):
    if len(argv) in (3, 5) and argv[1] == "model":
        shape = [int(v) for v in argv[3:5]]
        with open(argv[2], "w") as f:
            f.write(model_text(*shape))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
