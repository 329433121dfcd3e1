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


def write_npy(path, dims, values):
    shape = ", ".join("%d" % d for d in dims) + ("," if len(dims) == 1 else "")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % shape
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit("%s: not a .npy file" % path)
    major = data[6]
    if major == 1:
        (hlen,) = struct.unpack_from("<H", data, 8)
        start = 10
    else:
        (hlen,) = struct.unpack_from("<I", data, 8)
        start = 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        sys.exit("%s: only little-endian C-order f32 is supported" % path)
    dims = list(header["shape"])
    return dims, data[start + hlen:]


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def write_pb(path, dims, raw):
    # TensorProto: dims = 1 (int64, packed), data_type = 2 (FLOAT = 1),
    # raw_data = 9.
    packed = b"".join(varint(d) for d in dims)
    msg = b"\x0a" + varint(len(packed)) + packed if dims else b""
    msg += b"\x10\x01"
    msg += b"\x4a" + varint(len(raw)) + raw
    with open(path, "wb") as f:
        f.write(msg)


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
