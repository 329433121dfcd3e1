// RUN: nnaccel-opt %s -canonicalize -split-input-file | FileCheck %s

// Folders and canonicalization patterns of the accel dialect.
//
// The first half covers the folders: algebraic identities, evaluation of
// small constant operands (float and integer, with broadcasting), and the
// data-movement folds that resolve ONNX shape arithmetic. The second half
// covers the rewrite patterns: transpose chains, precision chains,
// activation fusion, and batch_norm / bias folding into conv and
// fully_connected. Every positive case has a negative twin where the rewrite
// must not fire.
//
// Function bodies are checked line by line (CHECK-NEXT), so a fold that
// leaves its op behind, or a pattern that fires where it must not, fails.

// ===--- Folders ---===
//
// x + 0 and 0 + x fold to x (also when the zero broadcasts, as long as the
// result type is that of x), for floats and integers.
// CHECK-LABEL: func.func @add_zero(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-SAME:    %[[I:[^:]+]]: tensor<4xi32>
// CHECK-NEXT:  return %[[X]], %[[X]], %[[I]] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>
func.func @add_zero(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>) {
  %z = accel.constant dense<0.0> : tensor<2x3xf32>
  %zb = accel.constant dense<0.0> : tensor<3xf32>
  %zi = accel.constant dense<0> : tensor<4xi32>
  %0 = accel.add %x, %z : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = accel.add %zb, %0 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = accel.add %zi, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi32>
}

// -----

// x + 0 where the zero is larger than x: the result type differs from x, so
// there is nothing to fold to.
// CHECK-LABEL: func.func @add_zero_that_broadcasts(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<3xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:  %[[ADD:.*]] = accel.add %[[X]], %[[CST]] : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  return %[[ADD]] : tensor<2x3xf32>
func.func @add_zero_that_broadcasts(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %z = accel.constant dense<0.0> : tensor<2x3xf32>
  %0 = accel.add %x, %z : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// x - 0, x * 1, 1 * x, x / 1, x ^ 1 (with a rank-0 splat), max(x, x),
// min(x, x).
// CHECK-LABEL: func.func @identities(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:  return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = accel.constant dense<0.0> : tensor<4xf32>
  %one = accel.constant dense<1.0> : tensor<f32>
  %0 = accel.sub %x, %zero : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = accel.mul %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = accel.mul %one, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = accel.div %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = accel.pow %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = accel.max %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = accel.min %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The non-commutative identities only fold on the right: 0 - x, 1 / x and
// 1 ^ x stay.
// CHECK-LABEL: func.func @non_identities(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:  %[[SUB:.*]] = accel.sub %[[CST]], %[[X]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  %[[DIV:.*]] = accel.div %[[CST_1]], %[[X]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  %[[POW:.*]] = accel.pow %[[CST_1]], %[[X]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  return %[[SUB]], %[[DIV]], %[[POW]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @non_identities(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = accel.constant dense<0.0> : tensor<4xf32>
  %one = accel.constant dense<1.0> : tensor<4xf32>
  %0 = accel.sub %zero, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = accel.div %one, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = accel.pow %one, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer constant folding with broadcasting (3 against 2x1). Division
// truncates toward zero; max/min are signed.
// CHECK-LABEL: func.func @fold_int_binary(
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<{{\[\[}}11, 8, 13], [21, 18, 23{{\]\]}}> : tensor<2x3xi64>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<{{\[\[}}-9, -12, -7], [-19, -22, -17{{\]\]}}> : tensor<2x3xi64>
// CHECK-NEXT:  %[[CST_2:.*]] = accel.constant dense<{{\[\[}}10, -20, 30], [20, -40, 60{{\]\]}}> : tensor<2x3xi64>
// CHECK-NEXT:  %[[CST_3:.*]] = accel.constant dense<[3, -3, -3, 3]> : tensor<4xi32>
// CHECK-NEXT:  %[[CST_4:.*]] = accel.constant dense<{{\[\[}}10, 10, 10], [20, 20, 20{{\]\]}}> : tensor<2x3xi64>
// CHECK-NEXT:  %[[CST_5:.*]] = accel.constant dense<{{\[\[}}0, -2, 0], [1, -2, 2{{\]\]}}> : tensor<2x3xi64>
// CHECK-NEXT:  return %[[CST]], %[[CST_1]], %[[CST_2]], %[[CST_3]], %[[CST_4]], %[[CST_5]] : tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<4xi32>, tensor<2x3xi64>, tensor<2x3xi64>
func.func @fold_int_binary() -> (tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<4xi32>, tensor<2x3xi64>, tensor<2x3xi64>) {
  %a = accel.constant dense<[1, -2, 3]> : tensor<3xi64>
  %b = accel.constant dense<[[10], [20]]> : tensor<2x1xi64>
  %0 = accel.add %a, %b : (tensor<3xi64>, tensor<2x1xi64>) -> tensor<2x3xi64>
  %1 = accel.sub %a, %b : (tensor<3xi64>, tensor<2x1xi64>) -> tensor<2x3xi64>
  %2 = accel.mul %b, %a : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %n = accel.constant dense<[7, -7, 7, -7]> : tensor<4xi32>
  %d = accel.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
  %3 = accel.div %n, %d : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %4 = accel.max %a, %b : (tensor<3xi64>, tensor<2x1xi64>) -> tensor<2x3xi64>
  %m = accel.constant dense<[[0], [2]]> : tensor<2x1xi64>
  %5 = accel.min %a, %m : (tensor<3xi64>, tensor<2x1xi64>) -> tensor<2x3xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<4xi32>, tensor<2x3xi64>, tensor<2x3xi64>
}

// -----

// Float constant folding with broadcasting; pow of a negative base with a
// fractional exponent is NaN; f16 is folded in f16.
// CHECK-LABEL: func.func @fold_float_binary(
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<{{\[\[}}3.000000e+00, -1.500000e+00], [5.000000e+00, 4.500000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<{{\[\[}}1.000000e+00, 2.500000e+00], [-1.000000e+00, -3.500000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:  %[[CST_2:.*]] = accel.constant dense<{{\[\[}}2.000000e+00, -1.000000e+00], [6.000000e+00, 2.000000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:  %[[CST_3:.*]] = accel.constant dense<{{\[\[}}5.000000e-01, -4.000000e+00], [1.500000e+00, 8.000000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:  %[[CST_4:.*]] = accel.constant dense<{{\[\[}}1.000000e+00, {{0x[7F]FC00000}}], [9.000000e+00, 2.000000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:  %[[CST_5:.*]] = accel.constant dense<{{\[\[}}2.000000e+00, 5.000000e-01], [3.000000e+00, 4.000000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:  %[[CST_6:.*]] = accel.constant dense<[2.250000e+00, 6.250000e-02]> : tensor<2xf16>
// CHECK-NEXT:  return %[[CST]], %[[CST_1]], %[[CST_2]], %[[CST_3]], %[[CST_4]], %[[CST_5]], %[[CST_6]] : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf16>
func.func @fold_float_binary() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf16>) {
  %a = accel.constant dense<[[1.0, -2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = accel.constant dense<[2.0, 0.5]> : tensor<2xf32>
  %0 = accel.add %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %1 = accel.sub %b, %a : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = accel.mul %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %3 = accel.div %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %4 = accel.pow %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %5 = accel.max %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %h = accel.constant dense<[1.5, -0.25]> : tensor<2xf16>
  %7 = accel.mul %h, %h : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  return %0, %1, %2, %3, %4, %5, %7 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf16>
}

// -----

// Integer division by zero and integer pow are left to run time.
// CHECK-LABEL: func.func @no_fold_int_div_by_zero_or_pow(
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[6, 8]> : tensor<2xi32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<[3, 0]> : tensor<2xi32>
// CHECK-NEXT:  %[[DIV:.*]] = accel.div %[[CST]], %[[CST_1]] : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// CHECK-NEXT:  %[[POW:.*]] = accel.pow %[[CST]], %[[CST_1]] : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// CHECK-NEXT:  return %[[DIV]], %[[POW]] : tensor<2xi32>, tensor<2xi32>
func.func @no_fold_int_div_by_zero_or_pow() -> (tensor<2xi32>, tensor<2xi32>) {
  %n = accel.constant dense<[6, 8]> : tensor<2xi32>
  %d = accel.constant dense<[3, 0]> : tensor<2xi32>
  %0 = accel.div %n, %d : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %1 = accel.pow %n, %d : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<2xi32>, tensor<2xi32>
}

// -----

// Float division by zero folds to signed infinities.
// CHECK-LABEL: func.func @float_div_by_zero(
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>
// CHECK-NEXT:  return %[[CST]] : tensor<2xf32>
func.func @float_div_by_zero() -> tensor<2xf32> {
  %n = accel.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %d = accel.constant dense<0.0> : tensor<2xf32>
  %0 = accel.div %n, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// relu is idempotent; neg(neg(x)) is x.
// CHECK-LABEL: func.func @relu_neg(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:  %[[RELU:.*]] = accel.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT:  return %[[RELU]], %[[X]] : tensor<4xf32>, tensor<4xf32>
func.func @relu_neg(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = accel.relu %x : tensor<4xf32>
  %1 = accel.relu %0 : tensor<4xf32>
  %2 = accel.neg %x : tensor<4xf32>
  %3 = accel.neg %2 : tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// relu and neg of constants (relu(-0.0) is +0.0; neg flips the sign of zero).
// CHECK-LABEL: func.func @relu_neg_constants(
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[0.000000e+00, 0.000000e+00, 2.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<[1.500000e+00, -0.000000e+00, -2.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:  %[[CST_2:.*]] = accel.constant dense<[3, 0, -7]> : tensor<3xi32>
// CHECK-NEXT:  return %[[CST]], %[[CST_1]], %[[CST_2]] : tensor<4xf32>, tensor<4xf32>, tensor<3xi32>
func.func @relu_neg_constants() -> (tensor<4xf32>, tensor<4xf32>, tensor<3xi32>) {
  %c = accel.constant dense<[-1.5, 0.0, 2.0, -0.0]> : tensor<4xf32>
  %0 = accel.relu %c : tensor<4xf32>
  %1 = accel.neg %c : tensor<4xf32>
  %i = accel.constant dense<[-3, 0, 7]> : tensor<3xi32>
  %2 = accel.neg %i : tensor<3xi32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<3xi32>
}

// -----

// clip without bounds is the identity; with a bound it stays.
// CHECK-LABEL: func.func @clip(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:  %[[CLIP:.*]] = accel.clip %[[X]] {min = 0.000000e+00 : f32} : tensor<4xf32>
// CHECK-NEXT:  return %[[X]], %[[CLIP]] : tensor<4xf32>, tensor<4xf32>
func.func @clip(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = accel.clip %x : tensor<4xf32>
  %1 = accel.clip %0 {min = 0.0 : f32} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// cast: identity; int -> float rounds to nearest even (16777217 -> 2^24);
// float -> int truncates toward zero and saturates; -> i1 is x != 0 (256 and
// -1 are true, -0.0 is false); f32 -> f16 overflows to inf; int -> narrower
// int wraps; i1 -> float is unsigned.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[1.000000e+00, -2.000000e+00, 0x4B800000]> : tensor<3xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<[2, -2, 127, -128]> : tensor<4xi8>
// CHECK-NEXT:  %[[CST_2:.*]] = accel.constant dense<[2, -2, 300, -2147483648]> : tensor<4xi32>
// CHECK-NEXT:  %[[CST_3:.*]] = accel.constant dense<[false, true, true, true]> : tensor<4xi1>
// CHECK-NEXT:  %[[CST_4:.*]] = accel.constant dense<[false, false, true, true]> : tensor<4xi1>
// CHECK-NEXT:  %[[CST_5:.*]] = accel.constant dense<[9.997550e-02, 0x7C00]> : tensor<2xf16>
// CHECK-NEXT:  %[[CST_6:.*]] = accel.constant dense<[127, -128, 127]> : tensor<3xi8>
// CHECK-NEXT:  %[[CST_7:.*]] = accel.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:  return %[[X]], %[[CST]], %[[CST_1]], %[[CST_2]], %[[CST_3]], %[[CST_4]], %[[CST_5]], %[[CST_6]], %[[CST_7]] : tensor<4xf32>, tensor<3xf32>, tensor<4xi8>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<2xf16>, tensor<3xi8>, tensor<2xf32>
func.func @cast(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>, tensor<4xi8>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<2xf16>, tensor<3xi8>, tensor<2xf32>) {
  %0 = accel.cast %x : tensor<4xf32> -> tensor<4xf32>
  %i = accel.constant dense<[1, -2, 16777217]> : tensor<3xi32>
  %1 = accel.cast %i : tensor<3xi32> -> tensor<3xf32>
  %f = accel.constant dense<[2.7, -2.7, 300.0, -1.0e10]> : tensor<4xf32>
  %2 = accel.cast %f : tensor<4xf32> -> tensor<4xi8>
  %3 = accel.cast %f : tensor<4xf32> -> tensor<4xi32>
  %j = accel.constant dense<[0, 5, -1, 256]> : tensor<4xi64>
  %4 = accel.cast %j : tensor<4xi64> -> tensor<4xi1>
  %g = accel.constant dense<[0.0, -0.0, 0.5, -3.0]> : tensor<4xf32>
  %5 = accel.cast %g : tensor<4xf32> -> tensor<4xi1>
  %h = accel.constant dense<[0.1, 65520.0]> : tensor<2xf32>
  %6 = accel.cast %h : tensor<2xf32> -> tensor<2xf16>
  %k = accel.constant dense<[127, 128, -129]> : tensor<3xi32>
  %7 = accel.cast %k : tensor<3xi32> -> tensor<3xi8>
  %b = accel.constant dense<[true, false]> : tensor<2xi1>
  %8 = accel.cast %b : tensor<2xi1> -> tensor<2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xf32>, tensor<3xf32>, tensor<4xi8>, tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<2xf16>, tensor<3xi8>, tensor<2xf32>
}

// -----

// ui8 constants widen without sign extension (to integers and floats);
// floats saturate to [0, 255] when cast to ui8; round folds half to even
// (keeping -0).
// CHECK-LABEL: func.func @bytes_and_round(
// CHECK-NEXT:  %[[I:.*]] = accel.constant dense<[0, 128, 255]> : tensor<3xi32>
// CHECK-NEXT:  %[[F:.*]] = accel.constant dense<[0.000000e+00, 1.280000e+02, 2.550000e+02]> : tensor<3xf32>
// CHECK-NEXT:  %[[U:.*]] = accel.constant dense<[0, 255, 200]> : tensor<3xui8>
// CHECK-NEXT:  %[[R:.*]] = accel.constant dense<[0.000000e+00, 2.000000e+00, 2.000000e+00, -0.000000e+00, 3.000000e+00]> : tensor<5xf32>
// CHECK-NEXT:  return %[[I]], %[[F]], %[[U]], %[[R]] :
func.func @bytes_and_round() -> (tensor<3xi32>, tensor<3xf32>, tensor<3xui8>, tensor<5xf32>) {
  %u = accel.constant dense<[0, 128, 255]> : tensor<3xui8>
  %0 = accel.cast %u : tensor<3xui8> -> tensor<3xi32>
  %1 = accel.cast %u : tensor<3xui8> -> tensor<3xf32>
  %f = accel.constant dense<[-3.0, 300.0, 200.7]> : tensor<3xf32>
  %2 = accel.cast %f : tensor<3xf32> -> tensor<3xui8>
  %r = accel.constant dense<[0.5, 1.5, 2.5, -0.5, 2.7]> : tensor<5xf32>
  %3 = accel.round %r : tensor<5xf32>
  return %0, %1, %2, %3 : tensor<3xi32>, tensor<3xf32>, tensor<3xui8>, tensor<5xf32>
}

// -----

// where with a splat constant condition picks a branch; a non-constant or
// non-splat condition stays.
// CHECK-LABEL: func.func @where_splat(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-SAME:    %[[Y:[^:]+]]: tensor<4xf32>
// CHECK-SAME:    %[[C:[^:]+]]: tensor<4xi1>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[true, false, true, false]> : tensor<4xi1>
// CHECK-NEXT:  %[[WHERE:.*]] = accel.where %[[C]], %[[X]], %[[Y]] : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  %[[WHERE_1:.*]] = accel.where %[[CST]], %[[X]], %[[Y]] : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  return %[[X]], %[[Y]], %[[WHERE]], %[[WHERE_1]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @where_splat(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = accel.constant dense<true> : tensor<i1>
  %f = accel.constant dense<false> : tensor<4xi1>
  %0 = accel.where %t, %x, %y : (tensor<i1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = accel.where %f, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = accel.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = accel.constant dense<[true, false, true, false]> : tensor<4xi1>
  %3 = accel.where %m, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// reshape: identity, a chain collapses into one reshape, constants reshape.
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<{{\[\[}}1, 2], [3, 4{{\]\]}}> : tensor<2x2xi64>
// CHECK-NEXT:  %[[RESHAPE:.*]] = accel.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:  return %[[X]], %[[RESHAPE]], %[[CST]] : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xi64>
func.func @reshape(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xi64>) {
  %0 = accel.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = accel.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %2 = accel.reshape %1 : tensor<6xf32> -> tensor<1x6xf32>
  %3 = accel.reshape %2 : tensor<1x6xf32> -> tensor<3x2xf32>
  %c = accel.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %4 = accel.reshape %c : tensor<4xi64> -> tensor<2x2xi64>
  return %0, %3, %4 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2xi64>
}

// -----

// A chain that returns to the input type disappears.
// CHECK-LABEL: func.func @reshape_round_trip(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT:  return %[[X]] : tensor<2x3xf32>
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = accel.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = accel.reshape %0 : tensor<6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// transpose: identity permutation, constant 2-D transpose.
// CHECK-LABEL: func.func @transpose_fold(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6{{\]\]}}> : tensor<3x2xi32>
// CHECK-NEXT:  return %[[X]], %[[CST]] : tensor<2x3xf32>, tensor<3x2xi32>
func.func @transpose_fold(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xi32>) {
  %0 = accel.transpose %x {permutation = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %c = accel.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %1 = accel.transpose %c {permutation = array<i64: 1, 0>} : tensor<2x3xi32> -> tensor<3x2xi32>
  return %0, %1 : tensor<2x3xf32>, tensor<3x2xi32>
}

// -----

// Constant 3-D transpose: result[a][b][c] = input[b][c][a] = 4b + 2c + a.
// CHECK-LABEL: func.func @transpose_3d_constant(
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<{{\[\[\[}}0, 2], [4, 6{{\]\]}}, {{\[\[}}1, 3], [5, 7{{\]\]\]}}> : tensor<2x2x2xi32>
// CHECK-NEXT:  return %[[CST]] : tensor<2x2x2xi32>
func.func @transpose_3d_constant() -> tensor<2x2x2xi32> {
  %c = accel.constant dense<[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]> : tensor<2x2x2xi32>
  %0 = accel.transpose %c {permutation = array<i64: 2, 0, 1>} : tensor<2x2x2xi32> -> tensor<2x2x2xi32>
  return %0 : tensor<2x2x2xi32>
}

// -----

// concat of one input; constant concat of i64 shape pieces (the ONNX
// Shape -> Concat idiom) and of 2-D blocks along the last axis.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[1, -1, 64, 8]> : tensor<4xi64>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<{{\[\[}}1, 2, 3], [4, 5, 6{{\]\]}}> : tensor<2x3xi32>
// CHECK-NEXT:  return %[[X]], %[[CST]], %[[CST_1]] : tensor<2x3xf32>, tensor<4xi64>, tensor<2x3xi32>
func.func @concat(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4xi64>, tensor<2x3xi32>) {
  %0 = accel.concat %x {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %a = accel.constant dense<[1]> : tensor<1xi64>
  %b = accel.constant dense<[-1, 64]> : tensor<2xi64>
  %c = accel.constant dense<[8]> : tensor<1xi64>
  %1 = accel.concat %a, %b, %c {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>, tensor<1xi64>) -> tensor<4xi64>
  %d = accel.constant dense<[[1], [4]]> : tensor<2x1xi32>
  %e = accel.constant dense<[[2, 3], [5, 6]]> : tensor<2x2xi32>
  %2 = accel.concat %d, %e {axis = -1 : i64} : (tensor<2x1xi32>, tensor<2x2xi32>) -> tensor<2x3xi32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4xi64>, tensor<2x3xi32>
}

// -----

// Shape arithmetic: gather a dimension out of a constant shape and concat it
// with the rest; the whole chain becomes one constant.
// CHECK-LABEL: func.func @shape_concat(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[2, 12]> : tensor<2xi64>
// CHECK-NEXT:  %[[RESHAPE:.*]] = accel.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<2x12xf32>
// CHECK-NEXT:  return %[[RESHAPE]], %[[CST]] : tensor<2x12xf32>, tensor<2xi64>
func.func @shape_concat(%x: tensor<2x3x4xf32>) -> (tensor<2x12xf32>, tensor<2xi64>) {
  %batch = accel.constant dense<[2, 3, 4]> : tensor<3xi64>
  %idx = accel.constant dense<0> : tensor<1xi64>
  %dim0 = accel.gather %batch, %idx : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  %rest = accel.constant dense<[12]> : tensor<1xi64>
  %shape = accel.concat %dim0, %rest {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %0 = accel.reshape %x : tensor<2x3x4xf32> -> tensor<2x12xf32>
  return %0, %shape : tensor<2x12xf32>, tensor<2xi64>
}

// -----

// slice: identity, constant 2-D slice with a step, negative step.
// CHECK-LABEL: func.func @slice(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x8xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<{{\[\[}}4, 6], [8, 10{{\]\]}}> : tensor<2x2xi32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<[4, 2, 0]> : tensor<3xi32>
// CHECK-NEXT:  return %[[X]], %[[CST]], %[[CST_1]] : tensor<4x8xf32>, tensor<2x2xi32>, tensor<3xi32>
func.func @slice(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x2xi32>, tensor<3xi32>) {
  %0 = accel.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = accel.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi32>
  %1 = accel.slice %c {starts = array<i64: 1, 0>, ends = array<i64: 3, 4>, steps = array<i64: 1, 2>} : tensor<3x4xi32> -> tensor<2x2xi32>
  %v = accel.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi32>
  %2 = accel.slice %v {starts = array<i64: 4>, ends = array<i64: -1>, steps = array<i64: -2>} : tensor<5xi32> -> tensor<3xi32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<2x2xi32>, tensor<3xi32>
}

// -----

// gather of constants: negative indices, axis 1, rank-0 index.
// CHECK-LABEL: func.func @gather(
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[40, 40, 10]> : tensor<3xi64>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<{{\[\[}}3.000000e+00, 1.000000e+00], [6.000000e+00, 4.000000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:  %[[CST_2:.*]] = accel.constant dense<[4.000000e+00, 5.000000e+00, 6.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:  return %[[CST]], %[[CST_1]], %[[CST_2]] : tensor<3xi64>, tensor<2x2xf32>, tensor<3xf32>
func.func @gather() -> (tensor<3xi64>, tensor<2x2xf32>, tensor<3xf32>) {
  %data = accel.constant dense<[10, 20, 30, 40]> : tensor<4xi64>
  %idx = accel.constant dense<[3, -1, 0]> : tensor<3xi32>
  %0 = accel.gather %data, %idx : (tensor<4xi64>, tensor<3xi32>) -> tensor<3xi64>
  %m = accel.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %cols = accel.constant dense<[2, -3]> : tensor<2xi64>
  %1 = accel.gather %m, %cols {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  %row = accel.constant dense<-1> : tensor<i64>
  %2 = accel.gather %m, %row : (tensor<2x3xf32>, tensor<i64>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xi64>, tensor<2x2xf32>, tensor<3xf32>
}

// -----

// Out-of-range indices (4 and -5 for size 4) are a runtime fault: no fold.
// CHECK-LABEL: func.func @gather_out_of_range(
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<-5> : tensor<1xi32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<[10, 20, 30, 40]> : tensor<4xi64>
// CHECK-NEXT:  %[[CST_2:.*]] = accel.constant dense<[1, 4]> : tensor<2xi32>
// CHECK-NEXT:  %[[GATHER:.*]] = accel.gather %[[CST_1]], %[[CST_2]] : (tensor<4xi64>, tensor<2xi32>) -> tensor<2xi64>
// CHECK-NEXT:  %[[GATHER_1:.*]] = accel.gather %[[CST_1]], %[[CST]] : (tensor<4xi64>, tensor<1xi32>) -> tensor<1xi64>
// CHECK-NEXT:  return %[[GATHER]], %[[GATHER_1]] : tensor<2xi64>, tensor<1xi64>
func.func @gather_out_of_range() -> (tensor<2xi64>, tensor<1xi64>) {
  %data = accel.constant dense<[10, 20, 30, 40]> : tensor<4xi64>
  %idx = accel.constant dense<[1, 4]> : tensor<2xi32>
  %0 = accel.gather %data, %idx : (tensor<4xi64>, tensor<2xi32>) -> tensor<2xi64>
  %neg = accel.constant dense<[-5]> : tensor<1xi32>
  %1 = accel.gather %data, %neg : (tensor<4xi64>, tensor<1xi32>) -> tensor<1xi64>
  return %0, %1 : tensor<2xi64>, tensor<1xi64>
}

// -----

// expand: identity and constant broadcasts along either dimension.
// CHECK-LABEL: func.func @expand(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<{{\[\[}}1, 2, 3], [1, 2, 3{{\]\]}}> : tensor<2x3xi32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00], [2.000000e+00, 2.000000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:  return %[[X]], %[[CST]], %[[CST_1]] : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x2xf32>
func.func @expand(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x2xf32>) {
  %0 = accel.expand %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %c = accel.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = accel.expand %c : tensor<3xi32> -> tensor<2x3xi32>
  %d = accel.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %2 = accel.expand %d : tensor<2x1xf32> -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x2xf32>
}

// -----

// pad with all-zero pads folds (whatever the mode); real padding stays.
// CHECK-LABEL: func.func @pad(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT:  %[[PAD:.*]] = accel.pad %[[X]] {pads = array<i64: 0, 0, 0, 1>} : tensor<2x3xf32> -> tensor<2x4xf32>
// CHECK-NEXT:  return %[[X]], %[[X]], %[[PAD]] : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x4xf32>
func.func @pad(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x4xf32>) {
  %0 = accel.pad %x {pads = array<i64: 0, 0, 0, 0>, value = 1.0 : f32} : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = accel.pad %0 {pads = array<i64: 0, 0, 0, 0>, mode = #accel.pad_mode<reflect>} : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = accel.pad %1 {pads = array<i64: 0, 0, 0, 1>} : tensor<2x3xf32> -> tensor<2x4xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x4xf32>
}

// -----

// requantize and convert to the same type fold; a real requantize stays.
// CHECK-LABEL: func.func @precision_identities(
// CHECK-SAME:    %[[Q:[^:]+]]: tensor<4x!quant.uniform<i8:f32, 1.000000e-01:3>>
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf16>
// CHECK-NEXT:  %[[REQUANTIZE:.*]] = accel.requantize %[[Q]] : tensor<4x!quant.uniform<i8:f32, 1.000000e-01:3>> -> tensor<4x!quant.uniform<i8:f32, 2.000000e-01:3>>
// CHECK-NEXT:  return %[[Q]], %[[REQUANTIZE]], %[[X]] : tensor<4x!quant.uniform<i8:f32, 1.000000e-01:3>>, tensor<4x!quant.uniform<i8:f32, 2.000000e-01:3>>, tensor<4xf16>
func.func @precision_identities(%q: tensor<4x!quant.uniform<i8:f32, 0.1:3>>, %x: tensor<4xf16>) -> (tensor<4x!quant.uniform<i8:f32, 0.1:3>>, tensor<4x!quant.uniform<i8:f32, 0.2:3>>, tensor<4xf16>) {
  %0 = accel.requantize %q : tensor<4x!quant.uniform<i8:f32, 0.1:3>> -> tensor<4x!quant.uniform<i8:f32, 0.1:3>>
  %1 = accel.requantize %q : tensor<4x!quant.uniform<i8:f32, 0.1:3>> -> tensor<4x!quant.uniform<i8:f32, 0.2:3>>
  %2 = accel.convert %x : tensor<4xf16> -> tensor<4xf16>
  return %0, %1, %2 : tensor<4x!quant.uniform<i8:f32, 0.1:3>>, tensor<4x!quant.uniform<i8:f32, 0.2:3>>, tensor<4xf16>
}

// -----

// A compare of constants folds (with broadcasting): a causal mask from
// position ids, IEEE rules for floats (NaN != NaN, -0 == 0), bools unsigned.
// CHECK-LABEL: func.func @compare_constants(
// CHECK-NEXT: %[[M:.+]] = accel.constant dense<{{\[}}[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
// CHECK-NEXT: %[[N:.+]] = accel.constant dense<[true, true, false, true]> : tensor<4xi1>
// CHECK-NEXT: %[[B:.+]] = accel.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: return %[[M]], %[[N]], %[[B]]
func.func @compare_constants() -> (tensor<3x3xi1>, tensor<4xi1>, tensor<2xi1>) {
  %pos = accel.constant dense<[0, 1, 2]> : tensor<3xi64>
  %col = accel.constant dense<[[0], [1], [2]]> : tensor<3x1xi64>
  %0 = accel.compare le, %pos, %col : (tensor<3xi64>, tensor<3x1xi64>) -> tensor<3x3xi1>
  %f = accel.constant dense<[0x7FC00000, 1.0, -0.0, 2.0]> : tensor<4xf32>
  %g = accel.constant dense<[0x7FC00000, 2.0, 0.0, 1.0]> : tensor<4xf32>
  %1 = accel.compare ne, %f, %g : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %b = accel.constant dense<[true, false]> : tensor<2xi1>
  %z = accel.constant dense<false> : tensor<i1>
  %2 = accel.compare gt, %b, %z : (tensor<2xi1>, tensor<i1>) -> tensor<2xi1>
  return %0, %1, %2 : tensor<3x3xi1>, tensor<4xi1>, tensor<2xi1>
}

// -----

// ===--- Patterns ---===
//
// transpose(transpose(x)) composes; compositions that give the identity
// vanish entirely.
// CHECK-LABEL: func.func @compose_transposes(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK-NEXT:  %[[TRANSPOSE:.*]] = accel.transpose %[[X]] {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT:  return %[[TRANSPOSE]], %[[X]] : tensor<3x4x2xf32>, tensor<2x3x4xf32>
func.func @compose_transposes(%x: tensor<2x3x4xf32>) -> (tensor<3x4x2xf32>, tensor<2x3x4xf32>) {
  %0 = accel.transpose %x {permutation = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = accel.transpose %0 {permutation = array<i64: 1, 0, 2>} : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  %2 = accel.transpose %1 {permutation = array<i64: 1, 0, 2>} : tensor<4x3x2xf32> -> tensor<3x4x2xf32>
  %3 = accel.transpose %2 {permutation = array<i64: 2, 0, 1>} : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %2, %3 : tensor<3x4x2xf32>, tensor<2x3x4xf32>
}

// -----

// [1, 0, 2] then [2, 1, 0] is [2, 0, 1].
// CHECK-LABEL: func.func @compose_transposes_nontrivial(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK-NEXT:  %[[TRANSPOSE:.*]] = accel.transpose %[[X]] {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT:  return %[[TRANSPOSE]] : tensor<4x2x3xf32>
func.func @compose_transposes_nontrivial(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = accel.transpose %x {permutation = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = accel.transpose %0 {permutation = array<i64: 2, 1, 0>} : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// A transpose that only moves unit dimensions is a reshape; one that
// reorders non-unit dimensions is not.
// CHECK-LABEL: func.func @transpose_unit_dims(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x4x1x3xf32>
// CHECK-SAME:    %[[Y:[^:]+]]: tensor<2x3xf32>
// CHECK-NEXT:  %[[RESHAPE:.*]] = accel.reshape %[[X]] : tensor<1x4x1x3xf32> -> tensor<4x1x3x1xf32>
// CHECK-NEXT:  %[[TRANSPOSE:.*]] = accel.transpose %[[X]] {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x4x1x3xf32> -> tensor<1x3x4x1xf32>
// CHECK-NEXT:  %[[TRANSPOSE_1:.*]] = accel.transpose %[[Y]] {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:  return %[[RESHAPE]], %[[TRANSPOSE]], %[[TRANSPOSE_1]] : tensor<4x1x3x1xf32>, tensor<1x3x4x1xf32>, tensor<3x2xf32>
func.func @transpose_unit_dims(%x: tensor<1x4x1x3xf32>, %y: tensor<2x3xf32>) -> (tensor<4x1x3x1xf32>, tensor<1x3x4x1xf32>, tensor<3x2xf32>) {
  %0 = accel.transpose %x {permutation = array<i64: 1, 2, 3, 0>} : tensor<1x4x1x3xf32> -> tensor<4x1x3x1xf32>
  %1 = accel.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : tensor<1x4x1x3xf32> -> tensor<1x3x4x1xf32>
  %2 = accel.transpose %y {permutation = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0, %1, %2 : tensor<4x1x3x1xf32>, tensor<1x3x4x1xf32>, tensor<3x2xf32>
}

// -----

// convert chains collapse only when the first conversion is exact:
// f16->f32->bf16 becomes f16->bf16, bf16->f32->f16 becomes bf16->f16,
// f16->f32->f16 disappears, but f32->f16->f32 (a rounding) must stay.
// CHECK-LABEL: func.func @convert_chains(
// CHECK-SAME:    %[[H:[^:]+]]: tensor<4xf16>
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4xf32>
// CHECK-SAME:    %[[B:[^:]+]]: tensor<4xbf16>
// CHECK-NEXT:  %[[CONVERT:.*]] = accel.convert %[[H]] : tensor<4xf16> -> tensor<4xbf16>
// CHECK-NEXT:  %[[CONVERT_1:.*]] = accel.convert %[[X]] : tensor<4xf32> -> tensor<4xf16>
// CHECK-NEXT:  %[[CONVERT_2:.*]] = accel.convert %[[CONVERT_1]] : tensor<4xf16> -> tensor<4xf32>
// CHECK-NEXT:  %[[CONVERT_3:.*]] = accel.convert %[[B]] : tensor<4xbf16> -> tensor<4xf16>
// CHECK-NEXT:  return %[[CONVERT]], %[[CONVERT_2]], %[[H]], %[[CONVERT_3]] : tensor<4xbf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf16>
func.func @convert_chains(%h: tensor<4xf16>, %x: tensor<4xf32>, %b: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf16>) {
  %0 = accel.convert %h : tensor<4xf16> -> tensor<4xf32>
  %1 = accel.convert %0 : tensor<4xf32> -> tensor<4xbf16>
  %2 = accel.convert %x : tensor<4xf32> -> tensor<4xf16>
  %3 = accel.convert %2 : tensor<4xf16> -> tensor<4xf32>
  %4 = accel.convert %h : tensor<4xf16> -> tensor<4xf32>
  %5 = accel.convert %4 : tensor<4xf32> -> tensor<4xf16>
  %6 = accel.convert %b : tensor<4xbf16> -> tensor<4xf32>
  %7 = accel.convert %6 : tensor<4xf32> -> tensor<4xf16>
  return %1, %3, %5, %7 : tensor<4xbf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xf16>
}

// -----

// relu fuses into a fully_connected producer (bias kept).
// CHECK-LABEL: func.func @fuse_relu_fc(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x8xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<8x4xf32>
// CHECK-SAME:    %[[B:[^:]+]]: tensor<4xf32>
// CHECK-NEXT:  %[[FC:.*]] = accel.fully_connected %[[X]], %[[W]], %[[B]] {activation = #accel.act<relu>} : (tensor<1x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:  return %[[FC]] : tensor<1x4xf32>
func.func @fuse_relu_fc(%x: tensor<1x8xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<1x4xf32> {
  %0 = accel.fully_connected %x, %w, %b : (tensor<1x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  %1 = accel.relu %0 : tensor<1x4xf32>
  return %1 : tensor<1x4xf32>
}

// -----

// clip fuses into conv with its bounds.
// CHECK-LABEL: func.func @fuse_clip_conv(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x2x4x4xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<3x2x1x1xf32>
// CHECK-NEXT:  %[[CONV:.*]] = accel.conv %[[X]], %[[W]] {activation = #accel.act<clip>, activation_max = 6.000000e+00 : f32, activation_min = 0.000000e+00 : f32, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:  return %[[CONV]] : tensor<1x3x4x4xf32>
func.func @fuse_clip_conv(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32> {
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  %1 = accel.clip %0 {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x3x4x4xf32>
  return %1 : tensor<1x3x4x4xf32>
}

// -----

// sigmoid, tanh fuse into fully_connected; exact gelu into conv; a clip
// with only a max bound keeps just activation_max.
// CHECK-LABEL: func.func @fuse_sigmoid_tanh_gelu(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x8xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<8x4xf32>
// CHECK-SAME:    %[[I:[^:]+]]: tensor<1x2x4xf32>
// CHECK-SAME:    %[[K:[^:]+]]: tensor<2x2x3xf32>
// CHECK-NEXT:  %[[FC:.*]] = accel.fully_connected %[[X]], %[[W]] {activation = #accel.act<sigmoid>} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:  %[[FC_1:.*]] = accel.fully_connected %[[X]], %[[W]] {activation = #accel.act<tanh>} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:  %[[CONV:.*]] = accel.conv %[[I]], %[[K]] {activation = #accel.act<gelu>, dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x2x4xf32>, tensor<2x2x3xf32>) -> tensor<1x2x2xf32>
// CHECK-NEXT:  %[[FC_2:.*]] = accel.fully_connected %[[X]], %[[W]] {activation = #accel.act<clip>, activation_max = 1.000000e+00 : f32} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:  return %[[FC]], %[[FC_1]], %[[CONV]], %[[FC_2]] : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x2x2xf32>, tensor<1x4xf32>
func.func @fuse_sigmoid_tanh_gelu(%x: tensor<1x8xf32>, %w: tensor<8x4xf32>, %i: tensor<1x2x4xf32>, %k: tensor<2x2x3xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x2x2xf32>, tensor<1x4xf32>) {
  %0 = accel.fully_connected %x, %w : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %1 = accel.sigmoid %0 : tensor<1x4xf32>
  %2 = accel.fully_connected %x, %w : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %3 = accel.tanh %2 : tensor<1x4xf32>
  %4 = accel.conv %i, %k {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<1x2x4xf32>, tensor<2x2x3xf32>) -> tensor<1x2x2xf32>
  %5 = accel.gelu %4 : tensor<1x2x2xf32>
  %6 = accel.fully_connected %x, %w : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %7 = accel.clip %6 {max = 1.0 : f32} : tensor<1x4xf32>
  return %1, %3, %5, %7 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x2x2xf32>, tensor<1x4xf32>
}

// -----

// No fusion when the producer has another use, already has an activation,
// or for the tanh approximation of gelu.
// CHECK-LABEL: func.func @no_fuse(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x8xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<8x4xf32>
// CHECK-NEXT:  %[[FC:.*]] = accel.fully_connected %[[X]], %[[W]] : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:  %[[RELU:.*]] = accel.relu %[[FC]] : tensor<1x4xf32>
// CHECK-NEXT:  %[[FC_1:.*]] = accel.fully_connected %[[X]], %[[W]] {activation = #accel.act<tanh>} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:  %[[SIGMOID:.*]] = accel.sigmoid %[[FC_1]] : tensor<1x4xf32>
// CHECK-NEXT:  %[[FC_2:.*]] = accel.fully_connected %[[X]], %[[W]] : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:  %[[GELU:.*]] = accel.gelu %[[FC_2]] {approximate = #accel.gelu_approx<tanh>} : tensor<1x4xf32>
// CHECK-NEXT:  return %[[FC]], %[[RELU]], %[[SIGMOID]], %[[GELU]], %[[GELU]] : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
func.func @no_fuse(%x: tensor<1x8xf32>, %w: tensor<8x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
  %0 = accel.fully_connected %x, %w : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %1 = accel.relu %0 : tensor<1x4xf32>
  %2 = accel.fully_connected %x, %w {activation = #accel.act<tanh>} : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %3 = accel.sigmoid %2 : tensor<1x4xf32>
  %4 = accel.fully_connected %x, %w : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  %5 = accel.gelu %4 {approximate = #accel.gelu_approx<tanh>} : tensor<1x4xf32>
  return %0, %1, %3, %5, %5 : tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// batch_norm into a conv with constant weights and bias. With eps = 1:
//   s = scale / sqrt(var + eps) = [1/2, 0.5/4] = [0.5, 0.125]
//   W' = W * s = [2 * 0.5, 4 * 0.125] = [1.0, 0.5]
//   b' = (b - mean) * s + shift = [(1 - 1) * 0.5 + 0, (-1 - 3) * 0.125 + 2]
//      = [0.0, 1.5]
// CHECK-LABEL: func.func @fold_batch_norm(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x1x2x2xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[0.000000e+00, 1.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<{{\[\[\[\[}}1.000000e+00{{\]\]\]}}, {{\[\[\[}}5.000000e-01{{\]\]\]\]}}> : tensor<2x1x1x1xf32>
// CHECK-NEXT:  %[[CONV:.*]] = accel.conv %[[X]], %[[CST_1]], %[[CST]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  return %[[CONV]] : tensor<1x2x2x2xf32>
func.func @fold_batch_norm(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = accel.constant dense<[[[[2.0]]], [[[4.0]]]]> : tensor<2x1x1x1xf32>
  %b = accel.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %scale = accel.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %shift = accel.constant dense<[0.0, 2.0]> : tensor<2xf32>
  %mean = accel.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %var = accel.constant dense<[3.0, 15.0]> : tensor<2xf32>
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %1 = accel.batch_norm %0, %scale, %shift, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %1 : tensor<1x2x2x2xf32>
}

// -----

// batch_norm into a 1-D conv without bias (bias taken as 0), 2 input
// channels. s = [2/1, 2/2] = [2, 1]; W' = [[2, 4], [-1, 0.5]];
// b' = [-1 * 2 + 0.25, 1 * 1 - 0.25] = [-1.75, 0.75].
// CHECK-LABEL: func.func @fold_batch_norm_no_bias(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x2x3xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[-1.750000e+00, 7.500000e-01]> : tensor<2xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<{{\[\[\[}}2.000000e+00], [4.000000e+00{{\]\]}}, {{\[\[}}-1.000000e+00], [5.000000e-01{{\]\]\]}}> : tensor<2x2x1xf32>
// CHECK-NEXT:  %[[CONV:.*]] = accel.conv %[[X]], %[[CST_1]], %[[CST]] {dilations = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x2x3xf32>, tensor<2x2x1xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
// CHECK-NEXT:  return %[[CONV]] : tensor<1x2x3xf32>
func.func @fold_batch_norm_no_bias(%x: tensor<1x2x3xf32>) -> tensor<1x2x3xf32> {
  %w = accel.constant dense<[[[1.0], [2.0]], [[-1.0], [0.5]]]> : tensor<2x2x1xf32>
  %scale = accel.constant dense<2.0> : tensor<2xf32>
  %shift = accel.constant dense<[0.25, -0.25]> : tensor<2xf32>
  %mean = accel.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %var = accel.constant dense<[0.0, 3.0]> : tensor<2xf32>
  %0 = accel.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : (tensor<1x2x3xf32>, tensor<2x2x1xf32>) -> tensor<1x2x3xf32>
  %1 = accel.batch_norm %0, %scale, %shift, %mean, %var {epsilon = 1.0 : f32} : (tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  return %1 : tensor<1x2x3xf32>
}

// -----

// No batch_norm folding when the conv weight or a batch_norm parameter is
// not constant.
// CHECK-LABEL: func.func @no_fold_batch_norm(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x1x2x2xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<2x1x1x1xf32>
// CHECK-SAME:    %[[P:[^:]+]]: tensor<2xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<1.000000e+00> : tensor<2x1x1x1xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT:  %[[CONV:.*]] = accel.conv %[[X]], %[[W]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  %[[BATCH_NORM:.*]] = accel.batch_norm %[[CONV]], %[[CST_1]], %[[CST_1]], %[[CST_1]], %[[CST_1]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  %[[CONV_1:.*]] = accel.conv %[[X]], %[[CST]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  %[[BATCH_NORM_1:.*]] = accel.batch_norm %[[CONV_1]], %[[CST_1]], %[[CST_1]], %[[P]], %[[CST_1]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  return %[[BATCH_NORM]], %[[BATCH_NORM_1]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
func.func @no_fold_batch_norm(%x: tensor<1x1x2x2xf32>, %w: tensor<2x1x1x1xf32>, %p: tensor<2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %cw = accel.constant dense<1.0> : tensor<2x1x1x1xf32>
  %c = accel.constant dense<1.0> : tensor<2xf32>
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %1 = accel.batch_norm %0, %c, %c, %c, %c : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %2 = accel.conv %x, %cw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %3 = accel.batch_norm %2, %c, %c, %p, %c : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %1, %3 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A per-channel constant (2x1x1 against 1x2x2x2) is added into the conv
// bias [1, 2] + [5, 6] = [6, 8]; a scalar-like constant on the left becomes a
// fresh bias.
// CHECK-LABEL: func.func @fold_add_into_conv_bias(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x1x2x2xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<2x1x1x1xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<5.000000e-01> : tensor<2xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<[6.000000e+00, 8.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:  %[[CONV:.*]] = accel.conv %[[X]], %[[W]], %[[CST_1]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  %[[CONV_1:.*]] = accel.conv %[[X]], %[[W]], %[[CST]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  return %[[CONV]], %[[CONV_1]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
func.func @fold_add_into_conv_bias(%x: tensor<1x1x2x2xf32>, %w: tensor<2x1x1x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %b = accel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %c = accel.constant dense<[[[5.0]], [[6.0]]]> : tensor<2x1x1xf32>
  %0 = accel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %1 = accel.add %0, %c : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %s = accel.constant dense<0.5> : tensor<1x1x1x1xf32>
  %2 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %3 = accel.add %s, %2 : (tensor<1x1x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %1, %3 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A per-column constant is added into the fully_connected bias, scaled by
// beta: [1, 2, 3] * 2 + [10, 20, 30] = [12, 24, 36], and beta becomes 1
// (alpha stays). Without a bias the constant becomes the bias.
// CHECK-LABEL: func.func @fold_add_into_fc_bias(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<2x8xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<8x3xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<[1.000000e+01, 2.000000e+01, 3.000000e+01]> : tensor<3xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<[1.200000e+01, 2.400000e+01, 3.600000e+01]> : tensor<3xf32>
// CHECK-NEXT:  %[[FC:.*]] = accel.fully_connected %[[X]], %[[W]], %[[CST_1]] {alpha = 5.000000e-01 : f32} : (tensor<2x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %[[FC_1:.*]] = accel.fully_connected %[[X]], %[[W]], %[[CST]] : (tensor<2x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  return %[[FC]], %[[FC_1]] : tensor<2x3xf32>, tensor<2x3xf32>
func.func @fold_add_into_fc_bias(%x: tensor<2x8xf32>, %w: tensor<8x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %b = accel.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %c = accel.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = accel.fully_connected %x, %w, %b {beta = 2.0 : f32, alpha = 0.5 : f32} : (tensor<2x8xf32>, tensor<8x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %1 = accel.add %0, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = accel.fully_connected %x, %w : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
  %3 = accel.add %c, %2 : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1, %3 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// No bias folding when the constant varies along a non-channel dimension
// (2 against the last conv dimension; 2x1 along fully_connected rows), when
// the existing bias is not constant, or when the producer has an activation.
// CHECK-LABEL: func.func @no_fold_add_into_bias(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x1x2x2xf32>
// CHECK-SAME:    %[[W:[^:]+]]: tensor<2x1x1x1xf32>
// CHECK-SAME:    %[[FX:[^:]+]]: tensor<2x8xf32>
// CHECK-SAME:    %[[FW:[^:]+]]: tensor<8x3xf32>
// CHECK-SAME:    %[[FB:[^:]+]]: tensor<2x1xf32>
// CHECK-NEXT:  %[[CST:.*]] = accel.constant dense<{{\[\[\[}}1.000000e+00{{\]\]}}, {{\[\[}}2.000000e+00{{\]\]\]}}> : tensor<2x1x1xf32>
// CHECK-NEXT:  %[[CST_1:.*]] = accel.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:  %[[CST_2:.*]] = accel.constant dense<{{\[\[}}1.000000e+00], [2.000000e+00{{\]\]}}> : tensor<2x1xf32>
// CHECK-NEXT:  %[[CST_3:.*]] = accel.constant dense<[5.000000e+00, 6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:  %[[CONV:.*]] = accel.conv %[[X]], %[[W]] {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  %[[ADD:.*]] = accel.add %[[CONV]], %[[CST_3]] : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  %[[FC:.*]] = accel.fully_connected %[[FX]], %[[FW]] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %[[ADD_1:.*]] = accel.add %[[FC]], %[[CST_2]] : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %[[FC_1:.*]] = accel.fully_connected %[[FX]], %[[FW]], %[[FB]] : (tensor<2x8xf32>, tensor<8x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %[[ADD_2:.*]] = accel.add %[[FC_1]], %[[CST_1]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:  %[[CONV_1:.*]] = accel.conv %[[X]], %[[W]] {activation = #accel.act<relu>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  %[[ADD_3:.*]] = accel.add %[[CONV_1]], %[[CST]] : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:  return %[[ADD]], %[[ADD_1]], %[[ADD_2]], %[[ADD_3]] : tensor<1x2x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2x2x2xf32>
func.func @no_fold_add_into_bias(%x: tensor<1x1x2x2xf32>, %w: tensor<2x1x1x1xf32>, %fx: tensor<2x8xf32>, %fw: tensor<8x3xf32>, %fb: tensor<2x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2x2x2xf32>) {
  %cw = accel.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %0 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %1 = accel.add %0, %cw : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %rows = accel.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %2 = accel.fully_connected %fx, %fw : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
  %3 = accel.add %2, %rows : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %c = accel.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %4 = accel.fully_connected %fx, %fw, %fb : (tensor<2x8xf32>, tensor<8x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %5 = accel.add %4, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %cc = accel.constant dense<[[[1.0]], [[2.0]]]> : tensor<2x1x1xf32>
  %6 = accel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, activation = #accel.act<relu>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %7 = accel.add %6, %cc : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %1, %3, %5, %7 : tensor<1x2x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x2x2x2xf32>
}

// -----

// ONNX bools are 0/1: true widens to 1, not -1.
// CHECK-LABEL: func.func @cast_bool_to_int
func.func @cast_bool_to_int() -> tensor<2xi32> {
  // CHECK: accel.constant dense<[1, 0]> : tensor<2xi32>
  %c = accel.constant dense<[true, false]> : tensor<2xi1>
  %0 = accel.cast %c : tensor<2xi1> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// An activation the user hinted apart from its producer is not fused into
// it (the hint would be lost); one with the producer's hint, or none, is.
// CHECK-LABEL: func.func @fuse_respects_hints
// CHECK: %[[FC:.*]] = accel.fully_connected %arg0, %arg1 {accel.hint = #accel.hint<cores = [1]>, transpose_weight = true}
// CHECK: accel.tanh %[[FC]] {accel.hint = #accel.hint<cores = [2]>}
// CHECK: accel.fully_connected {{.*}}activation = #accel.act<relu>
// CHECK: accel.fully_connected {{.*}}activation = #accel.act<sigmoid>
// CHECK-NOT: accel.relu
// CHECK-NOT: accel.sigmoid
func.func @fuse_respects_hints(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = accel.fully_connected %x, %w {transpose_weight = true, accel.hint = #accel.hint<cores = [1]>} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %1 = accel.tanh %0 {accel.hint = #accel.hint<cores = [2]>} : tensor<2x4xf32>
  %2 = accel.fully_connected %x, %w {transpose_weight = true, accel.hint = #accel.hint<cores = [3]>} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %3 = accel.relu %2 {accel.hint = #accel.hint<cores = [3]>} : tensor<2x4xf32>
  %4 = accel.fully_connected %x, %w {transpose_weight = true, accel.hint = #accel.hint<chunks = 2>} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %5 = accel.sigmoid %4 : tensor<2x4xf32>
  return %1, %3, %5 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
