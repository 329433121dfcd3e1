//===- AccelIndexingOps.td - ops built around indices -----*- tablegen -*-===//
//
// Operations whose results are, or are addressed by, element indices:
// arg_max/arg_min, top_k, gather_elements, scatter_elements, cumsum,
// gather_nd, scatter_nd, grid_sample, max_unpool and det.
// None of them has a card kernel yet; the host kernels implement the ONNX
// semantics exactly, for every computable element type.
//
//===----------------------------------------------------------------------===//

class Accel_ArgReduceOp<string mnemonic, string what>
    : Accel_InferredOp<mnemonic> {
  let summary = "index of the " # what # " along an axis";
  let description = [{
    ONNX `ArgMax` / `ArgMin`: the `i64` index of the }] # what # [{ along
    `axis` (negative counts from the end). Ties take the first index, or the
    last with `select_last_index`. With `keepdims` the reduced dimension
    stays as size 1.

    ```mlir
    %i = accel.}] # mnemonic # [{ %x {axis = 1 : i64, keepdims = false}
           : tensor<4x8xf32> -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs Accel_IndexTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Accel_ArgMaxOp : Accel_ArgReduceOp<"arg_max", "maximum">;
def Accel_ArgMinOp : Accel_ArgReduceOp<"arg_min", "minimum">;

def Accel_TopKOp : Accel_InferredOp<"top_k"> {
  let summary = "the k largest or smallest elements along an axis";
  let description = [{
    ONNX `TopK` with a constant `k`: `values` and their `i64` `indices`
    along `axis`, largest first (smallest first without `largest`); equal
    values keep the lower index first. The result dimension along `axis`
    is `k`.

    ```mlir
    %v, %i = accel.top_k %x {k = 3 : i64, axis = 1 : i64}
               : tensor<4x8xf32> -> (tensor<4x3xf32>, tensor<4x3xi64>)
    ```
  }];
  let arguments = (ins Accel_Tensor:$input, I64Attr:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$largest,
                       DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs Accel_Tensor:$values, Accel_IndexTensor:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` "
                       "`(` type($values) `,` type($indices) `)`";
}

def Accel_GatherElementsOp : Accel_InferredOp<"gather_elements"> {
  let summary = "gather single elements along an axis by index";
  let description = [{
    ONNX `GatherElements`: `result[i0..,ia,..] = data[i0..,indices[i],..]`
    with the index replacing position `axis`. The result has the shape of
    `indices`; negative indices count from the end, and an index out of
    range is a runtime fault.

    ```mlir
    %r = accel.gather_elements %x, %idx {axis = 1 : i64}
           : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$data, Accel_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` "
                       "functional-type(operands, results)";
}

def Accel_ScatterElementsOp : Accel_InferredOp<"scatter_elements"> {
  let summary = "scatter single elements along an axis by index";
  let description = [{
    ONNX `ScatterElements`: a copy of `data` where each element of `updates`
    is written to the position its index names along `axis` (combined with
    the existing value by `reduction`: `none`, `add`, `mul`, `max`, `min`).
    `indices` and `updates` have the same shape. Updates apply in row-major
    order, so with `none` the last of duplicate indices wins.

    ```mlir
    %r = accel.scatter_elements %x, %idx, %u {axis = 1 : i64,
             reduction = "add"}
           : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>)
             -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$data, Accel_IndexTensor:$indices,
                       Accel_Tensor:$updates,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$data `,` $indices `,` $updates attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Accel_CumSumOp : Accel_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "cumulative sum along an axis";
  let description = [{
    ONNX `CumSum` with a constant axis: running sums along `axis`;
    `exclusive` leaves out the element itself, `reverse` sums from the end.
    Floats accumulate in the element type, integers wrap around.

    ```mlir
    %r = accel.cumsum %x {axis = 0 : i64, reverse} : tensor<5xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input, I64Attr:$axis,
                       UnitAttr:$exclusive, UnitAttr:$reverse);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Accel_GatherNDOp : Accel_InferredOp<"gather_nd"> {
  let summary = "gather slices by multi-dimensional indices";
  let description = [{
    ONNX `GatherND`: the last dimension of `indices` (k entries) indexes
    dimensions `batch_dims .. batch_dims + k - 1` of `data` (the first
    `batch_dims` dimensions are shared batch dimensions); the result shape
    is `indices.shape[:-1] ++ data.shape[batch_dims + k:]`. Negative
    indices count from the end; out of range is a runtime fault.

    ```mlir
    %r = accel.gather_nd %x, %idx : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$data, Accel_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` "
                       "functional-type(operands, results)";
}

def Accel_ScatterNDOp : Accel_InferredOp<"scatter_nd"> {
  let summary = "scatter slices by multi-dimensional indices";
  let description = [{
    ONNX `ScatterND`: a copy of `data` where the slice each index row of
    `indices` names takes (or is combined by `reduction`: `none`, `add`,
    `mul`, `max`, `min` with) the corresponding slice of `updates`
    (`indices.shape[:-1] ++ data.shape[k:]`), in row-major order.

    ```mlir
    %r = accel.scatter_nd %x, %idx, %u {reduction = "add"}
           : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$data, Accel_IndexTensor:$indices,
                       Accel_Tensor:$updates,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$data `,` $indices `,` $updates attr-dict `:` "
                       "functional-type(operands, results)";
}

def Accel_GridSampleOp : Accel_InferredOp<"grid_sample"> {
  let summary = "sample an image at grid locations";
  let description = [{
    ONNX `GridSample` (opset 16, 2-D): `input` is `N x C x H x W`, `grid`
    `N x Hout x Wout x 2` holds normalised (x, y) locations in [-1, 1];
    the result `N x C x Hout x Wout` interpolates `input` there by `mode`
    (`bilinear`, `nearest`, `bicubic`) with `padding_mode` (`zeros`,
    `border`, `reflection`) for locations outside, as PyTorch's
    grid_sample does.

    ```mlir
    %r = accel.grid_sample %x, %g {mode = "nearest"}
           : (tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input, Accel_RealTensor:$grid,
                       DefaultValuedAttr<StrAttr, "\"bilinear\"">:$mode,
                       DefaultValuedAttr<StrAttr, "\"zeros\"">:$padding_mode,
                       UnitAttr:$align_corners);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input `,` $grid attr-dict `:` "
                       "functional-type(operands, results)";
}

def Accel_MaxUnpoolOp : Accel_Op<"max_unpool", [Pure]> {
  let summary = "scatter pooled maxima back to their positions";
  let description = [{
    ONNX `MaxUnpool`: a zero tensor of the result type where each element
    of `input` is written at the flat position (over the whole result)
    its `indices` element names, as MaxPool's Indices output gives them.

    ```mlir
    %r = accel.max_unpool %x, %i
           : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input, Accel_IndexTensor:$indices);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input `,` $indices attr-dict `:` "
                       "functional-type(operands, results)";
}

def Accel_DetOp : Accel_InferredOp<"det"> {
  let summary = "determinants of square matrices";
  let description = [{
    ONNX `Det`: the determinant of each trailing M x M matrix (LU
    factorisation with partial pivoting, in double).

    ```mlir
    %d = accel.det %x : (tensor<3x2x2xf32>) -> tensor<3xf32>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
