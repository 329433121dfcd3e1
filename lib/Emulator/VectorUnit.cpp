//===- VectorUnit.cpp - Multifunction vector unit (v.*, vs.*) ----------===//
//
// Element-wise, broadcast, reduction and (de)quantisation instructions. The
// general path reads whole operands into compute-domain tiles (f32 or i32),
// computes with the lib/Numerics span kernels one row (or the whole tile) at
// a time, and writes the result converted to `dt`. Reading every operand
// before writing makes in-place and overlapping operands well defined: the
// result is as if all reads happened before any write. The binary ops
// stream row by row instead (binaryStreamed) whenever that gives the same
// result: operands in dense memories or the chain, and a destination that
// is disjoint from them or exactly on one of them.
//
//===----------------------------------------------------------------------===//

#include "Units.h"

#include "nnaccel/Emulator/ElementIO.h"
#include "nnaccel/Numerics/Common.h"
#include "nnaccel/Numerics/Requantize.h"
#include "nnaccel/Numerics/Simd.h"
#include "nnaccel/Numerics/VectorOps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

namespace nnaccel::emulator {

using namespace isa;
namespace num = nnaccel::numerics;

namespace {

uint64_t extent(uint64_t rows, uint64_t pitch, uint64_t rowBytes) {
  return rows ? (rows - 1) * pitch + rowBytes : 0;
}

Error checkRange(const Memory &m, Space s, uint64_t addr, uint64_t n) {
  if (!m.contains(addr, n))
    return Error::make(fmt::format("access [0x{:x}, 0x{:x}) is outside {} "
                                   "({} bytes)",
                                   addr, addr + n, spaceName(s), m.size()));
  return Error::success();
}

} // namespace

Error readTile(ExecContext &ctx, Space space, uint64_t addr, uint64_t pitch,
               DType t, uint64_t rows, uint64_t cols, bool asFloat,
               Tile &tile) {
  tile.reset(asFloat, rows, cols);
  uint64_t rb = rowBytes(t, cols);
  const uint8_t *base;
  if (space == Space::Chain) {
    const ChainValue &cv = ctx.chain;
    if (!cv.valid)
      return Error::make("reads the chain but no chained producer precedes it");
    if (cv.type != t || cv.rows != rows || cv.cols != cols)
      return Error::make(fmt::format(
          "chain operand is {}x{} {} but the producer forwarded {}x{} {}", rows,
          cols, dtypeName(t), cv.rows, cv.cols, dtypeName(cv.type)));
    base = cv.data.data();
    pitch = rb;
  } else {
    Memory *m = ctx.mem[static_cast<unsigned>(space)];
    uint64_t n = extent(rows, pitch, rb);
    if (Error e = checkRange(*m, space, addr, n))
      return e;
    base = m->view(addr, n, ctx.scratchC);
    ctx.bytes->read[static_cast<unsigned>(space)] += rows * rb;
  }
  for (uint64_t r = 0; r < rows; ++r) {
    if (asFloat)
      readRowF32(t, base + r * pitch, cols, tile.f.data() + r * cols);
    else
      readRowI32(t, base + r * pitch, cols, tile.i.data() + r * cols);
  }
  return Error::success();
}

Error writeTile(ExecContext &ctx, Space space, uint64_t addr, uint64_t pitch,
                DType t, const Tile &tile, bool toChain) {
  uint64_t rows = tile.rows, cols = tile.cols, rb = rowBytes(t, cols);
  auto emit = [&](uint8_t *base, uint64_t p) {
    for (uint64_t r = 0; r < rows; ++r) {
      if (tile.isFloat)
        writeRowF32(t, tile.f.data() + r * cols, cols, base + r * p);
      else
        writeRowI32(t, tile.i.data() + r * cols, cols, base + r * p);
    }
  };
  if (toChain) {
    ChainValue &cv = ctx.chain;
    cv.data.assign(rows * rb, 0);
    emit(cv.data.data(), rb);
    cv.valid = true;
    cv.type = t;
    cv.rows = rows;
    cv.cols = cols;
  }
  if (space == Space::Chain)
    return Error::success();
  Memory *m = ctx.mem[static_cast<unsigned>(space)];
  uint64_t n = extent(rows, pitch, rb);
  if (Error e = checkRange(*m, space, addr, n))
    return e;
  ctx.bytes->written[static_cast<unsigned>(space)] += rows * rb;
  if (uint8_t *p = m->span(addr, n)) {
    emit(p, pitch);
    return Error::success();
  }
  // Paged memory straddling pages: read-modify-write keeps the gaps intact.
  ctx.scratchC.resize(n);
  m->read(addr, ctx.scratchC.data(), n);
  emit(ctx.scratchC.data(), pitch);
  m->write(addr, ctx.scratchC.data(), n);
  return Error::success();
}

namespace {

int32_t wrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) +
                              static_cast<uint32_t>(b));
}
int32_t wrapSub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) -
                              static_cast<uint32_t>(b));
}

using num::ArithOp;

ArithOp arithOp(Opcode op) {
  switch (op) {
  case Opcode::VAdd:
  case Opcode::VsAdd:
    return ArithOp::Add;
  case Opcode::VSub:
    return ArithOp::Sub;
  case Opcode::VMul:
  case Opcode::VsMul:
    return ArithOp::Mul;
  case Opcode::VMax:
  case Opcode::VsMax:
    return ArithOp::Max;
  default:
    return ArithOp::Min;
  }
}

/// out = a op b on n elements; `bScalar`: b[0] for every element (a
/// broadcast, not expanded). f32 through numerics' row kernel, i32
/// wrapping.
void binaryF32(ArithOp k, const float *a, const float *b, float *out, size_t n,
               bool bScalar = false) {
  num::arithF32Row(num::getHostSimdLevel(), k, a, b, bScalar, out, n);
}

void binaryI32(ArithOp k, const int32_t *a, const int32_t *b, int32_t *out,
               size_t n, bool bScalar = false) {
  num::arithI32Row(num::getHostSimdLevel(), k, a, b, bScalar, out, n);
}

/// D = A op B on f32 rows `apitch` / `dpitch` bytes apart; B's rows (None)
/// `bpitch` apart, its one row (Row), one value per row (Col, `bpitch`
/// apart) or one value (Scalar).
void binaryRowsF32(ArithOp kind, const float *a, uint64_t apitch,
                   const float *b, uint64_t bpitch, Bcast bc, float *d,
                   uint64_t dpitch, uint64_t rows, uint64_t cols) {
  auto rowOf = [](const float *base, uint64_t pitch, uint64_t r) {
    return reinterpret_cast<const float *>(
        reinterpret_cast<const uint8_t *>(base) + r * pitch);
  };
  for (uint64_t r = 0; r < rows; ++r) {
    const float *bp =
        bc == Bcast::None || bc == Bcast::Col ? rowOf(b, bpitch, r) : b;
    binaryF32(
        kind, rowOf(a, apitch, r), bp,
        reinterpret_cast<float *>(reinterpret_cast<uint8_t *>(d) + r * dpitch),
        cols, bc == Bcast::Col || bc == Bcast::Scalar);
  }
}

/// Element types the row-streaming binary path converts row by row (whole
/// bytes per element; packed and block formats take the tile path).
bool isStreamable(DType t) {
  switch (t) {
  case DType::F32:
  case DType::F16:
  case DType::BF16:
  case DType::I32:
  case DType::I16:
  case DType::I8:
  case DType::U8:
    return true;
  default:
    return false;
  }
}

/// Rows of one operand of the row-streaming path, where they lie: in a
/// dense memory, or the chain when it holds exactly this value.
struct RowSpan {
  uint8_t *base = nullptr;
  uint64_t pitch = 0, rowBytes = 0;
  Space space = Space::Chain; // Chain: the chain register's bytes
  bool fromChain() const { return space == Space::Chain; }
  uint8_t *row(uint64_t r) const { return base + r * pitch; }
  /// Whether the byte ranges of `a` and `b` (rows of each) overlap other
  /// than exactly (same first byte, pitch and row bytes).
  static bool clash(const RowSpan &a, uint64_t aRows, const RowSpan &b,
                    uint64_t bRows) {
    const uint8_t *a1 = a.base + extent(aRows, a.pitch, a.rowBytes);
    const uint8_t *b1 = b.base + extent(bRows, b.pitch, b.rowBytes);
    if (a1 <= b.base || b1 <= a.base)
      return false;
    return !(a.base == b.base && a.pitch == b.pitch &&
             a.rowBytes == b.rowBytes && aRows == bRows);
  }
};

/// Where rows x cols of type `t` at `addr` lie for the streaming path, or
/// nullopt when the tile path must read them (paged or out of range
/// memory, a chain that does not hold them: it reports those).
std::optional<RowSpan> streamRows(ExecContext &ctx, Space space, uint64_t addr,
                                  uint64_t pitch, DType t, uint64_t rows,
                                  uint64_t cols) {
  if (!isStreamable(t))
    return std::nullopt;
  const uint64_t rb = rowBytes(t, cols);
  if (space == Space::Chain) {
    ChainValue &cv = ctx.chain;
    if (!cv.valid || cv.type != t || cv.rows != rows || cv.cols != cols ||
        cv.data.size() < rows * rb)
      return std::nullopt;
    return RowSpan{cv.data.data(), rb, rb, Space::Chain};
  }
  Memory *m = ctx.mem[static_cast<unsigned>(space)];
  const uint64_t n = extent(rows, pitch, rb);
  if (!m->isDense() || !m->contains(addr, n))
    return std::nullopt;
  return RowSpan{m->span(addr, n), pitch, rb, space};
}

/// The compute domain's element type of T (f32 or i32) and a tile's buffer
/// of it.
template <typename T>
constexpr DType kDomainType =
    std::is_same_v<T, float> ? DType::F32 : DType::I32;
template <typename T> std::vector<T> &domainBuffer(Tile &tile) {
  if constexpr (std::is_same_v<T, float>)
    return tile.f;
  else
    return tile.i;
}

/// Whether row `p` of type `t` can be used in place as compute-domain
/// elements.
template <typename T> bool isDomainRow(DType t, const uint8_t *p) {
  return t == kDomainType<T> &&
         reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

/// Row `r` of `span` in the compute domain: the row itself when it already
/// is, else converted into `buf`.
template <typename T>
const T *domainRow(const RowSpan &span, uint64_t r, DType t, uint64_t cols,
                   std::vector<T> &buf) {
  const uint8_t *p = span.row(r);
  if (isDomainRow<T>(t, p))
    return reinterpret_cast<const T *>(p);
  buf.resize(cols);
  if constexpr (std::is_same_v<T, float>)
    readRowF32(t, p, cols, buf.data());
  else
    readRowI32(t, p, cols, buf.data());
  return buf.data();
}

/// The binary ops row by row straight on the memories and the chain,
/// without reading whole operands into tiles: every operand of a
/// whole-byte type in a dense memory or the chain, and the result either
/// disjoint from the operands or exactly on one of them (computed element
/// by element, as the tile path does). Each row is read (converted where
/// its type is not the compute domain's) just before its result is
/// written, so the results, byte counts and the chain are the tile path's.
/// Returns false when it does not apply; the tile path then runs (and
/// reports what is wrong).
template <typename T>
bool binaryStreamed(const Op &op, const EffAddrs &eff, ExecContext &ctx) {
  const bool scalarImm = !op.has(isa::Operand::b);
  const Bcast bc = scalarImm ? Bcast::Scalar : op.bcast;
  const uint64_t rows = op.rows, cols = op.cols;
  const Space ds = op.mem[OpDst].space;
  if (!isStreamable(op.dt) || (ds == Space::Chain && !op.chained()))
    return false;
  std::optional<RowSpan> a = streamRows(ctx, op.mem[OpA].space, eff[OpA],
                                        op.apitch, op.at, rows, cols);
  if (!a)
    return false;
  const uint64_t br = (bc == Bcast::None || bc == Bcast::Col) ? rows : 1;
  const uint64_t bcl = (bc == Bcast::None || bc == Bcast::Row) ? cols : 1;
  std::optional<RowSpan> b;
  if (!scalarImm) {
    b = streamRows(ctx, op.mem[OpB].space, eff[OpB], op.bpitch, op.bt, br, bcl);
    if (!b)
      return false;
  }
  // The destination in memory (none when only the chain takes it).
  const uint64_t drb = rowBytes(op.dt, cols);
  std::optional<RowSpan> d;
  if (ds != Space::Chain) {
    Memory *m = ctx.mem[static_cast<unsigned>(ds)];
    const uint64_t n = extent(rows, op.dpitch, drb);
    if (!m->isDense() || !m->contains(eff[OpDst], n))
      return false;
    d = RowSpan{m->span(eff[OpDst], n), op.dpitch, drb, ds};
    if (RowSpan::clash(*d, rows, *a, rows) ||
        (b && RowSpan::clash(*d, rows, *b, br)))
      return false;
  }
  // A result forwarded along the chain replaces the chain's bytes: in
  // place over an operand read from the chain when it has the result's
  // rows, which it then reads row by row before they are written.
  ChainValue &cv = ctx.chain;
  const bool aChain = a->fromChain(), bChain = b && b->fromChain();
  if (op.chained() && (aChain || bChain) &&
      !((aChain && a->rowBytes == drb && (!bChain || bc == Bcast::None)) ||
        (!aChain && bChain && bc == Bcast::None && b->rowBytes == drb)))
    return false;
  if (op.chained() && !aChain && !bChain)
    cv.data.resize(rows * drb);

  std::vector<T> &bufA = domainBuffer<T>(ctx.tileA);
  std::vector<T> &bufB = domainBuffer<T>(ctx.tileB);
  std::vector<T> &bufD = domainBuffer<T>(ctx.tileD);
  // One value (Scalar: the immediate or b's one element; Col: one per row),
  // not expanded.
  T value{};
  if (scalarImm) {
    auto bits = static_cast<uint32_t>(op.imm);
    if constexpr (std::is_same_v<T, float>)
      value = num::bitsToFloat(bits);
    else
      value = static_cast<int32_t>(bits);
  } else if (bc == Bcast::Scalar) {
    value = domainRow<T>(*b, 0, op.bt, 1, bufB)[0];
  }
  const bool bScalar = bc == Bcast::Col || bc == Bcast::Scalar;
  const ArithOp kind = arithOp(op.opcode);
  // Every operand already in the compute domain where it lies: one block
  // call over all rows (a depthwise plane's rows are a few elements each).
  auto inDomain = [&](const uint8_t *base, uint64_t pitch, DType t) {
    return isDomainRow<T>(t, base) && pitch % sizeof(T) == 0;
  };
  uint8_t *dBase = d ? d->row(0) : cv.data.data();
  const uint64_t dPitch = d ? d->pitch : drb;
  const num::BLayout bLayout = bc == Bcast::None  ? num::BLayout::Rows
                               : bc == Bcast::Row ? num::BLayout::Row
                               : bc == Bcast::Col ? num::BLayout::PerRow
                                                  : num::BLayout::Scalar;
  // Integer operands of 8-bit types widen as they are loaded (the
  // quantised depthwise products), with no converted copy.
  auto intElem = [](DType t) -> std::optional<num::IntElem> {
    if (t == DType::I8)
      return num::IntElem::I8;
    if (t == DType::U8)
      return num::IntElem::U8;
    if (t == DType::I32)
      return num::IntElem::I32;
    return std::nullopt;
  };
  auto widenable = [&](const uint8_t *base, uint64_t pitch, DType t) {
    std::optional<num::IntElem> e = intElem(t);
    return e && (t != DType::I32 || inDomain(base, pitch, t));
  };
  // The block kernels, when the operands allow one: 8-bit integers widened
  // on load, or everything already in the compute domain.
  bool block = false;
  if constexpr (std::is_same_v<T, int32_t>) {
    if (!scalarImm && inDomain(dBase, dPitch, op.dt) &&
        widenable(a->base, a->pitch, op.at) &&
        widenable(b->base, b->pitch, op.bt) &&
        !(op.at == DType::I32 && op.bt == DType::I32)) {
      const uint64_t aSize = op.at == DType::I32 ? 4 : 1,
                     bSize = op.bt == DType::I32 ? 4 : 1;
      num::arithI32WideningBlock(num::getHostSimdLevel(), kind, a->base,
                                 *intElem(op.at), a->pitch / aSize, b->base,
                                 *intElem(op.bt), b->pitch / bSize, bLayout,
                                 reinterpret_cast<int32_t *>(dBase),
                                 dPitch / sizeof(int32_t), rows, cols);
      block = true;
    }
  }
  if (!block && inDomain(a->base, a->pitch, op.at) &&
      inDomain(dBase, dPitch, op.dt) &&
      (scalarImm || inDomain(b->base, b->pitch, op.bt))) {
    const T *bp = scalarImm ? &value : reinterpret_cast<const T *>(b->base);
    const uint64_t bPitch = scalarImm ? 0 : b->pitch / sizeof(T);
    const T *ap = reinterpret_cast<const T *>(a->base);
    T *out = reinterpret_cast<T *>(dBase);
    if constexpr (std::is_same_v<T, float>)
      num::arithF32Block(num::getHostSimdLevel(), kind, ap,
                         a->pitch / sizeof(T), bp, bPitch, bLayout, out,
                         dPitch / sizeof(T), rows, cols);
    else
      num::arithI32Block(num::getHostSimdLevel(), kind, ap,
                         a->pitch / sizeof(T), bp, bPitch, bLayout, out,
                         dPitch / sizeof(T), rows, cols);
    block = true;
  }
  if (block) {
    if (d && op.chained())
      for (uint64_t r = 0; r < rows; ++r)
        std::memcpy(cv.data.data() + r * drb, d->row(r), drb);
  } else {
    // Rows that follow each other without a gap in every operand are one
    // long row (element-wise results do not see the row structure): one
    // kernel call instead of one per row of a few channels.
    auto packed = [&](const RowSpan &span, DType t) {
      return span.pitch == span.rowBytes &&
             rowBytes(t, rows * cols) == rows * span.rowBytes;
    };
    const bool flat =
        (bc == Bcast::None || bc == Bcast::Scalar) && packed(*a, op.at) &&
        (bc != Bcast::None || packed(*b, op.bt)) && (!d || packed(*d, op.dt)) &&
        rowBytes(op.dt, rows * cols) == rows * drb;
    const uint64_t loopRows = flat ? 1 : rows,
                   loopCols = flat ? rows * cols : cols;
    const uint64_t loopRowBytes = flat ? rows * drb : drb;
    // B's one row (Row), read once before any result row is written.
    const T *bRow =
        bc == Bcast::Row ? domainRow<T>(*b, 0, op.bt, cols, bufB) : nullptr;
    for (uint64_t r = 0; r < loopRows; ++r) {
      const T *ap = domainRow<T>(*a, r, op.at, loopCols, bufA);
      const T *bp = bRow;
      if (bc == Bcast::None) {
        bp = domainRow<T>(*b, r, op.bt, loopCols, bufB);
      } else if (bc == Bcast::Col) {
        value = domainRow<T>(*b, r, op.bt, 1, bufB)[0];
        bp = &value;
      } else if (bc == Bcast::Scalar) {
        bp = &value;
      }
      // The result row: straight into its destination when that holds the
      // compute domain, else computed into bufD and converted.
      uint8_t *dRow = d ? d->row(r) : cv.data.data() + r * loopRowBytes;
      const bool direct = isDomainRow<T>(op.dt, dRow);
      if (!direct)
        bufD.resize(loopCols);
      T *out = direct ? reinterpret_cast<T *>(dRow) : bufD.data();
      if constexpr (std::is_same_v<T, float>)
        binaryF32(kind, ap, bp, out, loopCols, bScalar);
      else
        binaryI32(kind, ap, bp, out, loopCols, bScalar);
      if (!direct) {
        if constexpr (std::is_same_v<T, float>)
          writeRowF32(op.dt, out, loopCols, dRow);
        else
          writeRowI32(op.dt, out, loopCols, dRow);
      }
      if (d && op.chained())
        std::memcpy(cv.data.data() + r * loopRowBytes, dRow, loopRowBytes);
    }
  }
  if (!aChain)
    ctx.bytes->read[static_cast<unsigned>(a->space)] +=
        rows * rowBytes(op.at, cols);
  if (b && !bChain)
    ctx.bytes->read[static_cast<unsigned>(b->space)] +=
        br * rowBytes(op.bt, bcl);
  if (d)
    ctx.bytes->written[static_cast<unsigned>(ds)] += rows * drb;
  if (op.chained()) {
    cv.valid = true;
    cv.type = op.dt;
    cv.rows = rows;
    cv.cols = cols;
  }
  return true;
}

/// v.add/sub/mul/max/min and vs.*: D = A op B, B broadcast or immediate.
Error binary(const Op &op, const EffAddrs &eff, ExecContext &ctx) {
  bool flt = isFloatDomain(op.at);
  if (flt ? binaryStreamed<float>(op, eff, ctx)
          : binaryStreamed<int32_t>(op, eff, ctx))
    return Error::success();
  uint64_t rows = op.rows, cols = op.cols;
  Tile &a = ctx.tileA, &b = ctx.tileB, &d = ctx.tileD;
  if (Error e = readTile(ctx, op.mem[OpA].space, eff[OpA], op.apitch, op.at,
                         rows, cols, flt, a))
    return e;
  bool scalarImm = !op.has(isa::Operand::b);
  Bcast bc = scalarImm ? Bcast::Scalar : op.bcast;
  if (scalarImm) {
    b.reset(flt, 1, 1);
    auto bits = static_cast<uint32_t>(op.imm);
    if (flt)
      b.f[0] = num::bitsToFloat(bits);
    else
      b.i[0] = static_cast<int32_t>(bits);
  } else {
    uint64_t br = (bc == Bcast::None || bc == Bcast::Col) ? rows : 1;
    uint64_t bcl = (bc == Bcast::None || bc == Bcast::Row) ? cols : 1;
    if (Error e = readTile(ctx, op.mem[OpB].space, eff[OpB], op.bpitch, op.bt,
                           br, bcl, flt, b))
      return e;
  }
  d.reset(flt, rows, cols);
  const ArithOp kind = arithOp(op.opcode);
  const bool bScalar = bc == Bcast::Col || bc == Bcast::Scalar;
  if (flt) {
    const uint64_t bcl = (bc == Bcast::None || bc == Bcast::Row) ? cols : 1;
    binaryRowsF32(kind, a.f.data(), cols * sizeof(float), b.f.data(),
                  bcl * sizeof(float), bc, d.f.data(), cols * sizeof(float),
                  rows, cols);
  } else {
    for (uint64_t r = 0; r < rows; ++r) {
      const int32_t *bp = bc == Bcast::None  ? b.i.data() + r * cols
                          : bc == Bcast::Col ? b.i.data() + r
                                             : b.i.data();
      binaryI32(kind, a.i.data() + r * cols, bp, d.i.data() + r * cols, cols,
                bScalar);
    }
  }
  return writeTile(ctx, op.mem[OpDst].space, eff[OpDst], op.dpitch, op.dt, d,
                   op.chained());
}

/// Reads b of a binary-family instruction as a rows x cols tile with the
/// broadcast expanded (rows of `cols`, row-major).
Error readBroadcastB(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                     bool flt, Tile &out) {
  uint64_t rows = op.rows, cols = op.cols;
  Bcast bc = op.bcast;
  uint64_t br = (bc == Bcast::None || bc == Bcast::Col) ? rows : 1;
  uint64_t bcl = (bc == Bcast::None || bc == Bcast::Row) ? cols : 1;
  Tile &b = ctx.tileB;
  if (Error e = readTile(ctx, op.mem[OpB].space, eff[OpB], op.bpitch, op.bt, br,
                         bcl, flt, b))
    return e;
  out.reset(flt, rows, cols);
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < cols; ++c) {
      uint64_t src = (br == 1 ? 0 : r) * bcl + (bcl == 1 ? 0 : c);
      if (flt)
        out.f[r * cols + c] = b.f[src];
      else
        out.i[r * cols + c] = b.i[src];
    }
  return Error::success();
}

num::ComparePredicate comparePredicate(Opcode op) {
  switch (op) {
  case Opcode::VCeq:
    return num::ComparePredicate::Eq;
  case Opcode::VCne:
    return num::ComparePredicate::Ne;
  case Opcode::VClt:
    return num::ComparePredicate::Lt;
  case Opcode::VCle:
    return num::ComparePredicate::Le;
  case Opcode::VCgt:
    return num::ComparePredicate::Gt;
  default:
    return num::ComparePredicate::Ge;
  }
}

/// v.ceq .. v.cge: D = (A pred B) ? 1 : 0, B broadcast as for v.add.
Error compare(const Op &op, const EffAddrs &eff, ExecContext &ctx) {
  bool flt = isFloatDomain(op.at);
  uint64_t rows = op.rows, cols = op.cols;
  Tile &a = ctx.tileA, &d = ctx.tileD;
  if (Error e = readTile(ctx, op.mem[OpA].space, eff[OpA], op.apitch, op.at,
                         rows, cols, flt, a))
    return e;
  Tile &b = ctx.tileC;
  if (Error e = readBroadcastB(op, eff, ctx, flt, b))
    return e;
  num::ComparePredicate pred = comparePredicate(op.opcode);
  size_t n = rows * cols;
  // The mask is written as 1 / 0 converted to dt (exact in every type).
  d.reset(true, rows, cols);
  if (flt) {
    num::compareF32(pred, num::Span<const float>(a.f.data(), n),
                    num::Span<const float>(b.f.data(), n),
                    num::Span<float>(d.f.data(), n));
  } else {
    std::vector<int32_t> mask(n);
    num::compareI32(pred, num::Span<const int32_t>(a.i.data(), n),
                    num::Span<const int32_t>(b.i.data(), n),
                    num::Span<int32_t>(mask.data(), n));
    for (size_t i = 0; i < n; ++i)
      d.f[i] = static_cast<float>(mask[i]);
  }
  return writeTile(ctx, op.mem[OpDst].space, eff[OpDst], op.dpitch, op.dt, d,
                   op.chained());
}

/// v.sel: D = A != 0 ? B : D. The mask A is tested in its own domain (a NaN
/// mask is nonzero); B and D have one type (verified), so the kept and the
/// selected elements are both copied exactly.
Error select(const Op &op, const EffAddrs &eff, ExecContext &ctx) {
  uint64_t rows = op.rows, cols = op.cols;
  bool maskFlt = isFloatDomain(op.at), flt = isFloatDomain(op.dt);
  Tile &a = ctx.tileA, &d = ctx.tileD;
  if (Error e = readTile(ctx, op.mem[OpA].space, eff[OpA], op.apitch, op.at,
                         rows, cols, maskFlt, a))
    return e;
  Tile &b = ctx.tileC;
  if (Error e = readBroadcastB(op, eff, ctx, flt, b))
    return e;
  if (Error e = readTile(ctx, op.mem[OpDst].space, eff[OpDst], op.dpitch, op.dt,
                         rows, cols, flt, d))
    return e;
  for (size_t i = 0, n = rows * cols; i < n; ++i) {
    bool take = maskFlt ? a.f[i] != 0.0f : a.i[i] != 0;
    if (!take)
      continue;
    if (flt)
      d.f[i] = b.f[i];
    else
      d.i[i] = b.i[i];
  }
  return writeTile(ctx, op.mem[OpDst].space, eff[OpDst], op.dpitch, op.dt, d,
                   op.chained());
}

/// Raw bit copy (v.mov): rows of rowBytes(at, cols), no conversion.
Error move(const Op &op, const EffAddrs &eff, ExecContext &ctx) {
  if (op.dt != op.at)
    return Error::make(fmt::format("v.mov copies bits: dt {} must equal at {}",
                                   dtypeName(op.dt), dtypeName(op.at)));
  uint64_t rows = op.rows, rb = rowBytes(op.at, op.cols);
  std::vector<uint8_t> &buf = ctx.scratchA;
  buf.resize(rows * rb);
  Space as = op.mem[OpA].space;
  if (as == Space::Chain) {
    const ChainValue &cv = ctx.chain;
    if (!cv.valid || cv.type != op.at || cv.rows != rows || cv.cols != op.cols)
      return Error::make("chain operand does not match the chained producer");
    std::memcpy(buf.data(), cv.data.data(), rows * rb);
  } else {
    Memory *m = ctx.mem[static_cast<unsigned>(as)];
    if (Error e = checkRange(*m, as, eff[OpA], extent(rows, op.apitch, rb)))
      return e;
    for (uint64_t r = 0; r < rows; ++r)
      m->read(eff[OpA] + r * op.apitch, buf.data() + r * rb, rb);
    ctx.bytes->read[static_cast<unsigned>(as)] += rows * rb;
  }
  if (op.chained()) {
    ChainValue &cv = ctx.chain;
    cv.data.assign(buf.begin(), buf.end());
    cv.valid = true;
    cv.type = op.dt;
    cv.rows = rows;
    cv.cols = op.cols;
  }
  Space ds = op.mem[OpDst].space;
  if (ds == Space::Chain)
    return Error::success();
  Memory *m = ctx.mem[static_cast<unsigned>(ds)];
  if (Error e = checkRange(*m, ds, eff[OpDst], extent(rows, op.dpitch, rb)))
    return e;
  for (uint64_t r = 0; r < rows; ++r)
    m->write(eff[OpDst] + r * op.dpitch, buf.data() + r * rb, rb);
  ctx.bytes->written[static_cast<unsigned>(ds)] += rows * rb;
  return Error::success();
}

/// Unary element-wise ops (v.cvt, v.relu, transcendentals, abs, neg).
Error unary(const Op &op, const EffAddrs &eff, ExecContext &ctx) {
  bool flt = isFloatDomain(op.at);
  Tile &a = ctx.tileA;
  if (Error e = readTile(ctx, op.mem[OpA].space, eff[OpA], op.apitch, op.at,
                         op.rows, op.cols, flt, a))
    return e;
  size_t n = a.rows * a.cols;
  if (flt) {
    num::Span<const float> in(a.f.data(), n);
    num::Span<float> out(a.f.data(), n); // in place: the kernels allow it
    switch (op.opcode) {
    case Opcode::VCvt:
      break;
    case Opcode::VRelu:
      num::reluF32(in, out);
      break;
    case Opcode::VSigm:
      num::sigmoidF32(in, out);
      break;
    case Opcode::VTanh:
      num::tanhF32(in, out);
      break;
    case Opcode::VExp:
      num::expF32(in, out);
      break;
    case Opcode::VGelu:
      num::geluErfF32(in, out);
      break;
    case Opcode::VGeluT:
      num::geluTanhF32(in, out);
      break;
    case Opcode::VRecip:
      num::reciprocalF32(in, out);
      break;
    case Opcode::VRsqrt:
      num::rsqrtF32(in, out);
      break;
    case Opcode::VAbs:
      num::absF32(in, out);
      break;
    case Opcode::VNeg:
      num::negF32(in, out);
      break;
    default:
      return Error::make("internal: not a unary opcode");
    }
  } else {
    int32_t *v = a.i.data();
    switch (op.opcode) {
    case Opcode::VCvt:
      break;
    case Opcode::VRelu:
      for (size_t i = 0; i < n; ++i)
        v[i] = std::max(v[i], 0);
      break;
    case Opcode::VAbs:
      for (size_t i = 0; i < n; ++i)
        v[i] = v[i] < 0 ? wrapSub(0, v[i]) : v[i];
      break;
    case Opcode::VNeg:
      for (size_t i = 0; i < n; ++i)
        v[i] = wrapSub(0, v[i]);
      break;
    default:
      return Error::make(fmt::format("{} needs a floating-point input, got {}",
                                     getDesc(op.opcode).mnemonic,
                                     dtypeName(op.at)));
    }
  }
  return writeTile(ctx, op.mem[OpDst].space, eff[OpDst], op.dpitch, op.dt, a,
                   op.chained());
}

/// v.rsum / v.rmax / v.rmin along `axis`.
Error reduce(const Op &op, const EffAddrs &eff, ExecContext &ctx) {
  bool flt = isFloatDomain(op.at);
  Tile &a = ctx.tileA, &d = ctx.tileD;
  if (Error e = readTile(ctx, op.mem[OpA].space, eff[OpA], op.apitch, op.at,
                         op.rows, op.cols, flt, a))
    return e;
  uint64_t rows = a.rows, cols = a.cols;
  bool alongCols = op.axis == Axis::Cols;
  uint64_t outs = alongCols ? rows : cols, len = alongCols ? cols : rows;
  if (alongCols)
    d.reset(flt, rows, 1);
  else
    d.reset(flt, 1, cols);
  std::vector<float> colF;
  std::vector<int32_t> colI;
  for (uint64_t o = 0; o < outs; ++o) {
    if (flt) {
      const float *src;
      if (alongCols) {
        src = a.f.data() + o * cols;
      } else {
        colF.resize(len);
        for (uint64_t r = 0; r < len; ++r)
          colF[r] = a.f[r * cols + o];
        src = colF.data();
      }
      num::Span<const float> s(src, len);
      d.f[o] = op.opcode == Opcode::VRsum   ? num::reduceSumF32(s)
               : op.opcode == Opcode::VRmax ? num::reduceMaxF32(s)
                                            : num::reduceMinF32(s);
    } else {
      int32_t acc = op.opcode == Opcode::VRsum ? 0
                    : op.opcode == Opcode::VRmax
                        ? std::numeric_limits<int32_t>::min()
                        : std::numeric_limits<int32_t>::max();
      for (uint64_t j = 0; j < len; ++j) {
        int32_t v = alongCols ? a.i[o * cols + j] : a.i[j * cols + o];
        acc = op.opcode == Opcode::VRsum   ? wrapAdd(acc, v)
              : op.opcode == Opcode::VRmax ? std::max(acc, v)
                                           : std::min(acc, v);
      }
      d.i[o] = acc;
    }
  }
  return writeTile(ctx, op.mem[OpDst].space, eff[OpDst], op.dpitch, op.dt, d,
                   op.chained());
}

/// Range of an integer destination type of v.rqnt.
num::QuantRange rangeOf(DType t) {
  switch (t) {
  case DType::I16:
    return {-32768, 32767};
  case DType::I8:
    return num::kInt8Range;
  case DType::U8:
    return num::kUInt8Range;
  case DType::I4:
    return num::kInt4Range;
  case DType::U4:
    return num::kUInt4Range;
  default:
    return {std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max()};
  }
}

/// q = sat(RNE(t) + zp) for an already scaled f32 t: numerics'
/// requantizeFloat rule, evaluated in 64 bits so that the i32 destination
/// range and zero points at its edges cannot overflow.
int32_t requantScaled(float t, int64_t zp, num::QuantRange range) {
  float r = num::roundHalfEven(t);
  double v = std::isnan(r) ? static_cast<double>(zp)
                           : static_cast<double>(r) + static_cast<double>(zp);
  if (v <= range.min)
    return range.min;
  if (v >= range.max)
    return range.max;
  return static_cast<int32_t>(v);
}

Error quant(const Op &op, const EffAddrs &eff, ExecContext &ctx) {
  bool flt = isFloatDomain(op.at);
  Tile &a = ctx.tileA, &d = ctx.tileD, &s = ctx.tileB;
  if (Error e = readTile(ctx, op.mem[OpA].space, eff[OpA], op.apitch, op.at,
                         op.rows, op.cols, flt, a))
    return e;
  uint64_t nscales = op.perch ? op.cols : 1;
  if (Error e = readTile(ctx, op.mem[OpS].space, eff[OpS], 0, DType::F32, 1,
                         nscales, true, s))
    return e;
  uint64_t rows = a.rows, cols = a.cols;
  if (op.opcode == Opcode::VRqnt) {
    if (!isInteger(op.dt) || op.dt == DType::I64)
      return Error::make(
          fmt::format("v.rqnt cannot produce {}", dtypeName(op.dt)));
    num::QuantRange range = rangeOf(op.dt);
    // Numerics' rule (int32 or already scaled f32 input) where the zero
    // point and the destination keep r + zp inside int32.
    bool viaNumerics =
        op.dt != DType::I32 && op.zp >= range.min && op.zp <= range.max;
    d.reset(false, rows, cols);
    for (uint64_t r = 0; r < rows; ++r) {
      if (viaNumerics && flt) {
        num::requantizeScaledRow(num::getHostSimdLevel(), a.f.data() + r * cols,
                                 s.f.data(), op.perch,
                                 static_cast<int32_t>(op.zp), range,
                                 d.i.data() + r * cols, cols);
        continue;
      }
      if (viaNumerics) {
        num::requantizeFloatRow(num::getHostSimdLevel(), a.i.data() + r * cols,
                                s.f.data(), op.perch,
                                static_cast<int32_t>(op.zp), range,
                                d.i.data() + r * cols, cols);
        continue;
      }
      for (uint64_t c = 0; c < cols; ++c) {
        float scale = s.f[op.perch ? c : 0];
        uint64_t i = r * cols + c;
        d.i[i] = requantScaled(
            (flt ? a.f[i] : static_cast<float>(a.i[i])) * scale, op.zp, range);
      }
    }
  } else {
    if (flt)
      return Error::make(fmt::format("v.dqnt needs an integer input, got {}",
                                     dtypeName(op.at)));
    d.reset(true, rows, cols);
    for (uint64_t r = 0; r < rows; ++r) {
      if (op.zp == 0) {
        num::dequantizeRow(num::getHostSimdLevel(), a.i.data() + r * cols,
                           s.f.data(), op.perch, d.f.data() + r * cols, cols);
        continue;
      }
      for (uint64_t c = 0; c < cols; ++c) {
        uint64_t i = r * cols + c;
        // a - zp is exact in 64 bits; one rounding to f32, one for the
        // product (DequantizeLinear).
        float diff = static_cast<float>(static_cast<int64_t>(a.i[i]) - op.zp);
        d.f[i] = diff * s.f[op.perch ? c : 0];
      }
    }
  }
  return writeTile(ctx, op.mem[OpDst].space, eff[OpDst], op.dpitch, op.dt, d,
                   op.chained());
}

Error fill(const Op &op, const EffAddrs &eff, ExecContext &ctx) {
  Tile &d = ctx.tileD;
  bool flt = isFloatDomain(op.dt);
  d.reset(flt, op.rows, op.cols);
  auto bits = static_cast<uint32_t>(op.imm);
  if (flt)
    std::fill(d.f.begin(), d.f.end(), num::bitsToFloat(bits));
  else
    std::fill(d.i.begin(), d.i.end(), static_cast<int32_t>(bits));
  return writeTile(ctx, op.mem[OpDst].space, eff[OpDst], op.dpitch, op.dt, d,
                   op.chained());
}

} // namespace

Error executeVector(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                    ExecResult &res) {
  res.cycles = ctx.cycles->vector(op.rows, op.cols);
  switch (op.opcode) {
  case Opcode::VAdd:
  case Opcode::VSub:
  case Opcode::VMul:
  case Opcode::VMax:
  case Opcode::VMin:
  case Opcode::VsAdd:
  case Opcode::VsMul:
  case Opcode::VsMax:
  case Opcode::VsMin:
    return binary(op, eff, ctx);
  case Opcode::VCeq:
  case Opcode::VCne:
  case Opcode::VClt:
  case Opcode::VCle:
  case Opcode::VCgt:
  case Opcode::VCge:
    return compare(op, eff, ctx);
  case Opcode::VSel:
    return select(op, eff, ctx);
  case Opcode::VMov:
    return move(op, eff, ctx);
  case Opcode::VCvt:
  case Opcode::VRelu:
  case Opcode::VSigm:
  case Opcode::VTanh:
  case Opcode::VExp:
  case Opcode::VGelu:
  case Opcode::VGeluT:
  case Opcode::VRecip:
  case Opcode::VRsqrt:
  case Opcode::VAbs:
  case Opcode::VNeg:
    return unary(op, eff, ctx);
  case Opcode::VRsum:
  case Opcode::VRmax:
  case Opcode::VRmin:
    return reduce(op, eff, ctx);
  case Opcode::VRqnt:
  case Opcode::VDqnt:
    return quant(op, eff, ctx);
  case Opcode::VFill:
    return fill(op, eff, ctx);
  default:
    return Error::make("internal: not a vector opcode");
  }
}

} // namespace nnaccel::emulator
