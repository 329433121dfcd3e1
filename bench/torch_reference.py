#!/usr/bin/python3
"""ONNX -> PyTorch converter: the CPU yardstick of bench/models.py.

Builds a torch.fx.GraphModule from an ONNX model: generated Python code
that calls torch functional ops one after the other, as an eager nn.Module
written by hand would, with the initializers converted once into buffers and
recurrent layers into torch.nn.LSTM / torch.nn.GRU submodules. Timing its
forward therefore measures what PyTorch on the CPU costs for the model,
per-op dispatch overhead included, and not an interpreter walking the ONNX
graph.

The graph is specialised to the shapes of one concrete input (as eager
PyTorch is): the converter runs every node once on that input, so Shape
and everything computed only from shapes and constants (the shape
arithmetic exporters emit around Reshape, Expand and Slice) folds into
constants, and Reshape/Flatten/Expand get static target shapes. The
module is only valid for inputs of those shapes. An ONNX op the converter
does not know raises Unsupported naming the op.

  bench/torch_reference.py MODEL_DIR [--test-set 0] [--repeat 20]
                           [--threads 2]

checks the converted model against MODEL_DIR/test_data_set_K/output_*.pb
(cosine, max abs error) and prints the median forward time;

  bench/torch_reference.py --node-tests [/usr/share/libonnx-testdata/data]

checks the converter on the ONNX backend tests of libonnx-testdata. Needs
Debian's python3-torch and python3-onnx (run with /usr/bin/python3).
"""
import argparse
import glob
import keyword
import os
import statistics
import sys
import time

import numpy as np
import onnx
import onnx.parser as onnx_parser
import torch
import torch.fx
import torch.nn.functional as F
from onnx import helper, numpy_helper

# A converted output must match the ONNX reference at least this well for
# its time to mean anything; bench/models.py refuses to time it otherwise.
MIN_COSINE = 0.9999


class Unsupported(Exception):
    """An ONNX construct the converter cannot map to PyTorch."""


def load_model(path):
    """The ONNX model at path: binary protobuf, or the ONNX text syntax
    (.onnxtxt) the test inputs use."""
    if path.endswith(".onnxtxt"):
        with open(path) as f:
            return onnx_parser.parse_model(f.read())
    return onnx.load(path)


def graph_inputs(model):
    """Names of the graph inputs that are not initializers, in order."""
    inits = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def load_test_set(model, directory):
    """(inputs, outputs) of an ONNX backend-test directory as numpy arrays;
    input_K.pb feeds the K-th non-initializer graph input."""
    def read(pattern):
        arrays = []
        for path in sorted(glob.glob(os.path.join(directory, pattern)),
                           key=lambda p: int(p.rsplit("_", 1)[1][:-3])):
            tensor = onnx.TensorProto()
            with open(path, "rb") as f:
                tensor.ParseFromString(f.read())
            arrays.append(numpy_helper.to_array(tensor))
        return arrays
    inputs = read("input_*.pb")
    names = graph_inputs(model)
    if len(inputs) != len(names):
        raise ValueError("%s has %d inputs, the model %d" %
                         (directory, len(inputs), len(names)))
    return inputs, read("output_*.pb")


def to_torch(array):
    # np.array copies: numpy_helper may return read-only views.
    return torch.from_numpy(np.array(array))


ONNX_DTYPES = {
    onnx.TensorProto.FLOAT: torch.float32,
    onnx.TensorProto.DOUBLE: torch.float64,
    onnx.TensorProto.FLOAT16: torch.float16,
    onnx.TensorProto.BFLOAT16: torch.bfloat16,
    onnx.TensorProto.INT8: torch.int8,
    onnx.TensorProto.UINT8: torch.uint8,
    onnx.TensorProto.INT16: torch.int16,
    onnx.TensorProto.INT32: torch.int32,
    onnx.TensorProto.INT64: torch.int64,
    onnx.TensorProto.BOOL: torch.bool,
}


class _Context:
    """What an op handler sees of the conversion.

    Every handler runs twice per node: once on concrete tensors (the trace
    input; this gives every value's shape and folds constant subgraphs),
    and, unless all of the node's inputs were constants, once more on
    torch.fx proxies for the dynamic inputs, which records the same torch
    calls into the generated graph. Handlers are therefore written as
    plain PyTorch code, and use the context for what differs: operands
    (constant tensors become buffers when recorded), constant values (for
    shape-like inputs) and static shapes.
    """

    def __init__(self, converter, node, symbolic):
        self.converter = converter
        self.node = node
        self.symbolic = symbolic
        self.opset = converter.opset

    def is_const(self, x):
        return not isinstance(x, torch.fx.Proxy)

    def const(self, x, what="input"):
        """The value of a constant input (shape, axes, ...)."""
        if x is None or not self.is_const(x):
            raise Unsupported("%s %s is data-dependent" %
                              (self.node.op_type, what))
        return x

    def ints(self, x, what="input"):
        return [int(v) for v in self.const(x, what).reshape(-1).tolist()]

    def shape(self, x):
        """Static shape of a value (from the trace input)."""
        if self.is_const(x):
            return list(x.shape)
        return list(self.converter.concrete[x.node].shape)

    def dtype(self, x):
        if self.is_const(x):
            return x.dtype
        return self.converter.concrete[x.node].dtype

    def t(self, x):
        """A tensor operand: constants become buffers of the module."""
        if not self.symbolic or not self.is_const(x):
            return x
        return self.converter.buffer(x)

    def operand(self, x):
        """An elementwise operand: a 0-d float constant becomes a Python
        scalar, as hand-written PyTorch code would write it."""
        if self.symbolic and self.is_const(x) and x.dim() == 0 and \
                x.dtype.is_floating_point:
            return float(x)
        return self.t(x)

    def module(self, module, *args):
        """Call a submodule (converted once per node)."""
        if not self.symbolic:
            return module(*args)
        return self.converter.call_module(self.node.name or
                                          self.node.output[0], module, args)


# ---------------------------------------------------------------------------
# Op handlers: handler(ctx, attrs, *inputs) -> output or tuple of outputs.
# Absent optional inputs are None.

HANDLERS = {}


def op(*names):
    def register(fn):
        for name in names:
            HANDLERS[name] = fn
        return fn
    return register


def _unary(fn):
    return lambda ctx, attrs, x: fn(x)


for _name, _fn in {"Relu": F.relu, "Sigmoid": torch.sigmoid,
                   "Tanh": torch.tanh, "Erf": torch.erf, "Sqrt": torch.sqrt,
                   "Exp": torch.exp, "Log": torch.log, "Neg": torch.neg,
                   "Abs": torch.abs, "Reciprocal": torch.reciprocal,
                   "Floor": torch.floor, "Ceil": torch.ceil,
                   "Not": torch.logical_not, "Sin": torch.sin,
                   "Cos": torch.cos, "Softplus": F.softplus,
                   "HardSwish": F.hardswish}.items():
    HANDLERS[_name] = _unary(_fn)


def _binary(fn):
    def handler(ctx, attrs, a, b):
        return fn(ctx.operand(a), ctx.operand(b))
    return handler


for _name, _fn in {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul,
                   "Pow": torch.pow, "Equal": torch.eq, "Less": torch.lt,
                   "Greater": torch.gt, "LessOrEqual": torch.le,
                   "GreaterOrEqual": torch.ge, "And": torch.logical_and,
                   "Or": torch.logical_or}.items():
    HANDLERS[_name] = _binary(_fn)


@op("Div")
def _div(ctx, attrs, a, b):
    # ONNX integer division truncates; torch.div would return floats.
    if ctx.dtype(a).is_floating_point:
        return torch.div(ctx.operand(a), ctx.operand(b))
    return torch.div(ctx.t(a), ctx.t(b), rounding_mode="trunc")


@op("Min", "Max", "Sum", "Mean")
def _variadic(ctx, attrs, *xs):
    fn = {"Min": torch.minimum, "Max": torch.maximum,
          "Sum": torch.add, "Mean": torch.add}[ctx.node.op_type]
    out = ctx.t(xs[0])
    for x in xs[1:]:
        out = fn(out, ctx.t(x))
    if ctx.node.op_type == "Mean":
        out = torch.div(out, float(len(xs)))
    return out


@op("Identity")
def _identity(ctx, attrs, x):
    return x


@op("Dropout")
def _dropout(ctx, attrs, x, ratio=None, training_mode=None):
    if training_mode is not None and bool(ctx.const(training_mode,
                                                    "training_mode")):
        raise Unsupported("Dropout in training mode")
    if len(ctx.node.output) > 1 and ctx.node.output[1]:
        # Inference keeps every element: the mask is all true.
        return x, torch.ones(ctx.shape(x), dtype=torch.bool)
    return x


@op("LeakyRelu")
def _leaky_relu(ctx, attrs, x):
    return F.leaky_relu(x, attrs.get("alpha", 0.01))


@op("Elu")
def _elu(ctx, attrs, x):
    return F.elu(x, attrs.get("alpha", 1.0))


@op("HardSigmoid")
def _hard_sigmoid(ctx, attrs, x):
    return torch.clamp(x * attrs.get("alpha", 0.2) + attrs.get("beta", 0.5),
                       0.0, 1.0)


@op("Clip")
def _clip(ctx, attrs, x, lo=None, hi=None):
    if ctx.opset < 11:
        lo, hi = attrs.get("min"), attrs.get("max")
    else:
        lo = None if lo is None else float(ctx.const(lo, "min"))
        hi = None if hi is None else float(ctx.const(hi, "max"))
    if lo is None and hi is None:
        return x
    if lo == 0.0 and hi == 6.0:
        return F.relu6(x)
    return torch.clamp(x, lo, hi)


@op("Where")
def _where(ctx, attrs, cond, a, b):
    return torch.where(ctx.t(cond), ctx.t(a), ctx.t(b))


@op("Cast")
def _cast(ctx, attrs, x):
    dtype = ONNX_DTYPES.get(attrs["to"])
    if dtype is None:
        raise Unsupported("Cast to ONNX type %d" % attrs["to"])
    return x.to(dtype)


@op("Constant")
def _constant(ctx, attrs):
    if "value" in attrs:
        return to_torch(numpy_helper.to_array(attrs["value"]))
    for key, dtype in (("value_float", torch.float32),
                       ("value_floats", torch.float32),
                       ("value_int", torch.int64),
                       ("value_ints", torch.int64)):
        if key in attrs:
            return torch.tensor(attrs[key], dtype=dtype)
    raise Unsupported("Constant without a value/value_float(s)/value_int(s)")


@op("ConstantOfShape")
def _constant_of_shape(ctx, attrs, shape):
    value = attrs.get("value")
    value = (to_torch(numpy_helper.to_array(value)) if value is not None
             else torch.zeros(1, dtype=torch.float32))
    return torch.full(ctx.ints(shape, "shape"), value.reshape(-1)[0].item(),
                      dtype=value.dtype)


@op("Shape")
def _shape(ctx, attrs, x):
    shape = ctx.shape(x)
    return torch.tensor(shape[attrs.get("start", 0):attrs.get("end")],
                        dtype=torch.int64)


@op("Size")
def _size(ctx, attrs, x):
    return torch.tensor(int(np.prod(ctx.shape(x))), dtype=torch.int64)


def _axis(axis, rank):
    return axis + rank if axis < 0 else axis


@op("Gemm")
def _gemm(ctx, attrs, a, b, c=None):
    alpha, beta = attrs.get("alpha", 1.0), attrs.get("beta", 1.0)
    if attrs.get("transA", 0):
        a = ctx.t(a).t()
    if ctx.is_const(b):
        # A constant B becomes an nn.Linear-style [N, K] weight once, at
        # conversion, instead of a transpose in every forward.
        weight = b if attrs.get("transB", 0) else b.t().contiguous()
        if alpha != 1.0:
            weight = weight * alpha
        bias = None
        if c is not None and ctx.is_const(c) and c.dim() <= 1:
            bias = c if beta == 1.0 else c * beta
            c = None
        out = F.linear(ctx.t(a), ctx.t(weight),
                       None if bias is None else ctx.t(bias))
    else:
        b = ctx.t(b)
        out = torch.matmul(ctx.t(a), b.t() if attrs.get("transB", 0) else b)
        if alpha != 1.0:
            out = out * alpha
    if c is not None:
        out = out + (ctx.t(c) if beta == 1.0 else ctx.t(c) * beta)
    return out


@op("MatMul")
def _matmul(ctx, attrs, a, b):
    return torch.matmul(ctx.t(a), ctx.t(b))


@op("Conv")
def _conv(ctx, attrs, x, w, b=None):
    rank = len(ctx.shape(x)) - 2
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}.get(rank)
    if conv is None:
        raise Unsupported("Conv with %d spatial dimensions" % rank)
    strides = attrs.get("strides", [1] * rank)
    dilations = attrs.get("dilations", [1] * rank)
    kernel = ctx.shape(w)[2:]
    pads = _pads(ctx, attrs, ctx.shape(x)[2:], kernel, strides, dilations)
    begin, end = pads[:rank], pads[rank:]
    if begin != end:
        # Asymmetric padding: torch convs pad symmetrically only.
        x = F.pad(x, [p for i in reversed(range(rank))
                      for p in (begin[i], end[i])])
        begin = [0] * rank
    return conv(x, ctx.t(w), None if b is None else ctx.t(b), strides,
                begin, dilations, attrs.get("group", 1))


def _pads(ctx, attrs, spatial, kernel, strides, dilations):
    """Explicit [begin..., end...] pads, resolving auto_pad on the static
    input shape."""
    rank = len(spatial)
    auto_pad = attrs.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad in ("NOTSET", ""):
        return list(attrs.get("pads", [0] * (2 * rank)))
    if auto_pad == "VALID":
        return [0] * (2 * rank)
    begin, end = [], []
    for i in range(rank):
        out = -(-spatial[i] // strides[i])
        total = max(0, (out - 1) * strides[i] +
                    (kernel[i] - 1) * dilations[i] + 1 - spatial[i])
        small, large = total // 2, total - total // 2
        begin.append(small if auto_pad == "SAME_UPPER" else large)
        end.append(large if auto_pad == "SAME_UPPER" else small)
    return begin + end


@op("MaxPool", "AveragePool")
def _pool(ctx, attrs, x):
    rank = len(ctx.shape(x)) - 2
    kernel = attrs["kernel_shape"]
    strides = attrs.get("strides", [1] * rank)
    dilations = attrs.get("dilations", [1] * rank)
    pads = _pads(ctx, attrs, ctx.shape(x)[2:], kernel, strides, dilations)
    ceil = bool(attrs.get("ceil_mode", 0))
    if ctx.node.op_type == "MaxPool":
        if len(ctx.node.output) > 1 and ctx.node.output[1]:
            raise Unsupported("MaxPool with an Indices output")
        if pads[:rank] != pads[rank:] or \
                any(p > k // 2 for p, k in zip(pads, kernel + kernel)):
            # torch pools pad symmetrically, by at most half the kernel:
            # pad with -inf explicitly instead.
            x = F.pad(x, [p for i in reversed(range(rank))
                          for p in (pads[i], pads[i + rank])],
                      value=float("-inf"))
            pads = [0] * (2 * rank)
        pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[rank]
        return pool(x, kernel, strides, pads[:rank], dilations, ceil)
    if dilations != [1] * rank:
        raise Unsupported("AveragePool with dilations")
    if pads[:rank] != pads[rank:] or \
            any(p > k // 2 for p, k in zip(pads, kernel + kernel)):
        if not attrs.get("count_include_pad", 0):
            raise Unsupported("AveragePool with asymmetric or large pads "
                              "excluded from the count")
        x = F.pad(x, [p for i in reversed(range(rank))
                      for p in (pads[i], pads[i + rank])])
        pads = [0] * (2 * rank)
    pool = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[rank]
    return pool(x, kernel, strides, pads[:rank], ceil,
                bool(attrs.get("count_include_pad", 0)))


@op("GlobalAveragePool", "GlobalMaxPool")
def _global_pool(ctx, attrs, x):
    rank = len(ctx.shape(x))
    if ctx.node.op_type == "GlobalAveragePool":
        if rank == 4:
            return F.adaptive_avg_pool2d(x, 1)
        return torch.mean(x, list(range(2, rank)), keepdim=True)
    return torch.amax(x, list(range(2, rank)), keepdim=True)


@op("BatchNormalization")
def _batch_norm(ctx, attrs, x, scale, bias, mean, var):
    if attrs.get("training_mode", 0):
        raise Unsupported("BatchNormalization in training mode")
    return F.batch_norm(x, ctx.t(mean), ctx.t(var), ctx.t(scale), ctx.t(bias),
                        False, 0.0, attrs.get("epsilon", 1e-5))


@op("LayerNormalization")
def _layer_norm(ctx, attrs, x, scale, bias=None):
    shape = ctx.shape(x)
    axis = _axis(attrs.get("axis", -1), len(shape))
    eps = attrs.get("epsilon", 1e-5)
    if len([o for o in ctx.node.output if o]) == 1:
        return F.layer_norm(x, shape[axis:], ctx.t(scale),
                            None if bias is None else ctx.t(bias), eps)
    # The Mean and InvStdDev outputs too: spelt out.
    dims = list(range(axis, len(shape)))
    mean = torch.mean(x, dims, keepdim=True)
    centred = x - mean
    inv_std = torch.rsqrt(torch.mean(centred * centred, dims, keepdim=True) +
                          eps)
    y = centred * inv_std * ctx.t(scale)
    if bias is not None:
        y = y + ctx.t(bias)
    return y, mean, inv_std


@op("Softmax", "LogSoftmax")
def _softmax(ctx, attrs, x):
    fn = F.softmax if ctx.node.op_type == "Softmax" else F.log_softmax
    shape = ctx.shape(x)
    if ctx.opset >= 13:
        return fn(x, attrs.get("axis", -1))
    # Before opset 13 the input is coerced to 2-D at axis.
    axis = _axis(attrs.get("axis", 1), len(shape))
    flat = x.reshape(int(np.prod(shape[:axis])), -1)
    return fn(flat, -1).reshape(shape)


def _reduce_axes(ctx, attrs, axes, rank):
    if axes is not None:
        axes = ctx.ints(axes, "axes")
    else:
        axes = attrs.get("axes")
    if not axes:
        if attrs.get("noop_with_empty_axes", 0):
            return None
        axes = list(range(rank))
    return [_axis(a, rank) for a in axes]


@op("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
    "ReduceL2", "ReduceSumSquare")
def _reduce(ctx, attrs, x, axes=None):
    rank = len(ctx.shape(x))
    if ctx.node.op_type not in ("ReduceSum",) and ctx.opset < 18:
        axes = None  # axes is an attribute before opset 18 (13 for Sum)
    dims = _reduce_axes(ctx, attrs, axes, rank)
    if dims is None:
        return x
    keep = bool(attrs.get("keepdims", 1))
    kind = ctx.node.op_type
    if kind == "ReduceSum":
        return torch.sum(x, dims, keepdim=keep)
    if kind == "ReduceMean":
        return torch.mean(x, dims, keepdim=keep)
    if kind == "ReduceMax":
        return torch.amax(x, dims, keepdim=keep)
    if kind == "ReduceMin":
        return torch.amin(x, dims, keepdim=keep)
    if kind == "ReduceSumSquare":
        return torch.sum(x * x, dims, keepdim=keep)
    if kind == "ReduceL2":
        return torch.sqrt(torch.sum(x * x, dims, keepdim=keep))
    out = x
    for d in sorted(dims, reverse=True):
        out = torch.prod(out, d, keepdim=keep)
    return out


@op("ArgMax", "ArgMin")
def _arg(ctx, attrs, x):
    if attrs.get("select_last_index", 0):
        raise Unsupported("%s with select_last_index" % ctx.node.op_type)
    fn = torch.argmax if ctx.node.op_type == "ArgMax" else torch.argmin
    return fn(x, attrs.get("axis", 0), keepdim=bool(attrs.get("keepdims", 1)))


@op("Flatten")
def _flatten(ctx, attrs, x):
    shape = ctx.shape(x)
    axis = _axis(attrs.get("axis", 1), len(shape))
    if axis == 1 and len(shape) >= 2:
        return torch.flatten(x, 1)
    return x.reshape(int(np.prod(shape[:axis])), int(np.prod(shape[axis:])))


@op("Reshape")
def _reshape(ctx, attrs, x, shape):
    target = ctx.ints(shape, "shape")
    if not attrs.get("allowzero", 0):
        # 0 copies the input's dimension at that index.
        dims = ctx.shape(x)
        target = [dims[i] if d == 0 else d for i, d in enumerate(target)]
    return x.reshape(target)



@op("Unsqueeze")
def _unsqueeze(ctx, attrs, x, axes=None):
    axes = ctx.ints(axes, "axes") if axes is not None else attrs["axes"]
    shape = ctx.shape(x)
    rank = len(shape) + len(axes)
    axes = sorted(_axis(a, rank) for a in axes)
    for a in axes:
        shape.insert(a, 1)
    if len(axes) == 1:
        return torch.unsqueeze(x, axes[0])
    return x.reshape(shape)


@op("Squeeze")
def _squeeze(ctx, attrs, x, axes=None):
    shape = ctx.shape(x)
    if axes is not None:
        axes = ctx.ints(axes, "axes")
    else:
        axes = attrs.get("axes")
    if axes is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    axes = {_axis(a, len(shape)) for a in axes}
    if len(axes) == 1:
        return torch.squeeze(x, axes.pop())
    return x.reshape([d for i, d in enumerate(shape) if i not in axes])


@op("Expand")
def _expand(ctx, attrs, x, shape):
    # Bidirectional broadcast of the input's shape and the given one.
    target = ctx.ints(shape, "shape")
    dims = ctx.shape(x)
    rank = max(len(target), len(dims))
    target = [1] * (rank - len(target)) + target
    dims = [1] * (rank - len(dims)) + dims
    return ctx.t(x).expand([max(a, b) for a, b in zip(dims, target)])


@op("Transpose")
def _transpose(ctx, attrs, x):
    perm = attrs.get("perm", list(reversed(range(len(ctx.shape(x))))))
    return x.permute(perm)


@op("Concat")
def _concat(ctx, attrs, *xs):
    return torch.cat([ctx.t(x) for x in xs], attrs["axis"])


@op("Split")
def _split(ctx, attrs, x, split=None):
    shape = ctx.shape(x)
    axis = _axis(attrs.get("axis", 0), len(shape))
    sizes = ctx.ints(split, "split") if split is not None else \
        attrs.get("split")
    if not sizes:
        n = len(ctx.node.output)
        sizes = [-(-shape[axis] // n)] * n
        sizes[-1] = shape[axis] - sum(sizes[:-1])
    parts = torch.split(x, sizes, axis)
    return tuple(parts[i] for i in range(len(sizes)))


@op("Gather")
def _gather(ctx, attrs, data, indices):
    shape = ctx.shape(data)
    axis = _axis(attrs.get("axis", 0), len(shape))
    if ctx.is_const(indices):
        # Negative indices count from the end; normalise them once.
        indices = torch.where(indices < 0, indices + shape[axis], indices)
        if indices.dim() == 0:
            return torch.select(ctx.t(data), axis, int(indices))
    if axis == 0 and len(shape) == 2 and ctx.is_const(data):
        # An embedding table looked up by data-dependent ids.
        return F.embedding(ctx.t(indices), ctx.t(data))
    index_shape = ctx.shape(indices)
    flat = torch.index_select(ctx.t(data), axis, ctx.t(indices).reshape(-1))
    return flat.reshape(shape[:axis] + index_shape + shape[axis + 1:])


@op("Slice")
def _slice(ctx, attrs, x, starts=None, ends=None, axes=None, steps=None):
    shape = ctx.shape(x)
    if ctx.opset < 10:
        starts, ends = attrs["starts"], attrs["ends"]
        axes, steps = attrs.get("axes"), None
    else:
        starts, ends = ctx.ints(starts, "starts"), ctx.ints(ends, "ends")
        axes = None if axes is None else ctx.ints(axes, "axes")
        steps = None if steps is None else ctx.ints(steps, "steps")
    axes = [_axis(a, len(shape)) for a in (axes or range(len(starts)))]
    steps = steps or [1] * len(starts)
    index = [slice(None)] * len(shape)
    x = ctx.t(x)
    for axis, start, end, step in zip(axes, starts, ends, steps):
        dim = shape[axis]
        start = start + dim if start < 0 else start
        end = end + dim if end < 0 else end
        if step > 0:
            index[axis] = slice(min(max(start, 0), dim),
                                min(max(end, 0), dim), step)
        else:
            # torch has no negative-step slicing: flip, then slice forward.
            start = min(max(start, 0), dim - 1)
            end = min(max(end, -1), dim - 1)
            x = torch.flip(x, [axis])
            index[axis] = slice(dim - 1 - start, dim - 1 - end, -step)
    return x[tuple(index)]


@op("Pad")
def _pad(ctx, attrs, x, pads=None, value=None, axes=None):
    mode = attrs.get("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if ctx.opset < 11:
        pads, value = attrs["pads"], attrs.get("value", 0.0)
    else:
        pads = ctx.ints(pads, "pads")
        value = 0.0 if value is None else float(ctx.const(value, "value"))
    if axes is not None:
        raise Unsupported("Pad with axes")
    rank = len(ctx.shape(x))
    torch_pads = [p for i in reversed(range(rank))
                  for p in (pads[i], pads[i + rank])]
    if mode == "constant":
        return F.pad(x, torch_pads, value=value)
    if mode in ("reflect", "edge"):
        return F.pad(x, torch_pads[:2 * (rank - 2)],
                     mode="replicate" if mode == "edge" else mode)
    raise Unsupported("Pad mode %s" % mode)


def _rnn_reorder(weight, gates, order):
    """Reorders the gate blocks along dim 0 (ONNX order -> torch's)."""
    blocks = weight.reshape(gates, -1, *weight.shape[1:])
    return blocks[order].reshape(weight.shape)


@op("LSTM", "GRU")
def _rnn(ctx, attrs, x, w, r, b=None, sequence_lens=None, initial_h=None,
         initial_c=None, p=None):
    kind = ctx.node.op_type
    hidden = attrs["hidden_size"]
    direction = attrs.get("direction", b"forward")
    direction = direction.decode() if isinstance(direction, bytes) \
        else direction
    if direction == "reverse":
        raise Unsupported("%s direction=reverse" % kind)
    if "clip" in attrs or attrs.get("input_forget", 0) or p is not None:
        raise Unsupported("%s with clip, input_forget or peepholes" % kind)
    default_acts = {"LSTM": ["Sigmoid", "Tanh", "Tanh"],
                    "GRU": ["Sigmoid", "Tanh"]}[kind]
    acts = [a.decode() if isinstance(a, bytes) else a
            for a in attrs.get("activations", [])]
    if acts and acts != default_acts * (2 if direction == "bidirectional"
                                        else 1):
        raise Unsupported("%s activations %s" % (kind, acts))
    if kind == "GRU" and not attrs.get("linear_before_reset", 0):
        # torch.nn.GRU applies the reset gate after the recurrent matmul.
        raise Unsupported("GRU with linear_before_reset=0")
    batch_first = bool(attrs.get("layout", 0))
    x_shape = ctx.shape(x)
    seq = x_shape[1] if batch_first else x_shape[0]
    if sequence_lens is not None:
        lens = ctx.ints(sequence_lens, "sequence_lens")
        if any(n != seq for n in lens):
            raise Unsupported("%s with ragged sequence_lens" % kind)

    # ONNX gate order (LSTM i,o,f,c; GRU z,r,h) to torch's (i,f,g,o;
    # r,z,n). Converted once per node; the concrete and the recorded pass
    # share the module.
    module = ctx.converter.modules.get(ctx.node.output[0])
    if module is None:
        gates, order = (4, [0, 2, 3, 1]) if kind == "LSTM" else (3, [1, 0, 2])
        w, r = ctx.const(w, "W"), ctx.const(r, "R")
        dirs = w.shape[0]
        cls = torch.nn.LSTM if kind == "LSTM" else torch.nn.GRU
        module = cls(x_shape[2], hidden, batch_first=batch_first,
                     bidirectional=dirs == 2)
        b = ctx.const(b, "B") if b is not None else \
            torch.zeros(dirs, 2 * gates * hidden)
        with torch.no_grad():
            for d in range(dirs):
                suffix = "_l0" + ("_reverse" if d else "")
                for name, value in (
                        ("weight_ih", w[d]), ("weight_hh", r[d]),
                        ("bias_ih", b[d][:gates * hidden]),
                        ("bias_hh", b[d][gates * hidden:])):
                    getattr(module, name + suffix).copy_(
                        _rnn_reorder(value, gates, order))
        module.requires_grad_(False)
        module.eval()
        ctx.converter.modules[ctx.node.output[0]] = module

    def initial(state):
        # All-zero constant states are torch's default: pass none.
        if state is None or (ctx.is_const(state) and not state.any()):
            return None
        return ctx.t(state).transpose(0, 1) if batch_first else ctx.t(state)
    h0, c0 = initial(initial_h), initial(initial_c)
    if kind == "LSTM":
        if (h0 is None) != (c0 is None):
            shape = ctx.shape(initial_h if h0 is None else initial_c)
            zero = torch.zeros(shape)
            h0 = ctx.t(zero) if h0 is None else h0
            c0 = ctx.t(zero) if c0 is None else c0
        state = None if h0 is None else (h0, c0)
    else:
        state = h0
    result = ctx.module(module, x) if state is None else \
        ctx.module(module, x, state)
    y = result[0]
    dirs = 2 if direction == "bidirectional" else 1
    batch = x_shape[0] if batch_first else x_shape[1]
    # torch: [seq, batch, dirs*H]; ONNX Y: [seq, dirs, batch, H] (layout 0)
    # or [batch, seq, dirs, H] (layout 1).
    if batch_first:
        y = y.reshape(batch, seq, dirs, hidden)
    elif dirs == 1:
        y = torch.unsqueeze(y, 1)
    else:
        y = y.reshape(seq, batch, dirs, hidden).permute(0, 2, 1, 3)
    states = [result[1][0], result[1][1]] if kind == "LSTM" else [result[1]]
    if batch_first:
        states = [s.transpose(0, 1) for s in states]
    return tuple([y] + states)


# ---------------------------------------------------------------------------


def _identifier(name):
    """An ONNX value name as a Python identifier (names like "0" are
    common)."""
    name = "".join(c if c.isalnum() else "_" for c in name)
    if not name or name[0].isdigit() or keyword.iskeyword(name):
        name = "v_" + name
    return name


class Converter:
    """Converts one ONNX model for one set of concrete inputs."""

    def __init__(self, model):
        self.model = model
        self.opset = next((o.version for o in model.opset_import
                           if o.domain in ("", "ai.onnx")), 13)
        self.root = torch.nn.Module()
        self.graph = torch.fx.Graph()
        self.tracer = torch.fx.proxy.GraphAppendingTracer(self.graph)
        self.concrete = {}   # fx node -> its value on the trace input
        self.buffers = {}    # id(constant tensor) -> (tensor, get_attr proxy)
        self.modules = {}    # first output name -> converted RNN module

    def buffer(self, tensor):
        entry = self.buffers.get(id(tensor))
        if entry is None:
            name = "c%d" % len(self.buffers)
            self.root.register_buffer(name, tensor.contiguous())
            proxy = torch.fx.Proxy(self.graph.get_attr(name), self.tracer)
            self.concrete[proxy.node] = tensor
            # Keeping the tensor alive keeps its id unique.
            entry = self.buffers[id(tensor)] = (tensor, proxy)
        return entry[1]

    def call_module(self, name, module, args):
        name = "m_" + _identifier(name)
        self.root.add_module(name, module)
        node = self.graph.call_module(
            name, tuple(a.node if isinstance(a, torch.fx.Proxy) else
                        tuple(x.node for x in a) if isinstance(a, tuple)
                        else a for a in args))
        return torch.fx.Proxy(node, self.tracer)

    def convert(self, inputs):
        """A GraphModule computing the model's outputs (a tuple) from its
        inputs (torch tensors of the trace shapes)."""
        graph = self.model.graph
        concrete = {}   # ONNX value name -> tensor on the trace input
        symbolic = {}   # ONNX value name -> fx proxy (dynamic values only)
        for init in graph.initializer:
            concrete[init.name] = to_torch(numpy_helper.to_array(init))
        for name, value in zip(graph_inputs(self.model), inputs):
            node = self.graph.placeholder(_identifier(name))
            proxy = torch.fx.Proxy(node, self.tracer)
            self.concrete[node] = value
            concrete[name] = value
            symbolic[name] = proxy
        for node in graph.node:
            handler = HANDLERS.get(node.op_type)
            if handler is None or node.domain not in ("", "ai.onnx"):
                raise Unsupported("ONNX op %s%s%s" % (
                    node.domain + "." if node.domain else "", node.op_type,
                    " (node %s)" % node.name if node.name else ""))
            attrs = {a.name: helper.get_attribute_value(a)
                     for a in node.attribute}
            args = [concrete[n] if n else None for n in node.input]
            ctx = _Context(self, node, symbolic=False)
            outs = handler(ctx, attrs, *args)
            outs = outs if isinstance(outs, tuple) else (outs,)
            for name, value in zip(node.output, outs):
                if name:
                    concrete[name] = value
            # Shape only looks at the (static) shape; a node none of whose
            # inputs is dynamic is folded to its value above.
            dynamic = [n for n in node.input if n in symbolic]
            if not dynamic or node.op_type in ("Shape", "Size"):
                continue
            ctx = _Context(self, node, symbolic=True)
            args = [symbolic.get(n, concrete.get(n)) if n else None
                    for n in node.input]
            outs = handler(ctx, attrs, *args)
            outs = outs if isinstance(outs, tuple) else (outs,)
            for name, value in zip(node.output, outs):
                if not name:
                    continue
                if isinstance(value, torch.fx.Proxy):
                    self.concrete[value.node] = concrete[name]
                    symbolic[name] = value
        results = []
        for out in graph.output:
            value = symbolic.get(out.name)
            results.append(value.node if value is not None else
                           self.buffer(concrete[out.name]).node)
        self.graph.output(tuple(results))
        module = torch.fx.GraphModule(self.root, self.graph)
        # Dead code: the ONNX graph's unused outputs (an LSTM's states).
        module.graph.eliminate_dead_code()
        module.recompile()
        module.eval()
        return module


def convert(model, inputs):
    """The model as a torch.fx.GraphModule specialised to the shapes of
    inputs (torch tensors, in graph-input order); its forward returns a
    tuple of the graph's outputs."""
    with torch.no_grad():
        return Converter(model).convert(inputs)


def compare(actual, expected):
    """(cosine, max abs error) of two arrays, flattened, in float64."""
    a = np.asarray(actual, dtype=np.float64).reshape(-1)
    e = np.asarray(expected, dtype=np.float64).reshape(-1)
    if a.shape != e.shape:
        return float("nan"), float("inf")
    norm = np.linalg.norm(a) * np.linalg.norm(e)
    cosine = float(a @ e / norm) if norm else (1.0 if not a.any() and
                                               not e.any() else 0.0)
    return cosine, float(np.max(np.abs(a - e))) if a.size else 0.0


def blas_library():
    """Path of the BLAS library torch uses for Linear and MatMul.

    Debian's torch is built against the generic libblas.so.3, which is the
    netlib reference implementation unless an optimised one (OpenBLAS:
    libopenblas0-openmp) is installed and selected by update-alternatives
    or found first on LD_LIBRARY_PATH; the reference one is 4-15x slower
    on the transformer and the LSTM, so the bench says which."""
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "/libblas.so" in path or "/libopenblas" in path:
                return os.path.realpath(path)
    return "unknown"


def _set_blas_threads(threads):
    """torch.set_num_threads does not size OpenBLAS's threads when torch
    was built against the generic BLAS: do it here too."""
    import ctypes
    try:
        ctypes.CDLL(blas_library()).openblas_set_num_threads(threads)
    except (OSError, AttributeError):
        pass  # the reference BLAS is single-threaded


def time_forward(module, inputs, threads, repeat, warmup=5):
    """Median wall time (seconds) of module(*inputs) over repeat runs on
    threads intra-op threads (and BLAS threads), after warmup runs."""
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    _set_blas_threads(threads)
    try:
        with torch.inference_mode():
            for _ in range(warmup):
                module(*inputs)
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                module(*inputs)
                times.append(time.perf_counter() - start)
    finally:
        torch.set_num_threads(previous)
        _set_blas_threads(previous)
    return statistics.median(times)


class Reference:
    """A model converted on one test set, checked against its outputs."""

    def __init__(self, model_path, test_dir):
        model = load_model(model_path)
        arrays, expected = load_test_set(model, test_dir)
        self.inputs = [to_torch(a) for a in arrays]
        self.module = convert(model, self.inputs)
        with torch.inference_mode():
            outputs = self.module(*self.inputs)
        # Worst output decides; every expected output must be produced.
        self.cosine, self.max_error = 1.0, 0.0
        if len(outputs) < len(expected) or not expected:
            self.cosine = float("nan")
        for actual, want in zip(outputs, expected):
            cosine, error = compare(actual.float().numpy(), want)
            self.cosine = min(self.cosine, cosine) if cosine == cosine \
                else cosine
            self.max_error = max(self.max_error, error)

    @property
    def matches(self):
        return self.cosine >= MIN_COSINE

    def time(self, threads, repeat):
        return time_forward(self.module, self.inputs, threads, repeat)


NODE_TESTS = "/usr/share/libonnx-testdata/data"


def run_node_tests(root):
    """Converts every ONNX backend test under root (libonnx-testdata's
    node, pytorch-converted, pytorch-operator and simple suites) whose ops
    the converter knows, and checks it on test set 0; prints the counts and
    each test that did not match. Backend tests often feed shapes, axes or
    clip bounds as graph inputs where exported models have constants; such
    inputs (integer or 0-d, after the first) become initializers."""
    import collections
    counts, failures = collections.Counter(), []
    for suite in ("node", "pytorch-converted", "pytorch-operator", "simple"):
        suite_dir = os.path.join(root, suite)
        for test in sorted(os.listdir(suite_dir)):
            path = os.path.join(suite_dir, test)
            try:
                model = onnx.load(os.path.join(path, "model.onnx"))
                arrays, expected = load_test_set(
                    model, os.path.join(path, "test_data_set_0"))
            except Exception:  # sequences, strings, files not there
                counts["not loadable"] += 1
                continue
            if not {n.op_type for n in model.graph.node} <= set(HANDLERS):
                counts["unknown op"] += 1
                continue
            try:
                for bake in (False, True):
                    inputs = []
                    for i, (name, array) in enumerate(
                            zip(graph_inputs(model), arrays)):
                        if bake and i > 0 and (array.dtype.kind in "iu" or
                                               array.ndim == 0):
                            model.graph.initializer.append(
                                numpy_helper.from_array(array, name))
                        else:
                            inputs.append(to_torch(array))
                    try:
                        module = convert(model, inputs)
                        break
                    except Unsupported as e:
                        if bake or "data-dependent" not in str(e):
                            raise
                with torch.inference_mode():
                    outputs = module(*inputs)
                worst = min(compare(a.numpy(), e)[0]
                            for a, e in zip(outputs, expected))
                # Some tests hold uninitialised data (NaN, 1e-310, 1e223)
                # where a cosine means nothing: then equal, NaN for NaN.
                if worst >= MIN_COSINE or all(
                        a.shape == e.shape and
                        np.allclose(a.numpy(), e, equal_nan=True)
                        for a, e in zip(outputs, expected)):
                    counts["match"] += 1
                else:
                    counts["mismatch"] += 1
                    failures.append("%s/%s: cosine %.6f" %
                                    (suite, test, worst))
            except Unsupported as e:
                counts["unsupported"] += 1
                failures.append("%s/%s: unsupported: %s" % (suite, test, e))
            except Exception as e:
                counts["error"] += 1
                failures.append("%s/%s: %s: %s" % (
                    suite, test, type(e).__name__,
                    str(e).split("\n")[0][:100]))
    print("\n".join(failures))
    print(", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir", nargs="?")
    parser.add_argument("--node-tests", nargs="?", const=NODE_TESTS,
                        metavar="DIR",
                        help="check the converter on libonnx-testdata's "
                             "backend tests instead")
    parser.add_argument("--test-set", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--print-code", action="store_true",
                        help="print the generated forward")
    args = parser.parse_args()
    if args.node_tests:
        run_node_tests(args.node_tests)
        return
    if not args.model_dir:
        parser.error("a model directory or --node-tests is needed")
    model = os.path.join(args.model_dir, "model.onnx")
    if not os.path.exists(model):
        model += "txt"
    try:
        ref = Reference(model, os.path.join(
            args.model_dir, "test_data_set_%d" % args.test_set))
    except Unsupported as e:
        sys.exit("cannot convert: %s" % e)
    if args.print_code:
        print(ref.module.code)
    print("cosine %.6f, max abs error %.3g%s" %
          (ref.cosine, ref.max_error, "" if ref.matches else " (MISMATCH)"))
    if ref.matches:
        print("PyTorch CPU %d threads (BLAS %s): median %.3f ms over %d "
              "runs" % (args.threads, blas_library(),
                        ref.time(args.threads, args.repeat) * 1e3,
                        args.repeat))


if __name__ == "__main__":
    main()
