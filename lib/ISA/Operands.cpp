//===- Operands.cpp - Memory footprints of instructions -------------------===//
//
// Footprint formulas for every instruction family (docs/isa.md gives the same
// formulas in each instruction's section). Kept apart from the verifier so the
// emulator and compiler can share exactly the same definition.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Operands.h"

#include <string>

namespace nnaccel::isa {

namespace {

/// Builder for a list of accesses of one instruction.
class Collector {
public:
  Collector(const Instruction &inst, const ScalarRegs &sregs)
      : inst_(inst), sregs_(sregs) {}

  Space space(const char *op) const {
    return static_cast<Space>(inst_.get(std::string(op) + ".space"));
  }
  DType dt(const char *f) const { return static_cast<DType>(inst_.get(f)); }
  uint64_t u(const char *f) const {
    return static_cast<uint64_t>(inst_.get(f));
  }

  /// Adds `rows` rows of `rowBytes` bytes, `pitch` bytes apart, at operand
  /// `op` (a MEM or MEMR operand).
  void add(const char *op, uint64_t rows, uint64_t pitch, uint64_t rowBytes,
           bool read, bool write, unsigned align, bool exact = true) {
    Space s = space(op);
    if (s == Space::Chain)
      return;
    std::string name(op);
    const InstrDesc &d = inst_.desc();
    bool direct = d.fieldIndex(name + ".addr").has_value();
    int64_t addr = direct ? inst_.get(name + ".addr") : 0;
    unsigned reg = static_cast<unsigned>(inst_.get(name + ".reg")) & 31u;
    int64_t start = addr + sregs_[reg];
    uint64_t extent = rows == 0 ? 0 : (rows - 1) * pitch + rowBytes;
    out.push_back(MemAccess{op, s, start, start + static_cast<int64_t>(extent),
                            read, write, align, reg, exact});
  }

  std::vector<MemAccess> out;

private:
  const Instruction &inst_;
  const ScalarRegs &sregs_;
};

unsigned embElementAlign(EmbFmt f) {
  switch (f) {
  case EmbFmt::F32:
    return 4;
  case EmbFmt::F16:
  case EmbFmt::BF16:
    return 2;
  default:
    return 1;
  }
}

} // namespace

std::vector<MemAccess> memoryAccesses(const Instruction &inst,
                                      const ScalarRegs &sregs) {
  Collector c(inst, sregs);
  switch (inst.opcode) {
  case Opcode::DmaLd: {
    DType t = c.dt("dt");
    uint64_t y = c.u("y"), z = c.u("z");
    uint64_t prow = c.u("pt") + y + c.u("pb");
    uint64_t pcols = c.u("pl") + c.u("x") + c.u("pr");
    uint64_t srow = rowBytes(t, c.u("x"));
    // Source: z planes of y rows; the last row of the last plane ends the
    // footprint, so the extent is (z-1)*sz + (y-1)*sy + rowBytes.
    uint64_t srcExtent = (z - 1) * c.u("sz") + (y - 1) * c.u("sy") + srow;
    c.add("src", 1, 0, z && y ? srcExtent : 0, true, false, elementAlign(t));
    c.add("dst", z * prow, c.u("dpitch"), rowBytes(t, pcols), false, true,
          elementAlign(t));
    break;
  }
  case Opcode::DmaSt: {
    DType t = c.dt("dt");
    uint64_t y = c.u("y"), z = c.u("z");
    uint64_t row = rowBytes(t, c.u("x"));
    uint64_t dstExtent = (z - 1) * c.u("dz") + (y - 1) * c.u("dy") + row;
    c.add("dst", 1, 0, z && y ? dstExtent : 0, false, true, elementAlign(t));
    c.add("src", z * y, c.u("spitch"), row, true, false, elementAlign(t));
    break;
  }
  case Opcode::EmbGather: {
    auto fmt = static_cast<EmbFmt>(c.u("fmt"));
    auto pool = static_cast<Pool>(c.u("pool"));
    uint64_t nseg = c.u("nseg");
    unsigned isz = c.u("ityp") ? 8 : 4;
    c.add("dst", nseg, c.u("dpitch"), rowBytes(c.dt("dt"), c.u("dim")), false,
          true, elementAlign(c.dt("dt")));
    c.add("table", c.u("nrows"), c.u("rowbytes"), c.u("rowbytes"), true, false,
          embElementAlign(fmt));
    if (pool == Pool::None) {
      c.add("idx", nseg, isz, isz, true, false, isz);
      if (c.u("weighted"))
        c.add("wts", nseg, 4, 4, true, false, 4);
    } else {
      // Index and weight counts are the sum of the lengths: data-dependent.
      c.add("len", c.u("offs") ? nseg + 1 : nseg, 4, 4, true, false, 4);
      c.add("idx", 1, 0, isz, true, false, isz, false);
      if (c.u("weighted"))
        c.add("wts", 1, 0, 4, true, false, 4, false);
    }
    break;
  }
  case Opcode::Recv:
    c.add("dst", 1, 0, c.u("bytes"), false, true, 1);
    break;
  case Opcode::Send:
    c.add("src", 1, 0, c.u("bytes"), true, false, 1);
    break;
  case Opcode::Mm: {
    DType dt = c.dt("dt"), at = c.dt("at"), wt = c.dt("wt");
    uint64_t m = c.u("m"), k = c.u("k"), n = c.u("n");
    c.add("a", m, c.u("apitch"), rowBytes(at, k), true, false,
          elementAlign(at));
    c.add("w", n, rowBytes(wt, k), rowBytes(wt, k), true, false,
          elementAlign(wt));
    bool acc = c.u("acc") != 0;
    c.add("dst", m, c.u("dpitch"), rowBytes(dt, n), acc, true,
          elementAlign(dt));
    break;
  }
  case Opcode::VFill:
    c.add("dst", c.u("rows"), c.u("dpitch"), rowBytes(c.dt("dt"), c.u("cols")),
          false, true, elementAlign(c.dt("dt")));
    break;
  default: {
    const InstrDesc &d = inst.desc();
    if (d.queue != Queue::Ex)
      break;
    // Vector families: a (and b / s) rows x cols, dst per result shape.
    uint64_t rows = c.u("rows"), cols = c.u("cols");
    DType at = c.dt("at");
    c.add("a", rows, c.u("apitch"), rowBytes(at, cols), true, false,
          elementAlign(at));
    if (d.fieldIndex("b.space")) {
      DType bt = c.dt("bt");
      switch (static_cast<Bcast>(c.u("bcast"))) {
      case Bcast::None:
        c.add("b", rows, c.u("bpitch"), rowBytes(bt, cols), true, false,
              elementAlign(bt));
        break;
      case Bcast::Row:
        c.add("b", 1, 0, rowBytes(bt, cols), true, false, elementAlign(bt));
        break;
      case Bcast::Col:
        c.add("b", rows, c.u("bpitch"), rowBytes(bt, 1), true, false,
              elementAlign(bt));
        break;
      case Bcast::Scalar:
        c.add("b", 1, 0, rowBytes(bt, 1), true, false, elementAlign(bt));
        break;
      }
    }
    if (d.fieldIndex("s.space"))
      c.add("s", 1, 0, c.u("perch") ? 4 * cols : 4, true, false, 4);
    auto [orows, ocols] = resultShape(inst);
    DType dt = c.dt("dt");
    c.add("dst", orows, c.u("dpitch"), rowBytes(dt, ocols), false, true,
          elementAlign(dt));
    break;
  }
  }
  return c.out;
}

std::pair<uint64_t, uint64_t> resultShape(const Instruction &inst) {
  switch (inst.opcode) {
  case Opcode::Mm:
    return {static_cast<uint64_t>(inst.get("m")),
            static_cast<uint64_t>(inst.get("n"))};
  case Opcode::VRsum:
  case Opcode::VRmax:
  case Opcode::VRmin:
    if (static_cast<Axis>(inst.get("axis")) == Axis::Cols)
      return {static_cast<uint64_t>(inst.get("rows")), 1};
    return {1, static_cast<uint64_t>(inst.get("cols"))};
  default:
    if (inst.desc().queue == Queue::Ex)
      return {static_cast<uint64_t>(inst.get("rows")),
              static_cast<uint64_t>(inst.get("cols"))};
    return {0, 0};
  }
}

std::optional<Space> operandSpace(const Instruction &inst,
                                  const char *operand) {
  auto idx = inst.desc().fieldIndex(std::string(operand) + ".space");
  if (!idx)
    return std::nullopt;
  return static_cast<Space>(inst.fields[*idx]);
}

} // namespace nnaccel::isa
