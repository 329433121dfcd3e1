#!/usr/bin/env python3
"""Writes an NMT-style encoder (pure Python): LAYERS stacked LSTM layers
(H = I = HIDDEN, batch 1, f32, W and R of 4H x H each, biases), each
layer's Y squeezed into the next layer's input sequence, and one input
sequence of STEPS steps.

  stacked_lstm_model.py DIR LAYERS [HIDDEN [STEPS]]

DIR/model.onnxtxt and DIR/in/input_0.pb (X, f32 [STEPS, 1, HIDDEN]).
bench/multicard_scaling.py and test/e2e/multi-card.test use it.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values, write_pb  # noqa: E402


def encoder_model(layers, hidden=256, steps=16):
    """The model as ONNX text."""
    inits, body, prev = [], [], "X"
    for l in range(layers):
        for name, dims, scale, seed in [
                ("W%d" % l, [1, 4 * hidden, hidden], 0.5 / hidden ** 0.5, 11 + l),
                ("R%d" % l, [1, 4 * hidden, hidden], 0.5 / hidden ** 0.5, 31 + l),
                ("B%d" % l, [1, 8 * hidden], 0.1, 51 + l)]:
            count = 1
            for d in dims:
                count *= d
            inits.append("float[%s] %s = {%s}" % (
                ", ".join(map(str, dims)), name,
                ",".join("%.4g" % v for v in random_values(count, seed, scale))))
        out = "Y" if l == layers - 1 else "S%d" % l
        body.append("  Y%d = LSTM <hidden_size = %d> (%s, W%d, R%d, B%d)" %
                    (l, hidden, prev, l, l, l))
        body.append("  %s = Squeeze (Y%d, one)" % (out, l))
        prev = out
    inits.append("int64[1] one = {1}")
    return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"
            "enc (float[%d, 1, %d] X) => (float[%d, 1, %d] Y)\n<%s>\n{\n%s\n}\n"
            % (steps, hidden, steps, hidden, ", ".join(inits), "\n".join(body)))


def write_encoder(directory, layers, hidden=256, steps=16):
    """DIR/model.onnxtxt and DIR/in/input_0.pb."""
    os.makedirs(os.path.join(directory, "in"), exist_ok=True)
    with open(os.path.join(directory, "model.onnxtxt"), "w") as f:
        f.write(encoder_model(layers, hidden, steps))
    values = random_values(steps * hidden, 7, 1.0)
    write_pb(os.path.join(directory, "in", "input_0.pb"), [steps, 1, hidden],
             struct.pack("<%df" % len(values), *values))


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) < 2 or len(args) > 4:
        sys.exit(__doc__)
    write_encoder(args[0], *[int(a) for a in args[1:]])
