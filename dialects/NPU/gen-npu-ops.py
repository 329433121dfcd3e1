#!/usr/bin/env python3
#===- gen-npu-ops.py - Generate the npu instruction ops from the ISA table -===#
#
# The `npu` dialect has one op per soft-NPU instruction, with one attribute
# per instruction field. Writing ~50 ODS records by hand would duplicate
# include/nnaccel/ISA/Instructions.def and drift from it, so this script reads
# the table (through the C preprocessor, which expands its field macros
# exactly as the C++ does) and writes NPUInstructionOps.td. The output is
# committed: the build depends only on mlir-tblgen, never on this script.
#
#   dialects/NPU/gen-npu-ops.py           regenerate NPUInstructionOps.td
#   dialects/NPU/gen-npu-ops.py --check   fail if the committed file is stale
#
# Prose (summaries, semantics) lives in SUMMARIES/DETAILS below; everything
# structural (attributes, assembly format, field table) comes from the table.
#
#===------------------------------------------------------------------------===#

import argparse
import os
import re
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEF = os.path.join(ROOT, "include", "nnaccel", "ISA", "Instructions.def")
OUT = os.path.join(HERE, "NPUInstructionOps.td")

# One-line summary per mnemonic (the ODS `summary`).
SUMMARIES = {
    "nop": "no operation",
    "halt": "stop dispatching; the core ends when its queues drain",
    "sync": "token-only no-op executed by the queue it names",
    "loop": "hardware loop with an immediate trip count",
    "loop.r": "hardware loop with a trip count read from a scalar register",
    "endloop": "close the innermost hardware loop",
    "barrier": "wait for the cores named in a mask to reach the same barrier",
    "s.li": "scalar load immediate",
    "s.addi": "scalar add immediate",
    "s.muli": "scalar multiply by immediate",
    "s.add": "scalar add",
    "s.sub": "scalar subtract",
    "s.mul": "scalar multiply",
    "s.shli": "scalar shift left by immediate",
    "s.shri": "scalar logical shift right by immediate",
    "dma.ld": "strided 3-D DMA into on-chip memory, with padding",
    "emb.gather": "embedding gather with optional bag pooling",
    "recv": "receive bytes from another card or the host",
    "dma.st": "strided 3-D DMA out of on-chip memory",
    "send": "send bytes to another card or the host",
    "mm": "matrix multiply of activations by a weight tile",
    "v.add": "element-wise vector add",
    "v.sub": "element-wise vector subtract",
    "v.mul": "element-wise vector multiply",
    "v.max": "element-wise vector maximum",
    "v.min": "element-wise vector minimum",
    "vs.add": "add a scalar immediate to a vector",
    "vs.mul": "multiply a vector by a scalar immediate",
    "vs.max": "maximum of a vector and a scalar immediate",
    "vs.min": "minimum of a vector and a scalar immediate",
    "v.mov": "copy a vector (bit copy, dt = at)",
    "v.cvt": "convert a vector between element types",
    "v.relu": "rectified linear unit",
    "v.sigm": "logistic sigmoid",
    "v.tanh": "hyperbolic tangent",
    "v.exp": "exponential",
    "v.gelu": "GELU activation",
    "v.gelut": "tanh-approximate GELU activation",
    "v.ceq": "element-wise equality mask (1 / 0)",
    "v.cne": "element-wise inequality mask (1 / 0)",
    "v.clt": "element-wise less-than mask (1 / 0)",
    "v.cle": "element-wise less-or-equal mask (1 / 0)",
    "v.cgt": "element-wise greater-than mask (1 / 0)",
    "v.cge": "element-wise greater-or-equal mask (1 / 0)",
    "v.sel": "masked select: dst = a != 0 ? b : dst",
    "v.recip": "reciprocal",
    "v.rsqrt": "reciprocal square root",
    "v.abs": "absolute value",
    "v.neg": "negation",
    "v.rsum": "sum reduction along an axis",
    "v.rmax": "maximum reduction along an axis",
    "v.rmin": "minimum reduction along an axis",
    "v.rqnt": "requantize to an integer type with scales and a zero point",
    "v.dqnt": "dequantize an integer vector with scales and a zero point",
    "v.fill": "fill a vector with a float immediate",
}

# Where each family is specified in docs/isa.md.
SECTION = {
    "Ctl": "8.1",
    "dma.ld": "8.2",
    "emb.gather": "8.3",
    "recv": "8.4",
    "send": "8.4",
    "dma.st": "8.5",
    "mm": "8.6",
}

ENUM_ATTR = {
    "DType": ("NPU_DTypeAttr", "DType", "f32"),
    "Queue": ("NPU_QueueAttr", "Queue", "ld"),
    "Bcast": ("NPU_BcastAttr", "Bcast", "none"),
    "EmbFmt": ("NPU_EmbFmtAttr", "EmbFmt", "f32"),
    "Pool": ("NPU_PoolAttr", "Pool", "none"),
    "Axis": ("NPU_AxisAttr", "Axis", "cols"),
    "IdxType": ("NPU_IdxTypeAttr", "IdxType", "i32"),
}

FLAGS = ["pop_prev", "pop_next", "push_prev", "push_next", "chain"]

# Values used in the generated examples, chosen to read like real code.
EXAMPLE_VALUES = {
    "rows": "8", "cols": "64", "dpitch": "256", "apitch": "256",
    "bpitch": "256", "m": "8", "k": "64", "n": "64", "x": "64", "y": "8",
    "z": "1", "sy": "256", "dy": "256", "spitch": "256", "count": "4",
    "step": "1024", "imm": "2", "sh": "3", "id": "1", "mask": "15",
    "bytes": "4096", "peer": "255", "chan": "7", "dim": "64",
    "rowbytes": "128", "nrows": "1000", "nseg": "8",
}


def read_table():
    """Returns [(Name, opcode, mnemonic, queue, [field...])] in table order."""
    driver = ('#define NNACCEL_INST(N, O, M, Q, F) @INST N O M Q F @END\n'
              '#define NNACCEL_FIELD(N, K, W, E, P) @FIELD N K W E P @;\n'
              '#include "nnaccel/ISA/Instructions.def"\n')
    text = subprocess.run(
        ["cpp", "-P", "-I", os.path.join(ROOT, "include")], input=driver,
        capture_output=True, text=True, check=True).stdout
    insts = []
    for m in re.finditer(r"@INST\s+(\w+)\s+(0x[0-9A-Fa-f]+)\s+\"([^\"]+)\"\s+"
                         r"(\w+)(.*?)@END", text, re.S):
        name, opcode, mnemonic, queue, body = m.groups()
        fields = []
        for f in re.finditer(r"@FIELD\s+((?:\"[^\"]*\"\s*)+)(\w+)\s+(\d+)\s+"
                             r"(\w+)\s+(true|false)\s*@;", body):
            fname = "".join(re.findall(r"\"([^\"]*)\"", f.group(1)))
            fields.append({"name": fname, "kind": f.group(2),
                           "width": int(f.group(3)), "enum": f.group(4),
                           "positional": f.group(5) == "true"})
        insts.append((name, int(opcode, 16), mnemonic, queue, fields))
    if not insts:
        sys.exit("gen-npu-ops.py: no instructions found in " + DEF)
    return insts


def operands(fields):
    """Groups raw fields into op attributes: memory operands become one
    `#npu.mem` attribute, every other field one attribute of its own."""
    ops, i = [], 0
    while i < len(fields):
        f = fields[i]
        if f["kind"] == "MemSpace":
            base = f["name"].split(".")[0]
            has_addr = i + 1 < len(fields) and fields[i + 1]["kind"] == "MemAddr"
            ops.append({"name": base, "kind": "Mem" if has_addr else "MemR",
                        "positional": True, "fields": fields[i:i + (3 if has_addr else 2)]})
            i += 3 if has_addr else 2
            continue
        ops.append({"name": f["name"], "kind": f["kind"], "enum": f["enum"],
                    "width": f["width"], "positional": f["positional"],
                    "fields": [f]})
        i += 1
    return ops


def ods_type(op):
    k = op["kind"]
    if k in ("Mem", "MemR"):
        return "NPU_MemAttr"
    if k == "SReg":
        return "I64Attr"
    if k == "Enum":
        attr, enum, default = ENUM_ATTR[op["enum"]]
        if op["positional"]:
            return attr
        return ('DefaultValuedAttr<%s, "::mlir::nnaccel::npu::%s::%s">'
                % (attr, enum, default))
    if k == "F32Imm":
        return 'DefaultValuedAttr<F32Attr, "0.0f">'
    return 'DefaultValuedAttr<I64Attr, "0">'


def field_doc(f):
    kind = {"MemSpace": "memory space", "MemAddr": "byte address (unsigned)",
            "MemReg": "scalar register added to the address",
            "SReg": "scalar register", "UImm": "unsigned immediate",
            "SImm": "signed immediate", "F32Imm": "f32 immediate",
            "Enum": "enum " + f["enum"].lower()}[f["kind"]]
    return "%s (%d bits, %s)" % (f["name"], f["width"], kind)


def example(mnemonic, ops):
    pos, kw = [], []
    mem_spaces = iter(["vrf[0x1000]", "vrf[s1]", "acc[0x400]",
                       "mrf[0x0]", "vrf[0x2000]"])
    for op in ops:
        k, n = op["kind"], op["name"]
        if k == "Mem":
            if mnemonic == "dma.ld" and n == "src":
                pos.append("dram[0x10000+s1]")
            elif mnemonic == "dma.st" and n == "dst":
                pos.append("dram[0x20000+s1]")
            elif mnemonic in ("emb.gather",) and n == "table":
                pos.append("dram[0x1000000]")
            elif mnemonic == "mm" and n == "w":
                pos.append("mrf[0x0]")
            else:
                pos.append(next(mem_spaces))
        elif k == "MemR":
            pos.append("dram[s2]")
        elif k == "SReg":
            pos.append({"rd": "s3", "ra": "s1", "rb": "s2", "idx": "s1",
                        "cnt": "s2"}.get(n, "s1"))
        elif k == "Enum" and op["positional"]:
            pos.append("ex" if n == "q" else
                       ("i32" if mnemonic == "mm" and n == "dt" else
                        ("i8" if mnemonic == "mm" else "f16")))
        elif n in EXAMPLE_VALUES:
            if mnemonic.startswith("s.") and n == "imm":
                kw.append("imm = -64")
            elif k == "F32Imm":
                kw.append("imm = 1.250000e-01")
            else:
                kw.append("%s = %s" % (n, EXAMPLE_VALUES[n]))
    text = "npu." + mnemonic
    if pos:
        text += " " + ", ".join(pos)
    if kw:
        text += " " + " ".join(kw)
    return text


def op_record(name, opcode, mnemonic, queue, fields):
    ops = operands(fields)
    args = ["%s:$%s" % (ods_type(op), op["name"]) for op in ops]
    args += ["UnitAttr:$%s" % f for f in FLAGS]
    fmt_pos, fmt_kw = [], []
    for op in ops:
        n = op["name"]
        if op["kind"] == "Mem":
            fmt_pos.append("custom<Mem>($%s)" % n)
        elif op["kind"] == "MemR":
            fmt_pos.append("custom<MemR>($%s)" % n)
        elif op["kind"] == "SReg":
            fmt_pos.append("custom<SReg>($%s)" % n)
        elif op["kind"] == "Enum" and op["positional"]:
            fmt_pos.append("custom<Enum>($%s)" % n)
        elif op["kind"] == "Enum":
            fmt_kw.append("(`%s` `=` custom<Enum>($%s)^)?" % (n, n))
        else:
            fmt_kw.append("(`%s` `=` $%s^)?" % (n, n))
    fmt = " `,` ".join(fmt_pos)
    parts = ([fmt] if fmt else []) + fmt_kw
    parts += ["(`%s` $%s^)?" % (f, f) for f in FLAGS]
    parts.append("attr-dict")

    section = SECTION.get(mnemonic, SECTION.get(queue, "8.7"))
    queue_text = {"Ctl": "the dispatcher (control unit)", "Ld": "the ld queue",
                  "Ex": "the ex queue", "St": "the st queue"}[queue]
    if mnemonic == "sync":
        queue_text = "the queue named by `q`"
    lines = []
    lines.append("`%s` (opcode 0x%02X), executed by %s; specified in "
                 "docs/isa.md section %s." % (mnemonic, opcode, queue_text,
                                               section))
    lines.append("")
    if fields:
        lines.append("Instruction fields, in encoding order (memory operands "
                     "are one `#npu.mem` attribute holding space, address "
                     "and offset register; keyword fields default to 0):")
        lines.append("")
        for f in fields:
            lines.append("* " + field_doc(f))
    else:
        lines.append("The instruction has no fields.")
    lines.append("")
    lines.append("Header flags are the unit attributes `pop_prev`, "
                 "`pop_next`, `push_prev`, `push_next` and `chain`. The "
                 "verifier applies the ISA's per-instruction rules "
                 "(`nnaccel::isa::verifyInstruction`) with the enclosing "
                 "program's target.")
    lines.append("")
    lines.append("Example:")
    lines.append("")
    lines.append("```mlir")
    lines.append(example(mnemonic, ops))
    lines.append("```")
    wrapped = []
    for l in lines:
        if l.startswith(("* ", "npu.", "```")) or not l:
            wrapped.append(l)
        else:
            wrapped.extend(textwrap.wrap(l, 76))
    desc = "\n".join(("    " + l) if l else "" for l in wrapped)

    out = []
    out.append("def NPU_%sOp : NPU_InstructionOp<\"%s\"> {" % (name, mnemonic))
    out.append("  let summary = \"%s\";" % SUMMARIES[mnemonic])
    out.append("  let description = [{\n%s\n  }];" % desc)
    out.append("  let arguments = (ins")
    out.append(",\n".join("    " + a for a in args))
    out.append("  );")
    out.append("  let assemblyFormat = [{")
    out.append("    " + "\n    ".join(parts))
    out.append("  }];")
    out.append("}")
    return "\n".join(out)


def generate():
    insts = read_table()
    missing = [i[2] for i in insts if i[2] not in SUMMARIES]
    if missing:
        sys.exit("gen-npu-ops.py: add a summary for: " + ", ".join(missing))
    head = """\
//===- NPUInstructionOps.td - One npu op per ISA instruction -*- tablegen -*-===//
//
// GENERATED by dialects/NPU/gen-npu-ops.py from
// include/nnaccel/ISA/Instructions.def -- do not edit; rerun the script after
// changing the instruction table (test/Dialect/NPU/generated-ops.test fails
// while this file is stale).
//
// Each op mirrors one instruction: one attribute per field (memory operands
// as one #npu.mem attribute), the five header flags as unit attributes, and
// an assembly format close to the ISA's own assembly syntax.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_DIALECT_NPU_NPUINSTRUCTIONOPS_TD
#define NNACCEL_DIALECT_NPU_NPUINSTRUCTIONOPS_TD

"""
    body = "\n\n".join(op_record(*i) for i in insts)
    return head + body + "\n\n#endif // NNACCEL_DIALECT_NPU_NPUINSTRUCTIONOPS_TD\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if %s is not up to date" % OUT)
    ap.add_argument("-o", default=OUT, help="output file")
    args = ap.parse_args()
    text = generate()
    if args.check:
        with open(args.o) as f:
            if f.read() != text:
                sys.exit("%s is stale: run dialects/NPU/gen-npu-ops.py" % args.o)
        return
    with open(args.o, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
