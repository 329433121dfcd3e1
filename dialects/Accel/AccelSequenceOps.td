//===- AccelSequenceOps.td - embeddings and recurrences ----*- tablegen -*-===//
//
// Recommendation (embedding bags) and RNN/NMT (LSTM, GRU) operations.
//
//===----------------------------------------------------------------------===//

def Accel_EmbeddingBagOp : Accel_InferredOp<"embedding_bag",
    [AttrSizedOperandSegments, Accel_HeavyOp,
     DeclareOpInterfaceMethods<Accel_SplitOpInterface>]> {
  let summary = "pooled embedding lookup (SparseLengthsSum and friends)";
  let description = [{
    Gathers rows of `table` (`R x D`) and pools them per bag with `mode`
    (sum or mean). Bags are given in one of three ways:
    - `indices` is `B x L`: B bags of exactly L indices (what PyTorch exports
      as `Gather` + `ReduceSum`);
    - `indices` is flat `N` with `offsets` (`B`, start of each bag);
    - `indices` is flat `N` with `lengths` (`B`, size of each bag).
    Optional `per_sample_weights` (shaped like `indices`) scale each row
    before pooling. The result is `B x D`. An index outside `[0, R)` is a
    runtime fault. The table may be a constant rowwise-quantized table
    (`!accel.rowwise<4|8>`, accel-quantize-embeddings): each row is
    dequantized before weighting and pooling, and the result is f32.

    ```mlir
    %r = accel.embedding_bag %t, %ids lengths %len {mode = #accel.bag_mode<sum>}
      : (tensor<1000x16xf32>, tensor<12xi64>, tensor<4xi32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Accel_TableTensor:$table, Accel_IndexTensor:$indices,
      Optional<Accel_IndexTensor>:$offsets,
      Optional<Accel_IndexTensor>:$lengths,
      Optional<Accel_RealTensor>:$per_sample_weights,
      DefaultValuedAttr<Accel_BagModeAttr, "BagMode::sum">:$mode);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = [{
    $table `,` $indices (`offsets` $offsets^)? (`lengths` $lengths^)?
    (`weights` $per_sample_weights^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Accel_LSTMOp : Accel_InferredOp<"lstm",
    [AttrSizedOperandSegments, Accel_HeavyOp]> {
  let summary = "long short-term memory layer (ONNX semantics)";
  let description = [{
    ONNX `LSTM` with the default activations (sigmoid, tanh, tanh), layout 0:
    `X` is `S x B x I`, `W` is `D x 4H x I`, `R` is `D x 4H x H`, the
    optional `B` is `D x 8H` (input then recurrence biases), the optional
    initial states are `D x B x H` and the optional peepholes `P` are
    `D x 3H`. Gate order in W, R and B is i, o, f, c. W and R may be
    block floating-point constants (`!accel.bfp<msfp8|msfp9|mxint8|mxfp8e4m3|mxfp8e5m2>`,
    accel-quantize-block-float, blocks along their last axis); `k_tile`
    then records the matrix unit's k tile, whose partial sums the kernels
    add in f32 in order. D is 2 for
    `bidirectional`, else 1. Results: `Y` (`S x D x B x H`), `Y_h` and `Y_c`
    (`D x B x H`). `clip`, when present, clamps gate pre-activations.

    ```mlir
    %y, %h, %c = accel.lstm %x, %w, %r, %b {hidden_size = 32 : i64}
      : (tensor<5x1x16xf32>, tensor<1x128x16xf32>, tensor<1x128x32xf32>,
         tensor<1x256xf32>)
        -> (tensor<5x1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
    ```
  }];
  let arguments = (ins Accel_RealTensor:$x, Accel_RecurrentWeightTensor:$w,
      Accel_RecurrentWeightTensor:$r, Optional<Accel_RealTensor>:$b,
      Optional<Accel_RealTensor>:$initial_h,
      Optional<Accel_RealTensor>:$initial_c,
      Optional<Accel_RealTensor>:$p, I64Attr:$hidden_size,
      DefaultValuedAttr<Accel_RNNDirectionAttr,
                        "RNNDirection::forward">:$direction,
      OptionalAttr<F32Attr>:$clip);
  let results = (outs Accel_RealTensor:$y, Accel_RealTensor:$y_h,
                      Accel_RealTensor:$y_c);
  let assemblyFormat = [{
    $x `,` $w `,` $r (`,` $b^)? (`initial_h` $initial_h^)?
    (`initial_c` $initial_c^)? (`peepholes` $p^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Accel_GRUOp : Accel_InferredOp<"gru",
    [AttrSizedOperandSegments, Accel_HeavyOp]> {
  let summary = "gated recurrent unit layer (ONNX semantics)";
  let description = [{
    ONNX `GRU` with the default activations (sigmoid, tanh), layout 0: `W` is
    `D x 3H x I`, `R` is `D x 3H x H`, the optional `B` is `D x 6H`, gate
    order z, r, h. W and R may be block floating point, as for lstm.
    With `linear_before_reset` the recurrence bias and matrix
    are applied before the reset gate multiplies (PyTorch's formulation).
    Results: `Y` (`S x D x B x H`) and `Y_h` (`D x B x H`).

    ```mlir
    %y, %h = accel.gru %x, %w, %r {hidden_size = 8 : i64,
                                   linear_before_reset = true}
      : (tensor<3x1x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>)
        -> (tensor<3x1x1x8xf32>, tensor<1x1x8xf32>)
    ```
  }];
  let arguments = (ins Accel_RealTensor:$x, Accel_RecurrentWeightTensor:$w,
      Accel_RecurrentWeightTensor:$r, Optional<Accel_RealTensor>:$b,
      Optional<Accel_RealTensor>:$initial_h, I64Attr:$hidden_size,
      DefaultValuedAttr<Accel_RNNDirectionAttr,
                        "RNNDirection::forward">:$direction,
      DefaultValuedAttr<BoolAttr, "false">:$linear_before_reset,
      OptionalAttr<F32Attr>:$clip);
  let results = (outs Accel_RealTensor:$y, Accel_RealTensor:$y_h);
  let assemblyFormat = [{
    $x `,` $w `,` $r (`,` $b^)? (`initial_h` $initial_h^)? attr-dict `:`
    functional-type(operands, results)
  }];
}
