//===- AccelHardwareOps.td - precision, transfers, partitions -*- tablegen -*-//
//
// Operations the accelerator passes introduce: precision changes, card to
// card transfers and host partitions.
//
//===----------------------------------------------------------------------===//

def Accel_QuantizeOp : Accel_Op<"quantize", [Pure,
    SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<Accel_SplitOpInterface>]> {
  let summary = "real to quantized (ONNX QuantizeLinear)";
  let description = [{
    `q = saturate(round_half_even(x / scale) + zero_point)` with the
    parameters of the result's `!quant.uniform` element type (per tensor or
    per axis). The input element type is the quantized type's expressed type.

    With `reciprocal_scale`, `x / scale` is `x * f32(1 / scale)` instead,
    rounded once to f32: what the card's vector units compute (they
    multiply; they cannot divide exactly). ONNX QuantizeLinear divides, so
    imported quantizes leave it unset and run on the host; the compiler's
    own quantization (accel-quantize) sets it, since it chose the scale and
    the difference is a rounding tie at most one step away.

    ```mlir
    %q = accel.quantize %x : tensor<8xf32> -> tensor<8x!quant.uniform<i8:f32, 0.1>>
    %r = accel.quantize %x {reciprocal_scale} : tensor<8xf32> -> tensor<8x!quant.uniform<i8:f32, 0.1>>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input, UnitAttr:$reciprocal_scale);
  let results = (outs StaticShapeTensorOf<[quant_QuantizedType]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Accel_DequantizeOp : Accel_Op<"dequantize", [Pure,
    SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<Accel_SplitOpInterface>]> {
  let summary = "quantized to real (ONNX DequantizeLinear)";
  let description = [{
    `x = (q - zero_point) * scale`; the result element type is the quantized
    type's expressed type.

    ```mlir
    %x = accel.dequantize %q : tensor<8x!quant.uniform<i8:f32, 0.1>> -> tensor<8xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[quant_QuantizedType]>:$input);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Accel_RequantizeOp : Accel_Op<"requantize", [Pure,
    SameOperandsAndResultShape]> {
  let summary = "change quantization parameters";
  let description = [{
    Rescales from the input's quantization parameters to the result's,
    rounding half to even and saturating. Both share the expressed type.

    ```mlir
    %r = accel.requantize %q : tensor<8x!quant.uniform<i32:f32, 0.01>>
                            -> tensor<8x!quant.uniform<i8:f32, 0.1>>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[quant_QuantizedType]>:$input);
  let results = (outs StaticShapeTensorOf<[quant_QuantizedType]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Accel_ConvertOp : Accel_Op<"convert", [Pure,
    SameOperandsAndResultShape]> {
  let summary = "change floating point precision";
  let description = [{
    Converts between floating point formats (f32, f16, bf16, ...), rounding
    to nearest even; overflow becomes infinity, NaN stays NaN.

    ```mlir
    %h = accel.convert %x : tensor<8xf32> -> tensor<8xf16>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Accel_TransferOp : Accel_Op<"transfer", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "move a tensor between cards or between a card and the host";
  let description = [{
    Copies `input` from card `source` to card `destination` over the card
    link; card -1 is the host.

    accel-plan-card-transfers inserts one between two card partitions of a
    launch for each value that goes card to card, with the `channel` it
    travels on (the producing partition's programs `send` it, the reading
    partition's programs `recv` it; the package binds it to neither) and
    `pieces`: 1 (the whole value, sent at the producer's end), or the number
    of equal messages along the leading dimension the value is cut into,
    which the making and reading kernels send and receive one at a time as
    they make and need them (a recurrent layer's Y, a time step a message,
    so that stacked layers on several cards pipeline).

    ```mlir
    %r = accel.transfer %x {source = 0 : i64, destination = 1 : i64}
           : tensor<1x256xf32>
    %s = accel.transfer %y {channel = 3 : i64, destination = 2 : i64,
                            pieces = 16 : i64, source = 1 : i64}
           : tensor<16x1x256xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input, I64Attr:$source,
                       I64Attr:$destination,
                       OptionalAttr<I64Attr>:$channel,
                       DefaultValuedAttr<I64Attr, "1">:$pieces);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Accel_HostPartitionOp : Accel_Op<"host_partition", [
    IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "ops that run on the host CPU";
  let description = [{
    A region executed by the runtime's host (CPU) kernels rather than on a
    card. The region is isolated: its block arguments receive the operands,
    and `accel.yield` returns the results. `reason` says why the ops run on
    the host (e.g. unsupported by the ISA, or forced by the user).

    ```mlir
    %r = accel.host_partition (%x) {reason = "op not supported"}
        : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %n = accel.neg %a : tensor<4xf32>
      accel.yield %n : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       OptionalAttr<StrAttr>:$reason);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body
  }];
  let hasRegionVerifier = 1;
}

def Accel_CardPartitionOp : Accel_Op<"card_partition", [
    IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock]> {
  let summary = "ops that run on one accelerator card";
  let description = [{
    A run of card-placed ops. `body` holds the accel ops (isolated: block
    arguments receive the inputs, `accel.yield` returns the results). The
    NPU lowering adds one `npu.program` per core at module level, lists them
    in `programs`, and records the DRAM address of each input
    (`input_addresses`) and result (`output_addresses`); weights carry their
    address as `accel.dram_address` on the constants in `body`.

    `setup_programs` (optional, one per core that pins weights) load weight
    tiles the programs keep in the cores' matrix register files across runs
    (Brainwave's pinned weights, docs/lowering.md "Pinned weights"). A
    runtime runs them once, before the first launch of the partition and
    again whenever another program may have used the card's MRFs since
    (another partition ran on the card, or a launch failed).

    ```mlir
    %r = accel.card_partition(%x) {card = 0 : i64, programs = [@main_p0_core0]}
        : (tensor<1x64xf32>) -> tensor<1x32xf32> {
    ^bb0(%a: tensor<1x64xf32>):
      %w = accel.constant dense<1.0> : tensor<32x64xf32>
      %y = accel.fully_connected %a, %w {transpose_weight = true}
             : (tensor<1x64xf32>, tensor<32x64xf32>) -> tensor<1x32xf32>
      accel.yield %y : tensor<1x32xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$card,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$programs,
                       OptionalAttr<FlatSymbolRefArrayAttr>:$setup_programs,
                       OptionalAttr<DenseI64ArrayAttr>:$input_addresses,
                       OptionalAttr<DenseI64ArrayAttr>:$output_addresses);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, results) $body
  }];
  let hasRegionVerifier = 1;
}

def Accel_YieldOp : Accel_Op<"yield", [Pure, ReturnLike, Terminator,
    ParentOneOf<["HostPartitionOp", "CardPartitionOp"]>]> {
  let summary = "return values from a host or card partition";
  let description = [{
    ```mlir
    accel.yield %v : tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}
