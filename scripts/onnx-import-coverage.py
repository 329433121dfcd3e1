#!/usr/bin/env python3
"""Imports every ONNX backend node test model shipped by libonnx-testdata and
reports how many import to verified accel IR, and why the others fail.

Usage: scripts/onnx-import-coverage.py [--build build] [--suite node] [-v]
Prints a per-reason summary and a final `imported N of M` line.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys

DATA = "/usr/share/libonnx-testdata/data"


def classify(stderr):
    """Returns a short reason for a failed import."""
    m = re.search(r"unsupported op type\(s\) at opset \d+: (.*)", stderr)
    if m:
        types = re.findall(r" ([\w:.]+) x\d+", " " + m.group(1))
        return "unsupported op: " + ", ".join(types)
    m = re.search(r"error: (.*)", stderr)
    if not m:
        return "crash or no diagnostic: " + stderr.strip()[-120:]
    text = m.group(1)
    text = re.sub(r"node '[^']*' \(([^)]*)\): ", r"\1: ", text)
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"\d+", "N", text)
    return text[:110]


def run(translate, model):
    proc = subprocess.run([translate, "--import-onnx", model, "-o", os.devnull],
                          capture_output=True, text=True, timeout=120)
    return model, proc.returncode, proc.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--suite", default="node")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    translate = os.path.join(args.build, "bin", "nnaccel-translate")
    root = os.path.join(DATA, args.suite)
    models = sorted(os.path.join(root, d, "model.onnx") for d in os.listdir(root)
                    if os.path.exists(os.path.join(root, d, "model.onnx")))
    reasons = collections.Counter()
    examples = {}
    ok = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for model, code, stderr in pool.map(lambda m: run(translate, m), models):
            name = os.path.basename(os.path.dirname(model))
            if code == 0:
                ok += 1
                continue
            reason = classify(stderr)
            reasons[reason] += 1
            examples.setdefault(reason, name)
            if args.verbose:
                print(f"FAIL {name}: {reason}")
    for reason, count in reasons.most_common():
        print(f"{count:5d}  {reason}  (e.g. {examples[reason]})")
    print(f"imported {ok} of {len(models)} {args.suite} test models")
    return 0


if __name__ == "__main__":
    sys.exit(main())
