#!/usr/bin/env python3
"""Writes inputs with absurd sizes for test/tools/absurd-sizes.test.

Each claims far more data than it holds; the readers must refuse them with
an error before allocating anything. Encoded by hand (no numpy or onnx
Python modules on the test machines).

Usage: make_absurd.py OUTPUT_DIR
"""

import os
import struct
import sys


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


def npy(descr, shape, payload):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join(f"{d}," for d in shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + \
        header.encode() + payload


def tensor_proto(dims, floats):
    """TensorProto: dims (1), data_type FLOAT (2), float_data (4), name (8)."""
    data = b"".join(b"\x08" + varint(d) for d in dims) + b"\x10\x01"
    packed = struct.pack("<%df" % len(floats), *floats)
    data += b"\x22" + varint(len(packed)) + packed
    return data + b"\x42\x01X"


def main():
    out = sys.argv[1]
    files = {
        # 2^60 float32 elements, 8 bytes of data.
        "elements-2p60.npy": npy("<f4", [1 << 60], b"\0" * 8),
        # 2^30 x 2^30: 2^60 elements again, through two dimensions.
        "elements-2p60.pb": tensor_proto([1 << 30, 1 << 30], [1.0]),
        # 50000 x 50000 float32 = 10 GB, one value present.
        "alloc-10gb.pb": tensor_proto([50000, 50000], [1.0]),
        "alloc-10gb.npy": npy("<f4", [50000, 50000], b"\0" * 16),
    }
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
