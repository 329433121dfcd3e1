#!/usr/bin/env python3
"""A small ResNet-like model with random weights, for bench/quantize.py.

  bench/resnet_model.py DIR [--bin build/bin]

writes DIR/model.onnxtxt (ONNX text, weights as initializers) and
DIR/test_data_set_{0..3}/input_0.pb, output_0.pb: random inputs in
[-1, 1) and the outputs of the f32 model computed by the host kernels
(nnaccel-compile --force-host for every op, nnaccel-run --output), the
reference the quantized runs are compared with.

  X [1, 3, 112, 112]
  stem:   Conv 3x3 s2 3->32 + ReLU                        56 x 56
  stage1: 2 basic blocks, 32 channels                     56 x 56
  stage2: a block with stride 2, 32->64 (1x1 s2 shortcut) 28 x 28
          and a basic block, 64 channels
  head:   GlobalAveragePool, Gemm 64->10

A basic block is Conv 3x3 + ReLU, Conv 3x3, Add of the block's input,
ReLU (batch norms folded into the convs' weights and biases). Weights are
uniform with He's variance (2 / fan_in), biases uniform in [-0.1, 0.1).
Pure Python (no numpy, no onnx package).
"""
import argparse
import math
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "e2e", "Inputs"))
from tensorfiles import outputs_to_pb, random_values, write_pb  # noqa: E402

INPUT = [1, 3, 112, 112]
HOST_OPS = ("accel.conv,accel.add,accel.relu,accel.global_avg_pool,"
            "accel.reshape,accel.fully_connected")


class Builder:
    def __init__(self):
        self.inits = []
        self.nodes = []
        self.seed = 1000
        self.count = 0

    def weight(self, name, dims, scale):
        n = 1
        for d in dims:
            n *= d
        self.seed += 1
        values = ", ".join("%.6g" % v
                           for v in random_values(n, self.seed, scale))
        self.inits.append("float[%s] %s = {%s}" %
                          (", ".join(map(str, dims)), name, values))

    def conv(self, x, cin, cout, k, stride=1, relu=False):
        self.count += 1
        name = "c%d" % self.count
        self.weight("W" + name, [cout, cin, k, k],
                    math.sqrt(6.0 / (cin * k * k)))
        self.weight("B" + name, [cout], 0.1)
        p = k // 2
        out = name + ("r0" if relu else "")
        self.nodes.append(
            "%s = Conv <pads = [%d, %d, %d, %d], strides = [%d, %d]> "
            "(%s, W%s, B%s)" % (out, p, p, p, p, stride, stride, x, name,
                                name))
        if relu:
            self.nodes.append("%s = Relu (%s)" % (name, out))
        return name

    def block(self, x, cin, cout, stride):
        a = self.conv(x, cin, cout, 3, stride, relu=True)
        b = self.conv(a, cout, cout, 3)
        skip = x if stride == 1 and cin == cout else self.conv(
            x, cin, cout, 1, stride)
        self.count += 1
        s = "s%d" % self.count
        self.nodes.append("%s0 = Add (%s, %s)" % (s, b, skip))
        self.nodes.append("%s = Relu (%s0)" % (s, s))
        return s


def model_text():
    b = Builder()
    x = b.conv("X", 3, 32, 3, 2, relu=True)
    x = b.block(x, 32, 32, 1)
    x = b.block(x, 32, 32, 1)
    x = b.block(x, 32, 64, 2)
    x = b.block(x, 64, 64, 1)
    b.nodes.append("pool = GlobalAveragePool (%s)" % x)
    b.nodes.append("flat = Flatten (pool)")
    b.weight("Wfc", [10, 64], math.sqrt(6.0 / 64))
    b.weight("Bfc", [10], 0.1)
    b.nodes.append("Y = Gemm <transB = 1> (flat, Wfc, Bfc)")
    return ("<\n  ir_version: 8,\n  opset_import: [\"\" : 13]\n>\n"
            "resnet_small (float[%s] X) => (float[1, 10] Y)\n<%s>\n{\n  %s\n}\n"
            % (", ".join(map(str, INPUT)), ", ".join(b.inits),
               "\n  ".join(b.nodes)))


def generate(directory, bin_dir):
    """Writes the model and its four test sets into `directory`."""
    os.makedirs(directory, exist_ok=True)
    model = os.path.join(directory, "model.onnxtxt")
    with open(model, "w") as f:
        f.write(model_text())
    count = 1
    for d in INPUT:
        count *= d
    with tempfile.TemporaryDirectory() as tmp:
        package = os.path.join(tmp, "host.nnpkg")
        subprocess.run([os.path.join(bin_dir, "nnaccel-compile"), model,
                        "--force-host=" + HOST_OPS, "-o", package],
                       check=True, capture_output=True)
        for k in range(4):
            data = os.path.join(directory, "test_data_set_%d" % k)
            os.makedirs(data, exist_ok=True)
            values = random_values(count, 7 * k + 3, 1.0)
            write_pb(os.path.join(data, "input_0.pb"), INPUT,
                     struct.pack("<%df" % count, *values))
            subprocess.run([os.path.join(bin_dir, "nnaccel-run"), package,
                            "--input", data, "--output", data],
                           check=True, capture_output=True)
            outputs_to_pb(data)
            os.remove(os.path.join(data, "output_0.npy"))
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--bin", default="build/bin")
    args = parser.parse_args()
    print(generate(args.dir, args.bin))


if __name__ == "__main__":
    main()
