#!/usr/bin/env python3
"""ONNX backend conformance: compile + run + compare every test model that
libonnx-testdata ships, against a list of expected failures.

For each test directory (model.onnx + test_data_set_0/{input,output}_*.pb):
  nnaccel-compile model.onnx -o T.nnpkg
  nnaccel-run T.nnpkg --input test_data_set_0 --expect test_data_set_0 \
              --check-races
A test passes when both succeed (outputs within 1e-4 + 1e-3*|ref|, and no
data race in the card programs).

test/conformance/expected-failures.json maps suite -> test -> reason. The
run fails on an unexpected failure and on an unexpected pass (a fixed test
must leave the list: rerun with --regenerate, which rewrites the file with
the current reasons).

Usage: onnx-conformance.py [--build build] [--suite node ...] [-j N]
                           [--regenerate] [-v]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

DATA = "/usr/share/libonnx-testdata/data"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "..", "test", "conformance",
                        "expected-failures.json")


def first_error(text):
    """A short, stable reason from a tool's stderr."""
    for line in text.splitlines():
        m = re.search(r"error: (.*)", line)
        if m:
            reason = m.group(1)
            reason = re.sub(r"/\S+/", "", reason)  # strip paths
            return reason[:200]
    lines = [l for l in text.splitlines() if l.strip()]
    return (lines[-1] if lines else "failed without a message")[:200]


def run_test(build, suite, name, tmp):
    test_dir = os.path.join(DATA, suite, name)
    model = os.path.join(test_dir, "model.onnx")
    data = os.path.join(test_dir, "test_data_set_0")
    package = os.path.join(tmp, f"{suite}-{name}.nnpkg")
    compile_cmd = [os.path.join(build, "bin", "nnaccel-compile"), model,
                   "-o", package, "--no-ir"]
    try:
        proc = subprocess.run(compile_cmd, capture_output=True, text=True,
                              timeout=300)
    except subprocess.TimeoutExpired:
        return "compile: timeout"
    if proc.returncode != 0:
        return "compile: " + first_error(proc.stderr)
    run_cmd = [os.path.join(build, "bin", "nnaccel-run"), package,
               "--input", data, "--expect", data, "--check-races"]
    try:
        proc = subprocess.run(run_cmd, capture_output=True, text=True,
                              timeout=300)
    except subprocess.TimeoutExpired:
        return "run: timeout"
    finally:
        if os.path.exists(package):
            os.remove(package)
    if proc.returncode != 0:
        text = proc.stderr + proc.stdout
        if "FAIL" in proc.stdout and "error:" not in proc.stderr:
            return "mismatch: outputs differ from the reference"
        return "run: " + first_error(text)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--suite", action="append", choices=SUITES)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    suites = args.suite or SUITES
    build = os.path.abspath(args.build)

    expected = {}
    if os.path.exists(EXPECTED):
        with open(EXPECTED) as f:
            expected = json.load(f)

    results = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        jobs = {}
        for suite in suites:
            root = os.path.join(DATA, suite)
            for name in sorted(os.listdir(root)):
                if os.path.exists(os.path.join(root, name, "model.onnx")):
                    jobs[pool.submit(run_test, build, suite, name, tmp)] = \
                        (suite, name)
        for future in concurrent.futures.as_completed(jobs):
            suite, name = jobs[future]
            results.setdefault(suite, {})[name] = future.result()

    failed_total = 0
    passed_total = 0
    new_expected = {}
    for suite in suites:
        outcome = results.get(suite, {})
        passed = sorted(n for n, r in outcome.items() if r is None)
        failures = {n: r for n, r in outcome.items() if r is not None}
        new_expected[suite] = dict(sorted(failures.items()))
        known = expected.get(suite, {})
        unexpected_fail = sorted(n for n in failures if n not in known)
        unexpected_pass = sorted(n for n in passed if n in known)
        print(f"{suite}: {len(passed)} of {len(outcome)} passed "
              f"({len(failures)} expected failures: "
              f"{len(failures) - len(unexpected_fail)})")
        for name in unexpected_fail:
            print(f"  UNEXPECTED FAIL {suite}/{name}: {failures[name]}")
        for name in unexpected_pass:
            print(f"  UNEXPECTED PASS {suite}/{name} (was: {known[name]})")
        if args.verbose:
            for name, reason in sorted(failures.items()):
                print(f"  fail {name}: {reason}")
        passed_total += len(passed)
        if not args.regenerate:
            failed_total += len(unexpected_fail) + len(unexpected_pass)

    if args.regenerate:
        for suite in SUITES:
            if suite not in new_expected and suite in expected:
                new_expected[suite] = expected[suite]
        with open(EXPECTED, "w") as f:
            json.dump(new_expected, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {os.path.relpath(EXPECTED)}")
    print(f"{passed_total} passed, {failed_total} failed")
    return 1 if failed_total else 0


if __name__ == "__main__":
    sys.exit(main())
