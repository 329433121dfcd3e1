"""Writes the calibration sample directories test/tools/calibration.test
uses, for the model Inputs/calibration.onnxtxt (y = relu(x) + 0.5, x of
shape N x 4), under the directory given as the only argument:

  pb/       two 2x4 samples (test_data_set_0/1/input_0.pb): x in [-3, 4]
  npy/      the same two samples as a.npy and b.npy
  shapes/   the pb samples, a 3x4 sample with max 8 (a re-import at 3x4)
            and a 2x2x2 one (no re-import: the model has rank 2)
  badrank/  only the 2x2x2 sample
  tail/     one 1024x4 sample: 4095 Laplace(0, 1) quantiles (|x| < 8.4)
            and one outlier, 100
  empty/, missing/ (a test_data_set_0 without input_0), extra/ (an
  input_1 too), int/ (an int64 input_0), garbage/ (not a tensor)
"""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "e2e", "Inputs"))
import tensorfiles  # noqa: E402

SAMPLE_0 = [-1, 2, 3, 0.5, -3, 1, 0, 4]
SAMPLE_1 = [-2, 0.25, 1, 1, 1, 1, 1, 1.5]


def f32(values):
    return struct.pack("<%df" % len(values), *values)


def sample_dir(root, name, index):
    path = os.path.join(root, name, "test_data_set_%d" % index)
    os.makedirs(path, exist_ok=True)
    return path


def write_f32(root, name, index, dims, values, file="input_0.pb"):
    path = os.path.join(sample_dir(root, name, index), file)
    tensorfiles.write_pb(path, dims, f32(values))


def main():
    root = sys.argv[1]
    for name in ("pb", "shapes"):
        write_f32(root, name, 0, [2, 4], SAMPLE_0)
        write_f32(root, name, 1, [2, 4], SAMPLE_1)
    os.makedirs(os.path.join(root, "npy"), exist_ok=True)
    tensorfiles.write_npy(os.path.join(root, "npy", "a.npy"), [2, 4], SAMPLE_0)
    tensorfiles.write_npy(os.path.join(root, "npy", "b.npy"), [2, 4], SAMPLE_1)
    write_f32(root, "shapes", 2, [3, 4], [1] * 11 + [8])
    write_f32(root, "shapes", 3, [2, 2, 2], [9] * 8)
    write_f32(root, "badrank", 0, [2, 2, 2], [9] * 8)
    laplace = []
    for k in range(4095):
        u = (k + 0.5) / 4095
        laplace.append(math.log(2 * u) if u < 0.5 else -math.log(2 - 2 * u))
    write_f32(root, "tail", 0, [1024, 4], laplace + [100])
    os.makedirs(os.path.join(root, "empty"), exist_ok=True)
    sample_dir(root, "missing", 0)
    write_f32(root, "extra", 0, [2, 4], SAMPLE_0)
    write_f32(root, "extra", 0, [2, 4], SAMPLE_0, file="input_1.pb")
    # TensorProto: dims 2, 4; data_type 7 (INT64); raw_data.
    with open(os.path.join(sample_dir(root, "int", 0), "input_0.pb"),
              "wb") as f:
        raw = struct.pack("<8q", *range(8))
        f.write(b"\x08\x02\x08\x04\x10\x07\x4a" + bytes([len(raw)]) + raw)
    with open(os.path.join(sample_dir(root, "garbage", 0), "input_0.pb"),
              "wb") as f:
        f.write(b"\xff\xff\xff\xff not a tensor")


if __name__ == "__main__":
    main()
