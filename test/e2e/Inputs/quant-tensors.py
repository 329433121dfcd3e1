#!/usr/bin/env python3
"""Tensors for the quantisation end-to-end test (quant.test).

  quant-tensors.py DIR
      Writes DIR/<input>.pb for every input of quant-const.onnxtxt and the
      expected outputs DIR/expect/output_<i>.pb (what nnaccel-run --expect
      reads). The values are those of the ONNX backend node tests
      (QuantizeLinear, DequantizeLinear, QLinearMatMul, QLinearConv,
      MatMulInteger, onnx 1.12) whose parameters the model makes constants;
      the expected integers are ONNX's, compared exactly.

Pure Python (no numpy, no onnx).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import varint  # noqa: E402

# ONNX TensorProto data types and struct formats.
TYPES = {"f32": (1, "f"), "u8": (2, "B"), "i32": (6, "i")}

X = [0.0, 2.0, 3.0, 1000.0, -254.0, -1000.0]
XA = [-162.0, 10.0, -100.0, 232.0, -20.0, -50.0, -76.0, 0.0, 0.0, 252.0,
      32.0, -44.0, 245.0, -485.0, -960.0, -270.0, -375.0, -470.0]
QA = [3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121,
      102]
A = [208, 236, 0, 238, 3, 214, 255, 29]
B = [152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247]
CX = [255, 174, 162, 25, 203, 168, 58, 15, 59, 237, 95, 129, 0, 64, 56, 242,
      153, 221, 168, 12, 166, 232, 178, 186, 195, 237, 162, 237, 188, 39, 124,
      77, 80, 102, 43, 127, 230, 21, 83, 41, 40, 134, 255, 154, 92, 141, 42,
      148, 247]
MA = [11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0]
MB = [1, 4, 2, 5, 3, 6]

INPUTS = [
    ("x", "f32", [6], X),
    ("xa", "f32", [1, 3, 3, 2], XA),
    ("q", "u8", [4], [0, 3, 128, 255]),
    ("qa", "u8", [1, 3, 3, 2], QA),
    ("a", "u8", [2, 4], A),
    ("b", "u8", [4, 3], B),
    ("cx", "u8", [1, 1, 7, 7], CX),
    ("cw", "u8", [1, 1, 1, 1], [0]),
    ("ma", "u8", [4, 3], MA),
    ("mb", "u8", [3, 2], MB),
    # The same parameters as run-time inputs.
    ("s_rt", "f32", [], [2.0]),
    ("z_rt", "u8", [], [128]),
    ("as_rt", "f32", [1], [0.0066]),
    ("az_rt", "u8", [1], [113]),
    ("bs_rt", "f32", [1], [0.00705]),
    ("bz_rt", "u8", [1], [114]),
    ("ys_rt", "f32", [1], [0.0107]),
    ("yz_rt", "u8", [1], [118]),
]

Y_Q = [128, 129, 130, 255, 1, 0]
Y_MM = [168, 115, 255, 1, 66, 151]
OUTPUTS = [
    ("y_q", "u8", [6], Y_Q),
    ("y_qa", "u8", [1, 3, 3, 2], QA),
    ("y_dq", "f32", [4], [-256.0, -250.0, 0.0, 254.0]),
    ("y_dqa", "f32", [1, 3, 3, 2], XA[:12] + [245.0, -485.0, -960.0, -270.0,
                                              -375.0, -470.0]),
    ("y_mm", "u8", [2, 3], Y_MM),
    ("y_conv", "u8", [1, 1, 7, 7],
     [0, 81, 93, 230, 52, 87, 197, 240, 196, 18, 160, 126, 255, 191, 199,
      13, 102, 34, 87, 243, 89, 23, 77, 69, 60, 18, 93, 18, 67, 216, 131,
      178, 175, 153, 212, 128, 25, 234, 172, 214, 215, 121, 0, 101, 163, 114,
      213, 107, 8]),
    ("y_rt", "f32", [6], [(q - 128) * 2.0 for q in Y_Q]),
    ("y_mmi", "i32", [4, 2], [-38, -83, -44, -98, -50, -113, -56, -128]),
    ("y_q_rt", "u8", [6], Y_Q),
    ("y_mm_rt", "u8", [2, 3], Y_MM),
]


def write_tensor(path, name, dtype, dims, values):
    code, fmt = TYPES[dtype]
    raw = struct.pack("<%d%s" % (len(values), fmt), *values)
    msg = bytearray()
    for d in dims:
        msg += b"\x08" + varint(d)
    msg += b"\x10" + varint(code)
    msg += b"\x42" + varint(len(name)) + name.encode()
    msg += b"\x4a" + varint(len(raw)) + raw
    with open(path, "wb") as f:
        f.write(bytes(msg))


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    directory = argv[1]
    os.makedirs(os.path.join(directory, "expect"), exist_ok=True)
    for name, dtype, dims, values in INPUTS:
        write_tensor(os.path.join(directory, name + ".pb"), name, dtype, dims,
                     values)
    for i, (name, dtype, dims, values) in enumerate(OUTPUTS):
        write_tensor(os.path.join(directory, "expect", "output_%d.pb" % i),
                     name, dtype, dims, values)


if __name__ == "__main__":
    main(sys.argv)
