#!/usr/bin/env python3
"""Per-model speed of the toolchain: compiler, package, emulator, PyTorch.

For every model directory (ONNX backend-test layout: model.onnx or
model.onnxtxt, test_data_set_K/) this compiles the model for the target
(median wall time of --repeat compiles), and runs test set 0 in the
emulator (nnaccel-run --repeat N): package size, emulator wall time per
inference (median), emulated MACs per second of host time, and the
modelled device latency. When Debian's python3-torch and python3-onnx are
installed (`bash scripts/setup.sh --bench`), the same model converted to
PyTorch by bench/torch_reference.py runs on the same input in the same
run: its CPU time per inference (median of --torch-repeat forwards after
warm-up, 2 threads as issue 17 asks, and 1 thread) and the ratios emulator
wall / PyTorch (ratio: 2 threads; ratio1: 1 thread). A model whose converted output does not match
its test set's output_0.pb (cosine < 0.9999) or that cannot be converted
gets no PyTorch time; the reason is printed instead.

  bench/models.py [--bin build/bin] [--models examples/models]
                  [--target default] [--repeat 5] [--quantize int8]
                  [--torch-repeat 50] [--no-torch] [--no-replay]

--no-replay runs the emulator with every inference scheduled cycle by cycle
(nnaccel-run --no-replay); by default the later runs of a model whose
schedule cannot depend on data replay the first run's (docs/emulator.md
§9), with the same outputs and statistics.

--quantize int8 calibrates on the model's test sets 1..3 (set 0 is the
measured input) and is compared with PyTorch in f32: issue 17's "<= 1x in
int8" is the int8 emulator against f32 PyTorch. transformer_small is
compiled, run and converted at sequence length 64 (its test set 2).

When the interpreter running this lacks torch or onnx but /usr/bin/python3
(Debian's) has them, the script re-executes itself with /usr/bin/python3.
"""
import argparse
import os
import re
import statistics
import subprocess
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

# Debian's interpreter, the one python3-torch and python3-onnx are built for.
DEBIAN_PYTHON = "/usr/bin/python3"
REEXEC_ENV = "NNACCEL_BENCH_REEXEC"


def has_torch():
    try:
        import onnx  # noqa: F401 (probed, imported where used)
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def reexec_with_debian_python():
    """Re-executes the script with Debian's Python if that one has torch
    and onnx and the running one does not.

    The alternative, appending /usr/lib/python3/dist-packages to this
    interpreter's sys.path, mixes two Python installations: Debian's torch
    is built against Debian's CPython and numpy, and a pyenv or venv
    interpreter may have another version or its own numpy earlier on the
    path, which fails at import time or, worse, later. Running the whole
    bench on the interpreter the packages were built for avoids that; the
    bench itself needs only the standard library.
    """
    if os.environ.get(REEXEC_ENV) or not os.access(DEBIAN_PYTHON, os.X_OK):
        return
    if os.path.realpath(sys.executable) == os.path.realpath(DEBIAN_PYTHON):
        return
    probe = subprocess.run([DEBIAN_PYTHON, "-c", "import onnx, torch"],
                           capture_output=True)
    if probe.returncode != 0:
        return
    os.environ[REEXEC_ENV] = "1"
    os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(__file__)] +
             sys.argv[1:])


def measure_torch(model, data, repeat):
    """(2-thread s, 1-thread s, note) of the model in PyTorch on a test
    set; the times are None and the note says why when there is none."""
    import torch_reference
    try:
        ref = torch_reference.Reference(model, data)
    except torch_reference.Unsupported as e:
        return None, None, "not converted: %s" % e
    except Exception as e:  # torch rejecting a converted op, a bad file...
        return None, None, "conversion failed: %s: %s" % (
            type(e).__name__, str(e).split("\n")[0])
    check = "cosine %.6f, max abs error %.3g vs %s/output_0.pb" % (
        ref.cosine, ref.max_error, os.path.basename(data))
    if not ref.matches:
        return None, None, check + ": MISMATCH, not timed"
    return ref.time(2, repeat), ref.time(1, repeat), check


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--models",
                        default=os.path.join(ROOT, "examples", "models"))
    parser.add_argument("--target", default="default")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quantize", default="",
                        help="a --quantize mode (int8 calibrates on sets 1-3)")
    parser.add_argument("--torch-repeat", type=int, default=50,
                        help="timed PyTorch forwards per model (median)")
    parser.add_argument("--no-replay", action="store_true",
                        help="schedule every emulated inference cycle by "
                        "cycle (nnaccel-run --no-replay)")
    parser.add_argument("--no-torch", action="store_true",
                        help="skip the PyTorch reference")
    args = parser.parse_args()
    if args.repeat < 2:
        parser.error("--repeat must be at least 2 (nnaccel-run reports the "
                     "median of repeated runs only)")
    if not args.no_torch and not has_torch():
        reexec_with_debian_python()
    use_torch = not args.no_torch and has_torch()
    if args.no_torch:
        torch_note = "skipped (--no-torch)"
    elif not use_torch:
        torch_note = ("n/a (python3-torch/python3-onnx not installed: "
                      "bash scripts/setup.sh --bench)")
    else:
        import torch
        import torch_reference
        torch_note = ("torch %s f32, median of %d forwards, 2 and 1 threads, "
                      "BLAS %s" % (torch.__version__, args.torch_repeat,
                                   torch_reference.blas_library()))

    names = sorted(d for d in os.listdir(args.models)
                   if os.path.isdir(os.path.join(args.models, d)))
    print("target %s, %d repeats, mode %s%s; PyTorch CPU: %s" %
          (args.target, args.repeat, args.quantize or "f32",
           ", no schedule replay" if args.no_replay else "", torch_note))
    if os.path.exists("/proc/loadavg"):
        # Every time below is wall time: a busy machine inflates them, and
        # PyTorch's 2-thread times most (its threads wait for each other).
        with open("/proc/loadavg") as f:
            print("host: %d CPUs, load average %s" %
                  (os.cpu_count(), " ".join(f.read().split()[:3])))
    print("%-20s %10s %10s %12s %12s %12s %11s %7s %11s %7s" %
          ("model", "compile s", "pkg KiB", "emu ms/inf", "emu MAC/s",
           "modelled us", "PyTorch ms", "ratio", "PT 1thr ms", "ratio1"))
    notes = []
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
                       "--stats"] + (["--no-replay"] if args.no_replay
                                     else []))
            wall = WALL.search(out)
            macs = sum(int(m) for m in MACS.findall(out))
            latency = LATENCY.search(out)
            if not wall or not latency:
                sys.exit("unexpected nnaccel-run output for %s:\n%s" %
                         (name, out))
            wall_ms = float(wall.group(1)) / (1000.0 if wall.group(2) == "us"
                                              else 1.0)
            # PyTorch right after the emulator on the same model, so that
            # both see the same machine load; torch's worker threads are
            # idle by the time the next model compiles.
            torch_cols = "%11s %7s %11s %7s" % ("n/a", "n/a", "n/a", "n/a")
            if use_torch:
                torch2, torch1, note = measure_torch(model, data,
                                                     args.torch_repeat)
                notes.append("  %s: %s" % (name, note))
                if torch2 is None:
                    torch_cols += "  " + note
                else:
                    torch_cols = "%11.3f %6.2fx %11.3f %6.2fx" % (
                        torch2 * 1e3, wall_ms / (torch2 * 1e3), torch1 * 1e3,
                        wall_ms / (torch1 * 1e3))
            print("%-20s %10.2f %10.0f %12.2f %12.3g %12.1f %s" %
                  (name, statistics.median(times),
                   os.path.getsize(package) / 1024.0, wall_ms,
                   macs / (wall_ms / 1000.0) if wall_ms else 0.0,
                   float(latency.group(2)), torch_cols), flush=True)
    if use_torch:
        print("PyTorch ms: 2 threads; ratio: emulator wall / PyTorch 2 "
              "threads (issue 17's yardstick); ratio1: against 1 thread%s" %
              (" (PyTorch in f32)" if args.quantize else ""))
        print("\n".join(notes))

if __name__ == "__main__":
    main()
