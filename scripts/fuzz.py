#!/usr/bin/env python3
"""Runs nnaccel's libFuzzer targets (`make fuzz FUZZ_SECONDS=N`).

Each target in fuzz/ gets a working corpus in <build>/fuzz/<target>/corpus,
seeded from the tests (built fresh each run, so nothing large is checked in)
plus the checked-in fuzz/corpus/<target> (regression inputs, among them
every crasher found so far). Targets run two at a time for --seconds each;
crashers land in <build>/fuzz/<target>/artifacts. The script prints one
line per target (executions, exec/s, final cov/ft, crashes) and exits
non-zero if any target crashed. docs/robustness.md records a full run.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ONNX_TESTDATA = "/usr/share/libonnx-testdata/data/node"

# target -> maximum input length (bytes).
TARGETS = {
    "fuzz-onnx-binary": 64 * 1024,
    "fuzz-onnx-text": 16 * 1024,
    "fuzz-package": 256 * 1024,
    "fuzz-isa-decode": 16 * 1024,
    "fuzz-asm": 16 * 1024,
    "fuzz-emulator": 16 * 1024,
    "fuzz-tensor": 64 * 1024,
}


def src(*patterns):
    files = []
    for p in patterns:
        files += glob.glob(os.path.join(ROOT, p), recursive=True)
    return sorted(files)


def copy_seeds(files, corpus, max_len):
    for i, f in enumerate(files):
        if os.path.getsize(f) <= max_len:
            shutil.copy(f, os.path.join(corpus, f"seed-{i}-{os.path.basename(f)}"))


def npy(dtype, shape, payload):
    """A version 1.0 .npy file (written by hand: no numpy needed)."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        dtype, "".join(f"{d}," for d in shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + \
        header.encode() + payload


def assemble(bindir, asm_files, out_dir):
    """Program binaries for the decoder/emulator targets, from .s tests."""
    out = []
    for i, s in enumerate(asm_files):
        binary = os.path.join(out_dir, f"prog-{i}.bin")
        mlir = subprocess.run([os.path.join(bindir, "nnaccel-translate"),
                               "--asm-to-npu", s], capture_output=True)
        if mlir.returncode:
            continue
        res = subprocess.run([os.path.join(bindir, "nnaccel-translate"),
                              "--npu-to-binary", "-o", binary],
                             input=mlir.stdout, capture_output=True)
        if res.returncode == 0:
            out.append(binary)
    return out


def compile_packages(bindir, models, out_dir):
    out = []
    for i, m in enumerate(models):
        pkg = os.path.join(out_dir, f"pkg-{i}.nnpkg")
        res = subprocess.run([os.path.join(bindir, "nnaccel-compile"), m,
                              "-o", pkg], capture_output=True)
        if res.returncode == 0:
            out.append(pkg)
    return out


def seed(target, corpus, bindir, scratch):
    max_len = TARGETS[target]
    asm = src("unittests/ISA/corpus/*.s", "test/Target/NPU/**/*.s",
              "test/tools/**/*.s")
    if target == "fuzz-onnx-binary":
        files = src("test/**/*.onnx")
        for d in sorted(glob.glob(os.path.join(ONNX_TESTDATA, "*")))[::3]:
            files.append(os.path.join(d, "model.onnx"))
    elif target == "fuzz-onnx-text":
        files = src("test/**/*.onnxtxt")
    elif target == "fuzz-asm":
        files = asm
    elif target in ("fuzz-isa-decode", "fuzz-emulator"):
        files = assemble(bindir, asm, scratch)
    elif target == "fuzz-package":
        models = src("test/e2e/Inputs/k1-elementwise.onnxtxt",
                     "test/e2e/Inputs/k1-data-movement.onnxtxt",
                     "test/e2e/Inputs/k2-matmul.onnxtxt",
                     "test/e2e/Inputs/bucket-ops.onnxtxt",
                     "test/e2e/Inputs/k4-pool.onnxtxt")
        files = compile_packages(bindir, models, scratch)
    elif target == "fuzz-tensor":
        files = src("examples/**/*.pb", "test/**/*.pb")
        files += glob.glob(os.path.join(ONNX_TESTDATA,
                                        "*/test_data_set_0/*.pb"))[::10]
        for i, (dt, shape, size) in enumerate(
                [("<f4", (2, 3), 4), ("<i8", (4,), 8), ("|u1", (1, 1, 5), 1),
                 ("<f2", (3,), 2), ("<i4", (), 4), ("|b1", (2, 2), 1)]):
            n = 1
            for d in shape:
                n *= d
            path = os.path.join(scratch, f"t{i}.npy")
            with open(path, "wb") as f:
                f.write(npy(dt, shape, bytes(range(n * size))))
            files.append(path)
    else:
        files = []
    copy_seeds(files, corpus, max_len)
    copy_seeds(src(f"fuzz/corpus/{target}/*"), corpus, max_len)


def run(target, args):
    exe = os.path.join(args.build, "bin", target)
    work = os.path.join(args.build, "fuzz", target)
    corpus = os.path.join(work, "corpus")
    artifacts = os.path.join(work, "artifacts") + "/"
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        seed(target, corpus, args.seed_tools or
             os.path.join(args.build, "bin"), scratch)
    log = os.path.join(work, "fuzz.log")
    cmd = [exe, corpus, f"-max_total_time={args.seconds}",
           "-rss_limit_mb=2048", f"-max_len={TARGETS[target]}",
           "-timeout=25", "-print_final_stats=1",
           f"-artifact_prefix={artifacts}"]
    # allow_user_poisoning=0: see sanitizer_environment() in run-tests.py.
    env = dict(os.environ,
               ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:"
                            "allow_user_poisoning=0",
               LSAN_OPTIONS=f"suppressions={ROOT}/scripts/lsan.supp",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n")
        f.flush()
        code = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                              env=env).returncode
    text = open(log, errors="replace").read()
    execs = re.findall(r"stat::number_of_executed_units: (\d+)", text)
    speed = re.findall(r"stat::average_exec_per_sec:\s+(\d+)", text)
    cov = re.findall(r"cov: (\d+) ft: (\d+)", text)
    crashes = len(glob.glob(artifacts + "crash-*")) + \
        len(glob.glob(artifacts + "leak-*")) + \
        len(glob.glob(artifacts + "timeout-*")) + \
        len(glob.glob(artifacts + "oom-*"))
    return dict(target=target, code=code, execs=execs[-1] if execs else "?",
                speed=speed[-1] if speed else "?",
                cov=cov[-1][0] if cov else "?", ft=cov[-1][1] if cov else "?",
                crashes=crashes, log=log)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build-sanitize")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed-tools", default=None,
                        help="bin/ directory whose nnaccel-translate and "
                             "nnaccel-compile build the seed programs and "
                             "packages (default: the build's own)")
    parser.add_argument("targets", nargs="*")
    args = parser.parse_args()
    targets = args.targets or [t for t in TARGETS if os.path.exists(
        os.path.join(args.build, "bin", t))]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda t: run(t, args), targets))
    print(f"{'target':18} {'seconds':>7} {'execs':>10} {'exec/s':>7} "
          f"{'cov':>6} {'ft':>7}  result")
    failed = 0
    for r in results:
        ok = r["code"] == 0 and r["crashes"] == 0
        failed += not ok
        print(f"{r['target']:18} {args.seconds:>7} {r['execs']:>10} "
              f"{r['speed']:>7} {r['cov']:>6} {r['ft']:>7}  "
              f"{'ok' if ok else 'FAILED, see ' + r['log']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
