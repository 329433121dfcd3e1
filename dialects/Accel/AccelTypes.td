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
  I32EnumAttrCase<"mxint8", 2>,
  I32EnumAttrCase<"mxfp8e4m3", 3>,
  I32EnumAttrCase<"mxfp8e5m2", 4>
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
    bytes a block), `mxfp8e4m3` and `mxfp8e5m2` (OCP MXFP8: the same blocks
    with fp8 E4M3 or E5M2 elements). A dense tensor pads its innermost dimension to whole
    blocks; docs/numerics.md defines the encodings.

    ```mlir
    %w = accel.constant dense_resource<w> : tensor<256x512x!accel.bfp<msfp8>>
    ```
  }];
  let parameters = (ins EnumParameter<Accel_BlockFormat>:$format);
  let assemblyFormat = "`<` $format `>`";
}

def Accel_RowwiseType : TypeDef<Accel_Dialect, "Rowwise"> {
  let mnemonic = "rowwise";
  let summary = "a rowwise-quantized embedding-table element type";
  let description = [{
    The element type of an embedding table quantized row by row, in the
    fused layouts of FBGEMM / Caffe2 that `emb.gather` dequantizes itself
    (docs/isa.md §8.3, docs/numerics.md §3). A `tensor<R x D x
    !accel.rowwise<bits>>` is R rows of D elements, stored back to back:

    - `rowwise<8>`: `[D x u8][f32 scale][f32 bias]`, D + 8 bytes a row;
    - `rowwise<4>`: `[ceil(D/2) bytes, even element in the low nibble]
      [f16 scale][f16 bias]`, ceil(D/2) + 4 bytes a row.

    Element i of a row is `q_i * scale + bias` in f32. Rows are not padded
    (the gather engine reads a row at any byte address). Only constants
    (`dense_resource` blobs in this layout) have the type, and only
    `accel.embedding_bag` (its table) and `accel.gather` (its data, rows
    on axis 0) read it; their results are f32.

    ```mlir
    %t = accel.constant dense_resource<emb0> : tensor<1000x32x!accel.rowwise<4>>
    %r = accel.embedding_bag %t, %ids {mode = #accel.bag_mode<sum>}
      : (tensor<1000x32x!accel.rowwise<4>>, tensor<16x4xi64>) -> tensor<16x32xf32>
    ```
  }];
  let parameters = (ins "unsigned":$bits);
  let assemblyFormat = "`<` $bits `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes of one stored row of `dim` elements (codes, scale, bias).
    uint64_t getRowBytes(int64_t dim) const;
  }];
}

#endif // NNACCEL_DIALECT_ACCEL_ACCELTYPES_TD
