#!/usr/bin/env python3
"""Random models from the bundled models' op sets, and where their ops run.

Issue 18 asks for zero host ops "on the bundled models and on models built
from their op sets in any shape". This script builds small random ONNX text
models in five families that use exactly the ONNX ops of the bundled models
(examples/models/*/meta.json), in varied shapes (odd sizes, sizes that are
not multiples of 16 or 64, batch 1 / 3 / 5, ...):

  mlp          Gemm Relu
  dlrm         Gather ReduceSum Concat Gemm Relu Sigmoid
  transformer  Gather Slice Add Sub Mul Div Pow Sqrt ReduceMean MatMul
               Reshape Transpose Softmax Relu, plus the causal-mask Where,
               Equal / Less and the erf and tanh GELUs of HF encoders
  lstm         LSTM Squeeze Gemm
  mobilenet    Conv (stem, 1x1, depthwise) Clip Add GlobalAveragePool
               Flatten Gemm

compiles each with nnaccel-compile --report-json (f32, and with
--quantize=int8 --calibration on random samples when --int8 is given), and
prints every op placed on the host with the compiler's reason, then a
summary. With --run, each package also runs on the emulator on random
inputs and is compared (nnaccel-run --expect) with the same model compiled
(same quantisation) with all its card ops forced to the host. Exit status 1 when a host op was
found, a compile failed or a run differed (so it can gate a test).

Usage: bench/host-ops-sweep.py [--bin BUILD/bin] [--count N] [--seed S]
                               [--family NAME,...] [--int8] [--keep DIR]

Measured (docs/import-onnx.md, "Zero host ops"): 40 f32 models (seed 7,
8 per family) and 20 f32 + 20 int8 (seed 3, --int8): the host ops left are
accel.conv with batch > 1 whose per-image outputs are not 64-byte multiples
and accel.concat at unaligned offsets (DLRM-style concats of odd widths).
"""
import argparse
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Sizes the kernels' tilings find awkward next to friendly ones.
ODD_DIMS = [1, 3, 5, 7, 13, 17, 31, 37, 50, 63, 65, 97, 100, 127, 129, 200]


class Graph:
    """An ONNX text graph under construction."""

    def __init__(self, rng):
        self.rng = rng
        self.inputs, self.outputs, self.inits, self.nodes = [], [], [], []
        self.counter = 0

    def name(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def input(self, dtype, dims):
        n = self.name("in")
        self.inputs.append((dtype, dims, n))
        return n

    def output(self, dtype, dims, value):
        self.outputs.append((dtype, dims, value))

    def weight(self, dims, scale=None):
        """A constant f32 initializer with pseudo-random values."""
        count = 1
        for d in dims:
            count *= d
        if scale is None:
            scale = 1.0 / max(1, dims[0]) ** 0.5 if dims else 1.0
        values = ["%.4g" % (self.rng.uniform(-1, 1) * scale) for _ in range(count)]
        n = self.name("w")
        self.inits.append(("float", dims, n, values))
        return n

    def const(self, dtype, dims, values):
        n = self.name("c")
        self.inits.append((dtype, dims, n, [str(v) for v in values]))
        return n

    def node(self, op, inputs, attrs="", outputs=1):
        outs = [self.name("t") for _ in range(outputs)]
        attr = " <%s>" % attrs if attrs else ""
        self.nodes.append("  %s = %s%s (%s)" % (", ".join(outs), op, attr,
                                                ", ".join(inputs)))
        return outs[0] if outputs == 1 else outs

    def text(self, name):
        def ty(t, d):
            # Rank 0 is written without brackets.
            return "%s[%s]" % (t, ",".join(map(str, d))) if d else t

        def sig(items):
            return ", ".join("%s %s" % (ty(t, d), n) for t, d, n in items)
        inits = ", ".join("%s %s = {%s}" % (ty(t, d), n, ",".join(v))
                          for t, d, n, v in self.inits)
        header = "%s (%s) => (%s)" % (name, sig(self.inputs),
                                      sig(self.outputs))
        if inits:
            header += "\n  <%s>" % inits
        return ('<\n  ir_version: 8,\n  opset_import: ["" : 13]\n>\n' + header +
                "\n{\n" + "\n".join(self.nodes) + "\n}\n")


def pick(rng, lo=1, hi=200):
    return rng.choice([d for d in ODD_DIMS if lo <= d <= hi] or [lo])


def gemm(g, x, k, n, relu=True):
    w = g.weight([n, k])
    b = g.weight([n], 0.1)
    y = g.node("Gemm", [x, w, b], "transB = 1")
    return g.node("Relu", [y]) if relu else y


def family_mlp(g, rng):
    batch = rng.choice([1, 3, 5, 8])
    dims = [pick(rng, 1, 200) for _ in range(rng.randint(2, 4))]
    x = g.input("float", [batch, dims[0]])
    for i in range(1, len(dims)):
        x = gemm(g, x, dims[i - 1], dims[i], relu=i + 1 < len(dims))
    g.output("float", [batch, dims[-1]], x)
    return "mlp %s batch %d" % ("-".join(map(str, dims)), batch)


def family_dlrm(g, rng):
    batch = rng.choice([1, 3, 5, 16])
    dim = pick(rng, 3, 65)
    dense = pick(rng, 1, 63)
    parts = [gemm(g, g.input("float", [batch, dense]), dense, dim)]
    tables = rng.randint(1, 3)
    for _ in range(tables):
        rows, bag = pick(rng, 5, 100), rng.choice([1, 2, 3, 7])
        table = g.weight([rows, dim], 0.5)
        ids = g.input("int64", [batch, bag])
        gathered = g.node("Gather", [table, ids])
        axes = g.const("int64", [1], [1])
        parts.append(g.node("ReduceSum", [gathered, axes], "keepdims = 0"))
    x = g.node("Concat", parts, "axis = 1")
    width = dim * (tables + 1)
    hidden = pick(rng, 3, 129)
    x = gemm(g, x, width, hidden)
    x = g.node("Sigmoid", [gemm(g, x, hidden, 1, relu=False)])
    g.output("float", [batch, 1], x)
    return "dlrm batch %d dim %d dense %d tables %d" % (batch, dim, dense,
                                                         tables)


def layer_norm(g, x, d):
    # ReduceMean takes its axes as an attribute up to opset 17.
    mean = g.node("ReduceMean", [x], "axes = [-1]")
    centred = g.node("Sub", [x, mean])
    two = g.const("float", [], [2.0])
    var = g.node("ReduceMean", [g.node("Pow", [centred, two])], "axes = [-1]")
    eps = g.const("float", [], [1e-5])
    std = g.node("Sqrt", [g.node("Add", [var, eps])])
    y = g.node("Div", [centred, std])
    return g.node("Add", [g.node("Mul", [y, g.weight([d], 1.0)]),
                          g.weight([d], 0.1)])


def gelu(g, x, form):
    half, one = g.const("float", [], [0.5]), g.const("float", [], [1.0])
    if form == "erf":
        s = g.node("Div", [x, g.const("float", [], [1.4142135])])
        inner = g.node("Erf", [s])
    else:
        cube = g.node("Pow", [x, g.const("float", [], [3.0])])
        t = g.node("Mul", [g.const("float", [], [0.044715]), cube])
        s = g.node("Mul", [g.const("float", [], [0.7978845608]),
                           g.node("Add", [x, t])])
        inner = g.node("Tanh", [s])
    return g.node("Mul", [g.node("Mul", [half, x]),
                          g.node("Add", [one, inner])])


def family_transformer(g, rng):
    seq = rng.choice([1, 3, 5, 7, 13, 37])
    heads = rng.choice([1, 2, 3, 4])
    dh = rng.choice([4, 5, 8, 16, 24])
    d = heads * dh
    vocab = pick(rng, 7, 100)
    ids = g.input("int64", [1, seq])
    tok = g.node("Gather", [g.weight([vocab, d], 1.0), ids])
    pos_table = g.weight([seq + rng.randint(0, 9), d], 0.1)
    starts, ends = g.const("int64", [1], [0]), g.const("int64", [1], [seq])
    axes0 = g.const("int64", [1], [0])
    pos = g.node("Slice", [pos_table, starts, ends, axes0])
    x = g.node("Add", [tok, pos])
    x = layer_norm(g, x, d)

    def proj(v, k, n):
        return g.node("Add", [g.node("MatMul", [v, g.weight([k, n])]),
                              g.weight([n], 0.1)])

    split = g.const("int64", [4], [1, seq, heads, dh])
    q, k, v = (g.node("Reshape", [proj(x, d, d), split]) for _ in range(3))
    q = g.node("Transpose", [q], "perm = [0, 2, 1, 3]")
    kt = g.node("Transpose", [k], "perm = [0, 2, 3, 1]")
    v = g.node("Transpose", [v], "perm = [0, 2, 1, 3]")
    scores = g.node("Div", [g.node("MatMul", [q, kt]),
                            g.const("float", [], [dh ** 0.5])])
    masked = rng.random() < 0.5
    if masked:
        # A causal mask as HF builds it: position ids compared, then Where.
        positions = g.const("int64", [seq], list(range(seq)))
        rows = g.node("Unsqueeze", [positions, g.const("int64", [1], [1])])
        allowed = g.node("LessOrEqual" if rng.random() < 0.5 else "Less",
                         [positions, rows])
        if rng.random() < 0.5:
            allowed = g.node("Not", [g.node("Not", [allowed])])
        scores = g.node("Where", [allowed, scores,
                                  g.const("float", [], [-1e9])])
    attn = g.node("Softmax", [scores], "axis = -1")
    ctx = g.node("Transpose", [g.node("MatMul", [attn, v])],
                 "perm = [0, 2, 1, 3]")
    ctx = g.node("Reshape", [ctx, g.const("int64", [3], [1, seq, d])])
    x = layer_norm(g, g.node("Add", [x, proj(ctx, d, d)]), d)
    hidden = pick(rng, 5, 129)
    act = rng.choice(["relu", "erf", "tanh"])
    h = proj(x, d, hidden)
    h = g.node("Relu", [h]) if act == "relu" else gelu(g, h, act)
    x = g.node("Add", [x, proj(h, hidden, d)])
    g.output("float", [1, seq, d], x)
    return "transformer seq %d heads %d dh %d ffn %d %s%s" % (
        seq, heads, dh, hidden, act, " causal" if masked else "")


def family_lstm(g, rng):
    seq, batch = rng.choice([1, 3, 5, 9]), rng.choice([1, 3, 5])
    inp, hidden = pick(rng, 3, 65), pick(rng, 3, 129)
    x = g.input("float", [seq, batch, inp])
    w = g.weight([1, 4 * hidden, inp])
    r = g.weight([1, 4 * hidden, hidden])
    b = g.weight([1, 8 * hidden], 0.1)
    _, h, _ = g.node("LSTM", [x, w, r, b], "hidden_size = %d" % hidden, 3)
    h = g.node("Squeeze", [h, g.const("int64", [1], [0])])
    out = pick(rng, 1, 31)
    g.output("float", [batch, out], gemm(g, h, hidden, out, relu=False))
    return "lstm seq %d batch %d in %d hidden %d" % (seq, batch, inp, hidden)


def family_mobilenet(g, rng):
    batch = rng.choice([1, 2, 3])
    size = rng.choice([7, 9, 15, 17, 32, 33])
    cin = rng.choice([1, 3, 4])
    first = size
    x = g.input("float", [batch, cin, size, size])
    lo, hi = g.const("float", [], [0.0]), g.const("float", [], [6.0])

    def conv(v, c, f, k, stride, group=1, act=True):
        w = g.weight([f, c // group, k, k], (2.0 / (c // group * k * k)) ** 0.5)
        y = g.node("Conv", [v, w, g.weight([f], 0.1)],
                   "group = %d, strides = [%d, %d], pads = [%d, %d, %d, %d]"
                   % (group, stride, stride, k // 2, k // 2, k // 2, k // 2))
        return g.node("Clip", [y, lo, hi]) if act else y

    c = rng.choice([5, 8, 12, 16, 24])
    x = conv(x, cin, c, 3, 2)
    size = (size + 1) // 2
    for _ in range(rng.randint(1, 3)):
        expand = c * rng.choice([1, 2, 3, 6])
        stride = rng.choice([1, 1, 2])
        out = c if stride == 1 and rng.random() < 0.7 else pick(rng, 3, 50)
        y = conv(x, c, expand, 1, 1)
        y = conv(y, expand, expand, 3, stride, group=expand)
        y = conv(y, expand, out, 1, 1, act=False)
        x = g.node("Add", [x, y]) if stride == 1 and out == c else y
        c = out
        size = (size - 1) // stride + 1
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x])])
    classes = pick(rng, 1, 100)
    g.output("float", [batch, classes], gemm(g, x, c, classes, relu=False))
    return "mobilenet batch %d input %dx%dx%d -> %dx%dx%d" % (
        batch, cin, first, first, c, size, size)


FAMILIES = {
    "mlp": family_mlp,
    "dlrm": family_dlrm,
    "transformer": family_transformer,
    "lstm": family_lstm,
    "mobilenet": family_mobilenet,
}


def write_npy(path, dtype, dims, rng):
    count = 1
    for d in dims:
        count *= d
    if dtype == "int64":
        descr, data = "<i8", struct.pack("<%dq" % count,
                                         *[rng.randint(0, 4) for _ in range(count)])
    else:
        descr, data = "<f4", struct.pack("<%df" % count,
                                         *[rng.uniform(-2, 2) for _ in range(count)])
    shape = "(%s)" % "".join("%d, " % d for d in dims).rstrip(" ")
    if len(dims) > 1:
        shape = shape.replace(", )", ")")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + data)


def host_ops(report):
    found = []
    for part in report.get("partitions", []):
        if part.get("kind") == "host":
            for op in part["ops"]:
                found.append((op["op"], op.get("reason", "")))
    return found


def compile_model(args, path, graph, rng, int8, workdir, tag):
    report = os.path.join(workdir, tag + ".json")
    cmd = [args.compiler or os.path.join(args.bin, "nnaccel-compile"), path, "-o",
           os.path.join(workdir, tag + ".nnpkg"), "--report-json=" + report]
    if int8:
        calib = os.path.join(workdir, tag + "-calib")
        for s in range(2):
            sample = os.path.join(calib, "test_data_set_%d" % s)
            os.makedirs(sample, exist_ok=True)
            for i, (dtype, dims, _) in enumerate(graph.inputs):
                write_npy(os.path.join(sample, "input_%d.npy" % i), dtype, dims,
                          rng)
        cmd += ["--quantize=int8", "--calibration=" + calib]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr.strip().splitlines()[-1:] or ["failed"]
    with open(report) as f:
        return json.load(f), None


def run_against_host(args, path, graph, report, rng, workdir, tag,
                     flags=()):
    """Runs the card package and a package with every card op forced to the
    host on the same random inputs; returns None when every output agrees
    (nnaccel-run --expect tolerances), else a message."""
    sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "Inputs"))
    from tensorfiles import outputs_to_pb  # noqa: E402
    compiler = args.compiler or os.path.join(args.bin, "nnaccel-compile")
    runner = os.path.join(os.path.dirname(compiler), "nnaccel-run")
    ops = sorted({op["op"] for part in report["partitions"]
                  if part.get("kind") == "card" for op in part["ops"]})
    ref_pkg = os.path.join(workdir, tag + "-host.nnpkg")
    run = subprocess.run([compiler, path, "-o", ref_pkg,
                          "--force-host=" + ",".join(ops)] + list(flags),
                         capture_output=True, text=True)
    if run.returncode != 0:
        return "reference compile failed: " + run.stderr.strip()[-200:]
    inputs = []
    for i, (dtype, dims, name) in enumerate(graph.inputs):
        f = os.path.join(workdir, "%s-in%d.npy" % (tag, i))
        write_npy(f, dtype, dims, rng)
        inputs.append("%s=%s" % (name, f))
    ref_dir = os.path.join(workdir, tag + "-ref")
    run = subprocess.run([runner, ref_pkg, "--input"] + inputs +
                         ["--output", ref_dir], capture_output=True, text=True)
    if run.returncode != 0:
        return "host run failed: " + run.stderr.strip()[-200:]
    outputs_to_pb(ref_dir)
    run = subprocess.run([runner, os.path.join(workdir, tag + ".nnpkg"),
                          "--check-races", "--input"] + inputs +
                         ["--expect", ref_dir], capture_output=True, text=True)
    if run.returncode != 0 or " 0 failed" not in run.stdout:
        lines = [l for l in (run.stdout + run.stderr).splitlines()
                 if "FAIL" in l or "error" in l]
        return "card run differs: " + "; ".join(lines)[-300:]
    return None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--compiler",
                        help="the nnaccel-compile to use (default: BIN/"
                        "nnaccel-compile)")
    parser.add_argument("--count", type=int, default=5,
                        help="models per family")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--family", default=",".join(FAMILIES))
    parser.add_argument("--int8", action="store_true",
                        help="also compile with --quantize=int8 (calibrated "
                        "on random samples)")
    parser.add_argument("--keep", help="keep the models and reports here")
    parser.add_argument("--run", action="store_true",
                        help="also run each package on random inputs on "
                        "the emulator and compare with every op on the host")
    args = parser.parse_args(argv)
    workdir = args.keep or tempfile.mkdtemp(prefix="host-ops-sweep-")
    os.makedirs(workdir, exist_ok=True)
    rng = random.Random(args.seed)
    modes = ["f32"] + (["int8"] if args.int8 else [])
    tried, failed, with_host = Counter(), Counter(), Counter()
    mismatched = Counter()
    reasons = Counter()
    for family in args.family.split(","):
        for i in range(args.count):
            graph = Graph(rng)
            desc = FAMILIES[family](graph, rng)
            tag = "%s-%d" % (family, i)
            path = os.path.join(workdir, tag + ".onnxtxt")
            with open(path, "w") as f:
                f.write(graph.text(family))
            for mode in modes:
                tried[mode] += 1
                report, error = compile_model(args, path, graph, rng,
                                              mode == "int8", workdir,
                                              tag + "-" + mode)
                if report is None:
                    failed[mode] += 1
                    print("%-14s %-5s %s: COMPILE FAILED: %s" %
                          (tag, mode, desc, error[0]))
                    continue
                ops = host_ops(report)
                status = "%d host op(s)" % len(ops) if ops else "all on cards"
                print("%-14s %-5s %s: %d ops, %s" % (tag, mode, desc,
                                                     report["ops"], status))
                if ops:
                    with_host[mode] += 1
                for op, reason in ops:
                    print("    host: %s: %s" % (op, reason))
                    reasons["%s: %s" % (op, reason)] += 1
                if args.run:
                    # int8: the reference is the same quantised model with
                    # its card ops on the host (same calibration).
                    flags = ([] if mode == "f32" else
                             ["--quantize=int8", "--calibration=" +
                              os.path.join(workdir, tag + "-int8-calib")])
                    problem = run_against_host(args, path, graph, report, rng,
                                               workdir, tag + "-" + mode, flags)
                    print("    run: %s" % (problem or "matches the host"))
                    if problem:
                        mismatched[mode] += 1
    print()
    for mode in modes:
        print("%s: %d models, %d with host ops, %d failed to compile%s" %
              (mode, tried[mode], with_host[mode], failed[mode],
               ", %d differ from the host" % mismatched[mode]
               if args.run else ""))
    for reason, count in reasons.most_common():
        print("  %3d x %s" % (count, reason))
    if not args.keep:
        print("(models and reports in %s)" % workdir)
    bad = sum(with_host.values()) + sum(failed.values()) + sum(
        mismatched.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
