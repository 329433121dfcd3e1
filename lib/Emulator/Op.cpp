//===- Op.cpp - Pre-decoded instructions for execution -----------------===//
//
// Maps every named field of the instruction tables onto the members of Op.
// Runs once per instruction at load time, so clarity wins over speed here.
//
//===----------------------------------------------------------------------===//

#include "Op.h"

#include <string_view>

namespace nnaccel::emulator {

using namespace isa;

const char *operandName(OperandId id) {
  static const char *const Names[NumOperandIds] = {
      "dst", "src", "a", "b", "s", "w", "table", "idx", "len", "wts"};
  return Names[id];
}

namespace {

bool operandOf(std::string_view base, OperandId &id) {
  for (unsigned i = 0; i < NumOperandIds; ++i)
    if (base == operandName(static_cast<OperandId>(i))) {
      id = static_cast<OperandId>(i);
      return true;
    }
  return false;
}

} // namespace

Op decodeOp(const Instruction &inst) {
  Op op;
  op.opcode = inst.opcode;
  op.flags = inst.flags;
  const InstrDesc &d = inst.desc();
  for (unsigned i = 0; i < d.numFields; ++i) {
    std::string_view name = d.fields[i].name;
    int64_t v = inst.fields[i];
    auto u = static_cast<uint64_t>(v);
    size_t dot = name.find('.');
    if (dot != std::string_view::npos) {
      OperandId id;
      if (!operandOf(name.substr(0, dot), id))
        continue;
      MemOperand &mo = op.mem[id];
      mo.present = true;
      std::string_view part = name.substr(dot + 1);
      if (part == "space")
        mo.space = static_cast<Space>(v);
      else if (part == "addr")
        mo.addr = u;
      else if (part == "reg")
        mo.reg = static_cast<uint8_t>(v & 31);
      continue;
    }
    auto dtype = [&] { return static_cast<DType>(v); };
    if (name == "dt")
      op.dt = dtype();
    else if (name == "at")
      op.at = dtype();
    else if (name == "bt")
      op.bt = dtype();
    else if (name == "wt")
      op.wt = dtype();
    else if (name == "rows")
      op.rows = u;
    else if (name == "cols")
      op.cols = u;
    else if (name == "dpitch")
      op.dpitch = u;
    else if (name == "apitch")
      op.apitch = u;
    else if (name == "bpitch")
      op.bpitch = u;
    else if (name == "bcast")
      op.bcast = static_cast<Bcast>(v);
    else if (name == "axis")
      op.axis = static_cast<Axis>(v);
    else if (name == "imm")
      op.imm = v;
    else if (name == "zp")
      op.zp = v;
    else if (name == "perch")
      op.perch = v != 0;
    else if (name == "m")
      op.m = u;
    else if (name == "k")
      op.k = u;
    else if (name == "n")
      op.n = u;
    else if (name == "acc")
      op.accumulate = v != 0;
    else if (name == "azp")
      op.azp = v;
    else if (name == "x")
      op.x = u;
    else if (name == "y")
      op.y = u;
    else if (name == "z")
      op.z = u;
    else if (name == "sy")
      op.sy = u;
    else if (name == "sz")
      op.sz = u;
    else if (name == "dy")
      op.dy = u;
    else if (name == "dz")
      op.dz = u;
    else if (name == "spitch")
      op.spitch = u;
    else if (name == "pt")
      op.pt = u;
    else if (name == "pb")
      op.pb = u;
    else if (name == "pl")
      op.pl = u;
    else if (name == "pr")
      op.pr = u;
    else if (name == "fmt")
      op.fmt = static_cast<EmbFmt>(v);
    else if (name == "dim")
      op.dim = u;
    else if (name == "rowbytes")
      op.rowbytes = u;
    else if (name == "nrows")
      op.nrows = u;
    else if (name == "nseg")
      op.nseg = u;
    else if (name == "ityp")
      op.ityp = static_cast<IdxType>(v);
    else if (name == "offs")
      op.offs = v != 0;
    else if (name == "pool")
      op.pool = static_cast<Pool>(v);
    else if (name == "weighted")
      op.weighted = v != 0;
    else if (name == "bytes")
      op.bytes = u;
    else if (name == "peer")
      op.peer = static_cast<uint32_t>(u);
    else if (name == "chan")
      op.chan = static_cast<uint32_t>(u);
    else if (name == "idx")
      op.idx = static_cast<unsigned>(v & 31);
    else if (name == "cnt")
      op.cnt = static_cast<unsigned>(v & 31);
    else if (name == "rd")
      op.rd = static_cast<unsigned>(v & 31);
    else if (name == "ra")
      op.ra = static_cast<unsigned>(v & 31);
    else if (name == "rb")
      op.rb = static_cast<unsigned>(v & 31);
    else if (name == "sh")
      op.sh = static_cast<unsigned>(v & 63);
    else if (name == "count")
      op.count = u;
    else if (name == "step")
      op.step = v;
    else if (name == "id")
      op.barrierId = static_cast<unsigned>(v);
    else if (name == "mask")
      op.mask = static_cast<uint32_t>(u);
  }
  op.queue = inst.queue();
  return op;
}

} // namespace nnaccel::emulator
