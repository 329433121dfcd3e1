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
  Collector(const DecodedInstruction &inst, const ScalarRegs &sregs,
            std::vector<MemAccess> &out)
      : out(out), inst_(inst), sregs_(sregs) {
    out.clear();
  }

  /// Adds `rows` rows of `rowBytes` bytes, `pitch` bytes apart, at operand
  /// `op` (a MEM or MEMR operand).
  void add(Operand op, uint64_t rows, uint64_t pitch, uint64_t rowBytes,
           bool read, bool write, unsigned align, bool exact = true) {
    const MemOperand &mo = inst_.operand(op);
    if (mo.space == Space::Chain)
      return;
    unsigned reg = mo.reg & 31u;
    int64_t start = static_cast<int64_t>(mo.addr) + sregs_[reg];
    uint64_t extent = rows == 0 ? 0 : (rows - 1) * pitch + rowBytes;
    out.push_back(MemAccess{operandName(op), mo.space, start,
                            start + static_cast<int64_t>(extent), read, write,
                            align, reg, exact});
  }

  /// Adds a DMA box at operand `op`: `planes` planes `planePitch` apart of
  /// `rows` rows `rowPitch` apart of `rowBytes` each; the footprint is the
  /// bounding range, the box is kept for who needs the exact bytes.
  void addBox(Operand op, uint64_t planes, uint64_t planePitch, uint64_t rows,
              uint64_t rowPitch, uint64_t rowBytes, bool read, bool write,
              unsigned align) {
    uint64_t extent = planes && rows ? (planes - 1) * planePitch +
                                           (rows - 1) * rowPitch + rowBytes
                                     : 0;
    size_t before = out.size();
    add(op, 1, 0, extent, read, write, align);
    if (out.size() == before || !extent)
      return;
    MemAccess &access = out.back();
    // Planes that follow each other without a gap (a transposing store:
    // one element a row, the next pixel the next plane) make one run of
    // bytes per row: kept so, a core's block of every channel plane is a
    // row per channel, not one per element.
    if (planes > 1 && planePitch == rowBytes) {
      rowBytes *= planes;
      planes = 1;
      planePitch = 0;
    }
    access.planes = planes;
    access.planePitch = planePitch;
    access.rows = rows;
    access.rowPitch = rowPitch;
    access.rowBytes = rowBytes;
  }

  std::vector<MemAccess> &out;

private:
  const DecodedInstruction &inst_;
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
  return memoryAccesses(decode(inst), sregs);
}

std::vector<MemAccess> memoryAccesses(const DecodedInstruction &d,
                                      const ScalarRegs &sregs) {
  std::vector<MemAccess> out;
  memoryAccesses(d, sregs, out);
  return out;
}

void memoryAccesses(const DecodedInstruction &d, const ScalarRegs &sregs,
                    std::vector<MemAccess> &out) {
  Collector c(d, sregs, out);
  switch (d.opcode) {
  case Opcode::DmaLd: {
    DType t = d.dt;
    uint64_t y = d.y, z = d.z;
    uint64_t prow = d.pt + y + d.pb;
    uint64_t pcols = d.pl + d.x + d.pr;
    uint64_t srow = rowBytes(t, d.x);
    // Source: z planes of y rows; the last row of the last plane ends the
    // footprint, so the extent is (z-1)*sz + (y-1)*sy + rowBytes.
    c.addBox(Operand::src, z, d.sz, y, d.sy, srow, true, false,
             elementAlign(t));
    c.add(Operand::dst, z * prow, d.dpitch, rowBytes(t, pcols), false, true,
          elementAlign(t));
    break;
  }
  case Opcode::DmaSt: {
    DType t = d.dt;
    uint64_t y = d.y, z = d.z;
    uint64_t row = rowBytes(t, d.x);
    c.addBox(Operand::dst, z, d.dz, y, d.dy, row, false, true, elementAlign(t));
    c.add(Operand::src, z * y, d.spitch, row, true, false, elementAlign(t));
    break;
  }
  case Opcode::EmbGather: {
    uint64_t nseg = d.nseg;
    unsigned isz = d.ityp == IdxType::I64 ? 8 : 4;
    c.add(Operand::dst, nseg, d.dpitch, rowBytes(d.dt, d.dim), false, true,
          elementAlign(d.dt));
    c.add(Operand::table, d.nrows, d.rowbytes, d.rowbytes, true, false,
          embElementAlign(d.fmt));
    if (d.pool == Pool::None) {
      c.add(Operand::idx, nseg, isz, isz, true, false, isz);
      if (d.weighted)
        c.add(Operand::wts, nseg, 4, 4, true, false, 4);
    } else {
      // Index and weight counts are the sum of the lengths: data-dependent.
      c.add(Operand::len, d.offs ? nseg + 1 : nseg, 4, 4, true, false, 4);
      c.add(Operand::idx, 1, 0, isz, true, false, isz, false);
      if (d.weighted)
        c.add(Operand::wts, 1, 0, 4, true, false, 4, false);
    }
    break;
  }
  case Opcode::Recv:
    c.add(Operand::dst, 1, 0, d.bytes, false, true, 1);
    break;
  case Opcode::Send:
    c.add(Operand::src, 1, 0, d.bytes, true, false, 1);
    break;
  case Opcode::Mm: {
    c.add(Operand::a, d.m, d.apitch, rowBytes(d.at, d.k), true, false,
          elementAlign(d.at));
    c.add(Operand::w, d.n, rowBytes(d.wt, d.k), rowBytes(d.wt, d.k), true,
          false, elementAlign(d.wt));
    c.add(Operand::dst, d.m, d.dpitch, rowBytes(d.dt, d.n), d.acc, true,
          elementAlign(d.dt));
    break;
  }
  case Opcode::VFill:
    c.add(Operand::dst, d.rows, d.dpitch, rowBytes(d.dt, d.cols), false, true,
          elementAlign(d.dt));
    break;
  default: {
    if (d.queue != Queue::Ex)
      break;
    // Vector families: a (and b / s) rows x cols, dst per result shape.
    uint64_t rows = d.rows, cols = d.cols;
    c.add(Operand::a, rows, d.apitch, rowBytes(d.at, cols), true, false,
          elementAlign(d.at));
    if (d.has(Operand::b)) {
      DType bt = d.bt;
      switch (d.bcast) {
      case Bcast::None:
        c.add(Operand::b, rows, d.bpitch, rowBytes(bt, cols), true, false,
              elementAlign(bt));
        break;
      case Bcast::Row:
        c.add(Operand::b, 1, 0, rowBytes(bt, cols), true, false,
              elementAlign(bt));
        break;
      case Bcast::Col:
        c.add(Operand::b, rows, d.bpitch, rowBytes(bt, 1), true, false,
              elementAlign(bt));
        break;
      case Bcast::Scalar:
        c.add(Operand::b, 1, 0, rowBytes(bt, 1), true, false, elementAlign(bt));
        break;
      }
    }
    if (d.has(Operand::s))
      c.add(Operand::s, 1, 0, d.perch ? 4 * cols : 4, true, false, 4);
    auto [orows, ocols] = resultShape(d);
    // v.sel keeps dst where its mask is zero: dst is read as well.
    c.add(Operand::dst, orows, d.dpitch, rowBytes(d.dt, ocols),
          d.opcode == Opcode::VSel, true, elementAlign(d.dt));
    break;
  }
  }
}

std::pair<uint64_t, uint64_t> resultShape(const Instruction &inst) {
  return resultShape(decode(inst));
}

std::pair<uint64_t, uint64_t> resultShape(const DecodedInstruction &d) {
  switch (d.opcode) {
  case Opcode::Mm:
    return {d.m, d.n};
  case Opcode::VRsum:
  case Opcode::VRmax:
  case Opcode::VRmin:
    if (d.axis == Axis::Cols)
      return {d.rows, 1};
    return {1, d.cols};
  default:
    if (d.queue == Queue::Ex)
      return {d.rows, d.cols};
    return {0, 0};
  }
}

std::optional<int64_t> scalarResult(const DecodedInstruction &d,
                                    const ScalarRegs &s) {
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  switch (d.opcode) {
  case Opcode::SLi:
    return d.imm;
  case Opcode::SAddi:
    return wrap(u(s[d.ra]) + u(d.imm));
  case Opcode::SMuli:
    return wrap(u(s[d.ra]) * u(d.imm));
  case Opcode::SAdd:
    return wrap(u(s[d.ra]) + u(s[d.rb]));
  case Opcode::SSub:
    return wrap(u(s[d.ra]) - u(s[d.rb]));
  case Opcode::SMul:
    return wrap(u(s[d.ra]) * u(s[d.rb]));
  case Opcode::SShli:
    return wrap(u(s[d.ra]) << d.sh);
  case Opcode::SShri:
    return wrap(u(s[d.ra]) >> d.sh);
  default:
    return std::nullopt;
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
