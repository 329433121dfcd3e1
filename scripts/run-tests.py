#!/usr/bin/env python3
"""Runs every nnaccel test suite and prints one `N passed, M failed` line.

Suites: lit (FileCheck tests) and ctest (Catch2 unit tests) in the full
build, and ctest in the runtime-only build (NNACCEL_BUILD_COMPILER=OFF),
which proves the runtime half needs no LLVM/MLIR, and the downstream suite
(scripts/test-downstream.py): the full build installed into a staging
prefix and used by examples/downstream through find_package(NNAccel). Each
suite writes JUnit XML that this script sums, so the total is exact rather
than scraped.

With --sanitize (`make check-sanitize`) the same suites run against the
ASan + UBSan build (build-sanitize): every sanitizer report aborts the
process that made it, so it fails its test; the downstream project is built
with clang and the same sanitizers so that it can link the instrumented
libraries.
"""
import argparse
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

LIT = "/usr/lib/llvm-19/build/utils/lit/lit.py"


def count_junit(path):
    """Returns (passed, failed, skipped) from a JUnit XML file."""
    if not os.path.exists(path):
        return 0, 0, 0
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status", "")
        if case.find("failure") is not None or case.find("error") is not None \
                or status == "fail":
            failed += 1
        elif case.find("skipped") is not None or status in ("notrun", "disabled"):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def sanitizer_environment():
    """ASan/UBSan/LSan settings for every process the suites start."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    flags = "-fsanitize=address,undefined -fno-omit-frame-pointer"
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs from
    # header code inlined into instrumented nnaccel objects, while the same
    # allocators are also used by the uninstrumented libMLIR.so, which never
    # unpoisons what it allocates; ASan's interceptors then report reads of
    # valid MLIR storage as use-after-poison. Real heap errors are unaffected.
    return {
        "ASAN_OPTIONS": "halt_on_error=1:abort_on_error=1:detect_leaks=1:"
                        "strict_string_checks=1:check_initialization_order=1:"
                        "allow_user_poisoning=0",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
        "LSAN_OPTIONS": f"suppressions={root}/scripts/lsan.supp:"
                        "print_suppressions=0",
        # For the downstream project, which links the instrumented libraries.
        "CC": "clang-19", "CXX": "clang++-19", "CFLAGS": flags,
        "CXXFLAGS": flags, "LDFLAGS": "-fsanitize=address,undefined",
    }


def run_suite(name, cmd, xml_path):
    if os.path.exists(xml_path):
        os.remove(xml_path)
    print(f"== {name}: {' '.join(cmd)}", flush=True)
    proc = subprocess.run(cmd)
    passed, failed, skipped = count_junit(xml_path)
    if proc.returncode != 0 and failed == 0:
        # The runner itself failed (crash, configuration error): count it.
        failed = 1
    print(f"== {name}: {passed} passed, {failed} failed, {skipped} skipped",
          flush=True)
    return passed, failed, skipped


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--runtime-build", default=None)
    parser.add_argument("--sanitize", action="store_true",
                        help="the build is instrumented (ASan + UBSan)")
    args = parser.parse_args()
    if args.sanitize:
        os.environ.update(sanitizer_environment())
    jobs = str(os.cpu_count() or 2)

    suites = []
    lit_dir = os.path.join(args.build, "test")
    if os.path.exists(os.path.join(lit_dir, "lit.site.cfg.py")):
        xml = os.path.abspath(os.path.join(args.build, "lit-results.xml"))
        suites.append(run_suite(
            "lit", [sys.executable, LIT, "-sv", "-j", jobs,
                    f"--xunit-xml-output={xml}", lit_dir], xml))
    for build in filter(None, [args.build, args.runtime_build]):
        xml = os.path.abspath(os.path.join(build, "ctest-results.xml"))
        suites.append(run_suite(
            f"ctest ({build})",
            ["ctest", "--test-dir", build, "-j", jobs, "--output-on-failure",
             "--output-junit", xml], xml))

    # The downstream project compiles models, so it needs the full build.
    if os.path.exists(os.path.join(args.build, "bin", "nnaccel-compile")):
        xml = os.path.abspath(os.path.join(args.build,
                                           "downstream-results.xml"))
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "test-downstream.py")
        suites.append(run_suite(
            "downstream", [sys.executable, script, "--build", args.build,
                           "--junit", xml], xml))

    passed = sum(s[0] for s in suites)
    failed = sum(s[1] for s in suites)
    skipped = sum(s[2] for s in suites)
    if passed + failed == 0:
        failed = 1  # No test ran: that is a failure, not a success.
    tail = f", {skipped} skipped" if skipped else ""
    print(f"{passed} passed, {failed} failed{tail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
