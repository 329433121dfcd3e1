// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-assign-placement{force-host=accel.relu}))' \
// RUN:   | FileCheck %s --check-prefix=FORCE

// An f32 fully_connected the NPU lowers goes to the card; ops without a
// lowering go to the host with the reason. Constants stay unplaced.
// CHECK-LABEL: func.func @mlp
// FORCE-LABEL: func.func @mlp
func.func @mlp(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  // CHECK: accel.constant
  // CHECK-NOT: accel.placement
  %w = accel.constant dense<1.0> : tensor<2x4xf32>
  // CHECK: accel.fully_connected
  // CHECK-SAME: accel.placement = #accel.placement<card = 0>
  // CHECK-NOT: accel.host_reason
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32>
  // CHECK: accel.erf
  // CHECK-SAME: accel.host_reason = "erf is not in the NPU ISA"
  // CHECK-SAME: accel.placement = #accel.placement<card = -1>
  %1 = accel.erf %0 : tensor<1x2xf32>
  // FORCE: accel.relu
  // FORCE-SAME: accel.host_reason = "forced to the host (--force-host)"
  %2 = accel.relu %1 : tensor<1x2xf32>
  return %2 : tensor<1x2xf32>
}

// -----

// Heavy ops that cannot run on the card are reported together; a
// fully_connected the kernel does not cover says why.
// CHECK-LABEL: func.func @heavy
// expected-warning @+1 {{2 heavy op(s) run on the host: accel.conv, accel.fully_connected}}
func.func @heavy(%x: tensor<1x4x7x7xf32>, %w: tensor<200x2x3x3xf32>, %a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<1x200x5x5xf32>, tensor<2x2xf32>) {
  // CHECK: accel.conv
  // CHECK-SAME: accel.host_reason = "the output plane of filter 1 starts at an unaligned DRAM address"
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x7x7xf32>, tensor<200x2x3x3xf32>) -> tensor<1x200x5x5xf32>
  // CHECK: accel.fully_connected
  // CHECK-SAME: accel.host_reason = "a K x N weight must be constant to be transposed for the card"
  %1 = accel.fully_connected %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<1x200x5x5xf32>, tensor<2x2xf32>
}

// -----

// A host hint is honoured and keeps its reason.
// CHECK-LABEL: func.func @host_hint
// expected-warning @+1 {{1 heavy op(s) run on the host: accel.fully_connected}}
func.func @host_hint(%x: tensor<1x4xf32>, %w: tensor<2x4xf32>) -> tensor<1x2xf32> {
  // CHECK: accel.host_reason = "placed on the host by the user"
  // CHECK-SAME: accel.placement = #accel.placement<card = -1>
  %0 = accel.fully_connected %x, %w {transpose_weight = true, accel.placement = #accel.placement<card = -1>} : (tensor<1x4xf32>, tensor<2x4xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// A card hint the backend cannot honour is a warning with the reason; the
// op runs on the host.
// CHECK-LABEL: func.func @card_hint
func.func @card_hint(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: accel.erf
  // CHECK-SAME: accel.host_reason = "erf is not in the NPU ISA"
  // CHECK-SAME: accel.placement = #accel.placement<card = -1>
  // expected-warning @+1 {{accel.erf: cannot honour the hint to run on card 0: erf is not in the NPU ISA; it runs on the host}}
  %0 = accel.erf %x {accel.placement = #accel.placement<card = 0, cores = [1]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_target(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// RUN: not nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=no-such-target},func.func(accel-assign-placement))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TARGET
// TARGET: error: cannot load target 'no-such-target'

// -----

// #accel.hint: a card out of range, weights that do not fit where the hint
// puts them, a memory level or precision the kernel does not offer -- each
// a warning naming the reason, and the compiler's own choice.
// CHECK-LABEL: func.func @hints
func.func @hints(%x: tensor<1x1024xf32>, %y: tensor<1x64xf32>) -> (tensor<1x512xf32>, tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>) {
  %big = accel.constant dense<0.5> : tensor<1024x512xf32>
  %small = accel.constant dense<0.5> : tensor<64x64xf32>
  // CHECK: accel.fully_connected {{.*}}accel.placement = #accel.placement<card = 0>
  // expected-warning @+2 {{accel.fully_connected: card hint 3 is out of range (the target has 1 card(s)); the compiler chooses the card}}
  // expected-warning @+1 {{accel.fully_connected: cannot keep its weights in SRAM: they need 2097152 bytes, the core's matrix SRAM holds 1048576; they stay in DRAM}}
  %0 = accel.fully_connected %x, %big {accel.hint = #accel.hint<card = 3, memory = local>} : (tensor<1x1024xf32>, tensor<1024x512xf32>) -> tensor<1x512xf32>
  // expected-warning @+1 {{accel.fully_connected: cannot keep its weights in SHARED: its kernel loads them from DRAM on every run; they stay in DRAM}}
  %1 = accel.fully_connected %y, %small {accel.hint = #accel.hint<memory = shared>} : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
  // expected-warning @+1 {{accel.sigmoid: cannot compute in 'f16': its card kernel computes in its own type 'f32'; precision changes come from --quantize}}
  %2 = accel.sigmoid %y {accel.hint = #accel.hint<precision = f16>} : tensor<1x64xf32>
  // Hints the compiler can honour pass quietly: DRAM, the op's own type.
  %3 = accel.tanh %y {accel.hint = #accel.hint<memory = dram, precision = f32>} : tensor<1x64xf32>
  return %0, %1, %2, %3 : tensor<1x512xf32>, tensor<1x64xf32>, tensor<1x64xf32>, tensor<1x64xf32>
}

// -----

// A card hint of -1 puts the op on the host.
// CHECK-LABEL: func.func @host_by_hint
// CHECK: accel.relu {{.*}}accel.host_reason = "placed on the host by the user"
func.func @host_by_hint(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = accel.relu %x {accel.hint = #accel.hint<card = -1>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A lone reshape between two host ops is not worth a card round trip: it
// stays with its neighbours on the host. Arithmetic, however small, and
// ops placed on a card by the user stay on the card.
// CHECK-LABEL: func.func @trivial_partition
// CHECK: accel.erf
// CHECK: accel.reshape {{.*}}accel.host_reason = "too little work for a card round trip ({{[0-9]+}} modelled card cycles, {{[0-9]+}} to move its data over the host link)"
// CHECK-SAME: accel.placement = #accel.placement<card = -1>
// CHECK: accel.erf
// CHECK: accel.relu
// CHECK-SAME: accel.placement = #accel.placement<card = 0>
// CHECK: accel.erf
// CHECK: accel.reshape
// CHECK-SAME: accel.placement = #accel.placement<card = 0>
// CHECK: accel.erf
func.func @trivial_partition(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = accel.erf %x : tensor<4x8xf32>
  %1 = accel.reshape %0 : tensor<4x8xf32> -> tensor<8x4xf32>
  %2 = accel.erf %1 : tensor<8x4xf32>
  %3 = accel.relu %2 : tensor<8x4xf32>
  %4 = accel.erf %3 : tensor<8x4xf32>
  %5 = accel.reshape %4 {accel.hint = #accel.hint<card = 0>} : tensor<8x4xf32> -> tensor<32xf32>
  %6 = accel.erf %5 : tensor<32xf32>
  return %6 : tensor<32xf32>
}

// -----

// Host ops that read only the function's inputs (integer index arithmetic)
// move to the start before small data-movement runs are judged by their
// neighbours: the reshape after the i64 add in program order is next to a
// card op once the add has moved, so it stays on the card, and the card
// work is one run.
// CHECK-LABEL: func.func @hoisted_before_runs
// CHECK: accel.add {{.*}}accel.placement = #accel.placement<card = -1>
// CHECK: accel.relu {{.*}}accel.placement = #accel.placement<card = 0>
// CHECK: accel.reshape {{.*}}accel.placement = #accel.placement<card = 0>
func.func @hoisted_before_runs(%x: tensor<4x8xf32>, %i: tensor<4xi64>) -> (tensor<32xf32>, tensor<4xi64>) {
  %0 = accel.relu %x : tensor<4x8xf32>
  %c = accel.constant dense<[0, 10, 20, 30]> : tensor<4xi64>
  %1 = accel.add %i, %c : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = accel.reshape %0 : tensor<4x8xf32> -> tensor<32xf32>
  return %2, %1 : tensor<32xf32>, tensor<4xi64>
}

// -----

// Integer products, quantisation and round have no card kernel for their
// types: they run on the host and say why. A host placement the ONNX
// importer gave (exact quantisation arithmetic) keeps its reason.
// CHECK-LABEL: func.func @integer_and_quantized
// expected-warning @+1 {{2 heavy op(s) run on the host: accel.matmul, accel.conv}}
func.func @integer_and_quantized(%a: tensor<2x4xi32>, %b: tensor<4x3xi32>, %x: tensor<1x2x5x5xi32>, %w: tensor<3x2x3x3xi32>, %f: tensor<2x3xf32>, %s: tensor<f32>) -> (tensor<2x3x!quant.uniform<u8:f32, 2.0:100>>, tensor<1x3x3x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  // CHECK: accel.matmul {{.*}}{accel.host_reason = "matmul runs on the card in f32, f16 or bf16 only", accel.placement = #accel.placement<card = -1>}
  %0 = accel.matmul %a, %b : (tensor<2x4xi32>, tensor<4x3xi32>) -> tensor<2x3xi32>
  // CHECK: accel.conv {{.*}}{accel.host_reason = "conv runs on the card in f32, f16 or bf16 only", accel.placement = #accel.placement<card = -1>
  %1 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x5x5xi32>, tensor<3x2x3x3xi32>) -> tensor<1x3x3x3xi32>
  // CHECK: accel.cast {{.*}}{accel.host_reason = "accel.cast runs on the card only between f32, f16 and bf16", accel.placement = #accel.placement<card = -1>}
  %2 = accel.cast %0 : tensor<2x3xi32> -> tensor<2x3x!quant.uniform<i32:f32, 0.125>>
  // CHECK: accel.requantize {{.*}}{accel.host_reason = "no card kernel for accel.requantize yet", accel.placement = #accel.placement<card = -1>}
  %3 = accel.requantize %2 : tensor<2x3x!quant.uniform<i32:f32, 0.125>> -> tensor<2x3x!quant.uniform<u8:f32, 2.0:100>>
  // CHECK: accel.round {{.*}}{accel.host_reason = "no card kernel for accel.round yet", accel.placement = #accel.placement<card = -1>}
  %4 = accel.round %f : tensor<2x3xf32>
  // CHECK: accel.div {{.*}}{accel.host_reason = "ONNX quantisation arithmetic needs exactly rounded division", accel.placement = #accel.placement<card = -1>}
  %5 = accel.div %f, %s {accel.host_reason = "ONNX quantisation arithmetic needs exactly rounded division", accel.placement = #accel.placement<card = -1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %3, %1, %4, %5 : tensor<2x3x!quant.uniform<u8:f32, 2.0:100>>, tensor<1x3x3x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>
}
