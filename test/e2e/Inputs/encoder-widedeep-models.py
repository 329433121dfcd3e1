#!/usr/bin/env python3
"""The small real-model shapes of test/e2e/encoder-widedeep.test.

  encoder-widedeep-models.py model encoder FILE
      An XLM-R-style encoder layer (opset 17), ONNX text with its weights
      as initializers: token ids [2, seq] (a symbolic sequence axis; the
      test fixes it with --input-shape), token embeddings gathered from a
      table, learned position embeddings sliced from a constant [32, 64]
      table to the sequence length (Shape -> Slice) and added ([2, S, 64] +
      [S, 64]), LayerNormalization, a feed-forward block with the erf form
      of GELU, a residual add. Outputs y [2, S, 64] and the sliced position
      table pos [S, 64].
  encoder-widedeep-models.py model widedeep FILE
      A wide&deep model: dense features [4, 13] through a wide Gemm; three
      categorical indices [4, 3] (int64) plus constant per-feature offsets
      (integer index arithmetic, after the wide Gemm in node order) gather
      rows of one [60, 16] embedding table; the dense features are
      concatenated with the flattened embeddings ([4, 13] ++ [4, 48]: the
      second part starts 52 bytes into each row) into a deep MLP; the sum
      of both through a sigmoid.
  encoder-widedeep-models.py ids FILE DIMS LIMIT SEED
      Writes an int64 TensorProto of pseudo-random indices in [0, LIMIT).

Pure Python (no numpy), like the other input scripts.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values, varint, xorshift  # noqa: E402


def initializer(name, dims, scale, seed):
    count = 1
    for d in dims:
        count *= d
    values = ", ".join("%.6g" % v for v in random_values(count, seed, scale))
    return "float[%s] %s = {%s}" % (", ".join(map(str, dims)), name, values)


ENCODER = """
  shape = Shape (ids)
  one = Constant <value = int64[1] {1}> ()
  two = Constant <value = int64[1] {2}> ()
  zero = Constant <value = int64[1] {0}> ()
  seqlen = Slice (shape, one, two)
  pos = Slice (postab, zero, seqlen, zero)
  tokens = Gather (tok, ids)
  x = Add (tokens, pos)
  ln = LayerNormalization <axis = -1, epsilon = 0.00001> (x, gamma, beta)
  h = MatMul (ln, w1)
  hb = Add (h, b1)
  sqrt2 = Constant <value = float {1.4142135}> ()
  scaled = Div (hb, sqrt2)
  erf = Erf (scaled)
  onef = Constant <value = float {1.0}> ()
  erf1 = Add (erf, onef)
  prod = Mul (hb, erf1)
  half = Constant <value = float {0.5}> ()
  gelu = Mul (prod, half)
  o = MatMul (gelu, w2)
  ob = Add (o, b2)
  y = Add (ob, ln)
"""

WIDEDEEP = """
  wide = Gemm <transB = 1> (dense, ww, wb)
  offsets = Constant <value = int64[3] {0, 10, 30}> ()
  idx = Add (cat, offsets)
  emb = Gather (table, idx)
  flat = Flatten <axis = 1> (emb)
  joined = Concat <axis = 1> (dense, flat)
  d1 = Gemm <transB = 1> (joined, w1, b1)
  r1 = Relu (d1)
  d2 = Gemm <transB = 1> (r1, w2, b2)
  logit = Add (wide, d2)
  y = Sigmoid (logit)
"""


def model(kind):
    if kind == "encoder":
        inits = [initializer("tok", [50, 64], 0.5, 301),
                 initializer("postab", [32, 64], 0.5, 302),
                 initializer("gamma", [64], 1.0, 303),
                 initializer("beta", [64], 0.2, 304),
                 initializer("w1", [64, 128], 0.2, 305),
                 initializer("b1", [128], 0.2, 306),
                 initializer("w2", [128, 64], 0.2, 307),
                 initializer("b2", [64], 0.2, 308)]
        return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"
                "encoder (int64[2, seq] ids) => (float[2, seq, 64] y, "
                "float[seq, 64] pos)\n<%s>\n{%s}\n" %
                (", ".join(inits), ENCODER))
    if kind == "widedeep":
        inits = [initializer("ww", [1, 13], 0.3, 401),
                 initializer("wb", [1], 0.1, 402),
                 initializer("table", [60, 16], 0.5, 403),
                 initializer("w1", [64, 61], 0.2, 404),
                 initializer("b1", [64], 0.1, 405),
                 initializer("w2", [1, 64], 0.2, 406),
                 initializer("b2", [1], 0.1, 407)]
        return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\n"
                "widedeep (float[4, 13] dense, int64[4, 3] cat) => "
                "(float[4, 1] y)\n<%s>\n{%s}\n" % (", ".join(inits), WIDEDEEP))
    sys.exit("unknown model " + kind)


def write_ids(path, dims, limit, seed):
    count = 1
    for d in dims:
        count *= d
    values = [int(u * limit) for u in xorshift(seed, count)]
    # TensorProto: dims (1), data_type (2) = 7 (INT64), raw_data (9).
    raw = struct.pack("<%dq" % count, *values)
    msg = bytearray()
    for d in dims:
        msg += b"\x08" + varint(d)
    msg += b"\x10\x07"
    msg += b"\x4a" + varint(len(raw)) + raw
    with open(path, "wb") as f:
        f.write(bytes(msg))


def main(argv):
    if len(argv) == 4 and argv[1] == "model":
        with open(argv[3], "w") as f:
            f.write(model(argv[2]))
    elif len(argv) == 6 and argv[1] == "ids":
        os.makedirs(os.path.dirname(argv[2]) or ".", exist_ok=True)
        write_ids(argv[2], [int(d) for d in argv[3].split("x")], int(argv[4]),
                  int(argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
