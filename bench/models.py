#!/usr/bin/env python3
"""Per-model speed of the toolchain: compiler, package, emulator.

For every model directory (ONNX backend-test layout: model.onnx or
model.onnxtxt, test_data_set_K/) this compiles the model for the target
(median wall time of --repeat compiles), and runs test set 0 in the
emulator (nnaccel-run --repeat N): package size, emulator wall time per
inference (median), emulated MACs per second of host time, and the
modelled device latency. When PyTorch is importable (Debian's
python3-torch), its CPU time on the same model would be the yardstick of
issue 17; running an ONNX graph in PyTorch needs a converter that Debian
does not ship, so the column says so instead of guessing.

  bench/models.py [--bin build/bin] [--models examples/models]
                  [--target default] [--repeat 5] [--quantize int8]

--quantize int8 calibrates on the model's test sets 1..3 (set 0 is the
measured input); transformer_small is compiled at sequence length 64.
"""
import argparse
import os
import re
import statistics
import sys
import tempfile
import time

# The quantisation bench's helpers: run a tool (exit with its output on
# failure) and link a model's calibration sets 1-3 into one directory.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quantize import calibration_dir, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Extra compile flags per model (dynamic axes need a shape) and the test set
# to run: transformer_small's set 2 has sequence length 64.
MODEL_FLAGS = {
    "transformer_small": (["--input-shape=ids:1x64"], 2),
}

WALL = re.compile(r"repeat \d+: emulation min [\d.]+ [mu]s / median ([\d.]+) (ms|us)")
MACS = re.compile(r"(\d+) MACs, MAC utilisation")
LATENCY = re.compile(r"modelled device latency: (\d+) cycles \(([\d.]+) us\)")


def torch_status():
    try:
        import torch  # noqa: F401
    except ImportError:
        return "n/a (python3-torch not installed)"
    return "n/a (no ONNX-to-PyTorch converter in Debian)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--models",
                        default=os.path.join(ROOT, "examples", "models"))
    parser.add_argument("--target", default="default")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quantize", default="",
                        help="a --quantize mode (int8 calibrates on sets 1-3)")
    args = parser.parse_args()
    if args.repeat < 2:
        parser.error("--repeat must be at least 2 (nnaccel-run reports the "
                     "median of repeated runs only)")

    names = sorted(d for d in os.listdir(args.models)
                   if os.path.isdir(os.path.join(args.models, d)))
    print("target %s, %d repeats, mode %s; PyTorch CPU: %s" %
          (args.target, args.repeat, args.quantize or "f32", torch_status()))
    print("%-20s %10s %10s %12s %12s %12s" %
          ("model", "compile s", "pkg KiB", "emu ms/inf", "emu MAC/s",
           "modelled us"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            model_dir = os.path.join(args.models, name)
            model = os.path.join(model_dir, "model.onnx")
            if not os.path.exists(model):
                model += "txt"
            if not os.path.exists(model):
                continue
            flags, test_set = MODEL_FLAGS.get(name, ([], 0))
            package = os.path.join(tmp, name + ".nnpkg")
            cmd = [os.path.join(args.bin, "nnaccel-compile"), model,
                   "--target", args.target, "-o", package] + flags
            if args.quantize:
                cmd.append("--quantize=" + args.quantize)
                if "int8" in args.quantize.split(","):
                    cmd.append("--calibration=" +
                               calibration_dir(tmp, model_dir, name))
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                run(cmd)
                times.append(time.perf_counter() - start)
            data = os.path.join(model_dir, "test_data_set_%d" % test_set)
            out = run([os.path.join(args.bin, "nnaccel-run"), package,
                       "--input", data, "--repeat", str(args.repeat),
                       "--stats"])
            wall = WALL.search(out)
            macs = sum(int(m) for m in MACS.findall(out))
            latency = LATENCY.search(out)
            if not wall or not latency:
                sys.exit("unexpected nnaccel-run output for %s:\n%s" %
                         (name, out))
            wall_ms = float(wall.group(1)) / (1000.0 if wall.group(2) == "us"
                                              else 1.0)
            print("%-20s %10.2f %10.0f %12.2f %12.3g %12.1f" %
                  (name, statistics.median(times),
                   os.path.getsize(package) / 1024.0, wall_ms,
                   macs / (wall_ms / 1000.0) if wall_ms else 0.0,
                   float(latency.group(2))))


if __name__ == "__main__":
    main()
