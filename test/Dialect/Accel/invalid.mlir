// RUN: nnaccel-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// Every diagnostic of the accel verifiers and shape inference, one case per
// message, plus a selection of ODS-generated constraint errors (dynamic or
// unranked shapes, wrong element types, missing attributes, trait checks)
// and the placement-attribute checks.
//
// Shape-inference failures are reported twice: the specific message from
// inferReturnTypes and the generic "failed to infer returned types" from the
// InferTypeOpInterface verifier; both are expected on the op line.
//
// -allow-unregistered-dialect is only needed for the host_partition case
// whose body ends in a foreign terminator.
//
// Not covered because the messages cannot be reached from IR: the
// ConstantOp "value type ... differs from the result type" check (the ODS
// AllTypesMatch trait fires first), "operand #N must be a ranked tensor" in
// broadcast inference and "expected 1 to 3 spatial dimensions" in window
// inference (the operand constraints / rank checks fire first).
// Not covered because of a bug: batch_norm's per-parameter shape and
// element-type checks (they read a dangling initializer list).

// ===--- Placement attribute and dialect attributes ---===
func.func @placement_card(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{card must be -1 (host) or a card index, got -2}}
  %0 = accel.relu %x {accel.placement = #accel.placement<card = -2>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @placement_host_cores(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a host placement (card = -1) cannot name cores}}
  %0 = accel.relu %x {accel.placement = #accel.placement<card = -1, cores = [0]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @placement_negative_core(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{core index must be non-negative, got -3}}
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 0, cores = [1, -3]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @placement_duplicate_core(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{core 0 is listed twice}}
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 0, cores = [0, 2, 0]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @placement_precision(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{precision must be a float or quantized type, got 'i8'}}
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 0, cores = [0], precision = i8>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @placement_not_placement(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.relu' op 'accel.placement' must be a #accel.placement attribute}}
  %0 = accel.relu %x {accel.placement = 0 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_dialect_attr(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.relu' op unknown accel dialect attribute 'accel.foo'}}
  %0 = accel.relu %x {accel.foo = 1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'accel.placement' must be a #accel.placement attribute}}
func.func @placement_on_func(%x: tensor<4xf32>) -> tensor<4xf32> attributes {accel.placement = "card0"} {
  return %x : tensor<4xf32>
}

// -----

// ===--- Elementwise ---===
func.func @add_no_broadcast(%a: tensor<4x8xf32>, %b: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{operand shapes do not broadcast: 4x8 and 3 (operand #1)}}
  // expected-error @+1 {{'accel.add' op failed to infer returned types}}
  %0 = accel.add %a, %b : (tensor<4x8xf32>, tensor<3xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @sub_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+2 {{operand element types differ: 'f32' vs 'f16'}}
  // expected-error @+1 {{'accel.sub' op failed to infer returned types}}
  %0 = accel.sub %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mul_wrong_result_shape(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+2 {{'accel.mul' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'accel.mul' op failed to infer returned types}}
  %0 = accel.mul %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @add_quantized_to_float(%a: tensor<4x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<4xf32> {
  // expected-error @+2 {{'accel.add' op inferred type(s) 'tensor<4x!quant.uniform<i8:f32, 1.000000e-01:3>>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'accel.add' op failed to infer returned types}}
  %0 = accel.add %a, %a : (tensor<4x!quant.uniform<i8:f32, 0.1:3>>, tensor<4x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @add_dynamic(%a: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'accel.add' op operand #0 must be statically shaped tensor of float, signless integer or quantized values, but got 'tensor<?x8xf32>'}}
  %0 = accel.add %a, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @div_unranked(%a: tensor<*xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.div' op operand #0 must be statically shaped tensor of float, signless integer or quantized values, but got 'tensor<*xf32>'}}
  %0 = accel.div %a, %a : (tensor<*xf32>, tensor<*xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @max_index_element(%a: tensor<4xindex>) -> tensor<4xindex> {
  // expected-error @+1 {{'accel.max' op operand #0 must be statically shaped tensor of float, signless integer or quantized values, but got 'tensor<4xindex>'}}
  %0 = accel.max %a, %a : (tensor<4xindex>, tensor<4xindex>) -> tensor<4xindex>
  return %0 : tensor<4xindex>
}

// -----

func.func @compare_no_broadcast(%a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<5xi1> {
  // expected-error @+2 {{operand shapes do not broadcast: 4 and 5 (operand #1)}}
  // expected-error @+1 {{'accel.compare' op failed to infer returned types}}
  %0 = accel.compare lt, %a, %b : (tensor<4xf32>, tensor<5xf32>) -> tensor<5xi1>
  return %0 : tensor<5xi1>
}

// -----

func.func @compare_result_not_bool(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.compare' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = accel.compare lt, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_condition_not_bool(%c: tensor<4xi8>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.where' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = accel.where %c, %a, %a : (tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_branch_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{operand element types differ: 'f32' vs 'i32'}}
  // expected-error @+1 {{'accel.where' op failed to infer returned types}}
  %0 = accel.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_condition_shape(%c: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{operand shapes do not broadcast: 3 and 4 (operand #1)}}
  // expected-error @+1 {{'accel.where' op failed to infer returned types}}
  %0 = accel.where %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sqrt_integer(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'accel.sqrt' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = accel.sqrt %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @sigmoid_integer(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'accel.sigmoid' op operand #0 must be statically shaped tensor of float or quantized values, but got 'tensor<4xi32>'}}
  %0 = accel.sigmoid %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @relu_type_change(%a: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'accel.relu' op requires the same type for all operands and results}}
  %0 = "accel.relu"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @clip_inverted(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.clip' op clip minimum 6.000000e+00 is greater than the maximum 5.000000e-01}}
  %0 = accel.clip %a {min = 6.0 : f32, max = 0.5 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clip_bound_type(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{attribute 'min' failed to satisfy constraint: 32-bit float attribute}}
  %0 = accel.clip %a {min = 0 : i32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cast_shape(%a: tensor<4xf32>) -> tensor<2x2xi32> {
  // expected-error @+1 {{'accel.cast' op requires the same shape for all operands and results}}
  %0 = accel.cast %a : tensor<4xf32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

func.func @round_integer(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'accel.round' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = accel.round %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Unsigned bytes are stored and cast, not computed with.
func.func @add_ui8(%a: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @+1 {{'accel.add' op operand #0 must be statically shaped tensor of float, signless integer or quantized values, but got 'tensor<4xui8>'}}
  %0 = accel.add %a, %a : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @cast_ui64(%a: tensor<4xui64>) -> tensor<4xi32> {
  // expected-error @+1 {{'accel.cast' op operand #0 must be statically shaped tensor of float, signless integer, quantized, ui8, ui16 or ui32 values, but got 'tensor<4xui64>'}}
  %0 = accel.cast %a : tensor<4xui64> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @gelu_bad_approx(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{expected ::mlir::nnaccel::accel::GeluApproximation to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse Accel_GeluApproximationAttr parameter 'value' which is to be a `::mlir::nnaccel::accel::GeluApproximation`}}
  %0 = accel.gelu %a {approximate = #accel.gelu_approx<fast>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ===--- matmul / fully_connected ---===
func.func @matmul_rank0(%a: tensor<f32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{matmul operands must have rank >= 1}}
  // expected-error @+1 {{'accel.matmul' op failed to infer returned types}}
  %0 = accel.matmul %a, %b : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_element_types(%a: tensor<2x4xf32>, %b: tensor<4x3xbf16>) -> tensor<2x3xf32> {
  // expected-error @+2 {{operand element types differ: 'f32' vs 'bf16'}}
  // expected-error @+1 {{'accel.matmul' op failed to infer returned types}}
  %0 = accel.matmul %a, %b : (tensor<2x4xf32>, tensor<4x3xbf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<2x4xf32>, %b: tensor<5x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{contraction sizes differ: lhs 2x4 has K = 4, rhs 5x3 has K = 5}}
  // expected-error @+1 {{'accel.matmul' op failed to infer returned types}}
  %0 = accel.matmul %a, %b : (tensor<2x4xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x2x4xf32>, %b: tensor<3x4x3xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+2 {{batch dimensions do not broadcast: 2x2x4 and 3x4x3}}
  // expected-error @+1 {{'accel.matmul' op failed to infer returned types}}
  %0 = accel.matmul %a, %b : (tensor<2x2x4xf32>, tensor<3x4x3xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

func.func @matmul_wrong_result(%a: tensor<4xf32>, %b: tensor<4x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+2 {{'accel.matmul' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<1x3xf32>'}}
  // expected-error @+1 {{'accel.matmul' op failed to infer returned types}}
  %0 = accel.matmul %a, %b : (tensor<4xf32>, tensor<4x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

func.func @fc_rank(%x: tensor<1x2x64xf32>, %w: tensor<64x32xf32>) -> tensor<2x32xf32> {
  // expected-error @+2 {{input and weight must be rank 2, got 1x2x64 and 64x32}}
  // expected-error @+1 {{'accel.fully_connected' op failed to infer returned types}}
  %0 = accel.fully_connected %x, %w : (tensor<1x2x64xf32>, tensor<64x32xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

func.func @fc_element_types(%x: tensor<1x64xf32>, %w: tensor<64x32xi8>) -> tensor<1x32xf32> {
  // expected-error @+2 {{input and weight element types differ: 'f32' vs 'i8'}}
  // expected-error @+1 {{'accel.fully_connected' op failed to infer returned types}}
  %0 = accel.fully_connected %x, %w : (tensor<1x64xf32>, tensor<64x32xi8>) -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

// -----

func.func @fc_block_weight_kxn(%x: tensor<1x64xf32>, %w: tensor<64x32x!accel.bfp<msfp8>>) -> tensor<1x32xf32> {
  // expected-error @+2 {{a block-float weight must be N x K (transpose_weight) and multiply a float input, got input 'f32'}}
  // expected-error @+1 {{'accel.fully_connected' op failed to infer returned types}}
  %0 = accel.fully_connected %x, %w : (tensor<1x64xf32>, tensor<64x32x!accel.bfp<msfp8>>) -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

// -----

func.func @fc_block_weight_int_input(%x: tensor<1x64xi32>, %w: tensor<32x64x!accel.bfp<mxint8>>) -> tensor<1x32xi32> {
  // expected-error @+2 {{a block-float weight must be N x K (transpose_weight) and multiply a float input, got input 'i32'}}
  // expected-error @+1 {{'accel.fully_connected' op failed to infer returned types}}
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<1x64xi32>, tensor<32x64x!accel.bfp<mxint8>>) -> tensor<1x32xi32>
  return %0 : tensor<1x32xi32>
}

// -----

func.func @lstm_block_w_float_r(%x: tensor<2x1x16xf32>, %w: tensor<1x64x16x!accel.bfp<msfp8>>, %r: tensor<1x64x16xf32>) -> tensor<1x1x16xf32> {
  // expected-error @+2 {{block-float W and R must have the same format, got '!accel.bfp<msfp8>' and 'f32'}}
  // expected-error @+1 {{'accel.lstm' op failed to infer returned types}}
  %y, %h, %c = accel.lstm %x, %w, %r {hidden_size = 16 : i64} : (tensor<2x1x16xf32>, tensor<1x64x16x!accel.bfp<msfp8>>, tensor<1x64x16xf32>) -> (tensor<2x1x1x16xf32>, tensor<1x1x16xf32>, tensor<1x1x16xf32>)
  return %h : tensor<1x1x16xf32>
}

// -----

func.func @gru_block_formats_differ(%x: tensor<2x1x32xf32>, %w: tensor<1x48x32x!accel.bfp<mxint8>>, %r: tensor<1x48x16x!accel.bfp<msfp8>>) -> tensor<1x1x16xf32> {
  // expected-error @+2 {{block-float W and R must have the same format, got '!accel.bfp<mxint8>' and '!accel.bfp<msfp8>'}}
  // expected-error @+1 {{'accel.gru' op failed to infer returned types}}
  %y, %h = accel.gru %x, %w, %r {hidden_size = 16 : i64} : (tensor<2x1x32xf32>, tensor<1x48x32x!accel.bfp<mxint8>>, tensor<1x48x16x!accel.bfp<msfp8>>) -> (tensor<2x1x1x16xf32>, tensor<1x1x16xf32>)
  return %h : tensor<1x1x16xf32>
}

// -----

func.func @fc_contraction(%x: tensor<1x64xf32>, %w: tensor<64x32xf32>) -> tensor<1x64xf32> {
  // expected-error @+2 {{contraction sizes differ: input 1x64 gives K = 64, weight 64x32 gives K = 32}}
  // expected-error @+1 {{'accel.fully_connected' op failed to infer returned types}}
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

func.func @fc_bias(%x: tensor<2x64xf32>, %w: tensor<64x32xf32>, %b: tensor<2xf32>) -> tensor<2x32xf32> {
  // expected-error @+2 {{bias of shape 2 does not broadcast to the 2x32 result}}
  // expected-error @+1 {{'accel.fully_connected' op failed to infer returned types}}
  %0 = accel.fully_connected %x, %w, %b : (tensor<2x64xf32>, tensor<64x32xf32>, tensor<2xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

func.func @fc_bounds_without_clip(%x: tensor<1x64xf32>, %w: tensor<64x32xf32>) -> tensor<1x32xf32> {
  // expected-error @+1 {{'accel.fully_connected' op 'activation_min'/'activation_max' require activation = clip, got relu}}
  %0 = accel.fully_connected %x, %w {activation = #accel.act<relu>, activation_max = 6.0 : f32} : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

// -----

func.func @fc_clip_without_bounds(%x: tensor<1x64xf32>, %w: tensor<64x32xf32>) -> tensor<1x32xf32> {
  // expected-error @+1 {{'accel.fully_connected' op activation = clip needs 'activation_min' or 'activation_max'}}
  %0 = accel.fully_connected %x, %w {activation = #accel.act<clip>} : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

// -----

func.func @fc_clip_inverted(%x: tensor<1x64xf32>, %w: tensor<64x32xf32>) -> tensor<1x32xf32> {
  // expected-error @+1 {{'accel.fully_connected' op activation minimum 1.000000e+00 is greater than the maximum -1.000000e+00}}
  %0 = accel.fully_connected %x, %w {activation = #accel.act<clip>, activation_min = 1.0 : f32, activation_max = -1.0 : f32} : (tensor<1x64xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

// -----

// ===--- conv and pooling ---===
func.func @conv_input_rank(%x: tensor<3x32xf32>, %w: tensor<16x3xf32>) -> tensor<3x16xf32> {
  // expected-error @+2 {{input must be N x C x D1..Dk with k in 1..3, got 3x32}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64>, pads = array<i64>, dilations = array<i64>} : (tensor<3x32xf32>, tensor<16x3xf32>) -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+2 {{weight rank 3 differs from input rank 4}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

// A block-float conv weight is F x K rows with the kernel's size in
// kernel_shape (accel-quantize-block-float).
func.func @conv_block_no_kernel_shape(%x: tensor<1x32x8x8xf32>, %w: tensor<16x32x!accel.bfp<msfp8>>) -> tensor<1x16x8x8xf32> {
  // expected-error @+2 {{a block-float weight must be F x K with a kernel_shape of 2 entries, got 16x32}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x32x8x8xf32>, tensor<16x32x!accel.bfp<msfp8>>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}

// -----

func.func @conv_block_k(%x: tensor<1x32x8x8xf32>, %w: tensor<16x32x!accel.bfp<msfp8>>) -> tensor<1x16x6x6xf32> {
  // expected-error @+2 {{a block-float weight has K = 32, expected 32 channels per group x 9 taps of kernel_shape 3x3}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x32x8x8xf32>, tensor<16x32x!accel.bfp<msfp8>>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

func.func @conv_kernel_shape_f32(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x1x1xf32>) -> tensor<1x16x8x8xf32> {
  // expected-error @+2 {{kernel_shape is only for a block-float weight (F x K); this weight's shape is the kernel's}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}

// -----

func.func @conv_block_int_input(%x: tensor<1x32x8x8xi32>, %w: tensor<16x32x!accel.bfp<msfp8>>) -> tensor<1x16x8x8xi32> {
  // expected-error @+2 {{a block-float weight multiplies a float input, got 'i32'}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {kernel_shape = array<i64: 1, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x32x8x8xi32>, tensor<16x32x!accel.bfp<msfp8>>) -> tensor<1x16x8x8xi32>
  return %0 : tensor<1x16x8x8xi32>
}

// -----

func.func @conv_element_types(%x: tensor<1x3x8x8xf16>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf16> {
  // expected-error @+2 {{input and weight element types differ: 'f16' vs 'f32'}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf16>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf16>
  return %0 : tensor<1x16x6x6xf16>
}

// -----

func.func @conv_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+2 {{groups = 3 must divide input channels (6) and filters (8)}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 3 : i64} : (tensor<1x6x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv_channels_per_group(%x: tensor<1x8x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+2 {{weight has 4 channels per group, expected 2 (8 input channels / 4 groups)}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x8x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<1x16xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+2 {{bias must have shape 16, got 1x16}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<1x16xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

func.func @conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+2 {{'strides' needs 2 entries, got 1}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

func.func @conv_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+2 {{'pads' needs 4 entries (begins then ends), got 2}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

func.func @conv_dilations(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+2 {{'dilations' needs 2 entries, got 3}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+2 {{spatial dimension 1: kernel, stride and dilation must be positive}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

func.func @conv_negative_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+2 {{spatial dimension 0: pads must be non-negative}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, -1, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

func.func @conv_window_too_large(%x: tensor<1x3x4x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x1x6xf32> {
  // expected-error @+2 {{spatial dimension 0: window of extent 5 does not fit the padded input of size 4}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 1>} : (tensor<1x3x4x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x1x6xf32>
  return %0 : tensor<1x16x1x6xf32>
}

// -----

func.func @conv_wrong_result(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32> {
  // expected-error @+2 {{'accel.conv' op inferred type(s) 'tensor<1x16x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x16x8x8xf32>'}}
  // expected-error @+1 {{'accel.conv' op failed to infer returned types}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}

// -----

func.func @conv_bounds_without_clip(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+1 {{'accel.conv' op 'activation_min'/'activation_max' require activation = clip, got none}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, activation_min = 0.0 : f32} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

func.func @conv_missing_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32> {
  // expected-error @+1 {{'accel.conv' op requires attribute 'strides'}}
  %0 = accel.conv %x, %w {pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return %0 : tensor<1x16x6x6xf32>
}

// -----

func.func @max_pool_rank(%x: tensor<1x2x3x4x5x6xf32>) -> tensor<1x2x3x4x5x6xf32> {
  // expected-error @+2 {{input must be N x C x D1..Dk with k in 1..3, got 1x2x3x4x5x6}}
  // expected-error @+1 {{'accel.max_pool' op failed to infer returned types}}
  %0 = accel.max_pool %x {kernel_shape = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x4x5x6xf32> -> tensor<1x2x3x4x5x6xf32>
  return %0 : tensor<1x2x3x4x5x6xf32>
}

// -----

func.func @max_pool_kernel_rank(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+2 {{kernel has 1 dimensions but the input has 2 spatial dimensions}}
  // expected-error @+1 {{'accel.max_pool' op failed to infer returned types}}
  %0 = accel.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

func.func @avg_pool_zero_kernel(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+2 {{spatial dimension 1: kernel, stride and dilation must be positive}}
  // expected-error @+1 {{'accel.avg_pool' op failed to infer returned types}}
  %0 = accel.avg_pool %x {kernel_shape = array<i64: 2, 0>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x2x8x8xf32> -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

func.func @avg_pool_integer(%x: tensor<1x2x8x8xi8>) -> tensor<1x2x4x4xi8> {
  // expected-error @+1 {{'accel.avg_pool' op operand #0 must be statically shaped tensor of float or quantized values, but got 'tensor<1x2x8x8xi8>'}}
  %0 = accel.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x2x8x8xi8> -> tensor<1x2x4x4xi8>
  return %0 : tensor<1x2x4x4xi8>
}

// -----

func.func @max_pool_ceil_result(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+2 {{'accel.max_pool' op inferred type(s) 'tensor<1x2x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x2x3x3xf32>'}}
  // expected-error @+1 {{'accel.max_pool' op failed to infer returned types}}
  %0 = accel.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x2x7x7xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @global_avg_pool_rank(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+2 {{input must be N x C x D1..Dk with k in 1..3, got 2x8}}
  // expected-error @+1 {{'accel.global_avg_pool' op failed to infer returned types}}
  %0 = accel.global_avg_pool %x : tensor<2x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// ===--- normalisation and reductions ---===
func.func @batch_norm_rank(%x: tensor<8xf32>, %p: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'accel.batch_norm' op input must have a channel dimension, got 8}}
  %0 = accel.batch_norm %x, %p, %p, %p, %p : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @batch_norm_result_type(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>) -> tensor<1x8x4x4xf16> {
  // expected-error @+1 {{'accel.batch_norm' op failed to verify that all of {input, result} have same type}}
  %0 = accel.batch_norm %x, %p, %p, %p, %p : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf16>
  return %0 : tensor<1x8x4x4xf16>
}

// -----

func.func @layer_norm_axis(%x: tensor<2x16xf32>, %g: tensor<16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{'accel.layer_norm' op axis 2 is out of range for rank 2}}
  %0 = accel.layer_norm %x, %g {axis = 2 : i64} : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

func.func @layer_norm_scale(%x: tensor<2x16xf32>, %g: tensor<2x16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{'accel.layer_norm' op scale must have shape 16 (the normalised dimensions), got 2x16}}
  %0 = accel.layer_norm %x, %g : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

func.func @layer_norm_bias(%x: tensor<2x16xf32>, %g: tensor<2x16xf32>, %b: tensor<16xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{'accel.layer_norm' op bias must have shape 2x16 (the normalised dimensions), got 16}}
  %0 = accel.layer_norm %x, %g, %b {axis = -2 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

func.func @softmax_axis(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // expected-error @+1 {{'accel.softmax' op axis -3 is out of range for rank 2}}
  %0 = accel.softmax %x {axis = -3 : i64} : tensor<2x10xf32>
  return %0 : tensor<2x10xf32>
}

// -----

func.func @log_softmax_axis(%x: tensor<2x10xf32>) -> tensor<2x10xf32> {
  // expected-error @+1 {{'accel.log_softmax' op axis 2 is out of range for rank 2}}
  %0 = accel.log_softmax %x {axis = 2 : i64} : tensor<2x10xf32>
  return %0 : tensor<2x10xf32>
}

// -----

func.func @reduce_axis_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'accel.reduce_sum' op failed to infer returned types}}
  %0 = accel.reduce_sum %x {axes = array<i64: 2>, keepdims = false} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_axis_twice(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{axis -1 is listed twice}}
  // expected-error @+1 {{'accel.reduce_mean' op failed to infer returned types}}
  %0 = accel.reduce_mean %x {axes = array<i64: 1, -1>, keepdims = false} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_keepdims_result(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{'accel.reduce_max' op inferred type(s) 'tensor<4x1xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'accel.reduce_max' op failed to infer returned types}}
  %0 = accel.reduce_max %x {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ===--- constants and data movement ---===
func.func @constant_type() -> tensor<2xf32> {
  // expected-error @+1 {{'accel.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "accel.constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @constant_dynamic() -> tensor<?xf32> {
  // expected-error @+1 {{'accel.constant' op result #0 must be statically shaped tensor of float, signless integer, quantized, block floating point, ui8 or rowwise values, but got 'tensor<?xf32>'}}
  %0 = "accel.constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) -> tensor<6xf16> {
  // expected-error @+1 {{'accel.reshape' op element type changes from 'f32' to 'f16'}}
  %0 = accel.reshape %x : tensor<2x3xf32> -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'accel.reshape' op cannot reshape 2x3 (6 elements) to 5 (5 elements)}}
  %0 = accel.reshape %x : tensor<2x3xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @expand_element_type(%x: tensor<1x3xi32>) -> tensor<2x3xi64> {
  // expected-error @+1 {{'accel.expand' op element type changes from 'i32' to 'i64'}}
  %0 = accel.expand %x : tensor<1x3xi32> -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

func.func @expand_shape(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'accel.expand' op cannot broadcast 2x3 to 3}}
  %0 = accel.expand %x : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @transpose_size(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{permutation has 3 entries for a rank-2 input}}
  // expected-error @+1 {{'accel.transpose' op failed to infer returned types}}
  %0 = accel.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_not_permutation(%x: tensor<2x3x4xf32>) -> tensor<3x3x2xf32> {
  // expected-error @+2 {{permutation [1, 1, 0] is not a permutation of 0..2}}
  // expected-error @+1 {{'accel.transpose' op failed to infer returned types}}
  %0 = accel.transpose %x {permutation = array<i64: 1, 1, 0>} : tensor<2x3x4xf32> -> tensor<3x3x2xf32>
  return %0 : tensor<3x3x2xf32>
}

// -----

func.func @concat_empty() -> tensor<2xf32> {
  // expected-error @+2 {{concat needs at least one input}}
  // expected-error @+1 {{'accel.concat' op failed to infer returned types}}
  %0 = accel.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{'accel.concat' op failed to infer returned types}}
  %0 = accel.concat %a, %a {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{input #1 has rank 1, expected 2}}
  // expected-error @+1 {{'accel.concat' op failed to infer returned types}}
  %0 = accel.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<2x6xf32> {
  // expected-error @+2 {{input #1 has element type 'f16', expected 'f32'}}
  // expected-error @+1 {{'accel.concat' op failed to infer returned types}}
  %0 = accel.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{input #1 has shape 3x3 which differs from 2x3 outside axis 1}}
  // expected-error @+1 {{'accel.concat' op failed to infer returned types}}
  %0 = accel.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @slice_entries(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{starts, ends and steps need one entry per dimension (2)}}
  // expected-error @+1 {{'accel.slice' op failed to infer returned types}}
  %0 = accel.slice %x {starts = array<i64: 0>, ends = array<i64: 4, 8>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @slice_zero_step(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{dimension 1: step is 0}}
  // expected-error @+1 {{'accel.slice' op failed to infer returned types}}
  %0 = accel.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>, steps = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @slice_not_normalised(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  // expected-error @+2 {{dimension 1: slice [-2:8:1] is not normalised for size 8}}
  // expected-error @+1 {{'accel.slice' op failed to infer returned types}}
  %0 = accel.slice %x {starts = array<i64: 0, -2>, ends = array<i64: 4, 8>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @slice_negative_step_bounds(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  // expected-error @+2 {{dimension 1: slice [8:0:-4] is not normalised for size 8}}
  // expected-error @+1 {{'accel.slice' op failed to infer returned types}}
  %0 = accel.slice %x {starts = array<i64: 0, 8>, ends = array<i64: 4, 0>, steps = array<i64: 1, -4>} : tensor<4x8xf32> -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @gather_axis(%x: tensor<4x8xf32>, %i: tensor<2xi64>) -> tensor<4x2xf32> {
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{'accel.gather' op failed to infer returned types}}
  %0 = accel.gather %x, %i {axis = -3 : i64} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @gather_index_type(%x: tensor<4x8xf32>, %i: tensor<2xi16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'accel.gather' op operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xi16>'}}
  %0 = accel.gather %x, %i : (tensor<4x8xf32>, tensor<2xi16>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @pad_entries(%x: tensor<2x3xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'pads' needs 4 entries (begins then ends), got 2}}
  // expected-error @+1 {{'accel.pad' op failed to infer returned types}}
  %0 = accel.pad %x {pads = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error @+2 {{dimension 1: pads must be non-negative}}
  // expected-error @+1 {{'accel.pad' op failed to infer returned types}}
  %0 = accel.pad %x {pads = array<i64: 0, 0, 0, -1>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+2 {{dimension 1: reflect padding must be smaller than the size 3}}
  // expected-error @+1 {{'accel.pad' op failed to infer returned types}}
  %0 = accel.pad %x {pads = array<i64: 0, 3, 0, 0>, mode = #accel.pad_mode<reflect>} : tensor<2x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// ===--- embedding_bag, lstm, gru ---===
func.func @bag_table_rank(%t: tensor<1000xf32>, %i: tensor<4x3xi64>) -> tensor<4x1xf32> {
  // expected-error @+2 {{table must be rank 2 (rows x dim), got 1000}}
  // expected-error @+1 {{'accel.embedding_bag' op failed to infer returned types}}
  %0 = accel.embedding_bag %t, %i : (tensor<1000xf32>, tensor<4x3xi64>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @bag_offsets_and_lengths(%t: tensor<100x8xf32>, %i: tensor<12xi64>, %s: tensor<4xi64>) -> tensor<4x8xf32> {
  // expected-error @+2 {{give either 'offsets' or 'lengths', not both}}
  // expected-error @+1 {{'accel.embedding_bag' op failed to infer returned types}}
  %0 = accel.embedding_bag %t, %i offsets %s lengths %s : (tensor<100x8xf32>, tensor<12xi64>, tensor<4xi64>, tensor<4xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @bag_2d_with_offsets(%t: tensor<100x8xf32>, %i: tensor<4x3xi64>, %s: tensor<4xi64>) -> tensor<4x8xf32> {
  // expected-error @+2 {{2-D indices already define the bags; drop 'offsets'/'lengths'}}
  // expected-error @+1 {{'accel.embedding_bag' op failed to infer returned types}}
  %0 = accel.embedding_bag %t, %i offsets %s : (tensor<100x8xf32>, tensor<4x3xi64>, tensor<4xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @bag_1d_without_segments(%t: tensor<100x8xf32>, %i: tensor<12xi64>) -> tensor<1x8xf32> {
  // expected-error @+2 {{1-D indices need 'offsets' or 'lengths' to define the bags}}
  // expected-error @+1 {{'accel.embedding_bag' op failed to infer returned types}}
  %0 = accel.embedding_bag %t, %i : (tensor<100x8xf32>, tensor<12xi64>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

func.func @bag_segments_rank(%t: tensor<100x8xf32>, %i: tensor<12xi64>, %s: tensor<4x1xi32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{offsets/lengths must be rank 1, got 4x1}}
  // expected-error @+1 {{'accel.embedding_bag' op failed to infer returned types}}
  %0 = accel.embedding_bag %t, %i lengths %s : (tensor<100x8xf32>, tensor<12xi64>, tensor<4x1xi32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @bag_indices_rank(%t: tensor<100x8xf32>, %i: tensor<2x2x3xi64>) -> tensor<2x8xf32> {
  // expected-error @+2 {{indices must be rank 1 or 2, got 2x2x3}}
  // expected-error @+1 {{'accel.embedding_bag' op failed to infer returned types}}
  %0 = accel.embedding_bag %t, %i : (tensor<100x8xf32>, tensor<2x2x3xi64>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @bag_weights_shape(%t: tensor<100x8xf32>, %i: tensor<4x3xi64>, %w: tensor<12xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{per_sample_weights shape 12 differs from the indices shape 4x3}}
  // expected-error @+1 {{'accel.embedding_bag' op failed to infer returned types}}
  %0 = accel.embedding_bag %t, %i weights %w : (tensor<100x8xf32>, tensor<4x3xi64>, tensor<12xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @bag_mean_integer(%t: tensor<100x8xi8>, %i: tensor<4x3xi64>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'accel.embedding_bag' op mean pooling needs a real or quantized table}}
  %0 = accel.embedding_bag %t, %i {mode = #accel.bag_mode<mean>} : (tensor<100x8xi8>, tensor<4x3xi64>) -> tensor<4x8xi8>
  return %0 : tensor<4x8xi8>
}

// -----

func.func @lstm_x_rank(%x: tensor<5x16xf32>, %w: tensor<1x128x16xf32>, %r: tensor<1x128x32xf32>) -> tensor<1x1x32xf32> {
  // expected-error @+2 {{X must be seq x batch x input, got 5x16}}
  // expected-error @+1 {{'accel.lstm' op failed to infer returned types}}
  %y:3 = accel.lstm %x, %w, %r {hidden_size = 32 : i64} : (tensor<5x16xf32>, tensor<1x128x16xf32>, tensor<1x128x32xf32>) -> (tensor<5x1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
  return %y#1 : tensor<1x1x32xf32>
}

// -----

func.func @lstm_hidden_size(%x: tensor<5x1x16xf32>, %w: tensor<1x0x16xf32>, %r: tensor<1x0x0xf32>) -> tensor<1x1x0xf32> {
  // expected-error @+2 {{hidden_size must be positive, got 0}}
  // expected-error @+1 {{'accel.lstm' op failed to infer returned types}}
  %y:3 = accel.lstm %x, %w, %r {hidden_size = 0 : i64} : (tensor<5x1x16xf32>, tensor<1x0x16xf32>, tensor<1x0x0xf32>) -> (tensor<5x1x1x0xf32>, tensor<1x1x0xf32>, tensor<1x1x0xf32>)
  return %y#1 : tensor<1x1x0xf32>
}

// -----

func.func @lstm_w_shape(%x: tensor<5x1x16xf32>, %w: tensor<1x96x16xf32>, %r: tensor<1x128x32xf32>) -> tensor<1x1x32xf32> {
  // expected-error @+2 {{'W' must have shape 1x128x16, got 1x96x16}}
  // expected-error @+1 {{'accel.lstm' op failed to infer returned types}}
  %y:3 = accel.lstm %x, %w, %r {hidden_size = 32 : i64} : (tensor<5x1x16xf32>, tensor<1x96x16xf32>, tensor<1x128x32xf32>) -> (tensor<5x1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
  return %y#1 : tensor<1x1x32xf32>
}

// -----

func.func @lstm_bidirectional_b(%x: tensor<5x1x16xf32>, %w: tensor<2x128x16xf32>, %r: tensor<2x128x32xf32>, %b: tensor<1x256xf32>) -> tensor<2x1x32xf32> {
  // expected-error @+2 {{'B' must have shape 2x256, got 1x256}}
  // expected-error @+1 {{'accel.lstm' op failed to infer returned types}}
  %y:3 = accel.lstm %x, %w, %r, %b {hidden_size = 32 : i64, direction = #accel.rnn_direction<bidirectional>} : (tensor<5x1x16xf32>, tensor<2x128x16xf32>, tensor<2x128x32xf32>, tensor<1x256xf32>) -> (tensor<5x2x1x32xf32>, tensor<2x1x32xf32>, tensor<2x1x32xf32>)
  return %y#1 : tensor<2x1x32xf32>
}

// -----

func.func @lstm_peepholes(%x: tensor<5x1x16xf32>, %w: tensor<1x128x16xf32>, %r: tensor<1x128x32xf32>, %p: tensor<1x128xf32>) -> tensor<1x1x32xf32> {
  // expected-error @+2 {{'P' must have shape 1x96, got 1x128}}
  // expected-error @+1 {{'accel.lstm' op failed to infer returned types}}
  %y:3 = accel.lstm %x, %w, %r peepholes %p {hidden_size = 32 : i64} : (tensor<5x1x16xf32>, tensor<1x128x16xf32>, tensor<1x128x32xf32>, tensor<1x128xf32>) -> (tensor<5x1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
  return %y#1 : tensor<1x1x32xf32>
}

// -----

func.func @lstm_element_type(%x: tensor<5x1x16xf32>, %w: tensor<1x128x16xf32>, %r: tensor<1x128x32xf32>, %c: tensor<1x1x32xf16>) -> tensor<1x1x32xf32> {
  // expected-error @+2 {{'initial_c' element type 'f16' differs from X's 'f32'}}
  // expected-error @+1 {{'accel.lstm' op failed to infer returned types}}
  %y:3 = accel.lstm %x, %w, %r initial_c %c {hidden_size = 32 : i64} : (tensor<5x1x16xf32>, tensor<1x128x16xf32>, tensor<1x128x32xf32>, tensor<1x1x32xf16>) -> (tensor<5x1x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
  return %y#1 : tensor<1x1x32xf32>
}

// -----

func.func @lstm_wrong_result(%x: tensor<5x1x16xf32>, %w: tensor<1x128x16xf32>, %r: tensor<1x128x32xf32>) -> tensor<1x1x32xf32> {
  // expected-error @+2 {{'accel.lstm' op inferred type(s) 'tensor<5x1x1x32xf32>', 'tensor<1x1x32xf32>', 'tensor<1x1x32xf32>' are incompatible with return type(s) of operation 'tensor<5x1x32xf32>', 'tensor<1x1x32xf32>', 'tensor<1x1x32xf32>'}}
  // expected-error @+1 {{'accel.lstm' op failed to infer returned types}}
  %y:3 = accel.lstm %x, %w, %r {hidden_size = 32 : i64} : (tensor<5x1x16xf32>, tensor<1x128x16xf32>, tensor<1x128x32xf32>) -> (tensor<5x1x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>)
  return %y#1 : tensor<1x1x32xf32>
}

// -----

func.func @lstm_integer(%x: tensor<5x1x16xi8>, %w: tensor<1x128x16xi8>, %r: tensor<1x128x32xi8>) -> tensor<1x1x32xi8> {
  // expected-error @+1 {{'accel.lstm' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<5x1x16xi8>'}}
  %y:3 = accel.lstm %x, %w, %r {hidden_size = 32 : i64} : (tensor<5x1x16xi8>, tensor<1x128x16xi8>, tensor<1x128x32xi8>) -> (tensor<5x1x1x32xi8>, tensor<1x1x32xi8>, tensor<1x1x32xi8>)
  return %y#1 : tensor<1x1x32xi8>
}

// -----

func.func @gru_r_shape(%x: tensor<3x1x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x32x8xf32>) -> tensor<1x1x8xf32> {
  // expected-error @+2 {{'R' must have shape 1x24x8, got 1x32x8}}
  // expected-error @+1 {{'accel.gru' op failed to infer returned types}}
  %y:2 = accel.gru %x, %w, %r {hidden_size = 8 : i64} : (tensor<3x1x4xf32>, tensor<1x24x4xf32>, tensor<1x32x8xf32>) -> (tensor<3x1x1x8xf32>, tensor<1x1x8xf32>)
  return %y#1 : tensor<1x1x8xf32>
}

// -----

func.func @gru_initial_h(%x: tensor<3x2x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x24x8xf32>, %h: tensor<1x1x8xf32>) -> tensor<1x2x8xf32> {
  // expected-error @+2 {{'initial_h' must have shape 1x2x8, got 1x1x8}}
  // expected-error @+1 {{'accel.gru' op failed to infer returned types}}
  %y:2 = accel.gru %x, %w, %r initial_h %h {hidden_size = 8 : i64} : (tensor<3x2x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>, tensor<1x1x8xf32>) -> (tensor<3x1x2x8xf32>, tensor<1x2x8xf32>)
  return %y#1 : tensor<1x2x8xf32>
}

// -----

func.func @gru_missing_hidden_size(%x: tensor<3x1x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x24x8xf32>) -> tensor<1x1x8xf32> {
  // expected-error @+1 {{'accel.gru' op requires attribute 'hidden_size'}}
  %y:2 = accel.gru %x, %w, %r : (tensor<3x1x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>) -> (tensor<3x1x1x8xf32>, tensor<1x1x8xf32>)
  return %y#1 : tensor<1x1x8xf32>
}

// -----

// ===--- quantization, precision, transfers, host partitions ---===
func.func @quantize_expressed(%x: tensor<8xf16>) -> tensor<8x!quant.uniform<i8:f32, 0.1>> {
  // expected-error @+1 {{'accel.quantize' op result quantizes 'f32' values but the input holds 'f16'}}
  %0 = accel.quantize %x : tensor<8xf16> -> tensor<8x!quant.uniform<i8:f32, 0.1>>
  return %0 : tensor<8x!quant.uniform<i8:f32, 0.1>>
}

// -----

func.func @quantize_to_integer(%x: tensor<8xf32>) -> tensor<8xi8> {
  // expected-error @+1 {{'accel.quantize' op result #0 must be statically shaped tensor of QuantizedType values, but got 'tensor<8xi8>'}}
  %0 = accel.quantize %x : tensor<8xf32> -> tensor<8xi8>
  return %0 : tensor<8xi8>
}

// -----

func.func @quantize_shape(%x: tensor<8xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.1>> {
  // expected-error @+1 {{'accel.quantize' op requires the same shape for all operands and results}}
  %0 = accel.quantize %x : tensor<8xf32> -> tensor<4x!quant.uniform<i8:f32, 0.1>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.1>>
}

// -----

func.func @dequantize_expressed(%q: tensor<8x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<8xbf16> {
  // expected-error @+1 {{'accel.dequantize' op input expresses 'f32' values but the result holds 'bf16'}}
  %0 = accel.dequantize %q : tensor<8x!quant.uniform<i8:f32, 0.1:3>> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

func.func @requantize_expressed(%q: tensor<8x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<8x!quant.uniform<i8:f16, 0.1>> {
  // expected-error @+1 {{'accel.requantize' op input and result express different types: 'f32' vs 'f16'}}
  %0 = accel.requantize %q : tensor<8x!quant.uniform<i8:f32, 0.1:3>> -> tensor<8x!quant.uniform<i8:f16, 0.1>>
  return %0 : tensor<8x!quant.uniform<i8:f16, 0.1>>
}

// -----

func.func @convert_integer(%x: tensor<8xi32>) -> tensor<8xf32> {
  // expected-error @+1 {{'accel.convert' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<8xi32>'}}
  %0 = accel.convert %x : tensor<8xi32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @transfer_card(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'accel.transfer' op cards are -1 (host) or a card index, got -2 -> 0}}
  %0 = accel.transfer %x {source = -2 : i64, destination = 0 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @transfer_same_card(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'accel.transfer' op source and destination are both card 1}}
  %0 = accel.transfer %x {source = 1 : i64, destination = 1 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @host_partition_arguments(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.host_partition' op body has 2 arguments for 1 inputs}}
  %0 = accel.host_partition (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    accel.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @host_partition_argument_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'accel.host_partition' op body argument #0 has type 'tensor<4xf16>' but input #0 is 'tensor<4xf32>'}}
  %0 = accel.host_partition (%x) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf16>):
    accel.yield %a : tensor<4xf16>
  }
  return %0 : tensor<4xf16>
}

// -----

func.func @host_partition_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.host_partition' op body must end with accel.yield}}
  %0 = accel.host_partition (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    "test.terminator"(%a) : (tensor<4xf32>) -> ()
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @host_partition_yield_types(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.host_partition' op yields 2 values whose types differ from the results}}
  %0 = accel.host_partition (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %n = accel.neg %a : tensor<4xf32>
    accel.yield %a, %n : tensor<4xf32>, tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @host_partition_unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'accel.host_partition' op operand #0 must be variadic of ranked tensor of any type values, but got 'tensor<*xf32>'}}
  %0 = accel.host_partition (%x) : (tensor<*xf32>) -> tensor<*xf32> {
  ^bb0(%a: tensor<*xf32>):
    accel.yield %a : tensor<*xf32>
  }
  return %0 : tensor<*xf32>
}

// -----

func.func @yield_outside_partition(%x: tensor<4xf32>) {
  // expected-error @+1 {{'accel.yield' op expects parent op to be one of 'accel.host_partition, accel.card_partition'}}
  accel.yield %x : tensor<4xf32>
}

// -----

// Regression: the batch_norm verifier names the parameter correctly.
func.func @batch_norm_bad_variance(%x: tensor<1x8x4x4xf32>, %p: tensor<8xf32>, %v: tensor<4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{'variance' must have shape 8 (the channel count), got 4}}
  %0 = accel.batch_norm %x, %p, %p, %p, %v : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

func.func @layer_norm_scale_type(%x: tensor<2x8xf32>, %g: tensor<8xf16>) -> tensor<2x8xf32> {
  // expected-error @+1 {{scale element type 'f16' differs from the input's 'f32'}}
  %0 = accel.layer_norm %x, %g : (tensor<2x8xf32>, tensor<8xf16>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @global_pool_rank(%x: tensor<1x2x1x1x1x1xf32>) -> tensor<1x2x1x1x1x1xf32> {
  // expected-error @+2 {{input must be N x C x D1..Dk with k in 1..3, got 1x2x1x1x1x1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = accel.global_avg_pool %x : tensor<1x2x1x1x1x1xf32> -> tensor<1x2x1x1x1x1xf32>
  return %0 : tensor<1x2x1x1x1x1xf32>
}

// -----

func.func @placement_unknown_field(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown placement field 'speed' (expected cores, precision or memory)}}
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 0, speed = 3>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @placement_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'memory' is given twice}}
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 0, memory = dram, memory = local>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @placement_bad_memory(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected memory dram, shared or local, got 'l2'}}
  %0 = accel.relu %x {accel.placement = #accel.placement<card = 0, memory = l2>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dram_address_negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.dram_address' must be a non-negative integer (one result) or an array of one non-negative integer per result}}
  %0 = accel.relu %x {accel.dram_address = -64 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dram_address_per_result(%x: tensor<3x1x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>) -> tensor<3x1x1x3xf32> {
  // expected-error @+1 {{'accel.dram_address' must be a non-negative integer (one result) or an array of one non-negative integer per result}}
  %y, %h, %c = accel.lstm %x, %w, %r {hidden_size = 3 : i64, accel.dram_address = array<i64: 0, 64>} : (tensor<3x1x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>) -> (tensor<3x1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>)
  return %y : tensor<3x1x1x3xf32>
}

// -----

func.func @in_place_on_compute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.in_place' is a unit attribute of accel.reshape, accel.transpose, accel.slice and accel.concat}}
  %0 = accel.relu %x {accel.in_place} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @work_begin_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.dram_work_begin' must be a non-negative integer on an accel.card_partition}}
  %0 = accel.relu %x {accel.dram_work_begin = 64 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shared_bytes_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.shared_bytes' must be a non-negative integer on an accel.card_partition}}
  %0 = accel.relu %x {accel.shared_bytes = 64 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @result_shared_address_outside_partition(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.result_shared_address' must be a non-negative integer on a single-result op of an accel.card_partition}}
  %0 = accel.relu %x {accel.result_shared_address = 0 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negative_result_shared_address(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'accel.result_shared_address' must be a non-negative integer on a single-result op of an accel.card_partition}}
    %1 = accel.relu %a {accel.result_shared_address = -64 : i64} : tensor<4xf32>
    accel.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @shared_address_outside_partition(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.shared_address' must be a non-negative integer on an op of an accel.card_partition}}
  %0 = accel.relu %x {accel.shared_address = 0 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negative_shared_address(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'accel.shared_address' must be a non-negative integer on an op of an accel.card_partition}}
    %1 = accel.relu %a {accel.shared_address = -64 : i64} : tensor<4xf32>
    accel.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @result_pitch_outside_partition(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'accel.result_pitch' must be an integer on a single-result op of an accel.card_partition with a ranked tensor result}}
  %0 = accel.relu %x {accel.result_pitch = 512 : i64} : tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @result_pitch_below_row(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4x64xf32>) -> tensor<4x64xf32> {
  ^bb0(%a: tensor<4x64xf32>):
    // expected-error @+1 {{'accel.result_pitch' (128 bytes) is smaller than a result row (256 bytes)}}
    %1 = accel.relu %a {accel.result_pitch = 128 : i64} : tensor<4x64xf32>
    accel.yield %1 : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}

// -----

// expected-error @+2 {{expected ::mlir::nnaccel::accel::BlockFormat to be one of: msfp8, msfp9, mxint8}}
// expected-error @+1 {{failed to parse Accel_BlockFloatType parameter 'format'}}
func.func @bad_block_format(%x: tensor<16x!accel.bfp<msfp7>>) {
  return
}

// -----

func.func @block_float_arithmetic(%x: tensor<16x!accel.bfp<msfp8>>) -> tensor<16x!accel.bfp<msfp8>> {
  // expected-error @+1 {{'accel.relu' op operand #0 must be statically shaped tensor of float, signless integer or quantized values, but got 'tensor<16x!accel.bfp<msfp8>>'}}
  %0 = accel.relu %x : tensor<16x!accel.bfp<msfp8>>
  return %0 : tensor<16x!accel.bfp<msfp8>>
}

// -----

// expected-error @+1 {{rowwise tables have 4- or 8-bit codes, not 2}}
func.func @bad_rowwise_bits(%x: tensor<4x2x!accel.rowwise<2>>) {
  return
}

// -----

func.func @rowwise_arithmetic(%x: tensor<4x2x!accel.rowwise<4>>) -> tensor<4x2x!accel.rowwise<4>> {
  // expected-error @+1 {{'accel.relu' op operand #0 must be statically shaped tensor of float, signless integer or quantized values, but got 'tensor<4x2x!accel.rowwise<4>>'}}
  %0 = accel.relu %x : tensor<4x2x!accel.rowwise<4>>
  return %0 : tensor<4x2x!accel.rowwise<4>>
}

// -----

func.func @rowwise_table_argument(%t: tensor<4x2x!accel.rowwise<4>>, %ids: tensor<2x2xi64>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'accel.embedding_bag' op a rowwise-quantized table must be an accel.constant (tables are quantized at compile time)}}
  %0 = accel.embedding_bag %t, %ids : (tensor<4x2x!accel.rowwise<4>>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @rowwise_gather_columns(%ids: tensor<2xi64>) -> tensor<4x2xf32> {
  %t = accel.constant dense_resource<rw4> : tensor<4x2x!accel.rowwise<4>>
  // expected-error @+1 {{'accel.gather' op gathers from a rowwise-quantized table take whole rows (axis 0)}}
  %0 = accel.gather %t, %ids {axis = 1 : i64} : (tensor<4x2x!accel.rowwise<4>>, tensor<2xi64>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @rowwise_result_stays_real(%ids: tensor<2x2xi64>) -> tensor<2x2xf16> {
  %t = accel.constant dense_resource<rw4> : tensor<4x2x!accel.rowwise<4>>
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'accel.embedding_bag' op inferred type(s) 'tensor<2x2xf32>' are incompatible with return type(s) of operation 'tensor<2x2xf16>'}}
  %0 = accel.embedding_bag %t, %ids : (tensor<4x2x!accel.rowwise<4>>, tensor<2x2xi64>) -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

func.func @rowwise_constant_returned() -> tensor<4x2x!accel.rowwise<4>> {
  // expected-error @+1 {{'accel.constant' op a rowwise-quantized table can only be the table of accel.embedding_bag or the data of accel.gather, not operand #0 of 'func.return'}}
  %t = accel.constant dense_resource<rw4> : tensor<4x2x!accel.rowwise<4>>
  return %t : tensor<4x2x!accel.rowwise<4>>
}

// -----

func.func @rowwise_constant_index_operand(%t: tensor<4x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'accel.constant' op a rowwise-quantized table can only be the table of accel.embedding_bag or the data of accel.gather, not operand #1 of 'accel.gather'}}
  %q = accel.constant dense_resource<rw4> : tensor<4x2x!accel.rowwise<4>>
  %0 = "accel.gather"(%t, %q) : (tensor<4x2xf32>, tensor<4x2x!accel.rowwise<4>>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @rowwise_constant_rank1(%ids: tensor<2xi64>) {
  // expected-error @+1 {{'accel.constant' op a rowwise-quantized table must be rank 2 (rows x dim), got 8}}
  %t = accel.constant dense_resource<rw4> : tensor<8x!accel.rowwise<4>>
  return
}

// -----

func.func @rowwise_constant_size(%ids: tensor<2x2xi64>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'accel.constant' op holds 4 bytes, but 4 rows of 2 '!accel.rowwise<4>' elements take 20}}
  %t = accel.constant dense_resource<short> : tensor<4x2x!accel.rowwise<4>>
  %0 = accel.embedding_bag %t, %ids : (tensor<4x2x!accel.rowwise<4>>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x0400000001020304"
    }
  }
#-}

// -----

func.func @hint_bad_card(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{card must be -1 (host) or a card index, got -3}}
  %0 = accel.relu %x {accel.hint = #accel.hint<card = -3>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hint_core_twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{core 1 is listed twice}}
  %0 = accel.relu %x {accel.hint = #accel.hint<cores = [1, 1]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hint_no_chunks(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{chunks must be at least 1, got 0}}
  %0 = accel.relu %x {accel.hint = #accel.hint<chunks = 0>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hint_bad_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+3 {{expected ::mlir::nnaccel::accel::ParallelKind to be one of: data, model}}
  // expected-error @+2 {{failed to parse Accel_ParallelKindAttr parameter 'value'}}
  // expected-error @+1 {{failed to parse Accel_HintAttr parameter 'parallel'}}
  %0 = accel.relu %x {accel.hint = #accel.hint<parallel = pipeline>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hint_not_a_hint(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.relu' op 'accel.hint' must be a #accel.hint attribute}}
  %0 = accel.relu %x {accel.hint = #accel.placement<card = 0>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @schedule_outside_card(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.relu' op 'accel.schedule' must be array<i64: start, cycles> (both >= 0) on an op of an accel.card_partition}}
  %0 = accel.relu %x {accel.schedule = array<i64: 0, 5>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Quantized products (accel-quantize's form): per output column weights,
// an i32 bias in the accumulator's scale.
func.func @quantized_fc_weight_axis(%x: tensor<2x4x!quant.uniform<i8:f32, 0.5>>, %w: tensor<3x4x!quant.uniform<i8:f32:1, {0.1, 0.1, 0.1, 0.1}>>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'accel.fully_connected' op weight must be quantized per output column (axis 0), not along axis 1}}
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<2x4x!quant.uniform<i8:f32, 0.5>>, tensor<3x4x!quant.uniform<i8:f32:1, {0.1, 0.1, 0.1, 0.1}>>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @range_not_a_pair(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.relu' op 'accel.range' must be array<f64: lo, hi> with finite lo <= hi}}
  %0 = accel.relu %x {accel.range = array<f64: 1.0>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @quantized_fc_unsigned_weight(%x: tensor<2x4x!quant.uniform<i8:f32, 0.5>>, %w: tensor<3x4x!quant.uniform<u8:f32, 0.1>>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'accel.fully_connected' op a quantized input needs a signed quantized weight}}
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<2x4x!quant.uniform<i8:f32, 0.5>>, tensor<3x4x!quant.uniform<u8:f32, 0.1>>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @range_reversed(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.relu' op 'accel.range' must be array<f64: lo, hi> with finite lo <= hi}}
  %0 = accel.relu %x {accel.range = array<f64: 2.0, 1.0>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @quantized_fc_bias_scale(%x: tensor<2x4x!quant.uniform<i8:f32, 0.5>>, %w: tensor<3x4x!quant.uniform<i8:f32, 0.1>>, %b: tensor<3x!quant.uniform<i32:f32, 0.1>>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'accel.fully_connected' op an i32 bias must have scale input scale x weight scale (5.000000e-02 for column 0), got 1.000000e-01}}
  %0 = accel.fully_connected %x, %w, %b {transpose_weight = true} : (tensor<2x4x!quant.uniform<i8:f32, 0.5>>, tensor<3x4x!quant.uniform<i8:f32, 0.1>>, tensor<3x!quant.uniform<i32:f32, 0.1>>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @range_on_integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'accel.neg' op 'accel.range' is for ops with a single float or quantized result}}
  %0 = accel.neg %x {accel.range = array<f64: 0.0, 1.0>} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @quantized_fc_real_input(%x: tensor<2x4xf32>, %w: tensor<3x4xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.1>> {
  // expected-error @+1 {{'accel.fully_connected' op only a quantized product has a quantized result}}
  %0 = accel.fully_connected %x, %w {transpose_weight = true} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.1>>
  return %0 : tensor<2x3x!quant.uniform<i8:f32, 0.1>>
}

// -----

// expected-error @+1 {{'func.func' op argument 0: 'accel.range' must be array<f64: lo, hi> with finite lo <= hi}}
func.func @range_arg_not_f64(%x: tensor<4xf32> {accel.range = array<i64: 0, 1>}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Quantized convolutions: the weight F x C/groups x K... per output channel
// (axis 0), the bias in the accumulator's scale per channel.
func.func @quantized_conv_weight_axis(%x: tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5>>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32:1, {0.1, 0.2}>>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'accel.conv' op weight must be quantized per output channel (axis 0), not along axis 1}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5>>, tensor<3x2x1x1x!quant.uniform<i8:f32:1, {0.1, 0.2}>>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument 0: 'accel.range' is for float or quantized tensor arguments}}
func.func @range_arg_integer(%x: tensor<4xi64> {accel.range = array<f64: 0.0, 1.0>}) -> tensor<4xi64> {
  return %x : tensor<4xi64>
}

// -----

func.func @quantized_conv_bias_scale(%x: tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5>>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.4}>>, %b: tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.1}>>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'accel.conv' op an i32 bias must have scale input scale x weight scale (2.000000e-01 for channel 2), got 1.000000e-01}}
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4x!quant.uniform<u8:f32, 0.5>>, tensor<3x2x1x1x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.4}>>, tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.1}>>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument 0: unknown accel dialect argument attribute 'accel.rnage'}}
func.func @range_arg_misspelt(%x: tensor<4xf32> {accel.rnage = array<f64: 0.0, 1.0>}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @quantized_conv_per_axis_input(%x: tensor<1x2x4x4x!quant.uniform<u8:f32:1, {0.5, 0.25}>>, %w: tensor<3x2x1x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'accel.conv' op a quantized input must be quantized per tensor}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4x!quant.uniform<u8:f32:1, {0.5, 0.25}>>, tensor<3x2x1x1x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

func.func @quantized_conv_real_input(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x4x!quant.uniform<i8:f32:1, {0.1, 0.1, 0.1}>> {
  // expected-error @+1 {{'accel.conv' op a real convolution's quantized result must be quantized per tensor}}
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4x!quant.uniform<i8:f32:1, {0.1, 0.1, 0.1}>>
  return %0 : tensor<1x3x4x4x!quant.uniform<i8:f32:1, {0.1, 0.1, 0.1}>>
}

// -----

func.func @mrf_address_on_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{'accel.mrf_address' must be a non-negative integer on an accel.fully_connected, accel.matmul, accel.conv, accel.lstm or accel.gru of an accel.card_partition}}
    %1 = accel.relu %a {accel.mrf_address = 0 : i64} : tensor<4xf32>
    accel.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @mrf_address_negative(%x: tensor<1x64xf32>, %w: tensor<64x64xf32>) -> tensor<1x64xf32> {
  %0 = accel.card_partition(%x, %w) {card = 0 : i64} : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<1x64xf32>, %b: tensor<64x64xf32>):
    // expected-error @+1 {{'accel.mrf_address' must be a non-negative integer}}
    %1 = accel.fully_connected %a, %b {transpose_weight = true, accel.mrf_address = -64 : i64} : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
    accel.yield %1 : tensor<1x64xf32>
  }
  return %0 : tensor<1x64xf32>
}

// -----

func.func @mrf_work_bytes_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.mrf_work_bytes' must be a non-negative integer on an accel.card_partition}}
  %0 = accel.relu %x {accel.mrf_work_bytes = 64 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Padding buckets (accel-mask-padding's attributes).
func.func @padded_axes_out_of_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.relu' op 'accel.padded_axes' must be array<i64: ...> of increasing axes of a ranked tensor result}}
  %0 = accel.relu %x {accel.padded_axes = array<i64: 1>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @padded_axes_not_increasing(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'accel.relu' op 'accel.padded_axes' must be array<i64: ...> of increasing axes of a ranked tensor result}}
  %0 = accel.relu %x {accel.padded_axes = array<i64: 1, 0>} : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// accel-pad-recurrent's record of a layer's size before padding.
func.func @padded_hidden_not_recurrent(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.relu' op 'accel.padded_hidden' must be a positive integer on an accel.lstm or accel.gru}}
  %0 = accel.relu %x {accel.padded_hidden = 3 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @padding_mask_not_a_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.softmax' op 'accel.padding_mask' must be a string}}
  %0 = accel.softmax %x {accel.padding_mask = 1 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument 0: 'accel.padded_axis' must be an integer axis of a ranked tensor argument}}
func.func @padded_axis_out_of_range(%x: tensor<4xf32> {accel.padded_axis = 1 : i64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument 0: 'accel.valid_length' is a unit attribute of a one-element f32 argument}}
func.func @valid_length_not_one_element(%x: tensor<2xf32> {accel.valid_length}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{'func.func' op result 0: 'accel.padded_axes' must be array<i64: ...> of increasing axes of a ranked tensor result}}
func.func @padded_result_axes(%x: tensor<4xf32>) -> (tensor<4xf32> {accel.padded_axes = array<i64: 2>}) {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result 0: unknown accel dialect result attribute 'accel.bogus'}}
func.func @unknown_result_attr(%x: tensor<4xf32>) -> (tensor<4xf32> {accel.bogus}) {
  return %x : tensor<4xf32>
}

// -----

func.func @transfer_pieces_not_dividing(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<6x4xf32>) -> tensor<6x4xf32> {
  ^bb0(%a: tensor<6x4xf32>):
    accel.yield %a : tensor<6x4xf32>
  }
  // expected-error @+1 {{'accel.transfer' op pieces must be 1 or divide the leading dimension, got 4 for 'tensor<6x4xf32>'}}
  %1 = accel.transfer %0 {channel = 0 : i64, source = 0 : i64, destination = 1 : i64, pieces = 4 : i64} : tensor<6x4xf32>
  return %1 : tensor<6x4xf32>
}

// -----

func.func @transfer_pieces_without_channel(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'accel.transfer' op is cut into pieces but has no channel}}
  %0 = accel.transfer %x {source = 0 : i64, destination = 1 : i64, pieces = 2 : i64} : tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @transfer_channel_to_host(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    accel.yield %a : tensor<4xf32>
  }
  // expected-error @+1 {{'accel.transfer' op a card-to-card transfer needs two cards and a 16-bit channel, got 0 -> -1 on channel 3}}
  %1 = accel.transfer %0 {channel = 3 : i64, source = 0 : i64, destination = -1 : i64} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @transfer_from_other_card(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = accel.card_partition(%x) {card = 2 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    accel.yield %a : tensor<4xf32>
  }
  // expected-error @+1 {{'accel.transfer' op on a channel must take a result of a card partition on card 0}}
  %1 = accel.transfer %0 {channel = 0 : i64, source = 0 : i64, destination = 1 : i64} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @transfer_read_by_host(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = accel.card_partition(%x) {card = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    accel.yield %a : tensor<4xf32>
  }
  // expected-error @+1 {{'accel.transfer' op on a channel must be read only by card partitions on card 1}}
  %1 = accel.transfer %0 {channel = 0 : i64, source = 0 : i64, destination = 1 : i64} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @launch_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.launch' must be a non-negative integer on an accel.card_partition}}
  %0 = accel.relu %x {accel.launch = 0 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @kernel_constants_on_wrong_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'accel.kernel_constants' must be a non-negative integer on an accel.fully_connected or accel.conv of an accel.card_partition}}
  %0 = accel.relu %x {accel.kernel_constants = 64 : i64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dense_quantized_constant() -> tensor<4x2x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{a dense attribute cannot hold '!quant.uniform<i8:f32, 5.000000e-01>' elements; use dense_resource with their raw bytes}}
  %0 = accel.constant dense<1> : tensor<4x2x!quant.uniform<i8:f32, 0.5>>
  return %0 : tensor<4x2x!quant.uniform<i8:f32, 0.5>>
}
