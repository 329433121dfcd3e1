// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(accel-lower-to-npu)'

// An op without a kernel inside a card partition is an error at the op.
func.func @no_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{has no card kernel (it should have been placed on the host)}}
    %1 = accel.log %a : tensor<4xf32>
    accel.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// A K x N weight that is not constant cannot be transposed for the card.
func.func @dynamic_weight(%x: tensor<1x4xf32>, %w: tensor<4x2xf32>) -> tensor<1x2xf32> {
  %0 = accel.card_partition(%x, %w) {card = 0 : i64} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32> {
  ^bb0(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>):
    // expected-error @+1 {{needs a constant weight of a whole-byte element type (or a 4-bit blob) to transpose for the NPU}}
    %1 = accel.fully_connected %a, %b : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
    accel.yield %1 : tensor<1x2xf32>
  }
  return %0 : tensor<1x2xf32>
}


// -----

// The lowering emits nothing for an in-place op, so a plan that marks one
// but does not alias its memory is an error, not a silent wrong result.
func.func @in_place_mismatch(%a: tensor<4x64xf32>) -> tensor<256xf32> {
  %0 = accel.card_partition(%a) {accel.dram_bytes = 4096 : i64, card = 0 : i64, input_addresses = array<i64: 0>, output_addresses = array<i64: 2048>} : (tensor<4x64xf32>) -> tensor<256xf32> {
  ^bb0(%x: tensor<4x64xf32>):
    %r = accel.relu %x {accel.dram_address = 1024 : i64} : tensor<4x64xf32>
    // expected-error @+1 {{is marked 'accel.in_place' but its result is not at its operand's address}}
    %1 = accel.reshape %r {accel.dram_address = 2048 : i64, accel.in_place} : tensor<4x64xf32> -> tensor<256xf32>
    accel.yield %1 : tensor<256xf32>
  }
  return %0 : tensor<256xf32>
}

// -----

func.func @in_place_strided_slice(%a: tensor<4x64xf32>) -> tensor<4x32xf32> {
  %0 = accel.card_partition(%a) {accel.dram_bytes = 4096 : i64, card = 0 : i64, input_addresses = array<i64: 0>, output_addresses = array<i64: 0>} : (tensor<4x64xf32>) -> tensor<4x32xf32> {
  ^bb0(%x: tensor<4x64xf32>):
    // expected-error @+1 {{is marked 'accel.in_place' but the slice is not one contiguous run}}
    %1 = accel.slice %x {accel.dram_address = 0 : i64, accel.in_place, starts = array<i64: 0, 0>, ends = array<i64: 4, 32>, steps = array<i64: 1, 1>} : tensor<4x64xf32> -> tensor<4x32xf32>
    accel.yield %1 : tensor<4x32xf32>
  }
  return %0 : tensor<4x32xf32>
}

// -----

func.func @in_place_concat_mismatch(%a: tensor<1x64xf32>, %b: tensor<1x64xf32>) -> tensor<2x64xf32> {
  %0 = accel.card_partition(%a, %b) {accel.dram_bytes = 4096 : i64, card = 0 : i64, input_addresses = array<i64: 0, 256>, output_addresses = array<i64: 1024>} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<2x64xf32> {
  ^bb0(%x: tensor<1x64xf32>, %y: tensor<1x64xf32>):
    %p = accel.relu %x {accel.dram_address = 1024 : i64} : tensor<1x64xf32>
    %q = accel.relu %y {accel.dram_address = 1536 : i64} : tensor<1x64xf32>
    // expected-error @+1 {{is marked 'accel.in_place' but input #1 is not at the result's address + 256}}
    %1 = accel.concat %p, %q {accel.dram_address = 1024 : i64, accel.in_place, axis = 0 : i64} : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<2x64xf32>
    accel.yield %1 : tensor<2x64xf32>
  }
  return %0 : tensor<2x64xf32>
}

// -----

// A concat along the innermost axis is in place only when its parts'
// producers write their rows at its row pitch.
func.func @in_place_columns_without_pitch(%a: tensor<4x64xf32>) -> tensor<4x128xf32> {
  %0 = accel.card_partition(%a) {accel.dram_bytes = 69632 : i64, card = 0 : i64, input_addresses = array<i64: 0>, output_addresses = array<i64: 66560>} : (tensor<4x64xf32>) -> tensor<4x128xf32> {
  ^bb0(%x: tensor<4x64xf32>):
    %w = accel.constant {accel.dram_address = 1024 : i64} dense<0.5> : tensor<64x64xf32>
    %p = accel.fully_connected %x, %w {accel.dram_address = 66560 : i64, accel.result_pitch = 512 : i64, transpose_weight = true} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %q = accel.fully_connected %x, %w {accel.dram_address = 66816 : i64, transpose_weight = true} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    // expected-error @+1 {{is marked 'accel.in_place' but input #1 is not written with the result's row pitch ('accel.result_pitch = 512')}}
    %1 = accel.concat %p, %q {accel.dram_address = 66560 : i64, accel.in_place, axis = 1 : i64} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x128xf32>
    accel.yield %1 : tensor<4x128xf32>
  }
  return %0 : tensor<4x128xf32>
}

// -----

// Only kernels that support it write their result at a row pitch.
func.func @result_pitch_dense_kernel(%a: tensor<4x64xf32>) -> tensor<4x128xf32> {
  %0 = accel.card_partition(%a) {accel.dram_bytes = 69632 : i64, card = 0 : i64, input_addresses = array<i64: 0>, output_addresses = array<i64: 66560>} : (tensor<4x64xf32>) -> tensor<4x128xf32> {
  ^bb0(%x: tensor<4x64xf32>):
    %w = accel.constant {accel.dram_address = 1024 : i64} dense<0.5> : tensor<64x64xf32>
    // expected-error @+1 {{has 'accel.result_pitch' but its kernel writes its result densely}}
    %p = accel.relu %x {accel.dram_address = 66560 : i64, accel.result_pitch = 512 : i64} : tensor<4x64xf32>
    %q = accel.fully_connected %x, %w {accel.dram_address = 66816 : i64, accel.result_pitch = 512 : i64, transpose_weight = true} : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
    %1 = accel.concat %p, %q {accel.dram_address = 66560 : i64, accel.in_place, axis = 1 : i64} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x128xf32>
    accel.yield %1 : tensor<4x128xf32>
  }
  return %0 : tensor<4x128xf32>
}

// -----

// A pinned weight needs tiles its kernel can multiply from: an lstm's R
// must be a constant too (here it is an argument of the partition).
module attributes {npu.target = "default"} {
func.func @pinned_dynamic_r(%x: tensor<2x1x16xf32>, %r: tensor<1x256x64xf32>) -> tensor<2x1x1x64xf32> {
  %0 = accel.card_partition(%x, %r) {card = 0 : i64} : (tensor<2x1x16xf32>, tensor<1x256x64xf32>) -> tensor<2x1x1x64xf32> {
  ^bb0(%a: tensor<2x1x16xf32>, %ar: tensor<1x256x64xf32>):
    %w = accel.constant dense<0.01> : tensor<1x256x16xf32>
    // expected-error @+1 {{pins its weight ('accel.mrf_address') but its kernel cannot multiply from pinned tiles on its 4 core(s)}}
    %y, %h, %c = accel.lstm %a, %w, %ar {hidden_size = 64 : i64, accel.mrf_address = 0 : i64, accel.placement = #accel.placement<card = 0, cores = [0, 1, 2, 3]>} : (tensor<2x1x16xf32>, tensor<1x256x16xf32>, tensor<1x256x64xf32>) -> (tensor<2x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>)
    accel.yield %y : tensor<2x1x1x64xf32>
  }
  return %0 : tensor<2x1x1x64xf32>
}
}

// -----

// Pinned tiles must lie above the MRF the partition's kernels use (without
// accel.mrf_work_bytes, all of it)...
module attributes {npu.target = "default"} {
func.func @pinned_in_work(%x: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<1x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<1x64xf32>):
    %w = accel.constant dense<0.5> : tensor<64x64xf32>
    // expected-error @+1 {{pins its weight at MRF address 0, inside the 1048576 bytes of MRF the partition's kernels use ('accel.mrf_work_bytes')}}
    %1 = accel.fully_connected %a, %w {transpose_weight = true, accel.mrf_address = 0 : i64} : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
    accel.yield %1 : tensor<1x64xf32>
  }
  return %0 : tensor<1x64xf32>
}
}

// -----

// ... and end inside every core's MRF (each of the 4 cores holds 8 tiles
// of this lstm's W and R, 128 KiB).
module attributes {npu.target = "default"} {
func.func @pinned_beyond_mrf(%x: tensor<2x1x16xf32>) -> tensor<2x1x1x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64, accel.mrf_work_bytes = 1015808 : i64} : (tensor<2x1x16xf32>) -> tensor<2x1x1x64xf32> {
  ^bb0(%a: tensor<2x1x16xf32>):
    %w = accel.constant dense<0.01> : tensor<1x256x16xf32>
    %r = accel.constant dense<0.02> : tensor<1x256x64xf32>
    // expected-error @+1 {{pins 131072 bytes of its weight at MRF address 1032192 on core 0, beyond its 1048576-byte MRF}}
    %y, %h, %c = accel.lstm %a, %w, %r {hidden_size = 64 : i64, accel.mrf_address = 1032192 : i64, accel.placement = #accel.placement<card = 0, cores = [0, 1, 2, 3]>} : (tensor<2x1x16xf32>, tensor<1x256x16xf32>, tensor<1x256x64xf32>) -> (tensor<2x1x1x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>)
    accel.yield %y : tensor<2x1x1x64xf32>
  }
  return %0 : tensor<2x1x1x64xf32>
}
}
