#!/usr/bin/env python3
"""program-diff.py - are the emitted NPU programs byte-identical?

Refactorings of the kernel layer must not change a single emitted
instruction. This script collects every program the project's tests and
bundled models compile and either stores them (snapshot) or compares them
with a stored snapshot (compare):

  * every bundled model under examples/models, compiled with
    `nnaccel-compile --emit=asm` (the transformer at several sequence
    lengths);
  * every `nnaccel-compile` command of the e2e lit tests (test/e2e/*.test),
    with its options (--input-shape, --force-host, --target, ...) but
    writing assembly instead of a package;
  * the layers of bench/conv-layers.py (ResNet/RegNet/MobileNet convs);
  * every `nnaccel-opt` command of the lowering lit tests
    (test/Conversion/AccelToNPU/*.mlir) whose pipeline lowers to npu: its
    printed IR, which holds every npu instruction with all its fields.

  scripts/program-diff.py snapshot DIR [--build build]
  scripts/program-diff.py compare DIR [--build build]

`compare` prints one line per differing program, writes its new text to
BUILD/program-diff/NAME.new and exits 1 if any differ.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Sequence lengths the bundled transformer is compiled at (its dynamic axis).
TRANSFORMER_SEQS = [5, 16, 37, 64, 120]


def lit_run_lines(path):
    """The RUN commands of a lit file, with continuation lines joined."""
    commands, current = [], ""
    for line in path.read_text().splitlines():
        m = re.search(r"RUN:\s?(.*)$", line)
        if not m:
            continue
        text = m.group(1).rstrip()
        if text.endswith("\\"):
            current += text[:-1] + " "
            continue
        commands.append((current + text).strip())
        current = ""
    return commands


def substitute(command, path):
    models = str(ROOT / "examples" / "models")
    return (command.replace("%{models}", models)
            .replace("%nnaccel_src_root", str(ROOT))
            .replace("%S", str(path.parent)).replace("%s", str(path)))


def first_stage(command):
    """The first command of a pipeline (before `|`), as argv."""
    argv = shlex.split(command)
    if "|" in argv:
        argv = argv[:argv.index("|")]
    cleaned, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a in (">", "<", "2>"):
            skip = True  # the redirect's file
        elif not a.startswith(">") and not a.startswith("2>"):
            cleaned.append(a)
    return cleaned


def compile_jobs():
    jobs = []
    for model in sorted((ROOT / "examples" / "models").glob("*/model.onnx")):
        name = model.parent.name
        if name.startswith("transformer"):
            for seq in TRANSFORMER_SEQS:
                jobs.append((f"model/{name}-seq{seq}",
                             [str(model), f"--input-shape=ids:1x{seq}"]))
        else:
            jobs.append((f"model/{name}", [str(model)]))
        for target in ("brainwave-like", "multicard-6x"):
            shape = ["--input-shape=ids:1x37"] if name.startswith(
                "transformer") else []
            jobs.append((f"model/{name}-{target}",
                         [str(model), f"--target={target}", *shape]))
    for test in sorted((ROOT / "test" / "e2e").glob("*.test")):
        for i, command in enumerate(lit_run_lines(test)):
            argv = first_stage(substitute(command, test))
            if not argv or argv[0] != "nnaccel-compile":
                continue
            args, skip = [], False
            for a in argv[1:]:
                if skip:
                    skip = False
                    continue
                if a == "-o":
                    skip = True
                    continue
                if a.startswith("--emit") or a.startswith("--report") or \
                        a == "--no-ir":
                    continue
                args.append(a)
            jobs.append((f"e2e/{test.stem}-{i}", args))
    return jobs


def opt_jobs():
    jobs = []
    for test in sorted((ROOT / "test" / "Conversion").rglob("*.mlir")):
        for i, command in enumerate(lit_run_lines(test)):
            argv = first_stage(substitute(command, test))
            if not argv or argv[0] != "nnaccel-opt":
                continue
            text = " ".join(argv)
            if "lower-to-npu" not in text and "nnaccel-lower" not in text:
                continue
            # Diagnostics tests print nothing useful when verifying; keep
            # the IR they produce but do not fail on expected errors.
            argv = [a for a in argv[1:] if a != "-verify-diagnostics"]
            jobs.append((f"lit/{test.stem}-{i}", argv))
    return jobs


def conv_layer_jobs(tmp):
    """The layers of bench/conv-layers.py (ResNet/RegNet/MobileNet shapes)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import importlib
    bench = importlib.import_module("conv-layers")
    jobs = []
    for layer in bench.LAYERS:
        path = Path(tmp) / f"{layer[0]}.onnxtxt"
        path.write_text(bench.model_text(layer))
        jobs.append((f"conv-layer/{layer[0]}", [str(path)]))
    return jobs


def split_cases(text):
    """The per-split outputs of an nnaccel-opt -split-input-file run (the
    exit status line kept apart)."""
    body, _, status = text.rstrip().rpartition("\n")
    return [case.strip() for case in body.split("// -----")] + [status]


def run_all(build):
    import tempfile
    bindir = Path(build).resolve() / "bin"
    results = {}
    tmp = tempfile.mkdtemp(prefix="program-diff-")
    for name, args in conv_layer_jobs(tmp):
        cmd = [str(bindir / "nnaccel-compile"), *args, "--emit=asm", "-o", "-"]
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        results[name] = out.stdout + f"\n;; exit {out.returncode}\n"
    for name, args in compile_jobs():
        cmd = [str(bindir / "nnaccel-compile"), *args, "--emit=asm", "-o", "-"]
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        results[name] = out.stdout + f"\n;; exit {out.returncode}\n"
    for name, args in opt_jobs():
        cmd = [str(bindir / "nnaccel-opt"), *args]
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        results[name] = out.stdout + f"\n// exit {out.returncode}\n"
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["snapshot", "compare"])
    parser.add_argument("dir")
    parser.add_argument("--build", default=str(ROOT / "build"))
    args = parser.parse_args()
    out = Path(args.dir)
    results = run_all(args.build)
    if args.mode == "snapshot":
        out.mkdir(parents=True, exist_ok=True)
        for name, text in results.items():
            path = out / (name.replace("/", "__") + ".txt")
            path.write_text(text)
        print(f"program-diff: {len(results)} programs stored in {out}")
        return 0
    differ, missing = [], []
    newdir = Path(args.build).resolve() / "program-diff"
    newdir.mkdir(parents=True, exist_ok=True)
    for stale in newdir.glob("*.new"):
        stale.unlink()
    added = 0
    for name, text in results.items():
        path = out / (name.replace("/", "__") + ".txt")
        if not path.exists():
            missing.append(name)
            continue
        stored = path.read_text()
        if stored == text:
            continue
        # Split-input lit files: every stored case must come out unchanged;
        # cases added to the file since the snapshot are new, not different.
        old_cases, new_cases = split_cases(stored), split_cases(text)
        if len(old_cases) > 1 and all(c in new_cases for c in old_cases):
            added += len(new_cases) - len(old_cases)
            continue
        differ.append(name)
        (newdir / (name.replace("/", "__") + ".new")).write_text(text)
    for name in missing:
        print(f"program-diff: {name}: no stored program")
    for name in differ:
        print(f"program-diff: {name}: DIFFERS (stored: {out}/"
              f"{name.replace('/', '__')}.txt, new: {newdir}/"
              f"{name.replace('/', '__')}.new)")
    same = len(results) - len(differ) - len(missing)
    print(f"program-diff: {same} identical, {len(differ)} differ, "
          f"{len(missing)} new" +
          (f" (+{added} new cases in existing lit files)" if added else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
