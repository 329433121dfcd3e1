#!/usr/bin/env python3
"""Multi-card scaling (issue 16): modelled latency per inference of models
too large for one card, spread over 1/2/4/6 cards by accel-partition-cards,
with and without card-to-card transfers.

Two models, written by the test generators:
  * a recommender of 120 embedding tables (test/e2e/Inputs/many_tables_model.py,
    1.6 MB) on cards of 1 MiB (a copy of multicard-6x with small DRAM), next
    to its quarter-size version (30 tables) on one such card and the whole
    model on one 16 GB multicard-6x card;
  * an NMT-style encoder of 4 stacked LSTM layers (H = I = 256, 16 steps,
    batch 1, f32, 2.1 MB of W and R per layer) on cards of 3 MiB, next to one
    layer on one card and the 4 layers on one 16 GB card.

For each it compiles (`nnaccel-compile --cards=N [--p2p=false]`), runs two
inferences (`nnaccel-run --repeat 2 --stats`, weights resident in the second)
and prints the second run's device cycles, host-link cycles, host bytes and
their sum in microseconds, and the ratio to the quarter-size model on one
card (issue 16's goal: 4x the model on 4 cards within 1.5x).

  python3 bench/multicard_scaling.py [--build build]

Pure Python; needs nothing but the built tools.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INPUTS = os.path.join(ROOT, "test", "e2e", "Inputs")
sys.path.insert(0, INPUTS)
from stacked_lstm_model import write_encoder  # noqa: E402


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    return proc.returncode, proc.stdout


def small_target(work, name, dram_bytes):
    with open(os.path.join(ROOT, "targets", "multicard-6x.json")) as f:
        target = json.load(f)
    target["name"] = name
    target["dram"]["bytes"] = dram_bytes
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(target, f)
    return path


def measure(bindir, model, inputs, target, flags, work):
    package = os.path.join(work, "m.nnpkg")
    code, out = run([os.path.join(bindir, "nnaccel-compile"), model,
                     "--target=" + target, "-o", package] + flags)
    if code != 0:
        first = out.strip().splitlines()[0] if out.strip() else "failed"
        return None, re.sub(r"^.*?error: ", "", first)[:90]
    code, out = run([os.path.join(bindir, "nnaccel-run"), package, "--input",
                     inputs, "--repeat", "2", "--stats"])
    runs = re.findall(r"variant '[^']*' on target '[^']*' \(([\d.]+) MHz\): "
                      r"device (\d+) cycles.*?\n  host -> card (\d+) bytes "
                      r"\(weights \d+\), card -> host (\d+) bytes"
                      r"(?:; transfers (\d+) cycles)?", out)
    if code != 0 or not runs:
        return None, "run failed"
    mhz, device, into, back, transfer = runs[-1]
    device, transfer = int(device), int(transfer or 0)
    return {"device": device, "transfer": transfer,
            "host_bytes": int(into) + int(back),
            "us": (device + transfer) / float(mhz)}, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    bindir = os.path.join(args.build, "bin")
    work = tempfile.mkdtemp(prefix="multicard-")
    print("%-34s %-14s %5s %4s %9s %9s %10s %9s %7s" %
          ("model", "cards of", "cards", "p2p", "device", "host link",
           "host bytes", "us", "vs 1/4"))

    def report(label, memory, cards, p2p, result, error, quarter):
        if result is None:
            print("%-34s %-14s %5s %4s %s" % (label, memory, cards, p2p, error))
            return
        ratio = "%.2fx" % (result["us"] / quarter) if quarter else ""
        print("%-34s %-14s %5s %4s %9d %9d %10d %9.1f %7s" %
              (label, memory, cards, p2p, result["device"], result["transfer"],
               result["host_bytes"], result["us"], ratio))
        sys.stdout.flush()

    # The recommender.
    generator = os.path.join(INPUTS, "many_tables_model.py")
    for tables in (30, 120):
        subprocess.run([sys.executable, generator,
                        os.path.join(work, "rec%d" % tables), "1", str(tables)],
                       check=True)
    small = small_target(work, "small-dram-6x", 1 << 20)
    rec = lambda n: (os.path.join(work, "rec%d" % n, "model.onnxtxt"),  # noqa
                     os.path.join(work, "rec%d" % n, "in"))
    quarter, error = measure(bindir, *rec(30), small, ["--cards=1"], work)
    report("recommender, 30 tables", "1 MiB", 1, "", quarter, error, None)
    base = quarter["us"] if quarter else None
    result, error = measure(bindir, *rec(120), "multicard-6x", ["--cards=1"],
                            work)
    report("recommender, 120 tables", "16 GB", 1, "", result, error, base)
    for cards in (1, 2, 4, 6):
        for p2p in ("yes", "no") if cards > 1 else ("",):
            flags = ["--cards=%d" % cards] + (["--p2p=false"] if p2p == "no"
                                              else [])
            result, error = measure(bindir, *rec(120), small, flags, work)
            report("recommender, 120 tables", "1 MiB", cards, p2p, result,
                   error, base)

    # The encoder.
    for layers in (1, 4):
        write_encoder(os.path.join(work, "enc%d" % layers), layers)
    enc_in = os.path.join(work, "enc1", "in")
    medium = small_target(work, "dram-3m-6x", 3 << 20)
    enc = lambda n: os.path.join(work, "enc%d" % n, "model.onnxtxt")  # noqa
    quarter, error = measure(bindir, enc(1), enc_in, medium, ["--cards=1"],
                             work)
    report("LSTM encoder, 1 layer", "3 MiB", 1, "", quarter, error, None)
    base = quarter["us"] if quarter else None
    result, error = measure(bindir, enc(4), enc_in, "multicard-6x",
                            ["--cards=1"], work)
    report("LSTM encoder, 4 layers", "16 GB", 1, "", result, error, base)
    for cards in (1, 2, 4, 6):
        for p2p in ("yes", "no") if cards > 1 else ("",):
            flags = ["--cards=%d" % cards] + (["--p2p=false"] if p2p == "no"
                                              else [])
            result, error = measure(bindir, enc(4), enc_in, medium, flags, work)
            report("LSTM encoder, 4 layers", "3 MiB", cards, p2p, result,
                   error, base)
    return 0


if __name__ == "__main__":
    sys.exit(main())
