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
      scale and `add` of the bias.

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
    Statistic<"numLayerNorms", "layer-norms", "Layer norms formed">
  ];
}

#endif // NNACCEL_TRANSFORMS_PASSES_TD
