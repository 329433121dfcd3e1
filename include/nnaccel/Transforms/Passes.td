//===- Passes.td - nnaccel graph passes --------------------*- tablegen -*-===//
//
// Declarations of every nnaccel graph pass. Each pass lives in its own .cpp
// file under lib/Transforms named after its flag.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_TRANSFORMS_PASSES_TD
#define NNACCEL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AccelRecognizeIdioms : Pass<"accel-recognize-idioms", "func::FuncOp"> {
  let summary = "Replace decomposed op sequences by their accel ops";
  let description = [{
    Exporters decompose ops that accel models directly. This pass finds the
    decompositions PyTorch's ONNX exporter produces and replaces them:

    - `gather(table, ids[B x L], axis 0)` followed by `reduce_sum` /
      `reduce_mean` over axis 1 (an `nn.EmbeddingBag` export) becomes
      `accel.embedding_bag` with sum / mean pooling;
    - `0.5 * x * (1 + erf(x / sqrt(2)))` in any operand order becomes
      `accel.gelu`;
    - `(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)` over trailing
      axes becomes `accel.layer_norm`, absorbing a following `mul` by the
      scale and `add` of the bias;
    - `matmul(x, W)` by a constant 2-D `W` (`nn.Linear` on more than two
      dimensions exports as MatMul + Add) becomes `accel.fully_connected`
      between reshapes that flatten the leading axes into rows; a
      following per-column constant `add` and activation move in front of
      the reshape back, where canonicalization fuses them into the product
      (bias, fused activation);
    - column slices of a `fully_connected` by constants, when every user of
      the product is one (the query, key and value of an attention
      in-projection), become products of their own over the sliced weight
      and bias: no part is copied out of a wider result;
    - a `mul` or `div` by a scalar constant of such a product, seen through
      reshapes and transposes (attention's 1/sqrt(d) on the query), goes
      into its weight and bias.

    Before:
    ```mlir
    %g = accel.gather %table, %ids {axis = 0 : i64}
           : (tensor<100x8xf32>, tensor<4x3xi64>) -> tensor<4x3x8xf32>
    %s = accel.reduce_sum %g {axes = array<i64: 1>, keepdims = false}
           : tensor<4x3x8xf32> -> tensor<4x8xf32>
    ```
    After:
    ```mlir
    %s = accel.embedding_bag %table, %ids {mode = #accel.bag_mode<sum>}
           : (tensor<100x8xf32>, tensor<4x3xi64>) -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect"];
  let statistics = [
    Statistic<"numEmbeddingBags", "embedding-bags", "Embedding bags formed">,
    Statistic<"numGelus", "gelus", "GELUs formed">,
    Statistic<"numLayerNorms", "layer-norms", "Layer norms formed">,
    Statistic<"numLinearLayers", "linear-layers",
              "Matmuls by a constant made fully_connected">,
    Statistic<"numSplitProducts", "split-products",
              "Column slices of a product made products">,
    Statistic<"numScalesFolded", "scales-folded",
              "Scalar scales folded into a product's weights">
  ];
}

def AccelSetTarget : Pass<"accel-set-target", "ModuleOp"> {
  let summary = "Set the hardware target the module is compiled for";
  let description = [{
    Records the target description in the module's `npu.target`
    attribute, which every hardware-dependent pass reads (placement, the
    card memory plan, the lowering) and the npu programs are verified
    against. Fails when the target cannot be loaded. A module without the
    attribute is compiled for `--npu-target`, else `default`.

    ```mlir
    // accel-set-target{target=brainwave-like}
    module attributes {npu.target = "brainwave-like"} { ... }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"default\"",
           "Target description: a name in targets/ or a JSON path">
  ];
  let dependentDialects = ["::mlir::nnaccel::npu::NPUDialect"];
}

def AccelLoadPlacement : Pass<"accel-load-placement", "ModuleOp"> {
  let summary = "Attach placement hints from a JSON placement file";
  let description = [{
    Reads a placement file (include/nnaccel/Transforms/PlacementFile.h,
    docs/passes.md) and sets `accel.hint` on every accel op an entry
    matches by node name and/or op name (regular expressions, whole-name
    matches; the first matching entry wins). Fields the entry sets replace
    those of a hint the op already has (from the IR or the ONNX node).
    Malformed files are errors naming the entry; entries that match no op
    are warnings. nnaccel-compile runs it for `--placement=FILE`.
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"",
           "The placement file">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect"];
}

def AccelQuantize : Pass<"accel-quantize", "func::FuncOp"> {
  let summary = "Quantize fully_connected, matmul and conv to int8 from calibrated ranges";
  let description = [{
    Post-training quantisation of the matrix products. An
    `accel.fully_connected`, or an `accel.matmul` by a constant rank-2
    right operand (rewritten as a fully_connected between reshapes), whose
    input carries a calibrated range (`accel.range = array<f64: lo, hi>`
    on its producer or on the function argument, see docs/quantization.md)
    becomes a quantized product:

    * the input is quantized per tensor (`accel.quantize`): symmetric i8
      with scale max(|lo|, |hi|) / 127, or u8 with scale hi / 255 when the
      range is non-negative (after a ReLU: one more bit); with
      `scheme=asymmetric`, u8 over [min(lo, 0), max(hi, 0)] with a zero
      point;
    * the weight is quantized at compile time, symmetric i8 in
      [-127, 127] with a scale per output column (`per-channel=false`: one
      scale), stored N x K; with `weight-bits=4`, symmetric i4 in [-7, 7]
      (`!quant.uniform<i4:f32:0, {...}>`), stored packed two per byte,
      element 2j in the low nibble of byte j of its row, each row of K
      elements ceil(K / 2) bytes -- where the card's fully_connected kernel
      takes the product's shape with 4-bit weights; where it does not, the
      product keeps 8-bit weights and a warning names the node and the
      reason;
    * the bias becomes i32 with scale input scale x weight scale;
    * the result stays real (the kernel dequantizes the exact i32 sums),
      and a quantized product whose only user quantizes it again requantizes
      its result itself (FC + bias + ReLU + requantize in one kernel).

    Convolutions (`accel.conv` with groups = 1, and depthwise ones) are
    quantized the same way: per-tensor input, i8 weight with a scale per
    output channel (axis 0 of F x C/groups x K...), i32 bias, real result
    -- where the module's target has an int8 card kernel for the result
    (1x1, depthwise, and the implicit GEMM for every other groups = 1
    conv in 1-D or 2-D: k x k at any stride, dilation and padding; other
    convs stay f32, as int8 on the host they would be far slower).
    A quantized conv whose only user quantizes it again requantizes its
    result itself; a fused ReLU or clip whose range contains every value of
    the requantized type is then dropped (saturation clips the same), so the
    kernel rescales the exact sum once.

    Residual adds (`quantize-adds`): an f32 add of same-shape operands
    whose users all quantize its result or are adds adds quantized
    operands into a quantized result (its range's type): the quantizes of
    its operands fuse into the products making them, the real tensors
    around it never go to memory. An add whose only user is a ReLU whose
    users all do (ResNet's add + ReLU) takes the ReLU's range: its u8 type
    with zero point 0 saturates negative sums to 0, so the ReLU goes. An
    add that stays f32 reads a quantized operand through an
    `accel.dequantize`.

    By default the last product of the function (the classifier or CTR
    head) is not quantized (`keep-last`): a fully_connected or matmul
    there computes in `keep-last-precision` (default f32; f16 or bf16 halve
    its weight bytes, through a `precision` hint accel-apply-precision
    honours -- not the default: MobileNet's head outputs values below
    f16's range and DLRM's one-column head gets slower), and the first
    convolution stays f32 (the stem: `keep-first-conv`). A `precision` hint decides per node:
    `i8` quantizes (also the last product) with 8-bit weights, `i4` the
    same with 4-bit weights (a fully_connected or matmul; convolutions
    keep 8-bit weights, with a warning), whatever `weight-bits` says; a
    float type keeps the op real. A product without a range, a non-constant weight, or a hinted op
    that cannot be quantized gets a warning naming the node and the reason.

    ```mlir
    %y = accel.fully_connected %x, %w, %b {transpose_weight = true} ...
    // becomes
    %q = accel.quantize %x : tensor<4x64xf32> -> tensor<4x64x!quant.uniform<u8:f32, 0.02>>
    %y = accel.fully_connected %q, %wq, %bq {transpose_weight = true}
        : (tensor<4x64x!quant.uniform<u8:f32, 0.02>>,
           tensor<32x64x!quant.uniform<i8:f32:0, {...}>>,
           tensor<32x!quant.uniform<i32:f32:0, {...}>>) -> tensor<4x32xf32>
    ```
  }];
  let options = [
    Option<"scheme", "scheme", "std::string", /*default=*/"\"symmetric\"",
           "Activations: symmetric (i8, u8 for non-negative ranges) or "
           "asymmetric (u8 with a zero point)">,
    Option<"perChannel", "per-channel", "bool", /*default=*/"true",
           "One weight scale per output column (else one per tensor)">,
    Option<"weightBits", "weight-bits", "unsigned", /*default=*/"8",
           "Bits of the fully_connected / matmul weights: 8 (i8 in "
           "[-127, 127]) or 4 (i4 in [-7, 7], packed two per byte); "
           "convolution weights are always 8-bit">,
    Option<"keepLast", "keep-last", "bool", /*default=*/"true",
           "Keep the function's last product in f32 unless hinted i8">,
    Option<"keepLastPrecision", "keep-last-precision", "std::string",
           /*default=*/"\"f32\"",
           "What a kept last fully_connected / matmul computes in: f32, f16 "
           "or bf16">,
    Option<"keepFirstConv", "keep-first-conv", "bool", /*default=*/"true",
           "Keep the function's first convolution in f32 unless hinted i8">,
    Option<"quantizeAdds", "quantize-adds", "bool", /*default=*/"true",
           "Quantize adds between int8 products (residual connections)">,
    Option<"onlyHinted", "only-hinted", "bool", /*default=*/"false",
           "Quantize only the products with an i8 / i4 precision hint "
           "(--quantize=auto)">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect",
                           "::mlir::quant::QuantizationDialect"];
  let statistics = [
    Statistic<"numQuantized", "quantized", "Products quantized to int8">,
    Statistic<"numWeights4", "weights-4bit",
              "Quantized products with 4-bit weights">,
    Statistic<"numFused", "requantized", "Requantizations fused into products">,
    Statistic<"numQuantizedAdds", "quantized-adds", "Adds quantized to int8">
  ];
}

def AccelQuantizeBlockFloat
    : Pass<"accel-quantize-block-float", "func::FuncOp"> {
  let summary = "Store constant fully_connected, lstm / gru and conv "
                "weights in a block floating-point format";
  let description = [{
    Replaces the constant f32 weight of every fully_connected with a float
    input and result by an N x K block-float constant,
    `tensor<N x K x !accel.bfp<format>>` with `transpose_weight = true`:
    blocks run along K (16 elements sharing a 5-bit exponent for msfp8 /
    msfp9, 32 int8 (mxint8), fp8 E4M3 (mxfp8e4m3) or fp8 E5M2 (mxfp8e5m2)
    sharing an E8M0 scale; docs/isa.md §3), the
    layout `mm` streams. Activations and results stay f32: the matrix unit
    (and the host kernel) converts each activation row to the weight's
    block format, multiplies each block pair exactly and sums the blocks
    in f32 (docs/isa.md §8.6). No calibration is needed. A matmul by a
    constant f32 matrix (which accel-recognize-idioms normally has made a
    fully_connected already) is first rewritten as a fully_connected
    between reshapes; matmuls of two activations stay f32.

    `accel.lstm` and `accel.gru` get W (D x G*H x I) and R (D x G*H x H)
    converted the same way, both or neither (blocks along I and H; I and H
    must be multiples of the block size); the gate math stays in the op's
    float type, and `k_tile` records the matrix unit's tile for the host
    kernel. `keep-last` does not apply to them.

    An `accel.conv` with groups 1 and a float input and result gets its
    F x C x K1..Kk weight as F x K rows, K = C x K1..Kk in the f32 weight's
    order (channel, then kernel taps), blocks along K, with `kernel_shape`
    (the F x K shape no longer carries the kernel's size) and `k_tile` =
    the widest multiple of the block size up to native_dim that divides K
    (the card's conv kernels load all k tiles of a filter group with one
    DMA, so they share one width; the host sums the tiles in the same
    order). Depthwise and other grouped convs keep f32 weights with a
    warning naming the node and the reason; `keep-last` does not apply to
    convs.

    A `precision` hint decides per node: a block type
    (`!accel.bfp<mxint8>`) converts the node's weight to that format, even
    the last product's; a float type keeps the weight (the hint is
    accel-apply-precision's). A weight that cannot be converted (K not a
    multiple of the block size, a weight that is not an f32 constant, a
    non-finite value, a target without a matrix-unit mode for the format)
    stays f32 with a warning naming the node and the
    reason. `keep-last` keeps the model's last product f32. MXFP8 is
    spelt with its element type (`mxfp8e4m3`, `mxfp8e5m2`); `mm` names
    mxfp8e5m2 weights with its `wvar` bit (ISA 1.1).

    ```mlir
    %r = accel.fully_connected %x, %w {transpose_weight = true}
        : (tensor<1x64xf32>, tensor<32x64xf32>) -> tensor<1x32xf32>
    // becomes
    %w = accel.constant dense_resource<w_msfp8> : tensor<32x64x!accel.bfp<msfp8>>
    %r = accel.fully_connected %x, %w {transpose_weight = true}
        : (tensor<1x64xf32>, tensor<32x64x!accel.bfp<msfp8>>) -> tensor<1x32xf32>
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"msfp8\"",
           "Block format of the weights: msfp8, msfp9, mxint8, mxfp8e4m3 or "
           "mxfp8e5m2">,
    Option<"keepLast", "keep-last", "bool", /*default=*/"false",
           "Keep the last fully_connected of the function in f32">,
    Option<"onlyHinted", "only-hinted", "bool", /*default=*/"false",
           "Convert only the ops with a block-type precision hint "
           "(--quantize=auto)">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect"];
  let statistics = [
    Statistic<"numProducts", "products", "Weights stored in the block format">,
    Statistic<"numKept", "kept", "fully_connected weights kept f32">,
    Statistic<"numBytesSaved", "bytes-saved",
              "Constant bytes saved by the block format">
  ];
}

def AccelQuantizeEmbeddings
    : Pass<"accel-quantize-embeddings", "func::FuncOp"> {
  let summary = "Store constant embedding tables rowwise-quantized (4 or 8 bits)";
  let description = [{
    Replaces the constant f32 table of every `accel.embedding_bag` (sum or
    mean pooling, weighted or not) and of every `accel.gather` of rows
    (rank-2 table, axis 0, indices known only at run time) by a
    rowwise-quantized table, `tensor<R x D x !accel.rowwise<bits>>`: per
    row, bias = min and scale = (max - min) / (2^bits - 1), f16 for 4 bits
    and f32 for 8 (numerics::quantizeFusedRow, docs/numerics.md §3; the
    4-bit codes are chosen against the fp16-rounded parameters). The gather
    engine and the host kernels dequantize rows as they read them, so the
    ops' results stay f32 and only the table shrinks: a 32-wide f32 row of
    128 bytes takes 20 bytes in rw4 and 40 in rw8. Needs no calibration.

    A `precision` hint decides per node: `i4` or `i8` picks the code width,
    a float type of the table's own (f32) keeps the table, other floats
    are accel-apply-precision's. A table that cannot be quantized (a
    non-finite value; for 4 bits a minimum or step outside the fp16 range)
    stays f32 with a warning naming the node and the reason, as does a
    hinted code width other than 4 or 8. A table several ops share is
    quantized once per width; the f32 constant goes when nothing else
    reads it.

    ```mlir
    %t = accel.constant dense_resource<emb> : tensor<1000x32xf32>
    %r = accel.embedding_bag %t, %ids : (tensor<1000x32xf32>, tensor<16x4xi64>) -> tensor<16x32xf32>
    // becomes
    %t = accel.constant dense_resource<emb_rw4> : tensor<1000x32x!accel.rowwise<4>>
    %r = accel.embedding_bag %t, %ids
        : (tensor<1000x32x!accel.rowwise<4>>, tensor<16x4xi64>) -> tensor<16x32xf32>
    ```
  }];
  let options = [
    Option<"bits", "bits", "unsigned", /*default=*/"4",
           "Code width of unhinted tables: 4 (rw4) or 8 (rw8)">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect"];
  let statistics = [
    Statistic<"numTables", "tables", "Embedding tables quantized rowwise">,
    Statistic<"numBytesSaved", "bytes-saved",
              "Table bytes saved (f32 size minus rowwise size)">
  ];
}

def AccelMaskPadding : Pass<"accel-mask-padding", "func::FuncOp"> {
  let summary = "Make a function padded along one axis exact: mask or refuse";
  let description = [{
    Padding buckets (`nnaccel-compile --buckets`) compile a model at a padded
    size L of one input axis; the runtime fills positions past the true
    length with a pad value and crops the outputs. This pass proves that the
    padding does not change the valid part of the results, or makes it so.

    The padded arguments carry `accel.padded_axis = <axis> : i64`. A forward
    dataflow walk tracks, for every value, the axes along which it holds
    padded positions (the "padded axes") and whether those positions are
    known to be exactly zero. Ops that treat each position on its own
    (elementwise ops, fully_connected and layer_norm over other axes,
    reshape/transpose/gather that move the axis) carry the padded axes to
    their results; the padded rows are cropped later. Ops that *mix*
    positions along a padded axis get a mask built from the true length:

    * `softmax` / `log_softmax` along the axis: the input gets an additive
      bias of 0 on valid positions and -65504 (the largest finite f16, so
      it survives f16/bf16) on padded ones, so padded
      positions get exactly zero weight;
    * `reduce_sum` / `reduce_max` over the axis: the input is multiplied by
      the 0/1 mask (max: plus the -65504 bias);
    * `reduce_mean` over the axis becomes a masked `reduce_sum` divided by
      the true count (the true length times the other reduced sizes);
    * `layer_norm` normalising over the axis becomes its formula with
      masked sums over the true count;
    * `matmul` / `fully_connected` contracting over the axis: nothing when
      one factor is already zero at the padded positions, else the first
      padded factor is multiplied by the mask;
    * `conv` along the axis with stride 1 and an output as long as the input
      ("same" padding): the padded input is zeroed, which is the
      convolution's own zero padding at the true length.

    The mask is `clip(length - iota(L), 0, 1)` (card ops only: sub, clip,
    reshape, mul, add), computed from one extra argument, `tensor<1xf32>
    {accel.valid_length, onnx.name = <length-name>}`, that the pass appends
    when it inserts a mask; the runtime feeds it the true length. Masks
    multiply, so they assume padded positions hold finite values (they do
    for zero-padded inputs unless an op divides by a padded value).

    Any other op reading a padded axis it cannot mask (a slice or concat
    along it, a strided or length-changing convolution, pooling, a
    recurrence, a reshape merging it with other axes, an op with regions,
    ...) is an error naming the op: the model cannot be padded exactly
    (`--pad-mode=value:<v>` compiles it without the guarantee).

    Decisions are attributes: `accel.padded_axes = array<i64: ...>` on every
    op whose first result holds padded positions and on the function
    results that do (the package's bucketed output dimensions), and
    `accel.padding_mask = "<why>"` on every op that was masked.

    ```mlir
    func.func @f(%x: tensor<4x8xf32> {accel.padded_axis = 1 : i64}) -> tensor<4x8xf32> {
      %r = accel.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
      return %r : tensor<4x8xf32>
    }
    // becomes (mask %m = clip(%len - [0..7], 0, 1))
    func.func @f(%x: tensor<4x8xf32> {accel.padded_axis = 1 : i64},
                 %len: tensor<1xf32> {accel.valid_length, onnx.name = "valid_length"})
        -> (tensor<4x8xf32> {accel.padded_axes = array<i64: 1>}) {
      %bias = ... (%m - 1) * 65504
      %xm = accel.add %x, %bias : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
      %r = accel.softmax %xm {accel.padding_mask = "softmax", axis = 1 : i64, ...}
    ```

    With `exact=false` (`--pad-mode=value:<v>`) the pass only tracks and
    annotates the padded axes: no masks, no errors; an op it cannot follow
    ends the tracking of its results.
  }];
  let options = [
    Option<"exact", "exact", "bool", /*default=*/"true",
           "Insert masks and refuse ops that cannot be masked (false: only "
           "annotate the padded axes)">,
    Option<"lengthName", "length-name", "std::string",
           /*default=*/"\"valid_length\"",
           "onnx.name of the appended true-length argument">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect"];
  let statistics = [
    Statistic<"numMasked", "masked", "Ops given a padding mask">,
    Statistic<"numTracked", "tracked", "Ops whose results hold padded positions">
  ];
}

def AccelApplyPrecision : Pass<"accel-apply-precision", "func::FuncOp"> {
  let summary = "Run ops in the float precision their hint asks for";
  let description = [{
    For every op whose `#accel.hint` names a float `precision` other than
    its own type: f16, bf16 or f32 when the op's card kernel has it — the
    float operands are converted to it (constants at compile time,
    `accel.convert` otherwise), the op computes in it, and `accel.convert`s
    give its users the original types back. A precision the card kernel
    lacks (or no card float type) is a warning naming the node and the
    reason; the op keeps its types. Integer and quantised precisions are
    left to `--quantize` (accel-assign-placement warns about them).

    With `default=f16` (or bf16; `nnaccel-compile --quantize=fp16|bf16`)
    every op with a card kernel for that precision and no precision hint of
    its own moves too (an op whose kernel lacks it stays quietly; ops whose
    results are the function's keep their precision), and the
    converts between consecutive moved ops cancel, so a chain of card ops
    runs in f16 from its first op's input to its last op's result.

    ```mlir
    %0 = accel.fully_connected %x, %w {accel.hint = #accel.hint<precision = f16>} ...
    // becomes
    %xh = accel.convert %x : tensor<4x64xf32> -> tensor<4x64xf16>
    %0 = accel.fully_connected %xh, %wh {...} : ... -> tensor<4x32xf16>
    %1 = accel.convert %0 : tensor<4x32xf16> -> tensor<4x32xf32>
    ```
  }];
  let options = [
    Option<"defaultPrecision", "default", "std::string", /*default=*/"",
           "Precision (f32, f16, bf16) for every unhinted op whose card "
           "kernel has it; empty: hinted ops only">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect"];
  let statistics = [
    Statistic<"numChanged", "changed", "Ops moved to their hinted precision">
  ];
}

def AccelUnbatchConvs : Pass<"accel-unbatch-convs", "func::FuncOp"> {
  let summary = "Run batched convs the card refuses as one conv per image";
  let description = [{
    The card's conv kernels store every image's result at its own DRAM
    offset, which must be aligned; a batch whose per-image result is not a
    whole number of DRAM alignment units (8 filters of 5 x 5 f32: 800
    bytes) is refused and would run on the host, with a partition on each
    side. For such a conv (batch 2 to `max-images`) this pass makes one
    conv per image, reading an `accel.slice` of its image, and joins the
    results with an `accel.concat` along the batch axis. Slices and concats
    at unaligned offsets run on the card (staged through the VRF). The
    rewrite is kept only when the card kernels accept the slices, the
    per-image conv and the concat; ops with a host placement or hint and
    op names in `force-host` are left alone. The per-image convs compute
    exactly what the batched one would.

    ```mlir
    %y = accel.conv %x, %w, %b ... : (tensor<2x4x9x9xf32>, ...) -> tensor<2x8x5x5xf32>
    // becomes
    %x0 = accel.slice %x {ends = array<i64: 1, 4, 9, 9>, starts = array<i64: 0, 0, 0, 0>, ...}
    %y0 = accel.conv %x0, %w, %b ... -> tensor<1x8x5x5xf32>
    %x1 = accel.slice %x {ends = array<i64: 2, 4, 9, 9>, starts = array<i64: 1, 0, 0, 0>, ...}
    %y1 = accel.conv %x1, %w, %b ... -> tensor<1x8x5x5xf32>
    %y = accel.concat %y0, %y1 {axis = 0 : i64} ...
    ```
  }];
  let options = [
    ListOption<"forceHost", "force-host", "std::string",
               "Op names (e.g. accel.conv) to keep on the host">,
    Option<"maxImages", "max-images", "int64_t", /*default=*/"16",
           "Largest batch split into per-image convs">
  ];
  let statistics = [
    Statistic<"numUnbatched", "unbatched", "Batched convs run per image">
  ];
}

def AccelAlignMatMuls : Pass<"accel-align-matmuls", "func::FuncOp"> {
  let summary = "Pad the reduction axis of batched matmuls whose right "
                "operand's batch elements would start unaligned";
  let description = [{
    The matrix unit loads a matmul's right operand (K x N per batch element)
    from DRAM straight into the 64-byte aligned matrix register file, so its
    batch elements must start at aligned DRAM addresses: K x N x element
    bytes a multiple of the DRAM alignment. Attention scores Q.K^T with a
    head dimension K and sequence N whose product is not (head_dim 4 or 5
    at sequence 13) would run on the host and split the card's work into
    partitions around it.

    For such a matmul whose card kernel refuses it, this pass zero-pads K
    to the smallest K' that aligns the batch elements: the left operand's
    last axis and the right operand's second-to-last axis, with
    `accel.pad` (a card op), then multiplies the padded operands. The
    padded terms are 0 x 0 products, so the result is the same: exact
    zeros added to the dot products (a sum that is exactly -0 may become
    +0). The rewrite is kept only when the card kernels accept the new pads
    and matmul; ops with a host placement or hint and op names in
    `force-host` are left alone.

    ```mlir
    %r = accel.matmul %q, %kt : (tensor<1x3x13x4xf32>, tensor<1x3x4x13xf32>) -> tensor<1x3x13x13xf32>
    // becomes
    %qp = accel.pad %q {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 12>} : tensor<1x3x13x4xf32> -> tensor<1x3x13x16xf32>
    %kp = accel.pad %kt {pads = array<i64: 0, 0, 0, 0, 0, 0, 12, 0>} : tensor<1x3x4x13xf32> -> tensor<1x3x16x13xf32>
    %r = accel.matmul %qp, %kp : (tensor<1x3x13x16xf32>, tensor<1x3x16x13xf32>) -> tensor<1x3x13x13xf32>
    ```
  }];
  let options = [
    ListOption<"forceHost", "force-host", "std::string",
               "Op names (e.g. accel.matmul) to keep on the host">
  ];
  let statistics = [
    Statistic<"numPadded", "padded", "Matmuls whose reduction axis was padded">
  ];
}


def AccelPadRecurrent : Pass<"accel-pad-recurrent", "func::FuncOp"> {
  let summary = "Pad the hidden size of lstm / gru layers the card rejects";
  let description = [{
    The card's lstm / gru kernels store each time step's B x H slice of Y
    at its DRAM offset, so the slices must be DRAM-aligned; otherwise they
    assemble Y on chip, which needs the whole sequence to fit there. For
    every lstm / gru whose card kernel rejects it on the module's target
    (`npu.target`) and whose step slice (batch x hidden_size elements) is
    not a whole number of DRAM alignment units, this pass builds the layer
    with the next hidden size whose slice is (H = 500 in f32 at batch 1:
    512), keeps it when the card accepts that, and slices Y, Y_h and Y_c
    back. The padded units get zero weights, biases, peepholes and initial
    states, so they stay zero at every step and never reach the real units:
    the results are those of the original layer. Constant f32 operands are
    padded at compile time; others through `accel.reshape` + `accel.pad`
    (splitting the gate blocks) + `accel.reshape`. The padded layer records
    its original size in `accel.padded_hidden`. Ops named in `force-host`,
    placed or hinted on the host, with block floating-point weights, or
    rejected for other reasons are left alone.

    ```mlir
    %y, %h = accel.gru %x, %w, %r, %b {hidden_size = 500 : i64} ...
    // ->
    %y2, %h2 = accel.gru %x, %w512, %r512, %b512
        {accel.padded_hidden = 500 : i64, hidden_size = 512 : i64} ...
    %y = accel.slice %y2 {ends = array<i64: S, 1, 1, 500>, ...}
    %h = accel.slice %h2 {ends = array<i64: 1, 1, 500>, ...}
    ```
  }];
  let options = [
    ListOption<"forceHost", "force-host", "std::string",
               "Op names (e.g. accel.gru) kept on the host: not padded">
  ];
  let statistics = [
    Statistic<"numPadded", "padded", "Recurrent layers given a padded hidden size">
  ];
}

def AccelAssignPlacement : Pass<"accel-assign-placement", "func::FuncOp"> {
  let summary = "Decide for every op whether it runs on a card or the host";
  let description = [{
    Gives every accel compute op an `accel.placement` attribute: card
    `card` when the op has a card kernel (CardKernelOpInterface) that
    accepts it for the module's target (`npu.target`), else the host
    (card = -1) with an `accel.host_reason` string saying why. Existing
    placements are hints: a card hint the backend cannot honour is an error
    that says why; a host hint is kept, with the `accel.host_reason` a
    frontend wrote along with a host placement (the ONNX importer's exact
    quantisation arithmetic), else the reason "placed on the host by the
    user". Ops named in `force-host` go to the host. Host ops that read
    only the function's arguments and constants (or such ops' results)
    then move to the start of the function, as accel-outline-partitions
    would put them, before runs of small data-movement ops are judged by
    their neighbours (see below).

    A warning lists heavy ops (ops with the HeavyOp trait: matmul,
    fully_connected, conv, embedding_bag, lstm, gru) that end up on the
    host, since they dominate run time there.

    ```mlir
    %0 = accel.gather %t, %i {accel.host_reason = "no NPU lowering for accel.gather yet",
                              accel.placement = #accel.placement<card = -1>, axis = 0 : i64} ...
    ```
  }];
  let options = [
    Option<"card", "card", "int64_t", /*default=*/"0",
           "Card that card-placed ops go to">,
    ListOption<"forceHost", "force-host", "std::string",
               "Op names (e.g. accel.softmax) to keep on the host">
  ];
  let statistics = [
    Statistic<"numCardOps", "card-ops", "Ops placed on a card">,
    Statistic<"numHostOps", "host-ops", "Ops placed on the host">
  ];
}

def AccelPartitionCards : Pass<"accel-partition-cards", "func::FuncOp"> {
  let summary = "Spread a model that does not fit one card over several";
  let description = [{
    After accel-assign-placement: when the card ops' DRAM footprint (their
    constant operands, each counted once per card, plus their results)
    exceeds one card's `dram.bytes`, assigns them to up to `cards` cards
    (0: the target's card count) so that each card's footprint fits.
    Embedding tables (embedding_bag and gathers of a constant table) are
    model-parallel: in program order in contiguous runs of about equal
    lookup traffic per card (index count x row bytes), else of equal bytes
    (largest first to the least-filled card when neither fits). The other ops stay in program order on one card at a time
    (the roomiest when the current one is full), so dense chains cross
    cards only where they must. A product whose reduction rule sums over a
    concat of parts made on several cards is split by card: each card
    multiplies its parts by their rows of the weight (sliced at compile
    time) and the product's card adds the partial sums. An op filling more
    than half a card is first cut along its model-parallel rule (output
    columns or filters) into pieces of at most half a card, re-joined by a
    concat, so that a weight larger than a card still places. The decision is each op's
    `#accel.placement<card = c>`; accel-outline-partitions then forms one
    partition per run of ops on a card. A model that fits one card, and
    ops whose card a user hint names, keep their placement. A model that
    fits no assignment is an error at the op that did not fit (or the
    function) saying the bytes needed per card against a card's bytes,
    with notes naming the largest tensors.
  }];
  let options = [
    Option<"cards", "cards", "unsigned", /*default=*/"0",
           "Cards to use at most (0: all of the target's)">
  ];
  let statistics = [
    Statistic<"numMovedOps", "moved-ops", "Ops moved to another card">,
    Statistic<"numShardedOps", "sharded-ops",
              "Products summed over several cards' parts, split by card">,
    Statistic<"numCardsUsed", "cards-used", "Cards that hold card ops">
  ];
}

def AccelOutlinePartitions
    : Pass<"accel-outline-partitions", "func::FuncOp"> {
  let summary = "Group placed ops into host and card partitions";
  let description = [{
    Moves each maximal run of consecutive ops with the same placement into a
    partition: host-placed ops (card = -1) into `accel.host_partition`, ops
    placed on card c into `accel.card_partition` with `card = c`. Operands
    are the values the run reads from outside, results the values used after
    it. Constants used only inside a run move with it; constants also used
    elsewhere are cloned (weights share their resource blob, so nothing is
    copied). A host partition's `reason` joins the distinct host reasons.

    First, host ops that need nothing computed on a card (operands that are
    function arguments, constants or results of such ops: integer index
    arithmetic on the inputs, such as categorical offsets added to indices
    before an embedding gather) move to the start of the block, so they form
    one host partition before the card work instead of splitting it:

    ```mlir
    %h = accel.relu %x {accel.placement = #accel.placement<card = 0>}
    %i = accel.add %idx, %offsets {accel.placement = #accel.placement<card = -1>}
    %g = accel.gather %table, %i {accel.placement = #accel.placement<card = 0>}
    // -> host_partition(%idx) {add}; card_partition(%x, ...) {relu, gather}
    ```
  }];
  let statistics = [
    Statistic<"numHostPartitions", "host-partitions", "Host partitions formed">,
    Statistic<"numCardPartitions", "card-partitions", "Card partitions formed">
  ];
}

def AccelSplitOps : Pass<"accel-split-ops", "func::FuncOp"> {
  let summary = "Split card ops into pieces that run on different cores";
  let description = [{
    For every op of a card partition that implements SplitOpInterface, the
    pass weighs each of the op's split rules against running it whole on
    one core, with a roofline model of the target (DRAM bytes at the DMA
    bandwidth and latency, multiply-accumulates at the matrix unit's rate,
    vector elements at the MFUs' rate, a fixed cost per piece and for every
    re-join a core has to wait for). The chosen rule cuts the op into
    pieces: slices of the operands it cuts (constants are cut at compile
    time), one piece per core, and an `accel.concat` re-joining the result.
    A consumer cut along the same axis into the same ranges reads the
    producer's pieces directly ("follows its producer"), so chains of
    row-wise or channel-wise ops never re-join in between.

    Each piece records its core in its placement
    (`#accel.placement<card = 0, cores = [2]>`) and the split in
    `accel.split = array<i64: axis, piece, pieces>`. Ops the model does not
    split run on core 0; ops whose placement already names cores (a hint,
    or pieces of an earlier run) are left as they are. `max-cores` (0: all
    of the target's) bounds the cores used.
  }];
  let options = [
    Option<"maxCores", "max-cores", "unsigned", /*default=*/"0",
           "Use at most this many cores of each card (0: all)">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect"];
  let statistics = [
    Statistic<"numSplitOps", "split-ops", "Ops split across cores">,
    Statistic<"numPieces", "pieces", "Pieces created">,
    Statistic<"numFollowed", "followed", "Operands taken from a producer's pieces">
  ];
}

def AccelPlace : Pass<"accel-place", "func::FuncOp"> {
  let summary = "Schedule the ops of card partitions on the card's cores";
  let description = [{
    List scheduling of each card partition's ops (after accel-split-ops) on
    the cores of its card, with the same roofline model of the target's
    cycle parameters that prices splits: the ready op with the longest path
    to the partition's end goes first (ties: the lower `order` hint of
    `#accel.hint`, then program order), onto the core where it finishes
    first; an operand another core produced costs a synchronisation. Ops
    whose placement names cores (pieces, hints) run there. Views (reshape,
    and slice / concat along an outer axis) take no core.

    The result is in the IR: each op's core in its placement, its modelled
    start and length in `accel.schedule = array<i64: start, cycles>`, and
    the ops reordered by start (each core's program runs them in that
    order). An `order` hint that would run an op before its producer is a
    warning.

    ```mlir
    %0 = accel.embedding_bag %t1, %i1 ... {accel.placement = #accel.placement<card = 0, cores = [1]>,
                                           accel.schedule = array<i64: 0, 1200>}
    ```
  }];
  let options = [
    Option<"maxCores", "max-cores", "unsigned", /*default=*/"0",
           "Use at most this many cores of each card (0: all)">
  ];
  let statistics = [
    Statistic<"numReordered", "reordered", "Ops that changed position">,
    Statistic<"numOrderWarnings", "order-warnings",
              "Order hints that contradict a dependency">
  ];
}

#endif // NNACCEL_TRANSFORMS_PASSES_TD
