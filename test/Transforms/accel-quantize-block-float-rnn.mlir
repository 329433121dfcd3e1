// accel-quantize-block-float on recurrent ops: W (D x G*H x I) and R
// (D x G*H x H) of lstm and gru become block-float constants of the same
// shape (blocks along I and H), both or neither, with k_tile; the gate
// math stays f32. keep-last concerns fully_connected ops only.
// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float{keep-last=true}))' | FileCheck %s
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float{format=mxint8}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MX
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(accel-quantize-block-float{format=mxfp8e4m3}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MXFP8
// A target without the format's matrix-unit mode keeps W and R f32.
// RUN: nnaccel-opt %s -split-input-file \
// RUN:   --pass-pipeline='builtin.module(accel-set-target{target=brainwave-like},func.func(accel-quantize-block-float{format=mxint8}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOMODE
// NOMODE: warning: accel.lstm: its W and R stay f32, not mxint8: the target's matrix unit has no mxint8 mode (core.macs_per_cycle)

// CHECK-LABEL: func.func @lstm
// CHECK-DAG: %[[W:.*]] = accel.constant dense_resource<weight_msfp8> : tensor<1x64x32x!accel.bfp<msfp8>>
// CHECK-DAG: %[[R:.*]] = accel.constant dense_resource<weight_msfp8{{.*}}> : tensor<1x64x16x!accel.bfp<msfp8>>
// CHECK: accel.lstm %arg0, %[[W]], %[[R]], %{{.*}} {hidden_size = 16 : i64, k_tile = 64 : i64}
// CHECK-SAME: (tensor<5x1x32xf32>, tensor<1x64x32x!accel.bfp<msfp8>>, tensor<1x64x16x!accel.bfp<msfp8>>, tensor<1x128xf32>)
// mxint8 blocks are 32 wide: H = 16 keeps R, and so W, f32.
// MX: warning: accel.lstm: its W and R stay f32, not mxint8: R's K = 16 (input or hidden size) is not a multiple of the mxint8 block size 32
// MX-LABEL: func.func @lstm
// MX: accel.lstm {{.*}} : (tensor<5x1x32xf32>, tensor<1x64x32xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>)
func.func @lstm(%x: tensor<5x1x32xf32>) -> tensor<5x1x1x16xf32> {
  %w = accel.constant dense<0.25> : tensor<1x64x32xf32>
  %r = accel.constant dense<-0.5> : tensor<1x64x16xf32>
  %b = accel.constant dense<0.125> : tensor<1x128xf32>
  %y, %h, %c = accel.lstm %x, %w, %r, %b {hidden_size = 16 : i64}
    : (tensor<5x1x32xf32>, tensor<1x64x32xf32>, tensor<1x64x16xf32>, tensor<1x128xf32>)
      -> (tensor<5x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
  return %y : tensor<5x1x1x16xf32>
}

// -----

// An ms-fp8 row of R: 16 x 0.75 is exponent -1 (field 0x0E), codes 3.
// CHECK-LABEL: func.func @gru
// CHECK: accel.gru %arg0, %{{.*}}, %{{.*}} {hidden_size = 16 : i64, k_tile = 64 : i64, linear_before_reset = true}
// CHECK-SAME: tensor<1x48x16x!accel.bfp<msfp8>>, tensor<1x48x16x!accel.bfp<msfp8>>
// CHECK: "0x080000000E3333333333333333
func.func @gru(%x: tensor<3x1x16xf32>) -> tensor<1x1x16xf32> {
  %w = accel.constant dense<0.75> : tensor<1x48x16xf32>
  %y, %h = accel.gru %x, %w, %w {hidden_size = 16 : i64, linear_before_reset = true}
    : (tensor<3x1x16xf32>, tensor<1x48x16xf32>, tensor<1x48x16xf32>)
      -> (tensor<3x1x1x16xf32>, tensor<1x1x16xf32>)
  return %h : tensor<1x1x16xf32>
}

// -----

// I = 24 is not a whole number of blocks: W and R stay f32, with a warning
// naming the node; so does an R that is not a constant.
// CHECK-LABEL: func.func @kept
// CHECK: accel.gru %arg0, %{{.*}}, %{{.*}} {hidden_size = 16 : i64} : (tensor<2x1x24xf32>, tensor<1x48x24xf32>, tensor<1x48x16xf32>)
// CHECK: accel.gru %arg1, %{{.*}}, %arg2 {hidden_size = 16 : i64} : (tensor<2x1x16xf32>, tensor<1x48x16xf32>, tensor<1x48x16xf32>)
func.func @kept(%x: tensor<2x1x24xf32>, %x2: tensor<2x1x16xf32>, %r2: tensor<1x48x16xf32>) -> (tensor<1x1x16xf32>, tensor<1x1x16xf32>) {
  %w = accel.constant dense<0.75> : tensor<1x48x24xf32>
  %r = accel.constant dense<0.5> : tensor<1x48x16xf32>
  // expected-warning @+1 {{accel.gru: its W and R stay f32, not msfp8: W's K = 24 (input or hidden size) is not a multiple of the msfp8 block size 16}}
  %y, %h = accel.gru %x, %w, %r {hidden_size = 16 : i64}
    : (tensor<2x1x24xf32>, tensor<1x48x24xf32>, tensor<1x48x16xf32>)
      -> (tensor<2x1x1x16xf32>, tensor<1x1x16xf32>)
  %w2 = accel.constant dense<0.75> : tensor<1x48x16xf32>
  // expected-warning @+1 {{accel.gru: its W and R stay f32, not msfp8: R is not a constant}}
  %y2, %h2 = accel.gru %x2, %w2, %r2 {hidden_size = 16 : i64}
    : (tensor<2x1x16xf32>, tensor<1x48x16xf32>, tensor<1x48x16xf32>)
      -> (tensor<2x1x1x16xf32>, tensor<1x1x16xf32>)
  return %h, %h2 : tensor<1x1x16xf32>, tensor<1x1x16xf32>
}

// -----

// A float precision hint keeps the op's weights.
// CHECK-LABEL: func.func @hinted
// CHECK: accel.lstm {{.*}} : (tensor<1x1x16xf32>, tensor<1x64x16xf32>, tensor<1x64x16xf32>)
func.func @hinted(%x: tensor<1x1x16xf32>) -> tensor<1x1x16xf32> {
  %w = accel.constant dense<0.25> : tensor<1x64x16xf32>
  %y, %h, %c = accel.lstm %x, %w, %w {hidden_size = 16 : i64, accel.hint = #accel.hint<precision = f32>}
    : (tensor<1x1x16xf32>, tensor<1x64x16xf32>, tensor<1x64x16xf32>)
      -> (tensor<1x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
  return %h : tensor<1x1x16xf32>
}

// -----

// MXFP8 E4M3 W and R (I = H = 32: one block of 32 a row). A row of 0.75 is
// scale 2^-9 (0x76) and elements 384 = 1.5 * 2^8 (0x7C); a row of -0.5 is
// scale 0x76 and elements -256 (0xF8). An mxfp8e4m3 hint converts the gru
// in any run.
// CHECK-LABEL: func.func @mxfp8
// CHECK: accel.lstm {{.*}} : (tensor<1x1x32xf32>, tensor<1x128x32x!accel.bfp<msfp8>>, tensor<1x128x32x!accel.bfp<msfp8>>)
// CHECK: accel.gru {{.*}} : (tensor<1x1x32xf32>, tensor<1x96x32x!accel.bfp<mxfp8e4m3>>, tensor<1x96x32x!accel.bfp<mxfp8e4m3>>)
// MXFP8-LABEL: func.func @mxfp8
// MXFP8-DAG: accel.constant dense_resource<[[W:weight_mxfp8e4m3[_0-9]*]]> : tensor<1x128x32x!accel.bfp<mxfp8e4m3>>
// MXFP8-DAG: accel.constant dense_resource<[[R:weight_mxfp8e4m3[_0-9]*]]> : tensor<1x128x32x!accel.bfp<mxfp8e4m3>>
// MXFP8: accel.lstm {{.*}} {hidden_size = 32 : i64, k_tile = 64 : i64} : (tensor<1x1x32xf32>, tensor<1x128x32x!accel.bfp<mxfp8e4m3>>, tensor<1x128x32x!accel.bfp<mxfp8e4m3>>)
// MXFP8: accel.gru {{.*}} : (tensor<1x1x32xf32>, tensor<1x96x32x!accel.bfp<mxfp8e4m3>>, tensor<1x96x32x!accel.bfp<mxfp8e4m3>>)
// MXFP8-DAG: "0x08000000767C7C7C7C
// MXFP8-DAG: "0x0800000076F8F8F8F8
func.func @mxfp8(%x: tensor<1x1x32xf32>) -> (tensor<1x1x32xf32>, tensor<1x1x32xf32>) {
  %w = accel.constant dense<0.75> : tensor<1x128x32xf32>
  %r = accel.constant dense<-0.5> : tensor<1x128x32xf32>
  %y, %h, %c = accel.lstm %x, %w, %r {hidden_size = 32 : i64}
    : (tensor<1x1x32xf32>, tensor<1x128x32xf32>, tensor<1x128x32xf32>)
      -> (tensor<1x1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
  %gw = accel.constant dense<0.75> : tensor<1x96x32xf32>
  %gy, %gh = accel.gru %x, %gw, %gw {hidden_size = 32 : i64, accel.hint = #accel.hint<precision = !accel.bfp<mxfp8e4m3>>}
    : (tensor<1x1x32xf32>, tensor<1x96x32xf32>, tensor<1x96x32xf32>)
      -> (tensor<1x1x1x32xf32>, tensor<1x1x32xf32>)
  return %h, %gh : tensor<1x1x32xf32>, tensor<1x1x32xf32>
}
