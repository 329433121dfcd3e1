//===- DmaUnit.cpp - DMA and embedding-gather engines (ld/st queues) ----===//
//
// dma.ld (3-D strided copy in, with zero padding), dma.st (strided copy
// out) and emb.gather (index-list gather with rowwise dequantisation,
// weighting and sum/mean pooling). DMA is a bit copy row by row through
// Memory::read/write, which handles the sparse DRAM pages. The gather follows
// docs/isa.md §8.3 literally: dequantise each row (Numerics
// dequantizeFusedRow), multiply by the weight, add into the segment sum in
// index order, divide for the mean, convert to dt.
//
//===----------------------------------------------------------------------===//

#include "Units.h"

#include "nnaccel/Emulator/ElementIO.h"
#include "nnaccel/Numerics/RowwiseEmbedding.h"
#include "nnaccel/Numerics/Transpose.h"
#include "nnaccel/Numerics/VectorOps.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>

namespace nnaccel::emulator {

using namespace isa;
namespace num = nnaccel::numerics;

namespace {

Error outside(const char *what, Space s, uint64_t addr, uint64_t n,
              const Memory &m) {
  return Error::make(fmt::format("{} [0x{:x}, 0x{:x}) is outside {} ({} bytes)",
                                 what, addr, addr + n, spaceName(s), m.size()));
}

Memory &memOf(ExecContext &ctx, Space s) {
  return *ctx.mem[static_cast<unsigned>(s)];
}

/// dst row (p * y + r) * dpitch <- src row p * sz + r * sy, `row` bytes
/// each; element-sized rows copied as their integer type.
template <typename T>
void gatherElements(uint8_t *dst, uint64_t dpitch, const uint8_t *src,
                    uint64_t sz, uint64_t sy, uint64_t z, uint64_t y) {
  for (uint64_t p = 0; p < z; ++p) {
    const uint8_t *in = src + p * sz;
    uint8_t *out = dst + p * y * dpitch;
    for (uint64_t r = 0; r < y; ++r) {
      T v;
      std::memcpy(&v, in + r * sy, sizeof(T));
      std::memcpy(out + r * dpitch, &v, sizeof(T));
    }
  }
}
void gatherRows(uint8_t *dst, uint64_t dpitch, const uint8_t *src, uint64_t sz,
                uint64_t sy, uint64_t z, uint64_t y, uint64_t row) {
  switch (row) {
  case 1:
    return gatherElements<uint8_t>(dst, dpitch, src, sz, sy, z, y);
  case 2:
    return gatherElements<uint16_t>(dst, dpitch, src, sz, sy, z, y);
  case 4:
    return gatherElements<uint32_t>(dst, dpitch, src, sz, sy, z, y);
  case 8:
    return gatherElements<uint64_t>(dst, dpitch, src, sz, sy, z, y);
  default:
    for (uint64_t p = 0; p < z; ++p)
      for (uint64_t r = 0; r < y; ++r)
        std::memcpy(dst + (p * y + r) * dpitch, src + p * sz + r * sy, row);
  }
}

/// Host pointers to a DMA's whole source and destination boxes when both
/// are contiguous host memory (dense memories; a box within one DRAM page)
/// and inside their memories: the rows then copy with no per-row bounds
/// checks or page lookups. A paged source box of more than twice the bytes
/// it moves (a sparse box) is not gathered into `scratch`; nullopt sends
/// such DMAs down the row-by-row path.
struct DmaBoxes {
  const uint8_t *src;
  uint8_t *dst;
};
std::optional<DmaBoxes> contiguousBoxes(Memory &src, uint64_t srcAddr,
                                        uint64_t srcExtent, Memory &dst,
                                        uint64_t dstAddr, uint64_t dstExtent,
                                        uint64_t moved,
                                        std::vector<uint8_t> &scratch) {
  if (!srcExtent || !dstExtent || !src.contains(srcAddr, srcExtent) ||
      !dst.contains(dstAddr, dstExtent))
    return std::nullopt;
  if (!src.isDense() && srcExtent > 2 * moved + 4096)
    return std::nullopt;
  uint8_t *out = dst.span(dstAddr, dstExtent);
  if (!out)
    return std::nullopt;
  return DmaBoxes{src.view(srcAddr, srcExtent, scratch), out};
}

/// Whether two boxes share no byte (the block transposes read a block
/// before they write it, which only the element order defines when they
/// do).
bool disjoint(const Memory &a, uint64_t aAddr, uint64_t aBytes, const Memory &b,
              uint64_t bAddr, uint64_t bBytes) {
  return &a != &b || aAddr + aBytes <= bAddr || bAddr + bBytes <= aAddr;
}

/// An unpadded transposing dma.ld (rows of one 1-, 2- or 4-byte element,
/// the z elements of a source row adjacent) whose source box is too sparse
/// for contiguousBoxes (rows far apart in a paged memory: a channel slice):
/// its y source runs of z elements are read into `scratch`, one read each,
/// and transposed from there in blocks, instead of one paged read per
/// element. False (nothing done) when it does not apply.
bool gatherTransposingLoad(const Op &op, const EffAddrs &eff, Memory &src,
                           Memory &dst, uint64_t sRow, uint64_t srcExtent,
                           uint64_t dstExtent, std::vector<uint8_t> &scratch) {
  if (op.pl || op.pr || op.pt || op.pb || sRow != op.sz || sRow != op.dpitch ||
      (sRow != 1 && sRow != 2 && sRow != 4) || !op.z || !op.y ||
      !src.contains(eff[OpSrc], srcExtent) ||
      !dst.contains(eff[OpDst], dstExtent) ||
      !disjoint(src, eff[OpSrc], srcExtent, dst, eff[OpDst], dstExtent))
    return false;
  uint8_t *out = dst.span(eff[OpDst], dstExtent);
  if (!out)
    return false;
  const uint64_t run = op.z * sRow;
  scratch.resize(op.y * run);
  for (uint64_t r = 0; r < op.y; ++r)
    src.read(eff[OpSrc] + r * op.sy, scratch.data() + r * run, run);
  return num::transposeElements(scratch.data(), run, out, op.y * sRow, op.y,
                                op.z, unsigned(sRow));
}

Error dmaLoad(const Op &op, const EffAddrs &eff, ExecContext &ctx,
              ExecResult &res) {
  Space ss = op.mem[OpSrc].space, ds = op.mem[OpDst].space;
  if (ss == Space::Chain || ds == Space::Chain)
    return Error::make("dma.ld operands cannot be the chain");
  Memory &src = memOf(ctx, ss), &dst = memOf(ctx, ds);
  DType t = op.dt;
  uint64_t padRows = op.pt + op.y + op.pb, padCols = op.pl + op.x + op.pr;
  uint64_t dRow = rowBytes(t, padCols), sRow = rowBytes(t, op.x);
  uint64_t left = rowBytes(t, op.pl), right = dRow - left - sRow;
  std::vector<uint8_t> &buf = ctx.scratchA;
  const uint64_t srcExtent =
      op.z && op.y ? (op.z - 1) * op.sz + (op.y - 1) * op.sy + sRow : 0;
  const uint64_t dstExtent =
      op.z && padRows ? (op.z * padRows - 1) * op.dpitch + dRow : 0;
  if (std::optional<DmaBoxes> box =
          contiguousBoxes(src, eff[OpSrc], srcExtent, dst, eff[OpDst],
                          dstExtent, op.z * op.y * sRow, ctx.scratchB)) {
    if (!left && !right && !op.pt && !op.pb) {
      // No padding: a gather of rows, tight (a transposing load moves one
      // element a row, a million rows an inference for an f32 MobileNet).
      // Rows of one element, the z elements of a source row side by side
      // and the destination dense: a 2-D transpose, in blocks.
      if (!(sRow == op.sz && sRow == op.dpitch &&
            disjoint(src, eff[OpSrc], srcExtent, dst, eff[OpDst], dstExtent) &&
            num::transposeElements(box->src, op.sy, box->dst, op.y * sRow, op.y,
                                   op.z, unsigned(sRow))))
        gatherRows(box->dst, op.dpitch, box->src, op.sz, op.sy, op.z, op.y,
                   sRow);
    } else
      for (uint64_t p = 0; p < op.z; ++p)
        for (uint64_t r = 0; r < padRows; ++r) {
          uint8_t *out = box->dst + (p * padRows + r) * op.dpitch;
          if (r < op.pt || r >= op.pt + op.y) {
            std::memset(out, 0, dRow);
            continue;
          }
          if (left)
            std::memset(out, 0, left);
          Memory::copyBytes(out + left,
                            box->src + p * op.sz + (r - op.pt) * op.sy, sRow);
          if (right)
            std::memset(out + left + sRow, 0, right);
        }
  } else if (gatherTransposingLoad(op, eff, src, dst, sRow, srcExtent,
                                   dstExtent, ctx.scratchB)) {
    // Done (see gatherTransposingLoad).
  } else {
    buf.resize(dRow);
    for (uint64_t p = 0; p < op.z; ++p)
      for (uint64_t r = 0; r < padRows; ++r) {
        uint64_t daddr = eff[OpDst] + (p * padRows + r) * op.dpitch;
        if (!dst.contains(daddr, dRow))
          return outside("dma.ld destination row", ds, daddr, dRow, dst);
        if (r < op.pt || r >= op.pt + op.y) {
          dst.fill(daddr, 0, dRow);
          continue;
        }
        uint64_t saddr = eff[OpSrc] + p * op.sz + (r - op.pt) * op.sy;
        if (!src.contains(saddr, sRow))
          return outside("dma.ld source row", ss, saddr, sRow, src);
        // Straight into the destination when its row is contiguous host
        // memory (always for the core-local memories), else through `buf`.
        uint8_t *row = dst.span(daddr, dRow);
        uint8_t *out = row ? row : buf.data();
        if (left)
          std::memset(out, 0, left);
        src.read(saddr, out + left, sRow);
        if (right)
          std::memset(out + left + sRow, 0, right);
        if (!row)
          dst.write(daddr, buf.data(), dRow);
      }
  }
  uint64_t readBytes = op.z * op.y * sRow, written = op.z * padRows * dRow;
  ctx.bytes->read[static_cast<unsigned>(ss)] += readBytes;
  ctx.bytes->written[static_cast<unsigned>(ds)] += written;
  res.cycles = ctx.cycles->dma(ss, ds, written);
  res.latency = ctx.cycles->dmaLatency(ss, ds);
  return Error::success();
}

Error dmaStore(const Op &op, const EffAddrs &eff, ExecContext &ctx,
               ExecResult &res) {
  Space ss = op.mem[OpSrc].space, ds = op.mem[OpDst].space;
  if (ss == Space::Chain || ds == Space::Chain)
    return Error::make("dma.st operands cannot be the chain");
  Memory &src = memOf(ctx, ss), &dst = memOf(ctx, ds);
  uint64_t row = rowBytes(op.dt, op.x);
  std::vector<uint8_t> &buf = ctx.scratchA;
  const uint64_t srcExtent =
      op.z && op.y ? (op.z * op.y - 1) * op.spitch + row : 0;
  const uint64_t dstExtent =
      op.z && op.y ? (op.z - 1) * op.dz + (op.y - 1) * op.dy + row : 0;
  if (std::optional<DmaBoxes> box =
          contiguousBoxes(src, eff[OpSrc], srcExtent, dst, eff[OpDst],
                          dstExtent, op.z * op.y * row, ctx.scratchB)) {
    // Rows of one element from a dense source, the z of a destination row
    // side by side: a 2-D transpose, in blocks.
    if (!(row == op.dz && row == op.spitch &&
          disjoint(src, eff[OpSrc], srcExtent, dst, eff[OpDst], dstExtent) &&
          num::transposeElements(box->src, op.y * row, box->dst, op.dy, op.z,
                                 op.y, unsigned(row))))
      for (uint64_t p = 0; p < op.z; ++p)
        for (uint64_t r = 0; r < op.y; ++r)
          Memory::copyBytes(box->dst + p * op.dz + r * op.dy,
                            box->src + (p * op.y + r) * op.spitch, row);
  } else {
    buf.resize(row);
    for (uint64_t p = 0; p < op.z; ++p)
      for (uint64_t r = 0; r < op.y; ++r) {
        uint64_t saddr = eff[OpSrc] + (p * op.y + r) * op.spitch;
        uint64_t daddr = eff[OpDst] + p * op.dz + r * op.dy;
        if (!src.contains(saddr, row))
          return outside("dma.st source row", ss, saddr, row, src);
        if (!dst.contains(daddr, row))
          return outside("dma.st destination row", ds, daddr, row, dst);
        // One copy when the source row is contiguous host memory.
        dst.write(daddr, src.view(saddr, row, buf), row);
      }
  }
  uint64_t bytes = op.z * op.y * row;
  ctx.bytes->read[static_cast<unsigned>(ss)] += bytes;
  ctx.bytes->written[static_cast<unsigned>(ds)] += bytes;
  res.cycles = ctx.cycles->dma(ss, ds, bytes);
  res.latency = ctx.cycles->dmaLatency(ss, ds);
  res.posted = true;
  return Error::success();
}

/// Reads `count` little-endian values of `elemBytes` from a list operand.
Error readList(ExecContext &ctx, Space s, uint64_t addr, uint64_t count,
               unsigned elemBytes, const char *what,
               std::vector<uint8_t> &out) {
  if (s == Space::Chain)
    return Error::make(fmt::format("{} cannot be the chain", what));
  Memory &m = memOf(ctx, s);
  uint64_t n = count * elemBytes;
  if (!m.contains(addr, n))
    return outside(what, s, addr, n, m);
  out.resize(n);
  m.read(addr, out.data(), n);
  ctx.bytes->read[static_cast<unsigned>(s)] += n;
  return Error::success();
}

template <typename T> T le(const std::vector<uint8_t> &b, uint64_t i) {
  T v;
  std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
  return v;
}

Error gather(const Op &op, const EffAddrs &eff, ExecContext &ctx,
             ExecResult &res) {
  Space ts = op.mem[OpTable].space, ds = op.mem[OpDst].space;
  if (ts == Space::Chain || ds == Space::Chain)
    return Error::make("emb.gather operands cannot be the chain");
  if (op.dt != DType::F32 && op.dt != DType::F16 && op.dt != DType::BF16)
    return Error::make(fmt::format("emb.gather produces f32, f16 or bf16, not "
                                   "{}",
                                   dtypeName(op.dt)));
  Memory &table = memOf(ctx, ts), &dst = memOf(ctx, ds);
  uint64_t dim = op.dim, nseg = op.nseg;
  bool pooled = op.pool != Pool::None;

  // Segment boundaries [begin[s], begin[s + 1]) into the index list.
  ExecContext::GatherScratch &g = ctx.gather;
  std::vector<uint64_t> &begin = g.begin;
  begin.assign(nseg + 1, 0);
  std::vector<uint8_t> &lens = g.lens;
  if (!pooled) {
    for (uint64_t s = 0; s <= nseg; ++s)
      begin[s] = s;
  } else if (op.offs) {
    if (Error e = readList(ctx, op.mem[OpLen].space, eff[OpLen], nseg + 1, 4,
                           "offset list", lens))
      return e;
    for (uint64_t s = 0; s <= nseg; ++s) {
      int32_t o = le<int32_t>(lens, s);
      if (o < 0 || (s && static_cast<uint64_t>(o) < begin[s - 1]))
        return Error::make(fmt::format("offset {} of segment {} is negative or "
                                       "decreasing",
                                       o, s));
      begin[s] = static_cast<uint64_t>(o);
    }
  } else {
    if (Error e = readList(ctx, op.mem[OpLen].space, eff[OpLen], nseg, 4,
                           "length list", lens))
      return e;
    for (uint64_t s = 0; s < nseg; ++s) {
      int32_t l = le<int32_t>(lens, s);
      if (l < 0)
        return Error::make(
            fmt::format("length {} of segment {} is negative", l, s));
      begin[s + 1] = begin[s] + static_cast<uint64_t>(l);
    }
  }
  uint64_t lookups = begin[nseg];
  std::vector<uint8_t> &idxBytes = g.indices, &wtsBytes = g.weights;
  unsigned isz = op.ityp == IdxType::I64 ? 8 : 4;
  if (Error e = readList(ctx, op.mem[OpIdx].space, eff[OpIdx], lookups, isz,
                         "index list", idxBytes))
    return e;
  if (op.weighted)
    if (Error e = readList(ctx, op.mem[OpWts].space, eff[OpWts], lookups, 4,
                           "weight list", wtsBytes))
      return e;

  bool rowwise = op.fmt == EmbFmt::RW8 || op.fmt == EmbFmt::RW4;
  num::RowwiseBits bits =
      op.fmt == EmbFmt::RW8 ? num::RowwiseBits::Eight : num::RowwiseBits::Four;
  uint64_t dataBytes = rowwise ? num::fusedRowBytes(bits, dim)
                               : dim * (op.fmt == EmbFmt::F32 ? 4 : 2);
  DType rowType = op.fmt == EmbFmt::F32   ? DType::F32
                  : op.fmt == EmbFmt::F16 ? DType::F16
                                          : DType::BF16;
  uint64_t outRow = rowBytes(op.dt, dim);
  std::vector<float> &acc = g.acc, &x = g.row;
  acc.resize(dim);
  x.resize(dim);
  std::vector<uint8_t> &rowBuf = ctx.scratchA, &outBuf = ctx.scratchB;
  outBuf.resize(outRow);
  for (uint64_t s = 0; s < nseg; ++s) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (uint64_t j = begin[s]; j < begin[s + 1]; ++j) {
      int64_t index = op.ityp == IdxType::I64 ? le<int64_t>(idxBytes, j)
                                              : le<int32_t>(idxBytes, j);
      if (index < 0 || static_cast<uint64_t>(index) >= op.nrows)
        return Error::make(fmt::format("index {} (list position {}) is "
                                       "outside the table's {} rows",
                                       index, j, op.nrows));
      uint64_t raddr =
          eff[OpTable] + static_cast<uint64_t>(index) * op.rowbytes;
      if (!table.contains(raddr, dataBytes))
        return outside("table row", ts, raddr, dataBytes, table);
      const uint8_t *row = table.view(raddr, dataBytes, rowBuf);
      if (rowwise)
        num::dequantizeFusedRow(bits, {row, dataBytes}, x);
      else
        readRowF32(rowType, row, dim, x.data());
      if (op.weighted) {
        float wgt = le<float>(wtsBytes, j);
        for (uint64_t i = 0; i < dim; ++i)
          x[i] = x[i] * wgt;
      }
      if (pooled)
        num::addF32(acc, x, acc);
      else
        acc.swap(x);
    }
    if (op.pool == Pool::Mean && begin[s + 1] > begin[s]) {
      float len = static_cast<float>(begin[s + 1] - begin[s]);
      for (uint64_t i = 0; i < dim; ++i)
        acc[i] = acc[i] / len;
    }
    writeRowF32(op.dt, acc.data(), dim, outBuf.data());
    uint64_t daddr = eff[OpDst] + s * op.dpitch;
    if (!dst.contains(daddr, outRow))
      return outside("emb.gather output row", ds, daddr, outRow, dst);
    dst.write(daddr, outBuf.data(), outRow);
  }
  ctx.bytes->read[static_cast<unsigned>(ts)] += lookups * dataBytes;
  ctx.bytes->written[static_cast<unsigned>(ds)] += nseg * outRow;
  res.cycles = ctx.cycles->gather(ts, lookups, op.rowbytes, dim);
  res.latency = ctx.cycles->dmaLatency(ts, ts);
  res.listEntries = lookups;
  return Error::success();
}

} // namespace

Error executeDma(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                 ExecResult &res) {
  if (op.opcode == Opcode::DmaLd)
    return dmaLoad(op, eff, ctx, res);
  return dmaStore(op, eff, ctx, res);
}

Error executeGather(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                    ExecResult &res) {
  return gather(op, eff, ctx, res);
}

} // namespace nnaccel::emulator
