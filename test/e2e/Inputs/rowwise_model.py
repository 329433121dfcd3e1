#!/usr/bin/env python3
"""Writes the model and inputs of rowwise-embeddings.test (pure Python).

DIR/model.onnxtxt holds three constant tables (initializers, so
accel-quantize-embeddings can quantize them at compile time):
  - big   1024 x 64: 256 bags of 8 lookups, summed (Gather + ReduceSum,
          recognised as accel.embedding_bag; split by bags across cores);
  - odd    300 x 33: 12 bags of 5, averaged (Gather + ReduceMean); an odd
          width leaves the last rw4 byte of every row half used;
  - rows   200 x 16: a plain row gather of 24 indices (accel.gather).
Rows have different ranges (a per-row scale matters) and one row of `odd`
is constant (scale 1, codes 0). DIR/in/input_<i>.pb are the int64 index
tensors in [0, rows).

  rowwise_model.py DIR SEED
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values, varint, xorshift  # noqa: E402

INT64 = 7
TABLES = [("big", 1024, 64), ("odd", 300, 33), ("rows", 200, 16)]
LOOKUPS = {"big": [256, 8], "odd": [12, 5], "rows": [24]}


def table_values(name, rows, dim, seed):
    values = random_values(rows * dim, seed, 1.0)
    for r in range(rows):
        # Row ranges from 0.1 to ~4 and an offset, so rows need their own
        # scale and bias.
        scale, shift = 0.1 + (r % 13) * 0.3, (r % 5) * 0.5 - 1.0
        for c in range(dim):
            values[r * dim + c] = values[r * dim + c] * scale + shift
    if name == "odd":
        values[7 * dim:8 * dim] = [0.625] * dim
    return values


def write_ids(path, dims, rows, seed):
    count = 1
    for d in dims:
        count *= d
    ids = [int(v * rows) % rows for v in xorshift(seed, count)]
    msg = bytearray()
    for d in dims:
        msg += b"\x08" + varint(d)
    msg += b"\x10" + varint(INT64)
    raw = struct.pack("<%dq" % count, *ids)
    msg += b"\x4a" + varint(len(raw)) + raw
    with open(path, "wb") as f:
        f.write(bytes(msg))


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    directory, seed = argv[1], int(argv[2])
    os.makedirs(os.path.join(directory, "in"), exist_ok=True)
    inits = []
    for i, (name, rows, dim) in enumerate(TABLES):
        values = table_values(name, rows, dim, seed + i)
        inits.append("float[%d, %d] %s = {%s}" % (
            rows, dim, name, ", ".join("%.6g" % v for v in values)))
    ids = ", ".join("int64[%s] %s_ids" % (", ".join(map(str, LOOKUPS[n])), n)
                    for n, _, _ in TABLES)
    model = """<
  ir_version: 8,
  opset_import: ["" : 13]
>
rowwise (%s) => (float[256, 64] bag_sum, float[12, 33] bag_mean, float[24, 16] rows_out)
<%s>
{
  big_rows = Gather <axis = 0> (big, big_ids)
  bag_sum = ReduceSum <keepdims = 0> (big_rows, one)
  odd_rows = Gather <axis = 0> (odd, odd_ids)
  bag_mean = ReduceMean <axes = [1], keepdims = 0> (odd_rows)
  rows_out = Gather <axis = 0> (rows, rows_ids)
}
""" % (ids, ", ".join(inits + ["int64[1] one = {1}"]))
    with open(os.path.join(directory, "model.onnxtxt"), "w") as f:
        f.write(model)
    for i, (name, rows, _) in enumerate(TABLES):
        write_ids(os.path.join(directory, "in", "input_%d.pb" % i),
                  LOOKUPS[name], rows, seed + 10 + i)


if __name__ == "__main__":
    main(sys.argv)
