#!/usr/bin/env python3
"""Split programs against the unsplit ones, on every bundled model.

For each target given and each (model, input shape, test set): compiles the
model once for one core (--cores=1, nothing split) and once for all of the
card's cores, runs both on the test set with the race detector, and checks
the split package against PyTorch's outputs and against the unsplit
package's outputs (nnaccel-run --expect: |out - ref| <= 1e-4 + 1e-3 |ref|).
Prints one line per case and a summary; exits 1 on any failure.

  split_equality.py MODELS_DIR WORK_DIR TARGET...
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tensorfiles import outputs_to_pb  # noqa: E402

# (model directory, compile flags, test sets)
CASES = [
    ("mlp_1024_512_256", [], [0, 1, 2, 3]),
    ("dlrm_small", [], [0, 1, 2, 3]),
    ("lstm_small", [], [0, 1, 2, 3]),
    ("mobilenet_v2_050", [], [0, 1, 2, 3]),
    ("transformer_small", ["--input-shape=ids:1x37"], [0]),
    ("transformer_small", ["--input-shape=ids:1x5"], [1]),
    ("transformer_small", ["--input-shape=ids:1x64"], [2]),
    ("transformer_small", ["--input-shape=ids:1x120"], [3]),
]


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    return result.returncode == 0, result.stdout + result.stderr


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    models, work, targets = argv[1], argv[2], argv[3:]
    os.makedirs(work, exist_ok=True)
    cases = failures = 0
    for target in targets:
        for model, flags, sets in CASES:
            source = os.path.join(models, model, "model.onnx")
            tag = "%s-%s%s" % (target, model, "".join(flags).replace(
                "--input-shape=ids:", "-"))
            packages = {}
            for cores in ("1", "0"):
                package = os.path.join(work, "%s-c%s.nnpkg" % (tag, cores))
                ok, log = run(["nnaccel-compile", source, "-o", package,
                               "--target", target, "--cores", cores] + flags)
                if not ok:
                    print("FAIL compile %s --cores %s\n%s" % (tag, cores, log))
                    failures += 1
                packages[cores] = package
            for index in sets:
                cases += 1
                data = os.path.join(models, model, "test_data_set_%d" % index)
                unsplit = os.path.join(work, "%s-set%d-ref" % (tag, index))
                ok1, log1 = run(["nnaccel-run", packages["1"], "--check-races",
                                 "--input", data, "--output", unsplit])
                if ok1:
                    outputs_to_pb(unsplit)
                ok2, log2 = run(["nnaccel-run", packages["0"], "--check-races",
                                 "--input", data, "--expect", data])
                ok3, log3 = (run(["nnaccel-run", packages["0"],
                                  "--check-races", "--input", data,
                                  "--expect", unsplit])
                             if ok1 else (False, ""))
                if ok1 and ok2 and ok3:
                    print("ok %s set %d" % (tag, index))
                else:
                    failures += 1
                    print("FAIL %s set %d\n%s%s%s" % (tag, index, log1, log2,
                                                      log3))
    print("%d cases, %d split runs equal to PyTorch and to the unsplit "
          "programs, %d failed" % (cases, cases - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
