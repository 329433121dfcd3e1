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
import ast
import os
import struct
import sys


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def write_pb(path, dims, raw):
    # TensorProto: dims (field 1, varint), data_type (2) = 1 (FLOAT),
    # raw_data (9, length-delimited).
    msg = bytearray()
    for d in dims:
        msg += b"\x08" + varint(d)
    msg += b"\x10\x01"
    msg += b"\x4a" + varint(len(raw)) + raw
    with open(path, "wb") as f:
        f.write(bytes(msg))


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit("%s: not a .npy file" % path)
    if data[6] == 1:
        (hlen,) = struct.unpack_from("<H", data, 8)
        start = 10
    else:
        (hlen,) = struct.unpack_from("<I", data, 8)
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        sys.exit("%s: only little-endian C-order f32 is supported" % path)
    return list(header["shape"]), data[start + hlen:]


def random_values(count, seed, scale):
    state = (seed * 2654435761) % 2**32 or 1
    values = []
    for _ in range(count):
        # xorshift32: deterministic across Python versions.
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        values.append((state / 2**32 * 2.0 - 1.0) * scale)
    return values


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
        i = 0
        while os.path.exists(os.path.join(argv[2], "output_%d.npy" % i)):
            dims, raw = read_npy(os.path.join(argv[2], "output_%d.npy" % i))
            write_pb(os.path.join(argv[2], "output_%d.pb" % i), dims, raw)
            i += 1
        if i == 0:
            sys.exit("%s: no output_0.npy" % argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
