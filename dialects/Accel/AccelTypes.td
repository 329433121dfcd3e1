//===- AccelTypes.td - accel types -------------------------*- tablegen -*-===//
//
// Element types the builtin type system has no counterpart for.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_ACCEL_ACCELTYPES_TD
#define NNACCEL_DIALECT_ACCEL_ACCELTYPES_TD

include "AccelBase.td"
include "mlir/IR/EnumAttr.td"

def Accel_BlockFormat : I32EnumAttr<"BlockFormat",
    "shared-exponent block number format", [
  I32EnumAttrCase<"msfp8", 0>,
  I32EnumAttrCase<"msfp9", 1>,
  I32EnumAttrCase<"mxint8", 2>
]> {
  let cppNamespace = "::mlir::nnaccel::accel";
  let genSpecializedAttr = 0;
}

def Accel_BlockFloatType : TypeDef<Accel_Dialect, "BlockFloat"> {
  let mnemonic = "bfp";
  let summary = "a shared-exponent block floating-point element type";
  let description = [{
    Elements stored in blocks that share one exponent: `msfp8` and `msfp9`
    (Brainwave ms-fp: blocks of 16 elements with a 5-bit shared exponent and
    1 sign + 2 or 3 mantissa bits each, 9 bytes a block) and `mxint8` (OCP
    Microscaling: blocks of 32 int8 elements sharing an E8M0 scale, 33
    bytes a block). A dense tensor pads its innermost dimension to whole
    blocks; docs/numerics.md defines the encodings.

    ```mlir
    %w = accel.constant dense_resource<w> : tensor<256x512x!accel.bfp<msfp8>>
    ```
  }];
  let parameters = (ins EnumParameter<Accel_BlockFormat>:$format);
  let assemblyFormat = "`<` $format `>`";
}

#endif // NNACCEL_DIALECT_ACCEL_ACCELTYPES_TD
