#!/usr/bin/env python3
"""Quantisation benchmark: modelled latency and accuracy, f32 vs quantized.

Compiles every bundled model as it is (f32) and with each --quantize mode,
int8 calibrated on test sets 1-3 (percentile calibrator, the default), on 1
core and on all of the target's cores; runs test set 0 (the transformer: the
set of its sequence length) on the emulator and prints the modelled latency,
the speed-up over f32 at the same core count, the cosine similarity of the
output to the PyTorch fp32 reference and the package size.

  bench/quantize.py [--bin build/bin] [--models examples/models]
                    [--target default] [--modes 'int8;int8,int4-emb;bf16']
                    [--only dlrm_small,...]
                    [--compile-flags='--pin-weights=false']

Modes are --quantize values (int8, fp16, bf16, int4-emb, int8-emb, the
block floating-point formats msfp8, msfp9, mxint8, mxfp8 (E4M3 elements) and
mxfp8e5m2 (no calibration), and
combinations such as int8,int4-fc or msfp8,int8-emb); --only keeps the cases whose label
starts with one of the given names; --compile-flags are added to every
nnaccel-compile (e.g. --pin-weights=false: weights streamed from DRAM on
every run instead of pinned in the MRFs).

resnet_small is no bundled model: bench/resnet_model.py generates it (a
small ResNet-like CNN of 3x3 convs, random weights) into the temporary
directory, with four test sets whose references are the f32 model on the
host kernels.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import resnet_model  # noqa: E402

# (label, model directory, extra compile flags, evaluation test set)
CASES = [
    ("mlp_1024_512_256", "mlp_1024_512_256", [], 0),
    ("dlrm_small", "dlrm_small", [], 0),
    ("lstm_small", "lstm_small", [], 0),
    ("mobilenet_v2_050", "mobilenet_v2_050", [], 0),
    ("transformer_small seq 64", "transformer_small",
     ["--input-shape=ids:1x64"], 2),
    ("resnet_small", "resnet_small", [], 0),
]
# Models generated into the temporary directory: name -> generate(dir, bin).
GENERATED = {"resnet_small": resnet_model.generate}
CALIBRATION_SETS = (1, 2, 3)

LATENCY = re.compile(r"modelled device latency: (\d+) cycles")
COSINE = re.compile(r"cosine (-?[0-9.]+|nan)")
CLOCK = re.compile(r'"clock_mhz"\s*:\s*(\d+(?:\.\d+)?)')


def run(cmd, check=True):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), result.stdout,
                                       result.stderr))
    return result.stdout


def calibration_dir(tmp, model_dir, name):
    """A directory holding only the calibration sets (not the evaluated one)."""
    path = os.path.join(tmp, "calib-" + name)
    if not os.path.isdir(path):
        os.makedirs(path)
        for k in CALIBRATION_SETS:
            src = os.path.abspath(
                os.path.join(model_dir, "test_data_set_%d" % k))
            if os.path.isdir(src):
                os.symlink(src, os.path.join(path, "test_data_set_%d" % k))
    return path


def model_dir_of(args, tmp, name):
    """The bundled model's directory, or the generated one's (made once)."""
    if name not in GENERATED:
        return os.path.join(args.models, name)
    path = os.path.join(tmp, name)
    if not os.path.isdir(path):
        GENERATED[name](path, args.bin)
    return path


def measure(args, tmp, name, flags, test_set, mode, cores):
    model_dir = model_dir_of(args, tmp, name)
    model = os.path.join(model_dir, "model.onnx")
    if not os.path.exists(model):
        model += "txt"
    package = os.path.join(tmp, "m.nnpkg")
    cmd = [os.path.join(args.bin, "nnaccel-compile"),
           model, "--target", args.target,
           "--cores", str(cores), "-o", package] + flags
    cmd += args.compile_flags.split()
    if "int8" in mode.split(","):
        cmd += ["--quantize=" + mode,
                "--calibration=" + calibration_dir(tmp, model_dir, name)]
    elif mode != "f32":
        cmd += ["--quantize=" + mode]
    run(cmd)
    data = os.path.join(model_dir, "test_data_set_%d" % test_set)
    # Quantized outputs miss the f32 tolerance by design: no exit check.
    out = run([os.path.join(args.bin, "nnaccel-run"), package,
               "--check-races", "--input", data, "--expect", data],
              check=False)
    latency = LATENCY.search(out)
    if not latency:
        sys.exit("no latency from nnaccel-run on %s (%s):\n%s" %
                 (name, mode, out))
    cosines = [float(c) for c in COSINE.findall(out)]
    return (int(latency.group(1)), min(cosines) if cosines else float("nan"),
            os.path.getsize(package))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--models", default="examples/models")
    parser.add_argument("--target", default="default")
    parser.add_argument("--targets-dir", default="targets")
    parser.add_argument("--modes", default="int8;int8,int4-emb;bf16",
                        help="--quantize values separated by ';'")
    parser.add_argument("--only", default="",
                        help="comma-separated model labels (prefixes)")
    parser.add_argument("--compile-flags", default="",
                        help="extra nnaccel-compile flags (space-separated)")
    args = parser.parse_args()
    only = [o for o in args.only.split(",") if o]
    cases = [c for c in CASES
             if not only or any(c[0].startswith(o) for o in only)]
    with open(os.path.join(args.targets_dir, args.target + ".json")) as f:
        cycles_per_us = float(CLOCK.search(f.read()).group(1))
    print("%-26s %-14s %6s %11s %8s %9s %10s" %
          ("model", "mode", "cores", "latency us", "speedup", "cosine",
           "package KB"))
    with tempfile.TemporaryDirectory() as tmp:
        for label, name, flags, test_set in cases:
            for cores in (1, 0):
                base = None
                for mode in ["f32"] + args.modes.split(";"):
                    latency, cosine, size = measure(args, tmp, name, flags,
                                                    test_set, mode, cores)
                    base = base or latency
                    print("%-26s %-14s %6s %11.1f %7.2fx %9.6f %10d" %
                          (label, mode, "1" if cores == 1 else "all",
                           latency / cycles_per_us, base / latency, cosine,
                           size // 1024), flush=True)


if __name__ == "__main__":
    main()
