#!/usr/bin/env python3
"""Tensor files for the kernel end-to-end tests, without numpy.

  k2-tensors.py random OUT.npy DIMS SEED [SCALE]
      Writes an f32 .npy of shape DIMS (e.g. 4x16x32) filled with
      deterministic pseudo-random values in [-SCALE, SCALE) (default 4).
  k2-tensors.py npy2pb IN.npy OUT.pb
      Converts an f32 .npy (as nnaccel-run --output writes) to an ONNX
      TensorProto, the format nnaccel-run --expect reads.
"""
import ast
import struct
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import read_npy, write_npy, write_pb  # noqa: E402


def main(argv):
    if len(argv) >= 5 and argv[1] == "random":
        dims = [int(d) for d in argv[3].split("x")]
        state = int(argv[4]) * 2654435761 % 2**32 or 1
        scale = float(argv[5]) if len(argv) > 5 else 4.0
        count = 1
        for d in dims:
            count *= d
        values = []
        for _ in range(count):
            # xorshift32: reproducible everywhere.
            state ^= (state << 13) & 0xFFFFFFFF
            state ^= state >> 17
            state ^= (state << 5) & 0xFFFFFFFF
            values.append((state / 2**32 * 2.0 - 1.0) * scale)
        write_npy(argv[2], dims, values)
    elif len(argv) == 4 and argv[1] == "npy2pb":
        dims, raw = read_npy(argv[2])
        write_pb(argv[3], dims, raw)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
