// A module whose target cannot be loaded (accel-set-target.mlir).
module attributes {npu.target = "no-such-target"} {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = accel.relu %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
