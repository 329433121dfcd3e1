//===- NPUAttrs.td - npu enums and attributes --------------*- tablegen -*-===//
//
// The ISA's enumerations (docs/isa.md sections 3 and 7) as MLIR enum
// attributes, and `#npu.mem`, a memory operand (space, byte address and the
// scalar register added to it). Enumerator values are the ISA encodings, so
// conversion to lib/ISA is a cast; NPUDialect.cpp static_asserts that.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_NPU_NPUATTRS_TD
#define NNACCEL_DIALECT_NPU_NPUATTRS_TD

include "NPUBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enumerations. In op assembly they print as bare keywords (`f16`, `row`);
// in generic form as `#npu<dtype f16>`.
//===----------------------------------------------------------------------===//

class NPU_Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nnaccel::npu";
}

class NPU_EnumAttr<EnumAttrInfo enum, string mnemonic>
    : EnumAttr<NPU_Dialect, enum, mnemonic> {
  let assemblyFormat = "$value";
}

def NPU_DType : NPU_Enum<"DType", "element type", [
    I32EnumAttrCase<"f32", 0>, I32EnumAttrCase<"f16", 1>,
    I32EnumAttrCase<"bf16", 2>, I32EnumAttrCase<"i32", 3>,
    I32EnumAttrCase<"i16", 4>, I32EnumAttrCase<"i8", 5>,
    I32EnumAttrCase<"u8", 6>, I32EnumAttrCase<"i4", 7>,
    I32EnumAttrCase<"u4", 8>, I32EnumAttrCase<"fp8e4m3", 9>,
    I32EnumAttrCase<"fp8e5m2", 10>, I32EnumAttrCase<"msfp8", 11>,
    I32EnumAttrCase<"msfp9", 12>, I32EnumAttrCase<"mxint8", 13>,
    I32EnumAttrCase<"i64", 14>, I32EnumAttrCase<"mxfp8e4m3", 15>]>;
def NPU_DTypeAttr : NPU_EnumAttr<NPU_DType, "dtype">;

// Memory spaces; `chain` is the pseudo-space of a chained operand. Only used
// inside #npu.mem, so no attribute of its own.
def NPU_Space : NPU_Enum<"Space", "memory space", [
    I32EnumAttrCase<"dram", 0>, I32EnumAttrCase<"shared", 1>,
    I32EnumAttrCase<"vrf", 2>, I32EnumAttrCase<"mrf", 3>,
    I32EnumAttrCase<"acc", 4>, I32EnumAttrCase<"chain", 5>]>;

// `ctl` is encodable in `sync`'s field but rejected by the verifier; it is
// representable so that any decodable binary has an IR form.
def NPU_Queue : NPU_Enum<"Queue", "instruction queue", [
    I32EnumAttrCase<"ld", 0>, I32EnumAttrCase<"ex", 1>,
    I32EnumAttrCase<"st", 2>, I32EnumAttrCase<"ctl", 3>]>;
def NPU_QueueAttr : NPU_EnumAttr<NPU_Queue, "queue">;

def NPU_Bcast : NPU_Enum<"Bcast", "broadcast of a binary op's b operand", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"row", 1>,
    I32EnumAttrCase<"col", 2>, I32EnumAttrCase<"scalar", 3>]>;
def NPU_BcastAttr : NPU_EnumAttr<NPU_Bcast, "bcast">;

def NPU_EmbFmt : NPU_Enum<"EmbFmt", "embedding table storage format", [
    I32EnumAttrCase<"f32", 0>, I32EnumAttrCase<"f16", 1>,
    I32EnumAttrCase<"bf16", 2>, I32EnumAttrCase<"rw8", 3>,
    I32EnumAttrCase<"rw4", 4>]>;
def NPU_EmbFmtAttr : NPU_EnumAttr<NPU_EmbFmt, "embfmt">;

def NPU_Pool : NPU_Enum<"Pool", "embedding bag pooling", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"sum", 1>,
    I32EnumAttrCase<"mean", 2>]>;
def NPU_PoolAttr : NPU_EnumAttr<NPU_Pool, "pool">;

def NPU_Axis : NPU_Enum<"Axis", "reduction axis", [
    I32EnumAttrCase<"cols", 0>, I32EnumAttrCase<"rows", 1>]>;
def NPU_AxisAttr : NPU_EnumAttr<NPU_Axis, "axis">;

def NPU_IdxType : NPU_Enum<"IdxType", "embedding index type", [
    I32EnumAttrCase<"i32", 0>, I32EnumAttrCase<"i64", 1>]>;
def NPU_IdxTypeAttr : NPU_EnumAttr<NPU_IdxType, "idxtype">;

//===----------------------------------------------------------------------===//
// Memory operands.
//===----------------------------------------------------------------------===//

def NPU_MemAttr : AttrDef<NPU_Dialect, "Mem"> {
  let mnemonic = "mem";
  let summary = "memory operand: space, byte address and offset register";
  let description = [{
    One memory operand of an instruction: the `space`, `addr` and `reg`
    fields of the ISA (docs/isa.md section 2.2). The effective address is
    `addr + s[reg]` at dispatch. Register-indirect operands (`emb.gather`'s
    index, length and weight lists) have no address field; their `addr` is
    always 0. The chain pseudo-space is written `chain`.

    Values are stored unchecked so that out-of-range input reaches the op
    verifier, which reports it with the ISA's field-range message.

    Syntax, inside ops (and within `#npu.mem<...>` in generic form):

    ```
    dram[0x1000]   vrf[s3]   acc[0x400+s1]   chain
    ```
  }];
  let parameters = (ins "::mlir::nnaccel::npu::Space":$space,
                        "uint64_t":$addr, "uint64_t":$reg);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    bool isChain() const { return getSpace() == Space::chain; }
  }];
}

#endif // NNACCEL_DIALECT_NPU_NPUATTRS_TD
