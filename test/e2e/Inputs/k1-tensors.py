#!/usr/bin/env python3
"""Tensor files for the elementwise and data-movement end-to-end tests.

  k1-tensors.py random OUT.npy DIMS SEED [SCALE]
      Writes an f32 .npy of shape DIMS ("4x96"; "scalar" for rank 0) with
      deterministic pseudo-random values in [-SCALE, SCALE) (default 4).
  k1-tensors.py values OUT.npy V1,V2,...
      Writes a 1-D f32 .npy of the given values (inf, -inf and nan allowed):
      special-value checks.
  k1-tensors.py gelu-tanh IN.npy DIR
      Writes DIR/output_0.pb: the tanh GELU of IN.npy,
      0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in double precision
      rounded to f32 -- the formula itself, independent of lib/Numerics.
  k1-tensors.py refdir DIR
      Converts DIR/output_<i>.npy, the outputs of a host reference run
      (nnaccel-run --output DIR), into DIR/output_<i>.pb ONNX TensorProtos,
      which is what nnaccel-run --expect reads.

Pure Python (no numpy), so the tests need nothing beyond lit.
"""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import (outputs_to_pb, random_values, read_npy,  # noqa: E402
                         write_npy, write_pb)


def main(argv):
    if len(argv) >= 5 and argv[1] == "random":
        dims = [] if argv[3] == "scalar" else [int(d) for d in argv[3].split("x")]
        count = 1
        for d in dims:
            count *= d
        scale = float(argv[5]) if len(argv) > 5 else 4.0
        values = random_values(count, int(argv[4]), scale)
        write_npy(argv[2], dims, values)
    elif len(argv) == 4 and argv[1] == "values":
        values = [float(v) for v in argv[3].split(",")]
        write_npy(argv[2], [len(values)], values)
    elif len(argv) == 4 and argv[1] == "gelu-tanh":
        dims, raw = read_npy(argv[2])
        xs = struct.unpack("<%df" % (len(raw) // 4), raw)
        c = math.sqrt(2.0 / math.pi)
        ys = [0.5 * x * (1.0 + math.tanh(c * (x + 0.044715 * x ** 3)))
              for x in xs]
        os.makedirs(argv[3], exist_ok=True)
        write_pb(os.path.join(argv[3], "output_0.pb"), dims,
                 struct.pack("<%df" % len(ys), *ys))
    elif len(argv) == 3 and argv[1] == "refdir":
        outputs_to_pb(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
