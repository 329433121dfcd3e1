#!/usr/bin/env python3
"""ONNX backend conformance: compile + run + compare every test model that
libonnx-testdata ships, against a list of expected failures.

For each test directory (model.onnx + test_data_set_0/{input,output}_*.pb):
  nnaccel-compile model.onnx -o T.nnpkg
  nnaccel-run T.nnpkg --input test_data_set_0 --expect test_data_set_0 \
              --check-races
A test passes when both succeed (outputs within 1e-4 + 1e-3*|ref|, and no
data race in the card programs).

Backend tests feed some shape-determining operands (Reshape's shape,
Slice's starts, ...) as graph inputs, which a static-shape compiler cannot
take at run time. When nnaccel-compile reports that such an operand is a
graph input ("--bind-input NAME=FILE.pb"), the test is recompiled with that
input bound to the test's own input file, and run with the remaining
inputs: the package is specialised to the value the test feeds.

test/conformance/expected-failures.json maps suite -> test -> reason. The
run fails on an unexpected failure and on an unexpected pass (a fixed test
must leave the list: rerun with --regenerate, which rewrites the file with
the current reasons).

Usage: onnx-conformance.py [--build build] [--suite node ...] [-j N]
                           [--filter REGEX] [--regenerate] [-v]
(--filter runs only the tests whose names match; with --regenerate only
their entries are rewritten.)
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


def tensor_name(path):
    """The name field (8) of a serialized ONNX TensorProto, or ''."""
    with open(path, "rb") as f:
        buf = f.read()
    pos = 0

    def varint():
        nonlocal pos
        value, shift = 0, 0
        while True:
            byte = buf[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while pos < len(buf):
        key = varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            varint()
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length = varint()
            if field == 8:
                return buf[pos:pos + length].decode("utf-8", "replace")
            pos += length
        else:
            return ""
    return ""


def input_files(data):
    """(name, path) of the test's input_<i>.pb files, in input order."""
    files = []
    i = 0
    while os.path.exists(os.path.join(data, f"input_{i}.pb")):
        path = os.path.join(data, f"input_{i}.pb")
        files.append((tensor_name(path), path))
        i += 1
    return files


BIND_HINT = re.compile(r"--bind-input (\S+)=FILE\.pb")


def run_test(build, suite, name, tmp):
    """Returns (None or the failure reason, whether an input was bound)."""
    bound = {}
    return run_bound(build, suite, name, tmp, bound), bool(bound)


def run_bound(build, suite, name, tmp, bound):
    test_dir = os.path.join(DATA, suite, name)
    model = os.path.join(test_dir, "model.onnx")
    data = os.path.join(test_dir, "test_data_set_0")
    package = os.path.join(tmp, f"{suite}-{name}.nnpkg")
    inputs = input_files(data)
    while True:
        compile_cmd = [os.path.join(build, "bin", "nnaccel-compile"), model,
                       "-o", package, "--no-ir"]
        if bound:
            compile_cmd.append("--bind-input=" + ",".join(
                f"{k}={v}" for k, v in bound.items()))
        try:
            proc = subprocess.run(compile_cmd, capture_output=True,
                                  text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return "compile: timeout"
        if proc.returncode == 0:
            break
        # An operand that must be constant is a graph input: bind it to
        # the test's value and compile again.
        hint = BIND_HINT.search(proc.stderr)
        path = dict(inputs).get(hint.group(1)) if hint else None
        if not path or hint.group(1) in bound:
            return "compile: " + first_error(proc.stderr)
        bound[hint.group(1)] = path
    if bound:
        feed = [f"{n}={p}" for n, p in inputs if n not in bound]
        run_cmd = [os.path.join(build, "bin", "nnaccel-run"), package,
                   "--expect", data, "--check-races"]
        if feed:
            run_cmd += ["--input"] + feed
    else:
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
    parser.add_argument("--filter", default=None,
                        help="run only tests whose names match this regex")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    suites = args.suite or SUITES
    build = os.path.abspath(args.build)

    expected = {}
    if os.path.exists(EXPECTED):
        with open(EXPECTED) as f:
            expected = json.load(f)

    results = {}
    bound_tests = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        jobs = {}
        for suite in suites:
            root = os.path.join(DATA, suite)
            for name in sorted(os.listdir(root)):
                if args.filter and not re.search(args.filter, name):
                    continue
                if os.path.exists(os.path.join(root, name, "model.onnx")):
                    jobs[pool.submit(run_test, build, suite, name, tmp)] = \
                        (suite, name)
        for future in concurrent.futures.as_completed(jobs):
            suite, name = jobs[future]
            reason, bound = future.result()
            results.setdefault(suite, {})[name] = reason
            if bound and reason is None:
                bound_tests.setdefault(suite, set()).add(name)

    failed_total = 0
    passed_total = 0
    new_expected = {}
    for suite in suites:
        outcome = results.get(suite, {})
        passed = sorted(n for n, r in outcome.items() if r is None)
        failures = {n: r for n, r in outcome.items() if r is not None}
        if args.filter:
            # Only the tests that ran are rewritten.
            merged = {n: r for n, r in expected.get(suite, {}).items()
                      if n not in outcome}
            merged.update(failures)
            new_expected[suite] = dict(sorted(merged.items()))
        else:
            new_expected[suite] = dict(sorted(failures.items()))
        known = expected.get(suite, {})
        unexpected_fail = sorted(n for n in failures if n not in known)
        unexpected_pass = sorted(n for n in passed if n in known)
        print(f"{suite}: {len(passed)} of {len(outcome)} passed "
              f"({len(failures)} expected failures: "
              f"{len(failures) - len(unexpected_fail)}); "
              f"{len(passed) - len(bound_tests.get(suite, ()))} of them "
              f"without --bind-input")
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
