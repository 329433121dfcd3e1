#!/usr/bin/env python3
"""Writes the inputs of embedding-split.test: a random f32 table (ROWS x
DIM) as input_0.pb and BAGS x LEN int64 indices in [0, ROWS) as
input_1.pb (pure Python, no numpy).

  bag_inputs.py DIR SEED ROWS DIM BAGS LEN
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values, varint, xorshift  # noqa: E402

FLOAT, INT64 = 1, 7


def write_tensor(path, dims, data_type, raw):
    # TensorProto: dims (1), data_type (2), raw_data (9).
    msg = bytearray()
    for d in dims:
        msg += b"\x08" + varint(d)
    msg += b"\x10" + varint(data_type)
    msg += b"\x4a" + varint(len(raw)) + raw
    with open(path, "wb") as f:
        f.write(bytes(msg))


def main(argv):
    if len(argv) != 7:
        sys.exit(__doc__)
    directory, seed = argv[1], int(argv[2])
    rows, dim, bags, length = (int(a) for a in argv[3:7])
    os.makedirs(directory, exist_ok=True)
    table = random_values(rows * dim, seed, 1.0)
    write_tensor(os.path.join(directory, "input_0.pb"), [rows, dim], FLOAT,
                 struct.pack("<%df" % len(table), *table))
    ids = [int(v * rows) % rows for v in xorshift(seed + 1, bags * length)]
    write_tensor(os.path.join(directory, "input_1.pb"), [bags, length], INT64,
                 struct.pack("<%dq" % len(ids), *ids))


if __name__ == "__main__":
    main(sys.argv)
