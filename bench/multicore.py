#!/usr/bin/env python3
"""Multi-core benchmark: modelled latency and core utilisation, 1 core vs all.

Compiles every bundled model for each target twice -- `--cores 1` (no
splitting) and `--cores 0` (accel-split-ops across all of the card's cores)
-- runs test set 0 on the emulator with race checking, and prints the
modelled latency, the speed-up and the average core utilisation (per core:
the busiest of its ld/ex/st queues over the run's latency, averaged over
the card's cores, idle cores counting 0).

  bench/multicore.py [--bin build/bin] [--models examples/models]
                     [--targets default,multicard-6x]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# (label, model directory, extra compile flags, test set)
CASES = [
    ("mlp_1024_512_256", "mlp_1024_512_256", [], 0),
    ("dlrm_small", "dlrm_small", [], 0),
    ("lstm_small", "lstm_small", [], 0),
    ("mobilenet_v2_050", "mobilenet_v2_050", [], 0),
    ("transformer_small seq 64", "transformer_small",
     ["--input-shape=ids:1x64"], 2),
    ("transformer_small seq 120", "transformer_small",
     ["--input-shape=ids:1x120"], 3),
]

LATENCY = re.compile(r"modelled device latency: (\d+) cycles")
CORE = re.compile(r"card (\d+) core (\d+): finish")
QUEUE = re.compile(r"^\s+(ld|ex|st): \d+ instr, busy (\d+)")
CORES = re.compile(r'"cores_per_card"\s*:\s*(\d+)')
CLOCK = re.compile(r'"clock_mhz"\s*:\s*(\d+(?:\.\d+)?)')


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), result.stdout,
                                       result.stderr))
    return result.stdout


def measure(args, tmp, model_dir, flags, test_set, target, cores):
    package = os.path.join(tmp, "m.nnpkg")
    run([os.path.join(args.bin, "nnaccel-compile"),
         os.path.join(model_dir, "model.onnx"), "--target", target,
         "--cores", str(cores), "-o", package] + flags)
    data = os.path.join(model_dir, "test_data_set_%d" % test_set)
    out = run([os.path.join(args.bin, "nnaccel-run"), package, "--stats",
               "--check-races", "--input", data, "--expect", data])
    latency = int(LATENCY.search(out).group(1))
    busy = {}
    core = None
    for line in out.splitlines():
        m = CORE.search(line)
        if m:
            core = (int(m.group(1)), int(m.group(2)))
            busy[core] = 0
            continue
        m = QUEUE.match(line)
        if m and core is not None:
            busy[core] = max(busy[core], int(m.group(2)))
    return latency, busy


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--models", default="examples/models")
    parser.add_argument("--targets", default="default,multicard-6x")
    parser.add_argument("--targets-dir", default="targets")
    args = parser.parse_args()
    print("%-26s %-13s %12s %12s %8s %10s %10s" %
          ("model", "target", "1 core us", "all cores us", "speedup",
           "util 1", "util all"))
    with tempfile.TemporaryDirectory() as tmp:
        for target in args.targets.split(","):
            with open(os.path.join(args.targets_dir, target + ".json")) as f:
                desc = f.read()
            cores_per_card = int(CORES.search(desc).group(1))
            # Latencies are modelled cycles; microseconds at the target's
            # clock (multicard-6x runs at 800 MHz, not 1 GHz).
            cycles_per_us = float(CLOCK.search(desc).group(1))
            for label, name, flags, test_set in CASES:
                model_dir = os.path.join(args.models, name)
                results = []
                for cores in (1, 0):
                    latency, busy = measure(args, tmp, model_dir, flags,
                                            test_set, target, cores)
                    util = sum(busy.values()) / (cores_per_card * latency)
                    results.append((latency, util))
                (l1, u1), (ln, un) = results
                print("%-26s %-13s %12.1f %12.1f %7.2fx %9.1f%% %9.1f%%" %
                      (label, target, l1 / cycles_per_us, ln / cycles_per_us,
                       l1 / ln,
                       100 * u1, 100 * un), flush=True)


if __name__ == "__main__":
    main()
