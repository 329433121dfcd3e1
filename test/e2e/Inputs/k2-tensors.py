#!/usr/bin/env python3
"""Tensor files for the kernel end-to-end tests, without numpy.

  k2-tensors.py random OUT.npy DIMS SEED [SCALE]
      Writes an f32 .npy of shape DIMS (e.g. 4x16x32) filled with
      deterministic pseudo-random values in [-SCALE, SCALE) (default 4).
  k2-tensors.py ids OUT.npy DIMS SEED VOCAB
      Writes an i64 .npy of shape DIMS with deterministic pseudo-random
      token ids in [0, VOCAB).
  k2-tensors.py npy2pb IN.npy OUT.pb
      Converts an f32 .npy (as nnaccel-run --output writes) to an ONNX
      TensorProto, the format nnaccel-run --expect reads.
"""
import ast
import struct
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import (  # noqa: E402
    random_values, read_npy, write_npy, write_pb, xorshift)


def write_ids(path, dims, values):
    """An i64 .npy (the f32 writer's header with another descr)."""
    shape = ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "")
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%s), }" % shape
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%dq" % len(values), *values))


def main(argv):
    if len(argv) >= 5 and argv[1] in ("random", "ids"):
        dims = [int(d) for d in argv[3].split("x")]
        count = 1
        for d in dims:
            count *= d
        seed = int(argv[4])
        if argv[1] == "ids":
            vocab = int(argv[5])
            write_ids(argv[2], dims,
                      [int(u * vocab) for u in xorshift(seed, count)])
            return
        scale = float(argv[5]) if len(argv) > 5 else 4.0
        write_npy(argv[2], dims, random_values(count, seed, scale))
    elif len(argv) == 4 and argv[1] == "npy2pb":
        dims, raw = read_npy(argv[2])
        write_pb(argv[3], dims, raw)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
