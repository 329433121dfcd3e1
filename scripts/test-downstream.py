#!/usr/bin/env python3
"""Tests the installed nnaccel as a downstream project sees it.

Installs BUILD into a staging prefix (BUILD/staging), configures and builds
examples/downstream against it (find_package(NNAccel), two model packages
made by nnaccel_add_model_package, a server over the runtime) in
BUILD/downstream, serves both packages, runs the C-interface client, and
checks that changing one package's flag recompiles that package alone. Each step is a test case of
the JUnit XML written to --junit; a step whose prerequisite failed is
reported as failed too, so the count does not depend on where it broke.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, **kwargs):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, **kwargs)


class Suite:
    def __init__(self):
        self.cases = []  # (name, seconds, failure message or None)
        self.broken = None  # the first failed step, which later ones need

    def step(self, name, fn, prerequisite=True):
        """Runs fn unless an earlier prerequisite step failed. A failed
        prerequisite step makes the later steps fail unrun."""
        start = time.monotonic()
        if self.broken:
            failure = f"not run: {self.broken} failed"
        else:
            try:
                failure = fn()
            except Exception as error:  # a crash in a step is its failure
                failure = f"{type(error).__name__}: {error}"
        seconds = time.monotonic() - start
        status = "PASS" if failure is None else "FAIL"
        print(f"{status}: downstream :: {name} ({seconds:.1f} s)", flush=True)
        if failure is not None:
            print(failure, flush=True)
            if prerequisite and not self.broken:
                self.broken = name
        self.cases.append((name, seconds, failure))

    def write(self, path):
        suite = ET.Element("testsuite", name="downstream",
                           tests=str(len(self.cases)),
                           failures=str(sum(1 for c in self.cases if c[2])))
        for name, seconds, failure in self.cases:
            case = ET.SubElement(suite, "testcase", classname="downstream",
                                 name=name, time=f"{seconds:.3f}")
            if failure is not None:
                ET.SubElement(case, "failure", message=failure[:200]).text = \
                    failure
        root = ET.Element("testsuites")
        root.append(suite)
        ET.ElementTree(root).write(path, encoding="utf-8",
                                   xml_declaration=True)


def checked(proc):
    """None if the command succeeded, else its output as the failure."""
    if proc.returncode == 0:
        print(proc.stdout, end="", flush=True)
        return None
    return f"exit code {proc.returncode}\n{proc.stdout}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--junit", required=True)
    args = parser.parse_args()

    build = os.path.abspath(args.build)
    staging = os.path.join(build, "staging")
    downstream = os.path.join(build, "downstream")
    models = os.path.join(ROOT, "examples", "models")
    cmake = shutil.which("cmake") or "cmake"
    ninja = shutil.which("ninja") or "ninja"
    suite = Suite()

    def install():
        # A fresh prefix each time: files removed from the install rules
        # must not linger and hide a missing one.
        shutil.rmtree(staging, ignore_errors=True)
        return checked(run([cmake, "--install", build, "--prefix", staging]))

    # The flags the serving steps expect (the rebuild step changes them and
    # the cache would keep its last value).
    default_flags = ("-DMLP_QUANTIZE=none", "-DDLRM_QUANTIZE=none")

    def configure(*extra):
        cmd = [cmake, "-G", "Ninja", "-S",
               os.path.join(ROOT, "examples", "downstream"), "-B", downstream,
               "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={staging}",
               f"-DNNACCEL_EXAMPLE_MODELS={models}", "-Wno-dev", *extra]
        ccache = shutil.which("ccache")
        if ccache:
            cmd += [f"-DCMAKE_C_COMPILER_LAUNCHER={ccache}",
                    f"-DCMAKE_CXX_COMPILER_LAUNCHER={ccache}"]
        return checked(run(cmd))

    def build_all():
        return checked(run([ninja, "-C", downstream]))

    def serve(package, data):
        return checked(run([
            os.path.join(downstream, "nnaccel-serve"),
            os.path.join(downstream, package),
            os.path.join(models, data, "test_data_set_0"), "--requests", "64",
            "--clients", "4", "--workers", "2", "--expect"]))

    packages = {"mlp": os.path.join(downstream, "mlp.nnpkg"),
                "dlrm": os.path.join(downstream, "dlrm.nnpkg")}

    def rebuild_one_package():
        # Start from the default flags, everything built.
        failure = configure(*default_flags) or build_all()
        if failure:
            return failure
        noop = run([ninja, "-C", downstream, "-n"])
        if "no work to do" not in noop.stdout:
            return "a second build is not a no-op:\n" + noop.stdout
        before = {k: os.stat(p).st_mtime_ns for k, p in packages.items()}
        failure = configure("-DMLP_QUANTIZE=int8")
        if failure:
            return failure
        # Ninja's own account of what is out of date: the MLP package only.
        plan = run([ninja, "-C", downstream, "-n", "-d", "explain"])
        planned = [line for line in plan.stdout.splitlines()
                   if line.startswith("[")]
        if not any("mlp.nnpkg" in line for line in planned) or \
                any("dlrm.nnpkg" in line or "serve" in line
                    for line in planned):
            return "ninja -n after changing MLP_QUANTIZE plans:\n" + \
                plan.stdout
        failure = build_all()
        if failure:
            return failure
        after = {k: os.stat(p).st_mtime_ns for k, p in packages.items()}
        if after["mlp"] == before["mlp"] or after["dlrm"] != before["dlrm"]:
            return (f"package timestamps before {before}, after {after}: "
                    "expected only mlp.nnpkg to change")
        return None

    suite.step("install to staging", install)
    suite.step("configure examples/downstream",
               lambda: configure(*default_flags))
    suite.step("build packages and server", build_all)
    suite.step("serve mlp_1024_512_256",
               lambda: serve("mlp.nnpkg", "mlp_1024_512_256"),
               prerequisite=False)
    suite.step("serve dlrm_small", lambda: serve("dlrm.nnpkg", "dlrm_small"),
               prerequisite=False)
    suite.step("C interface client on dlrm_small",
               lambda: checked(run([os.path.join(downstream,
                                                 "nnaccel-c-client"),
                                    packages["dlrm"]])),
               prerequisite=False)
    suite.step("changed QUANTIZE rebuilds only that package",
               rebuild_one_package)
    suite.write(args.junit)
    return 1 if any(c[2] for c in suite.cases) else 0


if __name__ == "__main__":
    sys.exit(main())
