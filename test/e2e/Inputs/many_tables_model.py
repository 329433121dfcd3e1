#!/usr/bin/env python3
"""Writes the model and inputs of multi-card.test (pure Python): a
recommender with TABLES embedding tables (rows from 96 to 285, 16 wide,
about 1.4 MB of f32 in all), one bag of LOOKUPS rows per sample summed
from each (Gather + ReduceSum: accel.embedding_bag), the pooled vectors
concatenated with a dense feature vector, then Gemm 1936 x 16 + ReLU and
Gemm 16 x 1 + Sigmoid (a CTR probability).

  many_tables_model.py DIR SEED [TABLES]

DIR/model.onnxtxt, DIR/in/input_0.pb (the dense features, f32 [B, 16]) and
DIR/in/input_<1 + t>.pb (table t's int64 indices [B, LOOKUPS]).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rowwise_model import write_ids  # noqa: E402
from tensorfiles import random_values, write_pb  # noqa: E402

TABLES = 120
DIM = 16
BATCH = 4
LOOKUPS = 3


def rows_of(t):
    return 96 + (t * 37) % 190


def floats(values):
    return ", ".join("%.6g" % v for v in values)


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    directory, seed = argv[1], int(argv[2])
    global TABLES
    if len(argv) == 4:
        TABLES = int(argv[3])
    os.makedirs(os.path.join(directory, "in"), exist_ok=True)
    inits, body = [], []
    for t in range(TABLES):
        rows = rows_of(t)
        inits.append("float[%d, %d] table%d = {%s}" % (
            rows, DIM, t, floats(random_values(rows * DIM, seed + t, 1.0))))
        body.append("  rows%d = Gather <axis = 0> (table%d, ids%d)" % (t, t, t))
        body.append("  bag%d = ReduceSum <keepdims = 0> (rows%d, one)" % (t, t))
    width = (TABLES + 1) * DIM
    inits.append("float[16, %d] w1 = {%s}" % (
        width, floats(random_values(16 * width, seed + 500, 0.05))))
    inits.append("float[16] b1 = {%s}" % floats(
        random_values(16, seed + 501, 0.1)))
    inits.append("float[1, 16] w2 = {%s}" % floats(
        random_values(16, seed + 502, 0.5)))
    inits.append("float[1] b2 = {0.1}")
    inits.append("int64[1] one = {1}")
    body.append("  features = Concat <axis = 1> (dense, %s)" %
                ", ".join("bag%d" % t for t in range(TABLES)))
    body.append("  hidden = Gemm <transB = 1> (features, w1, b1)")
    body.append("  act = Relu (hidden)")
    body.append("  logit = Gemm <transB = 1> (act, w2, b2)")
    body.append("  ctr = Sigmoid (logit)")
    inputs = ["float[%d, %d] dense" % (BATCH, DIM)] + [
        "int64[%d, %d] ids%d" % (BATCH, LOOKUPS, t) for t in range(TABLES)]
    model = """<
  ir_version: 8,
  opset_import: ["" : 13]
>
many_tables (%s) => (float[%d, 1] ctr)
<%s>
{
%s
}
""" % (", ".join(inputs), BATCH, ", ".join(inits), "\n".join(body))
    with open(os.path.join(directory, "model.onnxtxt"), "w") as f:
        f.write(model)
    dense = random_values(BATCH * DIM, seed + 600, 1.0)
    write_pb(os.path.join(directory, "in", "input_0.pb"), [BATCH, DIM],
             struct.pack("<%df" % len(dense), *dense))
    for t in range(TABLES):
        write_ids(os.path.join(directory, "in", "input_%d.pb" % (1 + t)),
                  [BATCH, LOOKUPS], rows_of(t), seed + 1000 + t)


if __name__ == "__main__":
    main(sys.argv)
