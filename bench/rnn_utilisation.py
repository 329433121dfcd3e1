#!/usr/bin/env python3
"""Modelled matrix-unit (MVU) utilisation of batch-1 recurrent layers with
block floating-point weights on the brainwave-like target (issue 14).

For each cell (GRU, LSTM) and hidden size (512, 1024 by default) it writes
a one-layer ONNX text model (input size = hidden size, batch 1, --steps
time steps, W/R/B as initializers so that --quantize converts them),
compiles it with

    nnaccel-compile --target=brainwave-like --quantize=msfp8

runs it on the emulator (nnaccel-run --stats) and prints the core's MACs,
cycles, latency and MAC utilisation of a run as the emulator computes it
(W and R pinned in the MRF across runs by default, as Brainwave does: the
once-per-session setup that loads them is not in the run's cycles; pass
--no-pin to stream them every run):

    MACs / (macs_per_cycle[weight type] x cycles)

(lib/Emulator: CoreStats::macUtilization; the peak is the msfp8 entry of
core.macs_per_cycle, 32768 on brainwave-like, where a full N x N msfp8
tile takes 2 cycles even at m = 1: docs/emulator.md). Next to it, where the
cycles go: "mm" is the MAC cycles at that peak (MACs / macs_per_cycle),
"ex busy" the cycles in which the ex queue's matrix unit or MFUs (which
run side by side, docs/emulator.md section 4) are busy, so ex busy - mm is
the gate math the matrix unit does not hide and whatever it loses; the
rest of the cycles the ex queue waits (for the first X and the biases, the
last stores, a step's h).

  python3 bench/rnn_utilisation.py [--build build] [--hidden 512,1024]
      [--steps 32] [--cells gru,lstm] [--format msfp8] [--target brainwave-like]
      [--no-pin]

Pure Python; needs nothing but the built tools.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "Inputs"))
from tensorfiles import random_values, write_pb  # noqa: E402


def model_text(cell, hidden, inputs, steps):
    gates = 4 if cell == "lstm" else 3
    weights = [("W", [1, gates * hidden, inputs], 0.5 / inputs ** 0.5, 11),
               ("R", [1, gates * hidden, hidden], 0.5 / hidden ** 0.5, 12),
               ("B", [1, 2 * gates * hidden], 0.1, 13)]
    inits = []
    for name, dims, scale, seed in weights:
        count = 1
        for d in dims:
            count *= d
        values = ",".join("%.4g" % v for v in random_values(count, seed, scale))
        inits.append("float[%s] %s = {%s}" % (", ".join(map(str, dims)), name,
                                              values))
    outs = "float[%d, 1, 1, %d] y, float[1, 1, %d] h" % (steps, hidden, hidden)
    results = "y, h"
    if cell == "lstm":
        outs += ", float[1, 1, %d] c" % hidden
        results += ", c"
    node = "%s = %s <hidden_size = %d> (X, W, R, B)" % (
        results, "LSTM" if cell == "lstm" else "GRU", hidden)
    return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 17]\n>\n"
            "rnn (float[%d, 1, %d] X) => (%s)\n<%s>\n{\n  %s\n}\n" %
            (steps, inputs, outs, ", ".join(inits), node))


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    if proc.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), proc.stdout))
    return proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--hidden", default="512,1024")
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--cells", default="gru,lstm")
    parser.add_argument("--format", default="msfp8")
    parser.add_argument("--target", default="brainwave-like")
    parser.add_argument("--no-pin", action="store_true",
                        help="load W and R from DRAM on every run")
    args = parser.parse_args()
    bindir = os.path.join(args.build, "bin")
    with open(os.path.join(ROOT, "targets", args.target + ".json")) as f:
        core = json.load(f)["core"]
    peak = core["macs_per_cycle"][args.format]
    print("target %s: N = %d, vector_lanes = %d, macs_per_cycle[%s] = %d" %
          (args.target, core["native_dim"], core["vector_lanes"], args.format,
           peak))
    print("%-5s %6s %6s %12s %10s %10s %8s %9s %9s %9s" %
          ("cell", "H", "steps", "MACs", "cycles", "us", "util", "mm",
           "ex busy", "step cyc"))
    work = tempfile.mkdtemp(prefix="rnn-util-")
    for cell in args.cells.split(","):
        for hidden in [int(h) for h in args.hidden.split(",")]:
            base = os.path.join(work, "%s%d" % (cell, hidden))
            with open(base + ".onnxtxt", "w") as f:
                f.write(model_text(cell, hidden, hidden, args.steps))
            report = run([os.path.join(bindir, "nnaccel-compile"),
                          base + ".onnxtxt", "--target=" + args.target,
                          "--quantize=" + args.format, "-o", base + ".nnpkg",
                          "--report"] +
                         (["--pin-weights=false"] if args.no_pin else []))
            if ("accel.%s, %s" % (cell, args.format)) not in report:
                sys.exit("the %s's weights were not converted to %s:\n%s" %
                         (cell, args.format, report))
            os.makedirs(base + "-in", exist_ok=True)
            write_pb(os.path.join(base + "-in", "input_0.pb"),
                     [args.steps, 1, hidden],
                     struct.pack("<%df" % (args.steps * hidden),
                                 *random_values(args.steps * hidden, 7, 1.0)))
            stats = run([os.path.join(bindir, "nnaccel-run"), base + ".nnpkg",
                         "--input", base + "-in", "--stats"])
            core_line = re.search(
                r"core \d+: finish (\d+) cycles.*MACs (\d+) \(([\d.]+)% util\)",
                stats)
            total = re.search(r"target \S+: (\d+) cycles \(([\d.]+) us", stats)
            ex = re.search(r"ex: \d+ instr, busy (\d+)", stats)
            if not core_line or not total or not ex:
                sys.exit("no emulator statistics in:\n" + stats)
            cycles, macs, util = (int(core_line.group(1)),
                                  int(core_line.group(2)),
                                  float(core_line.group(3)))
            print("%-5s %6d %6d %12d %10d %10.1f %7.1f%% %9d %9d %9.0f" %
                  (cell, hidden, args.steps, macs, cycles,
                   float(total.group(2)), util, -(-macs // peak),
                   int(ex.group(1)), cycles / float(args.steps)))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
