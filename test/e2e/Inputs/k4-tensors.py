#!/usr/bin/env python3
"""Tensor files for the convolution and pooling end-to-end tests.

  k4-tensors.py inputs DIR SEED DIMS[:SCALE]...
      Writes DIR/input_<i>.pb (ONNX TensorProto, f32) for each DIMS
      ("1x16x12x12"), with deterministic pseudo-random values in
      [-SCALE, SCALE) (default 1), in model input order.
  k4-tensors.py refdir DIR
      Converts DIR/output_<i>.npy, the outputs of a host reference run
      (nnaccel-run --output DIR), into DIR/output_<i>.pb, which is what
      nnaccel-run --expect reads.

Pure Python (no numpy), so the tests need nothing beyond lit.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import outputs_to_pb, random_values, write_pb  # noqa: E402


def main(argv):
    if len(argv) >= 5 and argv[1] == "inputs":
        os.makedirs(argv[2], exist_ok=True)
        seed = int(argv[3])
        for i, spec in enumerate(argv[4:]):
            dims_text, _, scale = spec.partition(":")
            dims = [int(d) for d in dims_text.split("x")]
            count = 1
            for d in dims:
                count *= d
            values = random_values(count, seed + i, float(scale or 1.0))
            write_pb(os.path.join(argv[2], "input_%d.pb" % i), dims,
                     struct.pack("<%df" % count, *values))
    elif len(argv) == 3 and argv[1] == "refdir":
        outputs_to_pb(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
