#!/usr/bin/env python3
"""Compile-time benchmark of nnaccel-compile on programs of growing size.

Writes chains of 1..N dense 3x3 convolutions (64 channels, 112 x 112, the
size of a ResNet stage) as ONNX text, compiles each to NPU assembly and
prints instructions and wall seconds per model, so the scaling of the
lowering (kernels, dependency-token derivation) with program size shows.

With --nodes N it instead times a graph of N ONNX nodes: a chain of
MatMul (4 x 64 by a shared 64 x 64 weight), Relu, Add, Sigmoid and Mul in
turn, compiled to a package with the report (issue 17: a 10k-op graph
must compile in under 20 s).

  bench/compile-time.py [--bin build/bin] [--layers 3] [--repeat 1]
                        [--nodes 10000]
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


def node_chain(nodes):
    kinds = ["MatMul", "Relu", "Add", "Sigmoid", "Mul"]
    lines = []
    prev = "X"
    for i in range(nodes):
        out = "Y" if i == nodes - 1 else "T%d" % i
        kind = kinds[i % len(kinds)]
        if kind == "MatMul":
            lines.append("  %s = MatMul (%s, W)" % (out, prev))
        elif kind in ("Add", "Mul"):
            lines.append("  %s = %s (%s, B)" % (out, kind, prev))
        else:
            lines.append("  %s = %s (%s)" % (out, kind, prev))
        prev = out
    return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\n"
            "chain (float[4, 64] X) => (float[4, 64] Y)\n"
            "<float[64, 64] W = {%s}, float[1, 64] B = {%s}>\n{\n%s\n}\n" %
            (", ".join(["0.01"] * 4096), ", ".join(["0.5"] * 64),
             "\n".join(lines)))


def time_nodes(compiler, nodes, repeat):
    print("%-8s %10s %10s" % ("nodes", "accel ops", "compile s"))
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "nodes.onnxtxt")
        with open(src, "w") as f:
            f.write(node_chain(nodes))
        best, report = None, ""
        for _ in range(repeat):
            start = time.perf_counter()
            report = subprocess.run(
                [compiler, src, "-o", os.path.join(tmp, "nodes.nnpkg"),
                 "--report"], check=True, stdout=subprocess.PIPE,
                text=True).stdout
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        summary = [line for line in report.splitlines()
                   if line.startswith("summary:")]
        ops = summary[0].split()[1] if summary else "?"
        print("%-8d %10s %10.2f" % (nodes, ops, best))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=0,
                        help="time a graph of this many ONNX nodes instead")
    args = parser.parse_args()
    compiler = os.path.join(args.bin, "nnaccel-compile")
    if args.nodes:
        return time_nodes(compiler, args.nodes, args.repeat)
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
