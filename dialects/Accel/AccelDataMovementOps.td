//===- AccelDataMovementOps.td - layout and data movement --*- tablegen -*-===//
//
// Operations that move or reinterpret data without arithmetic, and
// constants. Their shapes are fully static: the importer resolves ONNX's
// dynamic shape arithmetic before they are built.
//
//===----------------------------------------------------------------------===//

def Accel_ConstantOp : Accel_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "constant tensor";
  let description = [{
    A constant tensor. Large weights are held as `dense_resource` blobs so
    they are never copied through the IR.

    ```mlir
    %w = accel.constant dense<1.0> : tensor<4x4xf32>
    %e = accel.constant dense_resource<emb0> : tensor<1000x64xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Accel_ConstantTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let builders = [OpBuilder<(ins "::mlir::ElementsAttr":$value), [{
    build($_builder, $_state, ::llvm::cast<::mlir::TypedAttr>(value).getType(),
          value);
  }]>];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Accel_ReshapeOp : Accel_Op<"reshape", [Pure]> {
  let summary = "reinterpret a tensor with another static shape";
  let description = [{
    Same elements in row-major order, new shape; element counts must match.

    ```mlir
    %r = accel.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
    ```
  }];
  let arguments = (ins Accel_StoredTensor:$input);
  let results = (outs Accel_StoredTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Accel_TransposeOp : Accel_InferredOp<"transpose",
    [DeclareOpInterfaceMethods<Accel_SplitOpInterface>]> {
  let summary = "permute dimensions";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`.

    ```mlir
    %r = accel.transpose %x {permutation = array<i64: 1, 0>}
           : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input,
                       DenseI64ArrayAttr:$permutation);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// True when the permutation moves only unit dimensions: the elements
    /// keep their order, so the result is a reshape of the input.
    bool movesOnlyUnitDims();
  }];
}

def Accel_ConcatOp : Accel_InferredOp<"concat"> {
  let summary = "concatenate tensors along one axis";
  let description = [{
    All inputs have the same rank and element type and agree on every
    dimension except `axis`.

    ```mlir
    %r = accel.concat %a, %b {axis = 1 : i64}
           : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Accel_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat =
      "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasFolder = 1;
}

def Accel_SliceOp : Accel_InferredOp<"slice"> {
  let summary = "strided slice with static bounds";
  let description = [{
    One `start`, `end` and `step` per dimension, already normalised: for a
    positive step `0 <= start <= end <= dim`; for a negative step
    `-1 <= end <= start < dim`. The result has
    `ceil((end - start) / step)` elements along each dimension.

    ```mlir
    %r = accel.slice %x {starts = array<i64: 0, 2>, ends = array<i64: 4, 8>,
                         steps = array<i64: 1, 2>}
           : tensor<4x8xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Accel_GatherOp : Accel_InferredOp<"gather",
    [DeclareOpInterfaceMethods<Accel_SplitOpInterface>]> {
  let summary = "gather slices along an axis by index";
  let description = [{
    ONNX `Gather`: the result shape is
    `data.shape[:axis] ++ indices.shape ++ data.shape[axis+1:]`. Negative
    indices count from the end; an index out of range is a runtime fault.
    `data` may be a constant rowwise-quantized table
    (`!accel.rowwise<4|8>`, rank 2, axis 0): the gathered rows are
    dequantized, and the result is f32.

    ```mlir
    %r = accel.gather %table, %ids {axis = 0 : i64}
           : (tensor<100x16xf32>, tensor<4xi64>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Accel_TableTensor:$data, Accel_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` "
                       "functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Accel_ExpandOp : Accel_Op<"expand", [Pure]> {
  let summary = "broadcast a tensor to a larger static shape";
  let description = [{
    numpy broadcasting of `input` to the result shape, which must be exactly
    the broadcast of the two shapes.

    ```mlir
    %r = accel.expand %x : tensor<1x8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Accel_StoredTensor:$input);
  let results = (outs Accel_StoredTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Accel_PadOp : Accel_InferredOp<"pad"> {
  let summary = "pad a tensor with a constant, reflection or edge values";
  let description = [{
    `pads` holds all begin amounts then all end amounts (2 x rank, each
    non-negative). `value` is used in `constant` mode.

    ```mlir
    %r = accel.pad %x {pads = array<i64: 0, 1, 0, 1>, value = 0.0 : f32}
           : tensor<2x3xf32> -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input, DenseI64ArrayAttr:$pads,
      DefaultValuedAttr<Accel_PadModeAttr, "PadMode::constant">:$mode,
      DefaultValuedAttr<F32Attr, "0.0f">:$value);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}
