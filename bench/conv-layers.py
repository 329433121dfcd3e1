#!/usr/bin/env python3
"""Convolution layer benchmark for the NPU conv kernels (ConvKernels.cpp).

For a fixed list of representative CNN layers (ResNet-50, RegNet, MobileNet)
it writes a one-conv ONNX text model per layer, compiles it for the card with
nnaccel-compile and prints, per layer:

  path     the kernel that ran it (pointwise / depthwise / dense / gemm, read
           off the emitted program; "host" if the card refused it)
  instrs   instructions of the card program
  cycles   modelled cycles (the compile report's latency: the program run
           once on the emulator, DMA included)
  util     matrix-unit utilisation = MACs / (cycles x native MACs per cycle
           of the input type, from the target JSON)
  compile  wall time of nnaccel-compile without the report (median of
           --repeat runs)

Usage: bench/conv-layers.py [--bin BUILDDIR/bin] [--target targets/x.json]
                            [--only NAME,...] [--repeat N] [--markdown]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, dtype, C, H, W, F, k, stride, pad, groups
LAYERS = [
    ("resnet-stem-7x7s2", "float", 3, 224, 224, 64, 7, 2, 3, 1),
    ("resnet-3x3-64", "float", 64, 56, 56, 64, 3, 1, 1, 1),
    ("resnet-3x3s2-128", "float", 128, 56, 56, 128, 3, 2, 1, 1),
    ("resnet-1x1-256to64", "float", 256, 56, 56, 64, 1, 1, 0, 1),
    ("resnet-1x1s2-256to512", "float", 256, 56, 56, 512, 1, 2, 0, 1),
    ("regnet-3x3-g8-w8", "float", 64, 56, 56, 64, 3, 1, 1, 8),
    ("regnet-3x3-g8-w16", "float", 128, 28, 28, 128, 3, 1, 1, 8),
    ("mbv2-dw3x3s1-144", "float", 144, 56, 56, 144, 3, 1, 1, 144),
    ("mbv2-dw3x3s2-144", "float", 144, 56, 56, 144, 3, 2, 1, 144),
    ("mbv2-dw3x3s1-144-f16", "float16", 144, 56, 56, 144, 3, 1, 1, 144),
    ("mbv2-dw3x3s2-144-f16", "float16", 144, 56, 56, 144, 3, 2, 1, 144),
    ("mnv3-dw5x5-240", "float", 240, 28, 28, 240, 5, 1, 2, 240),
    ("resnet-3x3-64-f16", "float16", 64, 56, 56, 64, 3, 1, 1, 1),
]

DTYPE_KEY = {"float": "f32", "float16": "f16", "bfloat16": "bf16"}


def out_size(h, k, s, p):
    return (h + 2 * p - k) // s + 1


def model_text(layer):
    name, dt, c, h, w, f, k, s, p, g = layer
    ho, wo = out_size(h, k, s, p), out_size(w, k, s, p)
    return f"""<
  ir_version: 8,
  opset_import: ["" : 13]
>
bench ({dt}[1, {c}, {h}, {w}] X, {dt}[{f}, {c // g}, {k}, {k}] W, {dt}[{f}] B)
  => ({dt}[1, {f}, {ho}, {wo}] Y)
{{
  Y = Conv <group = {g}, strides = [{s}, {s}], pads = [{p}, {p}, {p}, {p}]> (X, W, B)
}}
"""


def kernel_path(asm):
    """Which conv kernel emitted `asm` (the kernels' instruction mixes
    differ: only the general kernel zero-fills its staging buffers before
    its first mm; pointwise has mm but no fill; depthwise and dense use
    the MFUs only, with per-row (col) and scalar weights)."""
    ops = re.findall(r"^\s*(?:\S+:\s*)?([a-z][a-z0-9.]*)\b", asm, re.M)
    if "mm" not in ops:
        return "dense" if "bcast=scalar" in asm else "depthwise"
    return "gemm" if "v.fill" in ops[: ops.index("mm")] else "pointwise"


def run_layer(layer, args, target, tmp):
    name, dt, c, h, w, f, k, s, p, g = layer
    model = os.path.join(tmp, name + ".onnxtxt")
    with open(model, "w") as fh:
        fh.write(model_text(layer))
    compile_bin = os.path.join(args.bin, "nnaccel-compile")
    base = [compile_bin, model, "--target", args.target]
    ho, wo = out_size(h, k, s, p), out_size(w, k, s, p)
    macs = ho * wo * f * (c // g) * k * k
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        done = subprocess.run(base + ["-o", os.path.join(tmp, name + ".nnpkg")],
                              capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            # A compile failure is a result too (e.g. a kernel bug).
            sys.stderr.write(done.stderr)
            return {"name": name, "macs": macs, "compile_s": times[-1],
                    "path": "FAILED", "instrs": 0, "cycles": 0, "util": 0.0}
    report = os.path.join(tmp, name + ".json")
    asm = subprocess.run(base + ["--emit=asm", "-o", "-",
                                 "--report-json", report],
                         check=True, capture_output=True, text=True).stdout
    with open(report) as fh:
        rep = json.load(fh)
    cards = [q for q in rep["partitions"] if q["kind"] == "card"]
    row = {"name": name, "macs": macs, "compile_s": statistics.median(times)}
    if not cards:
        row.update(path="host", instrs=0, cycles=0, util=0.0)
        return row
    cycles = sum(q["modeled_cycles"] for q in cards)
    peak = target["core"]["macs_per_cycle"][DTYPE_KEY[dt]]
    row.update(path=kernel_path(asm),
               instrs=sum(q["instructions"] for q in cards), cycles=cycles,
               util=macs / (cycles * peak) if cycles else 0.0)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--target",
                        default=os.path.join(ROOT, "targets", "default.json"))
    parser.add_argument("--only", default="",
                        help="comma-separated layer names")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    with open(args.target) as fh:
        target = json.load(fh)
    only = set(filter(None, args.only.split(",")))
    layers = [l for l in LAYERS if not only or l[0] in only]
    header = ("layer", "path", "instrs", "MMACs", "cycles", "util",
              "compile s")
    fmt = "{:<24} {:<10} {:>8} {:>8} {:>10} {:>6} {:>9}"
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(fmt.format(*header))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for layer in layers:
            row = run_layer(layer, args, target, tmp)
            rows.append(row)
            cells = (row["name"], row["path"], row["instrs"],
                     f"{row['macs'] / 1e6:.1f}", row["cycles"],
                     f"{100 * row['util']:.1f}%", f"{row['compile_s']:.2f}")
            if args.markdown:
                print("| " + " | ".join(str(x) for x in cells) + " |")
            else:
                print(fmt.format(*cells))
            sys.stdout.flush()
    total = sum(r["cycles"] for r in rows)
    print(f"total modelled cycles: {total}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
