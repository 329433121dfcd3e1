#!/usr/bin/env python3
"""A small ResNet-like model for the int8 implicit-GEMM conv test
(qgemm-conv.test).

  qgemm-conv-model.py model FILE
      Writes the ONNX text model with its weights as initializers
      (deterministic pseudo-random values), so accel-quantize can quantize
      them. X [1, 8, 14, 14] ->
        s  = Relu(Conv 3x3 8->16, pad 1)          (the first conv: f32)
        b1 = Relu(Conv 3x3 16->16, pad 1)         (int8, u8 in and out;
                                                   bands of 64 pixels: parts
                                                   of rows)
        b2 = Conv 3x3 16->16, pad 1               (int8, requantized)
        r1 = Relu(b2 + s)                         (int8 residual add)
        d1 = Relu(Conv 3x3 s2 16->30, pad 1)      (stride 2, 30 filters)
        d2 = Conv 3x3 30->32, pad 1               (30 channels: padded
                                                   pixel rows)
        sc = Conv 1x1 s2 16->32                   (strided 1x1 shortcut)
        r2 = Relu(d2 + sc)                        (f32: a graph output)
        e  = Conv 3x3 dilation 2, pad 2, 32->70   (two filter tiles, no
                                                   ReLU: a signed result)
        a  = Relu(Conv 5x5 70->16, pads [2, 1, 1, 2], strides [1, 2])
                                                  (two channel tiles, an
                                                   i8 input, or u8 with a
                                                   zero point when
                                                   asymmetric; real result)
        Y  = Gemm(GlobalAveragePool(a))           (the last product: f32)
        w  = Relu(Conv 3x3 16->128, pad 1)(r1)    (128 filters, u8 result:
                                                   stored in blocks of 64
                                                   filters on 4 cores)
        m  = Conv 1x1 128->16 (w)                 (int8 1x1, real result)
      Outputs r2, a, Y and m.

Pure Python (no numpy), like the other input scripts.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values  # noqa: E402

# name, dims, scale, seed
WEIGHTS = [
    ("Ws", [16, 8, 3, 3], 0.3, 201), ("Bs", [16], 0.2, 202),
    ("W1", [16, 16, 3, 3], 0.15, 203), ("B1", [16], 0.2, 204),
    ("W2", [16, 16, 3, 3], 0.15, 205), ("B2", [16], 0.2, 206),
    ("Wd1", [30, 16, 3, 3], 0.15, 207), ("Bd1", [30], 0.2, 208),
    ("Wd2", [32, 30, 3, 3], 0.1, 209), ("Bd2", [32], 0.2, 210),
    ("Wsc", [32, 16, 1, 1], 0.3, 211), ("Bsc", [32], 0.1, 212),
    ("We", [70, 32, 3, 3], 0.1, 213), ("Be", [70], 0.2, 214),
    ("Wa", [16, 70, 5, 5], 0.04, 215), ("Ba", [16], 0.1, 216),
    ("Wf", [10, 16], 0.5, 217), ("Bf", [10], 0.1, 218),
    ("Ww", [128, 16, 3, 3], 0.15, 219), ("Bw", [128], 0.1, 220),
    ("Wm", [16, 128, 1, 1], 0.1, 221), ("Bm", [16], 0.1, 222),
]

NODES = """
  s0 = Conv <pads = [1, 1, 1, 1]> (X, Ws, Bs)
  s = Relu (s0)
  b10 = Conv <pads = [1, 1, 1, 1]> (s, W1, B1)
  b1 = Relu (b10)
  b2 = Conv <pads = [1, 1, 1, 1]> (b1, W2, B2)
  r10 = Add (b2, s)
  r1 = Relu (r10)
  d10 = Conv <strides = [2, 2], pads = [1, 1, 1, 1]> (r1, Wd1, Bd1)
  d1 = Relu (d10)
  d2 = Conv <pads = [1, 1, 1, 1]> (d1, Wd2, Bd2)
  sc = Conv <strides = [2, 2]> (r1, Wsc, Bsc)
  r20 = Add (d2, sc)
  r2 = Relu (r20)
  e = Conv <dilations = [2, 2], pads = [2, 2, 2, 2]> (r2, We, Be)
  a0 = Conv <pads = [2, 1, 1, 2], strides = [1, 2]> (e, Wa, Ba)
  a = Relu (a0)
  pool = GlobalAveragePool (a)
  flat = Flatten (pool)
  w0 = Conv <pads = [1, 1, 1, 1]> (r1, Ww, Bw)
  w = Relu (w0)
  m = Conv (w, Wm, Bm)
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
            "qgemm (float[1, 8, 14, 14] X) => (float[1, 32, 7, 7] r2, "
            "float[1, 16, 6, 3] a, float[1, 10] Y, float[1, 16, 14, 14] m)"
            "\n<%s>\n{%s}\n" %
            (", ".join(initializers), NODES))


def main(argv):
    if len(argv) == 3 and argv[1] == "model":
        with open(argv[2], "w") as f:
            f.write(model_text())
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
