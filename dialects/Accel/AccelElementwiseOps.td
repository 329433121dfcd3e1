//===- AccelElementwiseOps.td - elementwise accel ops ------*- tablegen -*-===//
//
// Unary and binary elementwise operations. Binary operations broadcast with
// numpy rules; the verifier rejects shapes that do not broadcast.
//
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Binary.
//===----------------------------------------------------------------------===//

class Accel_BinaryOp<string mnemonic, string desc, list<Trait> traits = []>
    : Accel_InferredOp<mnemonic, !listconcat(traits, [DeclareOpInterfaceMethods<Accel_SplitOpInterface>])> {
  let summary = "elementwise " # desc # " with numpy broadcasting";
  let description = [{
    Computes `}] # desc # [{` of the two operands elementwise after
    broadcasting both to a common shape (numpy rules: trailing dimensions
    align; each pair is equal or one of them is 1). Both operands have the
    same element type.

    ```mlir
    %r = accel.}] # mnemonic # [{ %a, %b
           : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$lhs, Accel_Tensor:$rhs);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let extraClassDefinition = compatDefinition # [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::mlir::nnaccel::accel::inferBroadcastResult(
          location, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
          /*resultElementType=*/nullptr, inferred);
    }
  }];
}

def Accel_AddOp : Accel_BinaryOp<"add", "lhs + rhs", [Commutative]> {
  let hasCanonicalizer = 1;
}
def Accel_SubOp : Accel_BinaryOp<"sub", "lhs - rhs">;
def Accel_MulOp : Accel_BinaryOp<"mul", "lhs * rhs", [Commutative]>;
def Accel_DivOp : Accel_BinaryOp<"div", "lhs / rhs">;
def Accel_PowOp : Accel_BinaryOp<"pow", "lhs ^ rhs">;
def Accel_MaxOp : Accel_BinaryOp<"max", "max(lhs, rhs)", [Commutative]>;
def Accel_MinOp : Accel_BinaryOp<"min", "min(lhs, rhs)", [Commutative]>;

def Accel_ModOp : Accel_InferredOp<"mod"> {
  let summary = "elementwise remainder with numpy broadcasting";
  let description = [{
    ONNX `Mod`. Without `fmod` (integers only) the remainder takes the sign
    of the divisor, as Python's `%`; with `fmod` it takes the sign of the
    dividend, as C's `fmod` (floats and integers). A zero integer divisor is
    a runtime fault.

    ```mlir
    %r = accel.mod %a, %b {fmod} : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$lhs, Accel_Tensor:$rhs, UnitAttr:$fmod);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = compatDefinition # [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::mlir::nnaccel::accel::inferBroadcastResult(
          location, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
          /*resultElementType=*/nullptr, inferred);
    }
  }];
}

def Accel_CompareOp : Accel_InferredOp<"compare"> {
  let summary = "elementwise comparison with numpy broadcasting";
  let description = [{
    Compares the broadcast operands elementwise and yields an `i1` tensor.

    ```mlir
    %m = accel.compare lt, %a, %b
           : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Accel_CompareKindAttr:$kind, Accel_Tensor:$lhs,
                       Accel_Tensor:$rhs);
  let results = (outs Accel_BoolTensor:$result);
  let assemblyFormat = "$kind `,` $lhs `,` $rhs attr-dict `:` "
                       "functional-type(operands, results)";
  let hasFolder = 1;
}

def Accel_WhereOp : Accel_InferredOp<"where"> {
  let summary = "elementwise select with numpy broadcasting";
  let description = [{
    `result[i] = condition[i] ? on_true[i] : on_false[i]` after broadcasting
    the three operands to a common shape.

    ```mlir
    %r = accel.where %c, %x, %y
      : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Accel_BoolTensor:$condition, Accel_Tensor:$on_true,
                       Accel_Tensor:$on_false);
  let results = (outs Accel_Tensor:$result);
  let assemblyFormat = "$condition `,` $on_true `,` $on_false attr-dict `:` "
                       "functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Unary.
//===----------------------------------------------------------------------===//

class Accel_UnaryOp<string mnemonic, string desc, Type tensorType,
                    list<Trait> traits = []>
    : Accel_Op<mnemonic, !listconcat(traits,
        [Pure, SameOperandsAndResultType, DeclareOpInterfaceMethods<Accel_SplitOpInterface>])> {
  let summary = "elementwise " # desc;
  let description = [{
    Computes `}] # desc # [{` elementwise.

    ```mlir
    %r = accel.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Accel_SqrtOp : Accel_UnaryOp<"sqrt", "sqrt(x)", Accel_RealTensor>;
def Accel_ExpOp : Accel_UnaryOp<"exp", "exp(x)", Accel_RealTensor>;
def Accel_ErfOp : Accel_UnaryOp<"erf", "erf(x)", Accel_RealTensor>;
def Accel_TanhOp : Accel_UnaryOp<"tanh", "tanh(x)", Accel_FloatTensor> {
  let hasCanonicalizer = 1;
}
def Accel_SigmoidOp : Accel_UnaryOp<"sigmoid", "1 / (1 + exp(-x))",
                                    Accel_FloatTensor> {
  let hasCanonicalizer = 1;
}
def Accel_ReluOp : Accel_UnaryOp<"relu", "max(x, 0)", Accel_Tensor> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def Accel_NegOp : Accel_UnaryOp<"neg", "-x", Accel_Tensor> {
  let hasFolder = 1;
}
def Accel_AbsOp : Accel_UnaryOp<"abs", "|x|", Accel_Tensor>;
def Accel_RoundOp : Accel_UnaryOp<"round", "round(x)", Accel_RealTensor> {
  let description = [{
    Rounds to the nearest integral value, ties to even (ONNX `Round`, IEEE
    roundToIntegralTiesToEven); NaN, infinities and signed zeros are kept.

    ```mlir
    %r = accel.round %x : tensor<4x8xf32>
    ```
  }];
  let hasFolder = 1;
}

// Transcendental and rounding functions without card kernels: the host
// computes them in double and rounds once to the element type.
class Accel_MathOp<string mnemonic, string desc>
    : Accel_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise " # desc;
  let description = [{
    Computes `}] # desc # [{` elementwise (float tensors only, ONNX
    semantics: NaN for arguments outside the domain).

    ```mlir
    %r = accel.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Accel_RealTensor:$input);
  let results = (outs Accel_RealTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Accel_LogOp : Accel_MathOp<"log", "log(x)">;
def Accel_SinOp : Accel_MathOp<"sin", "sin(x)">;
def Accel_CosOp : Accel_MathOp<"cos", "cos(x)">;
def Accel_TanOp : Accel_MathOp<"tan", "tan(x)">;
def Accel_AsinOp : Accel_MathOp<"asin", "asin(x)">;
def Accel_AcosOp : Accel_MathOp<"acos", "acos(x)">;
def Accel_AtanOp : Accel_MathOp<"atan", "atan(x)">;
def Accel_SinhOp : Accel_MathOp<"sinh", "sinh(x)">;
def Accel_CoshOp : Accel_MathOp<"cosh", "cosh(x)">;
def Accel_AsinhOp : Accel_MathOp<"asinh", "asinh(x)">;
def Accel_AcoshOp : Accel_MathOp<"acosh", "acosh(x)">;
def Accel_AtanhOp : Accel_MathOp<"atanh", "atanh(x)">;
def Accel_CeilOp : Accel_MathOp<"ceil", "ceil(x)">;
def Accel_FloorOp : Accel_MathOp<"floor", "floor(x)">;

def Accel_GeluOp : Accel_UnaryOp<"gelu", "x * Phi(x)", Accel_FloatTensor> {
  let description = [{
    Gaussian error linear unit. `approximate = none` is the exact form
    `0.5 * x * (1 + erf(x / sqrt(2)))`; `approximate = tanh` is
    `0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`.

    ```mlir
    %r = accel.gelu %x {approximate = #accel.gelu_approx<tanh>}
           : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Accel_FloatTensor:$input,
      DefaultValuedAttr<Accel_GeluApproximationAttr,
                        "GeluApproximation::none">:$approximate);
  let hasCanonicalizer = 1;
}

def Accel_ClipOp : Accel_UnaryOp<"clip", "min(max(x, min), max)",
                                 Accel_Tensor> {
  let description = [{
    Clamps every element to `[min, max]`; a missing bound is unbounded.
    Bounds are given in the real (expressed) domain.

    ```mlir
    %r = accel.clip %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<8xf32>
    ```
  }];
  let arguments = (ins Accel_Tensor:$input, OptionalAttr<F32Attr>:$min,
                       OptionalAttr<F32Attr>:$max);
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Accel_CastOp : Accel_Op<"cast", [Pure, SameOperandsAndResultShape]> {
  let summary = "elementwise element type conversion";
  let description = [{
    Converts each element to the result element type with ONNX `Cast`
    semantics: float to integer truncates toward zero and saturates; integer
    to float rounds to nearest even; to `i1` yields `x != 0`; `ui8` widens
    without sign extension. A quantized operand or result is cast as its
    stored integers (not the real values they express): casting
    `!quant.uniform<u8:f32, ...>` to `i32` widens the stored bytes, and
    casting `ui8` or another quantized type with the same storage to it
    reinterprets the stored integers under new parameters.

    ```mlir
    %r = accel.cast %x : tensor<4xi64> -> tensor<4xf32>
    %i = accel.cast %q : tensor<4x!quant.uniform<u8:f32, 0.5:128>> -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Accel_CastTensor:$input);
  let results = (outs Accel_CastTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}
