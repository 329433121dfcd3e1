//===- MatrixUnit.cpp - Matrix unit (mm) ---------------------------------===//
//
// `mm`: D[m x n] (+)= A[m x k] * W^T with W stored as n rows of k (one row
// per dot-product engine). The weight tile is unpacked once per instruction
// into the layout the lib/Numerics kernels take (W[n x k] row-major is
// exactly matVec's W[M x K]), then every activation row is one matVec call,
// so the accumulation order is Numerics' by construction. Block formats are
// unpacked from the ISA storage (BlockPack) and activations are encoded to
// the weight's block format per row, as docs/isa.md §8.6 specifies.
//
//===----------------------------------------------------------------------===//

#include "Units.h"

#include "nnaccel/Emulator/BlockPack.h"
#include "nnaccel/Emulator/ElementIO.h"
#include "nnaccel/Numerics/Affine.h"
#include "nnaccel/Numerics/BlockFloat.h"
#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/Mx.h"
#include "nnaccel/Numerics/PackedMatVec.h"

#include <fmt/format.h>

#include <cstring>

namespace nnaccel::emulator {

using namespace isa;
namespace num = nnaccel::numerics;

namespace {

/// The m activation rows: where they lie in a dense memory, else copied
/// densely into a scratch buffer (rowBytes(at, k) each).
struct RawRows {
  const uint8_t *base = nullptr;
  uint64_t pitch = 0, rowBytes = 0;
  const uint8_t *row(uint64_t r) const { return base + r * pitch; }
};

template <typename T>
void copyOut(const uint8_t *src, size_t n, std::vector<T> &out) {
  out.resize(n);
  if (n)
    std::memcpy(out.data(), src, n * sizeof(T));
}

/// `count` f32 values at `bytes`: read in place when 4-byte aligned (MRF
/// and VRF addresses always are: the kernels only read them, from the
/// Numerics library, after the DMA has copied the bytes in), else through
/// a copy in `copy`.
const float *inPlaceFloats(const uint8_t *bytes, size_t count,
                           std::vector<float> &copy) {
  if (reinterpret_cast<uintptr_t>(bytes) % alignof(float) == 0)
    return reinterpret_cast<const float *>(bytes);
  copyOut(bytes, count, copy);
  return copy.data();
}

bool isFloatAct(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}
bool isFp8(DType t) { return t == DType::FP8E4M3 || t == DType::FP8E5M2; }

/// u32 wrap-around helpers: Σ(a - azp)·w = Σ a·w - azp·Σ w (mod 2^32).
int32_t wrapSubMul(int32_t v, int64_t zp, int32_t sumW) {
  uint32_t corr = static_cast<uint32_t>(zp) * static_cast<uint32_t>(sumW);
  return static_cast<int32_t>(static_cast<uint32_t>(v) - corr);
}

using WeightLayout = ExecContext::DecodedWeights::Layout;

/// Activation rows an f32 / int8 weight tile must have been multiplied
/// with at the same MRF contents before it is repacked: the repacking costs
/// about as many rows' worth of products as the packed kernel saves in
/// that many (bench/microbench: a 64 x 64 f32 tile transposes in 313 ns and
/// saves 51 ns a row; an int8 tile packs in 417 ns and saves 168 ns a row).
/// A tile streamed in for a row or two is multiplied row-major.
constexpr uint64_t kPackF32Rows = 8, kPackI8Rows = 4;

/// The core's cache entry for the n x k weight tile of `bytes` bytes at MRF
/// address `addr` in `layout`. It is `packed` when the tile was repacked at
/// the MRF contents it has now (Memory::writeCount, by 4 KiB blocks), so a
/// streamed weight is repacked per load, a pinned or resident one once.
/// Otherwise the caller packs it (or not) and sets `packed`. Weights
/// outside the MRF are never found packed: nothing counts their writes.
ExecContext::DecodedWeights &weightCacheEntry(ExecContext &ctx, Space ws,
                                              const Memory &wm, uint64_t addr,
                                              uint64_t bytes, DType wt,
                                              WeightLayout layout, uint64_t n,
                                              uint64_t k) {
  // One entry per tile address the program multiplies from, at most one
  // per kWeightSlotBytes of the MRF.
  const bool counted = ws == Space::Mrf;
  const uint64_t writes = counted ? wm.writeCount(addr, bytes) : 0;
  ExecContext::DecodedWeights *entry = &ctx.uncountedWeights;
  if (counted) {
    auto &slots = ctx.decodedWeights;
    const uint64_t slot = addr / ExecContext::kWeightSlotBytes;
    if (slot >= slots.size())
      slots.resize(slot + 1);
    std::unique_ptr<ExecContext::DecodedWeights> &held = slots[slot];
    if (!held)
      held = std::make_unique<ExecContext::DecodedWeights>();
    entry = held.get();
    if (entry->addr == addr && entry->wt == wt && entry->layout == layout &&
        entry->n == n && entry->k == k && entry->writes == writes)
      return *entry;
  }
  ExecContext::DecodedWeights &e = *entry;
  e.addr = addr;
  e.wt = wt;
  e.layout = layout;
  e.n = n;
  e.k = k;
  e.writes = writes;
  e.rows = 0;
  e.packed = false;
  return e;
}

/// The unpacked scales (or exponents) and element codes of the n x k
/// block-format weight tile at `addr` (rows of `wRow` bytes from `w`,
/// `blocks` scales a row), unpacked row by row by `unpackRow(row, scales,
/// codes)` unless cached (weightCacheEntry).
template <typename UnpackRow>
const ExecContext::DecodedWeights &
decodedWeights(ExecContext &ctx, Space ws, const Memory &wm, uint64_t addr,
               const uint8_t *w, uint64_t wRow, DType wt, uint64_t n,
               uint64_t k, uint64_t blocks, UnpackRow unpackRow) {
  ExecContext::DecodedWeights &e = weightCacheEntry(
      ctx, ws, wm, addr, n * wRow, wt, WeightLayout::BlockCodes, n, k);
  if (!e.packed) {
    e.scales.resize(n * blocks);
    e.codes.resize(n * k);
    for (uint64_t j = 0; j < n; ++j)
      unpackRow(w + j * wRow, e.scales.data() + j * blocks,
                e.codes.data() + j * k);
    e.packed = true;
  }
  return e;
}

/// The f32 tile `w` (n x k) transposed for matVecTransposedF32 when the
/// host has the vector path that pays for it and the tile has met enough
/// rows (kPackF32Rows, counting these `m`); else null (multiply row-major).
const float *transposedWeights(ExecContext &ctx, Space ws, const Memory &wm,
                               uint64_t addr, const float *w, uint64_t n,
                               uint64_t k, uint64_t m) {
  if (num::getHostSimdLevel() != num::SimdLevel::Avx512)
    return nullptr;
  ExecContext::DecodedWeights &e =
      weightCacheEntry(ctx, ws, wm, addr, n * k * sizeof(float), DType::F32,
                       WeightLayout::TransposedF32, n, k);
  e.rows += m;
  if (!e.packed && e.rows >= kPackF32Rows) {
    e.floats.resize(num::transposedF32Size(n, k));
    num::transposeF32(w, n, k, e.floats.data());
    e.packed = true;
  }
  return e.packed ? e.floats.data() : nullptr;
}

/// The int8 tile `w` (n x k) in quads for matVecQuadsI8 with its row sums,
/// under the same conditions (VNNI, kPackI8Rows); else null.
const ExecContext::DecodedWeights *quadWeights(ExecContext &ctx, Space ws,
                                               const Memory &wm, uint64_t addr,
                                               const int8_t *w, uint64_t n,
                                               uint64_t k, uint64_t m) {
  if (!num::hostHasInt8Dot())
    return nullptr;
  ExecContext::DecodedWeights &e = weightCacheEntry(
      ctx, ws, wm, addr, n * k, DType::I8, WeightLayout::QuadsI8, n, k);
  e.rows += m;
  if (!e.packed && e.rows >= kPackI8Rows) {
    e.codes.resize(num::quadsI8Size(n, k));
    e.sums.resize(num::packedStride(n));
    num::packQuadsI8(w, n, k, reinterpret_cast<int8_t *>(e.codes.data()),
                     e.sums.data());
    e.packed = true;
  }
  return e.packed ? &e : nullptr;
}

} // namespace

Error executeMatrix(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                    ExecResult &res) {
  uint64_t m = op.m, k = op.k, n = op.n;
  DType at = op.at, wt = op.wt, dt = op.dt;
  const TargetDesc &t = *ctx.target;
  if (!m || !k || !n)
    return Error::make("m, k and n must be at least 1");
  if (k > t.nativeDim || n > t.nativeDim)
    return Error::make(fmt::format("tile {}x{} exceeds the native dimension {}",
                                   k, n, t.nativeDim));

  // --- Operands ----------------------------------------------------------
  Space as = op.mem[OpA].space, ws = op.mem[OpW].space;
  if (as == Space::Chain || ws == Space::Chain)
    return Error::make("mm cannot read its a or w operand from the chain");
  Memory &am = *ctx.mem[static_cast<unsigned>(as)];
  Memory &wm = *ctx.mem[static_cast<unsigned>(ws)];
  RawRows a;
  a.rowBytes = rowBytes(at, k);
  uint64_t aExtent = (m - 1) * op.apitch + a.rowBytes;
  uint64_t wRow = rowBytes(wt, k), wBytes = n * wRow;
  if (!am.contains(eff[OpA], aExtent) || !wm.contains(eff[OpW], wBytes))
    return Error::make("mm operand outside its memory");
  if (am.isDense()) {
    a.base = am.span(eff[OpA], aExtent);
    a.pitch = op.apitch;
  } else {
    ctx.scratchA.resize(m * a.rowBytes);
    for (uint64_t r = 0; r < m; ++r)
      am.read(eff[OpA] + r * op.apitch, ctx.scratchA.data() + r * a.rowBytes,
              a.rowBytes);
    a.base = ctx.scratchA.data();
    a.pitch = a.rowBytes;
  }
  const uint8_t *w = wm.view(eff[OpW], wBytes, ctx.scratchB);
  ctx.bytes->read[static_cast<unsigned>(as)] += m * a.rowBytes;
  ctx.bytes->read[static_cast<unsigned>(ws)] += wBytes;

  bool intPath = (at == DType::I8 || at == DType::U8) &&
                 (wt == DType::I8 || wt == DType::I4);
  if (op.acc) {
    if (op.mem[OpDst].space != Space::Acc ||
        (dt != DType::F32 && dt != DType::I32))
      return Error::make("acc=1 needs an f32 or i32 destination in acc");
    if ((dt == DType::I32) != intPath)
      return Error::make("acc=1 destination type does not match the "
                         "accumulation domain");
  }
  // The result rows: straight in the destination memory when the kernel's
  // own type (i32 or f32) is stored there unchained and touches neither
  // operand (the products accumulate where they lie), else a tile written
  // back afterwards. Either way the same bytes are counted.
  Tile &d = ctx.tileD;
  const Space ds = op.mem[OpDst].space;
  const uint64_t dRowBytes = rowBytes(dt, n);
  const uint64_t dExtent = (m - 1) * op.dpitch + dRowBytes;
  uint8_t *direct = nullptr;
  if (ds != Space::Chain && !op.chained() &&
      (intPath ? dt == DType::I32
               : dt == DType::F32 && at == DType::F32 && wt == DType::F32)) {
    Memory &dm = *ctx.mem[static_cast<unsigned>(ds)];
    auto disjoint = [&](Space s, uint64_t addr, uint64_t bytes) {
      return s != ds || addr + bytes <= uint64_t(eff[OpDst]) ||
             uint64_t(eff[OpDst]) + dExtent <= addr;
    };
    if (dm.isDense() && dm.contains(eff[OpDst], dExtent) &&
        op.dpitch % 4 == 0 && disjoint(as, eff[OpA], aExtent) &&
        disjoint(ws, eff[OpW], wBytes)) {
      direct = dm.span(eff[OpDst], dExtent);
      if (reinterpret_cast<uintptr_t>(direct) % 4)
        direct = nullptr;
    }
  }
  if (direct) {
    if (op.acc)
      ctx.bytes->read[static_cast<unsigned>(ds)] += m * dRowBytes;
  } else if (op.acc) {
    if (Error e = readTile(ctx, Space::Acc, eff[OpDst], op.dpitch, dt, m, n,
                           dt == DType::F32, d))
      return e;
  } else {
    d.reset(!intPath, m, n);
  }
  // Row r of the result (n values of the compute domain).
  auto outI = [&](uint64_t r) {
    return direct ? reinterpret_cast<int32_t *>(direct + r * op.dpitch)
                  : d.i.data() + r * n;
  };
  auto outF = [&](uint64_t r) {
    return direct ? reinterpret_cast<float *>(direct + r * op.dpitch)
                  : d.f.data() + r * n;
  };
  bool acc = op.acc;

  // --- Compute -----------------------------------------------------------
  if (intPath) {
    if (dt != DType::I32)
      return Error::make(
          fmt::format("integer mm produces i32, not {}", dtypeName(dt)));
    const int8_t *w8 = reinterpret_cast<const int8_t *>(w);
    const ExecContext::DecodedWeights *quads =
        wt == DType::I8 ? quadWeights(ctx, ws, wm, eff[OpW], w8, n, k, m)
                        : nullptr;
    // Row sums of W for the zero-point correction (exact mod 2^32): the
    // packed tile's, else summed here.
    const int32_t *sumW = quads ? quads->sums.data() : nullptr;
    if (!sumW && (op.azp != 0 || (at == DType::U8 && wt == DType::I4))) {
      std::vector<int32_t> &sums = ctx.tileC.i;
      sums.assign(n, 0);
      for (uint64_t j = 0; j < n; ++j) {
        uint32_t s = 0;
        for (uint64_t i = 0; i < k; ++i)
          s += static_cast<uint32_t>(
              wt == DType::I8 ? static_cast<int8_t>(w[j * wRow + i])
                              : num::readPackedInt4(w + j * wRow, i));
        sums[j] = static_cast<int32_t>(s);
      }
      sumW = sums.data();
    }
    ctx.scratchC.resize(k);
    int8_t *shifted = reinterpret_cast<int8_t *>(ctx.scratchC.data());
    for (uint64_t r = 0; r < m; ++r) {
      num::Span<int32_t> y(outI(r), n);
      int64_t zp = op.azp;
      if (quads) {
        const int8_t *q = reinterpret_cast<const int8_t *>(quads->codes.data());
        if (at == DType::I8)
          num::matVecQuadsI8At(true, q, sumW, n, k,
                               reinterpret_cast<const int8_t *>(a.row(r)),
                               y.data(), acc);
        else
          num::matVecQuadsI8U8At(true, q, n, k, a.row(r), y.data(), acc);
      } else if (wt == DType::I8) {
        num::Span<const int8_t> ws8(w8, n * k);
        if (at == DType::I8)
          num::matVecI8(ws8, {reinterpret_cast<const int8_t *>(a.row(r)), k}, y,
                        acc);
        else
          num::matVecI8U8(ws8, {a.row(r), k}, y, acc);
      } else {
        num::Span<const uint8_t> w4(w, n * wRow);
        if (at == DType::I8) {
          num::matVecI4I8(w4, {reinterpret_cast<const int8_t *>(a.row(r)), k},
                          y, acc);
        } else {
          // numerics has int4 x int8 only: u8 activations are shifted by
          // -128 into int8 and the shift folded into the zero point.
          for (uint64_t i = 0; i < k; ++i)
            shifted[i] =
                static_cast<int8_t>(static_cast<int32_t>(a.row(r)[i]) - 128);
          num::matVecI4I8(w4, {shifted, k}, y, acc);
          zp -= 128;
        }
      }
      if (zp != 0)
        for (uint64_t j = 0; j < n; ++j)
          y[j] = wrapSubMul(y[j], zp, sumW[j]);
    }
  } else if (isFloatAct(at) && at == wt) {
    std::vector<float> &yv = d.f;
    if (at == DType::F32) {
      // The weight tile and the activation rows are read where they lie.
      std::vector<float> wf, af;
      const float *wp = inPlaceFloats(w, n * k, wf);
      const float *wT = transposedWeights(ctx, ws, wm, eff[OpW], wp, n, k, m);
      for (uint64_t r = 0; r < m; ++r) {
        const float *ap = inPlaceFloats(a.row(r), k, af);
        if (wT)
          num::matVecTransposedF32At(num::SimdLevel::Avx512, wT, n, k, ap,
                                     outF(r), acc);
        else
          num::matVecF32({wp, n * k}, {ap, k}, {outF(r), n}, acc);
      }
    } else {
      std::vector<uint16_t> wh, ah;
      copyOut(w, n * k, wh);
      for (uint64_t r = 0; r < m; ++r) {
        copyOut(a.row(r), k, ah);
        if (at == DType::F16)
          num::matVecF16(wh, ah, {yv.data() + r * n, n}, acc);
        else
          num::matVecBf16(wh, ah, {yv.data() + r * n, n}, acc);
      }
    }
  } else if (isFp8(at) && isFp8(wt)) {
    // fp8 products are exact in f32, so widening both operands and using
    // the f32 kernel is the 16-lane order with exact products.
    std::vector<float> wf(n * k), af(k);
    for (uint64_t j = 0; j < n; ++j)
      readRowF32(wt, w + j * wRow, k, wf.data() + j * k);
    for (uint64_t r = 0; r < m; ++r) {
      readRowF32(at, a.row(r), k, af.data());
      num::matVecF32(wf, af, {d.f.data() + r * n, n}, acc);
    }
  } else if (isFloatAct(at) && (wt == DType::MSFP8 || wt == DType::MSFP9)) {
    num::MsfpType mt =
        wt == DType::MSFP8 ? num::MsfpType::Msfp8 : num::MsfpType::Msfp9;
    constexpr size_t Bs = 16;
    size_t nb = k / Bs;
    std::vector<uint8_t> xExp(nb), xCodes(k);
    const ExecContext::DecodedWeights &wd =
        decodedWeights(ctx, ws, wm, eff[OpW], w, wRow, wt, n, k, nb,
                       [&](const uint8_t *row, uint8_t *exps, uint8_t *codes) {
                         unpackMsfpRow(wt, row, k, exps, codes);
                       });
    num::MsfpView wv{mt, Bs, wd.scales, wd.codes};
    std::vector<float> af(k);
    for (uint64_t r = 0; r < m; ++r) {
      readRowF32(at, a.row(r), k, af.data());
      num::encodeMsfp(mt, Bs, af, xExp, xCodes);
      num::MsfpView xv{mt, Bs, xExp, xCodes};
      num::msfpMatVec(wv, xv, {d.f.data() + r * n, n}, acc);
    }
  } else if (isFloatAct(at) && isMx(wt)) {
    const num::MxElemType et = mxElemType(wt);
    size_t nb = k / num::kMxBlockSize;
    std::vector<uint8_t> xSc(nb), xEl(k);
    const ExecContext::DecodedWeights &wd = decodedWeights(
        ctx, ws, wm, eff[OpW], w, wRow, wt, n, k, nb,
        [&](const uint8_t *row, uint8_t *scales, uint8_t *elements) {
          unpackMxInt8Row(row, k, scales, elements);
        });
    const std::vector<uint8_t> &wSc = wd.scales, &wEl = wd.codes;
    std::vector<float> af(k);
    for (uint64_t r = 0; r < m; ++r) {
      readRowF32(at, a.row(r), k, af.data());
      num::encodeMx(et, af, xSc, xEl);
      for (uint64_t j = 0; j < n; ++j) {
        float v = et == num::MxElemType::Int8
                      ? num::mxInt8Dot({wSc.data() + j * nb, nb},
                                       {wEl.data() + j * k, k}, xSc, xEl)
                      : num::mxFp8Dot(et, {wSc.data() + j * nb, nb},
                                      {wEl.data() + j * k, k}, xSc, xEl);
        float &out = d.f[r * n + j];
        out = acc ? out + v : v;
      }
    }
  } else {
    return Error::make(fmt::format("unsupported mm type combination at={} "
                                   "wt={} dt={}",
                                   dtypeName(at), dtypeName(wt),
                                   dtypeName(dt)));
  }
  if (!intPath && !isFloat(dt))
    return Error::make(
        fmt::format("floating-point mm cannot produce {}", dtypeName(dt)));

  res.macs = m * k * n;
  res.cycles = ctx.cycles->matrix(m, k, n, wt);
  res.peakMacCycles = ctx.cycles->peakMacCycles(res.macs, wt);
  if (direct) {
    ctx.bytes->written[static_cast<unsigned>(ds)] += m * dRowBytes;
    return Error::success();
  }
  return writeTile(ctx, op.mem[OpDst].space, eff[OpDst], op.dpitch, dt, d,
                   op.chained());
}

} // namespace nnaccel::emulator
