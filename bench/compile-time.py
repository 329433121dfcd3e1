#!/usr/bin/env python3
"""Compile-time benchmark of nnaccel-compile on programs of growing size.

Writes chains of 1..N dense 3x3 convolutions (64 channels, 112 x 112, the
size of a ResNet stage) as ONNX text, compiles each to NPU assembly and
prints instructions and wall seconds per model, so the scaling of the
lowering (kernels, dependency-token derivation) with program size shows.

  bench/compile-time.py [--bin build/bin] [--layers 3] [--repeat 1]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def model(layers):
    inputs = ", ".join("float[64, 64, 3, 3] W%d" % i for i in range(layers))
    lines = []
    prev = "X"
    for i in range(layers):
        out = "Y" if i == layers - 1 else "A%d" % i
        lines.append("  %s = Conv <pads = [1, 1, 1, 1]> (%s, W%d)" % (out, prev, i))
        prev = out
    return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\n"
            "chain (float[1, 64, 112, 112] X, %s) => (float[1, 64, 112, 112] Y)\n"
            "{\n%s\n}\n" % (inputs, "\n".join(lines)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    compiler = os.path.join(args.bin, "nnaccel-compile")
    print("%-8s %12s %10s" % ("convs", "instructions", "compile s"))
    with tempfile.TemporaryDirectory() as tmp:
        for layers in range(1, args.layers + 1):
            src = os.path.join(tmp, "chain%d.onnxtxt" % layers)
            asm = os.path.join(tmp, "chain%d.s" % layers)
            with open(src, "w") as f:
                f.write(model(layers))
            best = None
            for _ in range(args.repeat):
                start = time.perf_counter()
                subprocess.run([compiler, src, "--emit=asm", "-o", asm],
                               check=True)
                elapsed = time.perf_counter() - start
                best = elapsed if best is None else min(best, elapsed)
            with open(asm) as f:
                instructions = sum(1 for line in f
                                   if line.strip() and not line.startswith("#"))
            print("%-8d %12d %10.2f" % (layers, instructions, best))
    return 0


if __name__ == "__main__":
    sys.exit(main())
