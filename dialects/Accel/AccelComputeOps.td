//===- AccelComputeOps.td - linear algebra, pooling, norms -*- tablegen -*-===//
//
// The heavy operations of the workloads: matrix products, convolutions,
// pooling, normalisation and reductions.
//
//===----------------------------------------------------------------------===//

// Fused activation shared by fully_connected and conv: the activation and,
// for `clip`, its bounds.
defvar Accel_FusedActivationArgs = (ins
    DefaultValuedAttr<Accel_ActivationAttr, "Activation::none">:$activation,
    OptionalAttr<F32Attr>:$activation_min,
    OptionalAttr<F32Attr>:$activation_max);

def Accel_MatMulOp : Accel_InferredOp<"matmul", [Accel_HeavyOp,
    DeclareOpInterfaceMethods<Accel_SplitOpInterface>]> {
  let summary = "batched matrix product with numpy matmul semantics";
  let description = [{
    Multiplies the last two dimensions of `lhs` and `rhs`; leading (batch)
    dimensions broadcast. A rank-1 `lhs` is treated as a row vector and a
    rank-1 `rhs` as a column vector, and the added dimension is dropped from
    the result, as in numpy and ONNX `MatMul`. Integer (`i32`) products
    accumulate with 32-bit wrap-around; ONNX `MatMulInteger` imports as one
    once the zero points are subtracted.

    ```mlir
    %r = accel.matmul %a, %b
           : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$lhs, Accel_Tensor:$rhs);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Accel_FullyConnectedOp : Accel_InferredOp<"fully_connected",
    [Accel_HeavyOp, DeclareOpInterfaceMethods<Accel_SplitOpInterface,
        ["buildSplitPiece", "buildReductionJoin"]>]> {
  let summary = "general matrix multiply with bias and fused activation";
  let description = [{
    ONNX `Gemm`: `act(alpha * op(input) x op(weight) + beta * bias)` where
    `op` transposes when `transpose_input` / `transpose_weight` is set. The
    input is `M x K` (or `K x M`), the weight `K x N` (or `N x K`), the
    optional bias broadcasts to `M x N`. The fused activation is applied last.

    Quantized (int8): the input is quantized per tensor (i8, or u8 with a
    zero point), the weight is signed and symmetric, quantized per tensor or
    per output column, and the bias is real or i32 with scale input scale x
    weight scale. The products accumulate exactly in i32; the result is the
    real value (dequantized) or requantized to the result's quantized type.

    Block floating point (accel-quantize-block-float): the weight may be an
    N x K `!accel.bfp<msfp8|msfp9|mxint8|mxfp8e4m3|mxfp8e5m2>` constant (`transpose_weight`,
    blocks along K) multiplying a float input; the input rows are converted
    to the weight's blocks, each block pair multiplied exactly and the
    blocks summed in f32 (docs/isa.md, `mm`). The result is the input's
    float type.

    ```mlir
    %r = accel.fully_connected %x, %w, %b {transpose_weight = true,
             activation = #accel.act<relu>}
           : (tensor<1x64xf32>, tensor<32x64xf32>, tensor<32xf32>)
             -> tensor<1x32xf32>
    ```
  }];
  let arguments = !con((ins Accel_Tensor:$input, Accel_StoredTensor:$weight,
      Optional<Accel_Tensor>:$bias,
      DefaultValuedAttr<BoolAttr, "false">:$transpose_input,
      DefaultValuedAttr<BoolAttr, "false">:$transpose_weight,
      DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
      DefaultValuedAttr<F32Attr, "1.0f">:$beta), Accel_FusedActivationArgs);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
  // Defined in ComputeOps.cpp: a quantized product's real result may be
  // requantized instead.
  let extraClassDefinition = "";
}

def Accel_ConvOp : Accel_InferredOp<"conv", [Accel_HeavyOp,
    DeclareOpInterfaceMethods<Accel_SplitOpInterface, ["buildSplitPiece"]>]> {
  let summary = "1-D/2-D/3-D convolution with groups and fused activation";
  let description = [{
    ONNX `Conv` in NCHW layout. `input` is `N x C x D1..Dk` (k = 1..3),
    `weight` is `F x C/groups x K1..Kk`, the optional `bias` is `F`.
    `strides` and `dilations` have k entries, `pads` has 2k (all begins,
    then all ends). Depthwise convolution is `groups = C = F`. Integer
    (`i32`) convolutions accumulate with 32-bit wrap-around and padded
    positions contribute zero; ONNX `ConvInteger` imports as one once the
    zero points are subtracted.

    Quantized (int8), like fully_connected: a per-tensor quantized 8-bit
    input, a signed symmetric weight quantized per tensor or per output
    channel (axis 0), a real or i32 bias (scale input x weight); the exact
    i32 sums give a real result or one requantized to the result's type. A
    real convolution may also quantize its result (per tensor): its int8
    consumer's input quantization done in its epilogue,
    `q = sat(round_half_even(y * f32(1 / scale)) + zero_point)`.

    ```mlir
    %r = accel.conv %x, %w, %b {strides = array<i64: 2, 2>,
             pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>,
             groups = 1 : i64}
           : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>)
             -> tensor<1x16x16x16xf32>
    ```

    Block floating point (accel-quantize-block-float): a float convolution
    may take its weight in a block format, as the matrix unit multiplies
    it: `F x K` rows of K = C/groups x K1..Kk elements in the order of the
    f32 weight (channel, then kernel taps), blocks along K. The kernel's
    spatial size, which that shape no longer carries, is `kernel_shape`
    (k entries; only with a block weight). The optional `k_tile`
    (discardable) is the matrix unit's k tile: the products of each tile
    of K are summed in f32 in tile order.

    ```mlir
    %r = accel.conv %x, %w {kernel_shape = array<i64: 1, 1>,
             strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
             dilations = array<i64: 1, 1>, k_tile = 64 : i64}
           : (tensor<1x64x8x8xf32>, tensor<32x64x!accel.bfp<msfp8>>)
             -> tensor<1x32x8x8xf32>
    ```
  }];
  let arguments = !con((ins Accel_Tensor:$input, Accel_StoredTensor:$weight,
      Optional<Accel_Tensor>:$bias, DenseI64ArrayAttr:$strides,
      DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
      DefaultValuedAttr<I64Attr, "1">:$groups), Accel_FusedActivationArgs,
      (ins OptionalAttr<DenseI64ArrayAttr>:$kernel_shape));
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The kernel's spatial size: `kernel_shape` for a block-float weight
    /// (F x K rows), else the weight's trailing dimensions.
    ::llvm::SmallVector<int64_t> getKernelSpatialShape();
    /// Whether the weight is stored in a block floating-point format.
    bool hasBlockWeight();
  }];
  // Defined in ComputeOps.cpp: a quantized product's real result may be
  // requantized instead.
  let extraClassDefinition = "";
}

class Accel_PoolOp<string mnemonic>
    : Accel_InferredOp<mnemonic, [DeclareOpInterfaceMethods<Accel_SplitOpInterface>]> {
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Accel_MaxPoolOp : Accel_PoolOp<"max_pool"> {
  let summary = "max pooling over 1-3 spatial dimensions";
  let description = [{
    ONNX `MaxPool` in NCHW layout; padded positions never win.

    ```mlir
    %r = accel.max_pool %x {kernel_shape = array<i64: 3, 3>,
             strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
             dilations = array<i64: 1, 1>}
           : tensor<1x8x32x32xf32> -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
      DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
      DenseI64ArrayAttr:$dilations,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
}

def Accel_AvgPoolOp : Accel_PoolOp<"avg_pool"> {
  let summary = "average pooling over 1-3 spatial dimensions";
  let description = [{
    ONNX `AveragePool` in NCHW layout. With `count_include_pad` the divisor
    is the full kernel size, otherwise the number of non-padded positions.

    ```mlir
    %r = accel.avg_pool %x {kernel_shape = array<i64: 2, 2>,
             strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>}
           : tensor<1x8x32x32xf32> -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = (ins Accel_FloatTensor:$input,
      DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
      DenseI64ArrayAttr:$pads,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
      DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
}

def Accel_GlobalAvgPoolOp : Accel_PoolOp<"global_avg_pool"> {
  let summary = "average over all spatial dimensions";
  let description = [{
    `N x C x D1..Dk -> N x C x 1..1`.

    ```mlir
    %r = accel.global_avg_pool %x : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
    ```
  }];
  let arguments = (ins Accel_FloatTensor:$input);
}

def Accel_BatchNormOp : Accel_Op<"batch_norm", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "inference batch normalisation";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias` per channel (dimension
    1). `scale`, `bias`, `mean` and `variance` are rank-1 of size C.

    ```mlir
    %r = accel.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
      : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
         tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input, Accel_RealTensor:$scale,
      Accel_RealTensor:$bias, Accel_RealTensor:$mean,
      Accel_RealTensor:$variance,
      DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input `,` $scale `,` $bias `,` $mean `,` $variance "
                       "attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Accel_LayerNormOp : Accel_Op<"layer_norm", [Pure,
    AllTypesMatch<["input", "result"]>, DeclareOpInterfaceMethods<Accel_SplitOpInterface>]> {
  let summary = "layer normalisation over the trailing dimensions";
  let description = [{
    ONNX `LayerNormalization`: normalises over dimensions `axis..rank-1`,
    then multiplies by `scale` and adds the optional `bias`, both shaped like
    those trailing dimensions.

    ```mlir
    %r = accel.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32}
      : (tensor<1x16x64xf32>, tensor<64xf32>, tensor<64xf32>)
        -> tensor<1x16x64xf32>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input, Accel_RealTensor:$scale,
      Optional<Accel_RealTensor>:$bias,
      DefaultValuedAttr<I64Attr, "-1">:$axis,
      DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input `,` $scale (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

class Accel_SoftmaxLikeOp<string mnemonic, string formula>
    : Accel_Op<mnemonic, [Pure, SameOperandsAndResultType, DeclareOpInterfaceMethods<Accel_SplitOpInterface>]> {
  let summary = formula # " along one axis";
  let description = [{
    Computes `}] # formula # [{` along `axis` (negative counts from the end),
    subtracting the maximum first for stability.

    ```mlir
    %r = accel.}] # mnemonic # [{ %x {axis = -1 : i64} : tensor<2x10xf32>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Accel_SoftmaxOp : Accel_SoftmaxLikeOp<"softmax", "exp(x) / sum(exp(x))">;
def Accel_LogSoftmaxOp
    : Accel_SoftmaxLikeOp<"log_softmax", "x - log(sum(exp(x)))">;

class Accel_ReduceOp<string mnemonic, string what>
    : Accel_InferredOp<mnemonic> {
  let summary = what # " over axes";
  let description = [{
    Reduces with `}] # what # [{` over `axes` (negative values count from
    the end; empty means all axes). With `keepdims` reduced dimensions stay
    as size 1.

    ```mlir
    %r = accel.}] # mnemonic # [{ %x {axes = array<i64: 1>, keepdims = false}
           : tensor<4x8xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Accel_ReduceSumOp : Accel_ReduceOp<"reduce_sum", "sum">;
def Accel_ReduceMeanOp : Accel_ReduceOp<"reduce_mean", "mean">;
def Accel_ReduceMaxOp : Accel_ReduceOp<"reduce_max", "maximum">;
def Accel_ReduceProdOp : Accel_ReduceOp<"reduce_prod", "product">;

def Accel_ConvTransposeOp : Accel_Op<"conv_transpose", [Pure, Accel_HeavyOp]> {
  let summary = "1-D/2-D/3-D transposed convolution";
  let description = [{
    ONNX `ConvTranspose` in NCHW layout: `input` is `N x C x D1..Dk`,
    `weight` is `C x F/groups x K1..Kk`, the optional `bias` is `F`. Each
    input element scatters `input * weight` to output position
    `i * stride - pad_begin + k * dilation`. `pads` has 2k entries (all
    begins, then all ends); the importer resolves `auto_pad`,
    `output_padding` and `output_shape` into them and the result shape.

    ```mlir
    %r = accel.conv_transpose %x, %w {strides = array<i64: 2, 2>,
             pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>,
             groups = 1 : i64}
           : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x7x7xf32>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input, Accel_RealTensor:$weight,
                       Optional<Accel_RealTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Accel_EinsumOp : Accel_Op<"einsum", [Pure]> {
  let summary = "Einstein summation";
  let description = [{
    ONNX `Einsum` with an explicit or implicit output (`->`), without
    ellipses: the product of the operands summed over every label that is
    not in the output, accumulated in the element type.

    ```mlir
    %r = accel.einsum %a, %b {equation = "ij,jk->ik"}
           : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Accel_Tensor>:$inputs, StrAttr:$equation);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
}

def Accel_ResizeOp : Accel_Op<"resize", [Pure]> {
  let summary = "resize by nearest, linear or cubic interpolation";
  let description = [{
    ONNX `Resize` (and `Upsample`) with constant scales or sizes, as the
    ONNX reference computes it: each output coordinate maps to an input
    coordinate by `coordinate_transformation_mode` with the per-dimension
    `scales` (output / input, after `keep_aspect_ratio_policy`), and the
    value is interpolated in every resized dimension by `mode` (`nearest`
    with `nearest_mode`, `linear`, `cubic` with `cubic_coeff_a` and
    `exclude_outside`). `roi` (2 x rank, `tf_crop_and_resize` only) and
    `extrapolation_value` are that mode's.

    ```mlir
    %r = accel.resize %x {mode = "nearest", scales = array<f64: 1.0, 1.0, 2.0, 2.0>,
             coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"}
           : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input, StrAttr:$mode,
      DenseF64ArrayAttr:$scales,
      DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
      DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode,
      DefaultValuedAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
      UnitAttr:$exclude_outside,
      DefaultValuedAttr<F32Attr, "0.0f">:$extrapolation_value,
      OptionalAttr<DenseF64ArrayAttr>:$roi);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}
