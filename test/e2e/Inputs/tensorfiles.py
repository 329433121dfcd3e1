"""Tensor file helpers shared by the end-to-end tests' input scripts.

Pure Python (no numpy): f32 .npy files (write / read), ONNX TensorProto
.pb files with raw f32 data (what nnaccel-run --expect reads), and the
deterministic pseudo-random values the tests feed both the card and the
host reference with.
"""
import ast
import os
import struct
import sys


def xorshift(seed, count):
    """`count` reproducible pseudo-random values in [0, 1) (xorshift32:
    deterministic across Python versions)."""
    state = seed * 2654435761 % 2**32 or 1
    for _ in range(count):
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        yield state / 2**32


def random_values(count, seed, scale):
    """`count` reproducible pseudo-random values in [-scale, scale)."""
    return [(u * 2.0 - 1.0) * scale for u in xorshift(seed, count)]


def outputs_to_pb(directory):
    """Converts directory/output_<i>.npy (what nnaccel-run --output writes)
    into output_<i>.pb next to them (what nnaccel-run --expect reads)."""
    i = 0
    while os.path.exists(os.path.join(directory, "output_%d.npy" % i)):
        dims, raw, dtype = read_npy(os.path.join(directory, "output_%d.npy" % i),
                                    with_type=True)
        write_pb(os.path.join(directory, "output_%d.pb" % i), dims, raw, dtype)
        i += 1
    if i == 0:
        sys.exit("%s: no output_0.npy" % directory)


def write_npy(path, dims, values):
    shape = "".join("%d, " % d for d in dims).rstrip(" ")
    if len(dims) > 1:
        shape = shape.rstrip(",")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % shape
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header += " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


# .npy descr -> ONNX TensorProto data_type, for the outputs refdir converts.
NPY_TO_ONNX = {"<f4": 1, "|u1": 2, "|i1": 3, "<i4": 6, "<i8": 7, "|b1": 9}


def read_npy(path, with_type=False):
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
    supported = NPY_TO_ONNX if with_type else {"<f4": 1}
    if header["descr"] not in supported or header["fortran_order"]:
        sys.exit("%s: only little-endian C-order %s is supported" %
                 (path, ", ".join(supported)))
    if with_type:
        return (list(header["shape"]), data[start + hlen:],
                NPY_TO_ONNX[header["descr"]])
    return list(header["shape"]), data[start + hlen:]


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def write_pb(path, dims, raw, data_type=1):
    # TensorProto: dims (1, varint each), data_type (2; 1 = FLOAT, 9 = BOOL),
    # raw_data (9, length-delimited).
    msg = bytearray()
    for d in dims:
        msg += b"\x08" + varint(d)
    msg += b"\x10" + varint(data_type)
    msg += b"\x4a" + varint(len(raw)) + raw
    with open(path, "wb") as f:
        f.write(bytes(msg))
