#!/usr/bin/env python3
"""Writes small binary ONNX models for the importer tests.

The ONNX text syntax of libonnx 1.12 cannot express node names or external
data, and the test machines have no `onnx` Python module, so this encodes
the few ModelProto fields the tests need by hand (protobuf wire format).

Usage: make_onnx.py KIND OUTPUT_DIR   (writes OUTPUT_DIR/KIND.onnx and any
external data files next to it)
"""

import os
import struct
import sys

FLOAT, UINT8, INT64, UINT64 = 1, 2, 7, 13


def varint(value):
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def vint(field, value):
    return key(field, 0) + varint(value)


def blob(field, data):
    if isinstance(data, str):
        data = data.encode()
    return key(field, 2) + varint(len(data)) + data


def tensor_type(elem, dims):
    shape = b"".join(
        blob(1, blob(2, d) if isinstance(d, str) else vint(1, d)) for d in dims)
    return blob(1, vint(1, elem) + blob(2, shape))


def value_info(name, elem, dims):
    return blob(1, name) + blob(2, tensor_type(elem, dims))


def node(op, inputs, outputs, name="", domain=""):
    data = b"".join(blob(1, i) for i in inputs)
    data += b"".join(blob(2, o) for o in outputs)
    if name:
        data += blob(3, name)
    data += blob(4, op)
    if domain:
        data += blob(7, domain)
    return blob(1, data)


def tensor(name, elem, dims, raw=None, external=None):
    data = b"".join(vint(1, d) for d in dims) + vint(2, elem) + blob(8, name)
    if raw is not None:
        data += blob(9, raw)
    if external is not None:
        for k, v in external:
            data += blob(13, blob(1, k) + blob(2, v))
        data += vint(14, 1)  # data_location = EXTERNAL
    return data


def model(nodes, inputs, outputs, initializers=(), opset=13):
    graph = b"".join(nodes) + blob(2, "g")
    graph += b"".join(blob(5, t) for t in initializers)
    graph += b"".join(blob(11, value_info(*i)) for i in inputs)
    graph += b"".join(blob(12, value_info(*o)) for o in outputs)
    opset_id = blob(1, "") + vint(2, opset)
    return vint(1, 8) + blob(2, "make_onnx.py") + blob(7, graph) + blob(8, opset_id)


def floats(values):
    return struct.pack("<%df" % len(values), *values)


def external_model(location, offset=None, length=None, rows=20):
    """Y = MatMul(X[1x4], W[4 x rows]) with W in external data."""
    ext = [("location", location)]
    if offset is not None:
        ext.append(("offset", str(offset)))
    if length is not None:
        ext.append(("length", str(length)))
    return model(
        [node("MatMul", ["X", "W"], ["Y"], "matmul")],
        [("X", FLOAT, [1, 4])], [("Y", FLOAT, [1, rows])],
        [tensor("W", FLOAT, [4, rows], external=ext)])


def build(kind, outdir):
    files = {}
    if kind == "named_unsupported":
        # Three unsupported op types; Unique appears four times (only the
        # first three names are listed), Compress twice; Relu is supported.
        nodes = [node("Unique", ["X"], ["n%d" % i], "nz_%d" % i)
                 for i in range(4)]
        nodes.insert(1, node("Compress", ["X"], ["s0"], "split_a"))
        nodes.append(node("Relu", ["X"], ["Y"], "relu"))
        nodes.append(node("Compress", ["X"], ["s1"], "split_b"))
        nodes.append(node("Attention", ["X"], ["a"], "attn",
                          domain="com.microsoft"))
        files[kind + ".onnx"] = model(
            nodes, [("X", FLOAT, [2, 3])], [("Y", FLOAT, [2, 3])])
    elif kind == "named_error":
        # A converter error names the node.
        files[kind + ".onnx"] = model(
            [node("Squeeze", ["X", "axes"], ["Y"], "/model/squeeze_7")],
            [("X", FLOAT, [2, 3])], [("Y", FLOAT, [3])],
            [tensor("axes", INT64, [1], raw=struct.pack("<q", 0))])
    elif kind == "external_ok":
        # 80 floats (> 64: a dense_resource) at offset 16 of weights.bin,
        # and a 2-element bias inline from the same file at offset 0.
        w = floats([float(i) for i in range(80)])
        files["weights.bin"] = floats([0.5, -0.5]) + b"\0" * 8 + w
        ext_w = [("location", "weights.bin"), ("offset", "16"),
                 ("length", str(len(w)))]
        ext_b = [("location", "weights.bin"), ("length", "8")]
        files[kind + ".onnx"] = model(
            [node("MatMul", ["X", "W"], ["M"], "matmul"),
             node("Add", ["M", "B"], ["Y"], "bias")],
            [("X", FLOAT, [1, 4])], [("Y", FLOAT, [2, 20])],
            [tensor("W", FLOAT, [4, 20], external=ext_w),
             tensor("B", FLOAT, [2, 1], external=ext_b)])
    elif kind == "external_missing":
        files[kind + ".onnx"] = external_model("missing_weights.bin")
    elif kind == "external_range":
        files["short.bin"] = floats([1.0] * 80)
        files[kind + ".onnx"] = external_model("short.bin", offset=64)
    elif kind == "external_length":
        files["short.bin"] = floats([1.0] * 80)
        files[kind + ".onnx"] = external_model("short.bin", length=100)
    elif kind == "external_no_location":
        files[kind + ".onnx"] = model(
            [node("Identity", ["W"], ["Y"], "id")], [], [("Y", FLOAT, [2])],
            [tensor("W", FLOAT, [2], external=[("offset", "0")])])
    elif kind == "raw_size":
        # raw_data with 3 floats for a 4-element tensor.
        files[kind + ".onnx"] = model(
            [node("Add", ["X", "W"], ["Y"], "add")],
            [("X", FLOAT, [4])], [("Y", FLOAT, [4])],
            [tensor("W", FLOAT, [4], raw=floats([1.0, 2.0, 3.0]))])
    elif kind == "uint8_initializer":
        files[kind + ".onnx"] = model(
            [node("Identity", ["W"], ["Y"], "id")], [], [("Y", UINT8, [2])],
            [tensor("W", UINT8, [2], raw=b"\1\xff")])
    elif kind == "uint64_initializer":
        files[kind + ".onnx"] = model(
            [node("Identity", ["W"], ["Y"], "id")], [], [("Y", UINT64, [2])],
            [tensor("W", UINT64, [2], raw=b"\1" + b"\0" * 7 + b"\2" + b"\0" * 7)])
    else:
        sys.exit("unknown kind " + kind)
    os.makedirs(outdir, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    build(sys.argv[1], sys.argv[2])
