#!/usr/bin/env python3
"""Recurrent layers with constant W, R, B and P, which accel-pin-weights may
keep in the cores' matrix register files, for test/e2e/recurrent-pinned.test.

  rnn-pinned-model.py model FILE LAYER...
      ONNX text with the named layers below, in this order (a layer's index
      among them names its node: GRU_0, LSTM_1, ...); W, R, B and P are
      initializers with deterministic pseudo-random values, the sequences
      (and initial states) graph inputs, in the same order:
        g1: gru bidirectional, linear_before_reset 1, initial_h, no B,
            H = 104 (the multi-core kernel; every direction pinned)
        g2: gru forward, linear_before_reset 0, B, batch 2, H = 100 (the
            last core owns fewer columns: a smaller slice to pin)
        l3: lstm bidirectional, B, initial_h and initial_c, H = 100
        l4: lstm forward, B, peepholes, clip, H = 100
        l5: lstm forward, H = 5 (too small to share: one core)
        l6: lstm forward, B, H = 97, I = 63 (one core; a step of X is not
            DRAM-aligned, so its XW phase stays in one piece)
        lf: lstm forward, B, H = 200 (the test's placement hint computes
            it in f16, its constants rounded at compile time)
        gb: gru forward, linear_before_reset 0, B, H = 160 (bf16 likewise)

Pure Python (no numpy), like the other input scripts.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import random_values  # noqa: E402

# name, cell, hidden, input, seq, batch, dirs, attributes, bias, peepholes,
# initial states (lstm: h and c)
LAYERS = [
    ("g1", "GRU", 104, 24, 4, 1, 2, 'linear_before_reset = 1', False, False,
     True),
    ("g2", "GRU", 100, 20, 3, 2, 1, '', True, False, False),
    ("l3", "LSTM", 100, 24, 4, 1, 2, '', True, False, True),
    ("l4", "LSTM", 100, 20, 3, 1, 1, 'clip = 0.8', True, True, False),
    ("l5", "LSTM", 5, 4, 3, 1, 1, '', True, False, False),
    ("l6", "LSTM", 97, 63, 5, 1, 1, '', True, False, False),
    ("lf", "LSTM", 200, 48, 5, 1, 1, '', True, False, False),
    ("gb", "GRU", 160, 32, 4, 1, 1, '', True, False, False),
]


def initializer(name, dims, scale, seed):
    count = 1
    for d in dims:
        count *= d
    values = ",".join("%.5g" % v for v in random_values(count, seed, scale))
    return "float[%s] %s = {%s}" % (", ".join(map(str, dims)), name, values)


def dims(values):
    return ", ".join(map(str, values))


def main(argv):
    names = [layer[0] for layer in LAYERS]
    if len(argv) < 4 or argv[1] != "model" or any(n not in names
                                                   for n in argv[3:]):
        sys.exit(__doc__)
    inputs, outputs, inits, nodes = [], [], [], []
    for index, (name, cell, h, i, s, b, d, attrs, bias, peep,
                states) in enumerate(LAYERS):
        if name not in argv[3:]:
            continue
        gates = 4 if cell == "LSTM" else 3
        seed = 100 * (index + 1)
        inputs.append("float[%s] %s_x" % (dims([s, b, i]), name))
        inits.append(initializer(name + "_w", [d, gates * h, i], 0.2, seed))
        inits.append(initializer(name + "_r", [d, gates * h, h], 0.1, seed + 1))
        args = [name + "_x", name + "_w", name + "_r"]
        args.append(name + "_b" if bias else "")
        if bias:
            inits.append(
                initializer(name + "_b", [d, 2 * gates * h], 0.3, seed + 2))
        args.append("")  # sequence_lens
        state_names = []
        if states:
            state_names = [name + "_h0"] + ([name + "_c0"]
                                            if cell == "LSTM" else [])
            for state in state_names:
                inputs.append("float[%s] %s" % (dims([d, b, h]), state))
        args += state_names
        if peep:
            while len(args) < 7:
                args.append("")
            args.append(name + "_p")
            inits.append(initializer(name + "_p", [d, 3 * h], 0.5, seed + 3))
        while args and args[-1] == "":
            args.pop()
        results = [name + "_y", name + "_yh"] + ([name + "_yc"]
                                                 if cell == "LSTM" else [])
        outputs.append("float[%s] %s_y" % (dims([s, d, b, h]), name))
        outputs.append("float[%s] %s_yh" % (dims([d, b, h]), name))
        if cell == "LSTM":
            outputs.append("float[%s] %s_yc" % (dims([d, b, h]), name))
        attributes = "hidden_size = %d" % h
        if d == 2:
            attributes += ', direction = "bidirectional"'
        if attrs:
            attributes += ", " + attrs
        nodes.append("%s = %s <%s> (%s)" %
                     (", ".join(results), cell, attributes, ", ".join(args)))
    with open(argv[2], "w") as f:
        f.write("<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n")
        f.write("rnnpinned (%s)\n  => (%s)\n<%s>\n{\n  %s\n}\n" %
                (", ".join(inputs), ", ".join(outputs), ", ".join(inits),
                 "\n  ".join(nodes)))


if __name__ == "__main__":
    main(sys.argv)
