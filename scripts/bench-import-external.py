#!/usr/bin/env python3
"""Measures peak memory when compiling a model whose embedding table
(default 2.2 GB) lives in ONNX external data.

The table file is created sparse (no disk blocks), the model is a DLRM-style
Gather + ReduceSum over it, and `nnaccel-compile --no-ir` (import, placement,
lowering, package writing) runs under /usr/bin/time to read the peak RSS.
The importer memory-maps external data and the package writer streams the
mapped bytes to the package, so no copy of the table is made: the peak is
the mapped file pages the writer touched (at most one table size), never
two. (Printing IR with the table would cost more: MLIR's printer builds the
hex text of a resource before deciding to elide it.)

Usage: scripts/bench-import-external.py [--build build] [--gib 2.2]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test",
                                "Import", "ONNX", "Inputs"))
import make_onnx as mk  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--gib", type=float, default=2.2)
    args = parser.parse_args()
    dim = 64
    rows = int(args.gib * (1 << 30) / (dim * 4))
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "table.bin")
        with open(table, "wb") as f:
            f.truncate(rows * dim * 4)
        ext = [("location", "table.bin"), ("length", str(rows * dim * 4))]
        model = mk.model(
            [mk.node("Gather", ["T", "ids"], ["g"], "lookup"),
             mk.node("ReduceSum", ["g", "axes"], ["Y"], "pool")],
            [("ids", mk.INT64, [16, 4])], [("Y", mk.FLOAT, [16, dim])],
            [mk.tensor("T", mk.FLOAT, [rows, dim], external=ext),
             mk.tensor("axes", mk.INT64, [1], raw=(1).to_bytes(8, "little"))])
        path = os.path.join(tmp, "model.onnx")
        with open(path, "wb") as f:
            f.write(model)
        out = os.path.join(tmp, "model.nnpkg")
        proc = subprocess.run(
            ["/usr/bin/time", "-v",
             os.path.join(args.build, "bin", "nnaccel-compile"), path,
             "-o", out, "--no-ir", "--report"],
            capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr)
            return 1
        rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                                proc.stderr).group(1))
        wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)",
                         proc.stderr).group(1)
        ops = re.findall(r"accel\.\w+", proc.stdout)
        package_bytes = os.path.getsize(out)
    size_gib = rows * dim * 4 / (1 << 30)
    print(f"table: {rows} x {dim} f32 = {size_gib:.2f} GiB in external data")
    print(f"compiled ops: {sorted(set(ops))}; package {package_bytes / (1 << 30):.2f} GiB")
    print(f"peak RSS: {rss_kib / 1024:.1f} MiB "
          f"({rss_kib / 1024 / 1024 / size_gib * 100:.2f}% of the table), "
          f"wall {wall}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
