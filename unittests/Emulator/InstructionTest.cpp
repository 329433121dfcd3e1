//===- InstructionTest.cpp - Per-instruction results vs lib/Numerics ----===//
//
// Each test runs a one-instruction program on random inputs and compares the
// emulated result bit for bit with the lib/Numerics reference computed
// independently here (dot kernels per element, scalar conversions), for
// every precision the ISA supports.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nnaccel/Emulator/BlockPack.h"
#include "nnaccel/ISA/Types.h"
#include "nnaccel/Numerics/Affine.h"
#include "nnaccel/Numerics/BlockFloat.h"
#include "nnaccel/Numerics/Float16.h"
#include "nnaccel/Numerics/Fp8.h"
#include "nnaccel/Numerics/Kernels.h"
#include "nnaccel/Numerics/Mx.h"
#include "nnaccel/Numerics/Requantize.h"
#include "nnaccel/Numerics/RowwiseEmbedding.h"
#include "nnaccel/Numerics/VectorOps.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

using namespace emutest;
using nnaccel::isa::DType;
namespace num = nnaccel::numerics;

namespace {

std::string dn(DType t) { return std::string(nnaccel::isa::dtypeName(t)); }
uint64_t rb(DType t, uint64_t n) { return nnaccel::isa::rowBytes(t, n); }
uint64_t pad4(uint64_t v) { return (v + 3) / 4 * 4; }

/// Runs `mm acc[0], vrf[0], mrf[0]` and returns the m x n result bytes.
std::vector<uint8_t> runMm(DType at, DType wt, DType dt, uint64_t m, uint64_t k,
                           uint64_t n, const std::vector<uint8_t> &a,
                           const std::vector<uint8_t> &w, int azp = 0,
                           const std::vector<uint8_t> *init = nullptr) {
  auto target = loadTarget();
  uint64_t apitch = pad4(rb(at, k)), dpitch = pad4(rb(dt, n));
  std::string prog = fmt::format(
      "mm acc[0x0], vrf[0x0], mrf[0x0], {}, {}, {}, m={}, k={}, n={}, "
      "dpitch={}, apitch={}{}{}\nhalt\n",
      dn(dt), dn(at), dn(wt), m, k, n, dpitch, apitch, init ? ", acc=1" : "",
      azp ? fmt::format(", azp={}", azp) : "");
  auto emu = makeEmu(target, {prog});
  std::vector<uint8_t> arows(m * apitch, 0);
  for (uint64_t r = 0; r < m; ++r)
    std::memcpy(arows.data() + r * apitch, a.data() + r * rb(at, k), rb(at, k));
  put(*emu, Space::Vrf, 0, arows);
  put(*emu, Space::Mrf, 0, w);
  std::vector<uint8_t> d(m * dpitch, 0);
  if (init)
    for (uint64_t r = 0; r < m; ++r)
      std::memcpy(d.data() + r * dpitch, init->data() + r * rb(dt, n),
                  rb(dt, n));
  put(*emu, Space::Acc, 0, d);
  auto stats = runOk(*emu);
  REQUIRE(stats.macs == m * k * n);
  auto out = get<uint8_t>(*emu, Space::Acc, 0, m * dpitch);
  std::vector<uint8_t> dense(m * rb(dt, n));
  for (uint64_t r = 0; r < m; ++r)
    std::memcpy(dense.data() + r * rb(dt, n), out.data() + r * dpitch,
                rb(dt, n));
  return dense;
}

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T> std::vector<T> as(const std::vector<uint8_t> &b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

} // namespace

TEST_CASE("mm f32/f16/bf16 match the 16-lane dot kernels", "[mm]") {
  std::mt19937 rng(10);
  const uint64_t m = 3, k = 50, n = 17;
  auto af = randomFloats(rng, m * k), wf = randomFloats(rng, n * k);
  SECTION("f32") {
    auto d = as<float>(runMm(DType::F32, DType::F32, DType::F32, m, k, n,
                             bytesOf(af), bytesOf(wf)));
    std::vector<float> ref;
    for (uint64_t i = 0; i < m; ++i)
      for (uint64_t j = 0; j < n; ++j)
        ref.push_back(
            num::dotF32({af.data() + i * k, k}, {wf.data() + j * k, k}));
    requireBitEqual(d, ref);
  }
  for (DType t : {DType::F16, DType::BF16}) {
    DYNAMIC_SECTION("half " << dn(t)) {
      std::vector<uint16_t> ah(m * k), wh(n * k);
      for (size_t i = 0; i < ah.size(); ++i)
        ah[i] =
            t == DType::F16 ? num::fp32ToFp16(af[i]) : num::fp32ToBf16(af[i]);
      for (size_t i = 0; i < wh.size(); ++i)
        wh[i] =
            t == DType::F16 ? num::fp32ToFp16(wf[i]) : num::fp32ToBf16(wf[i]);
      auto d32 =
          as<float>(runMm(t, t, DType::F32, m, k, n, bytesOf(ah), bytesOf(wh)));
      auto d16 =
          as<uint16_t>(runMm(t, t, t, m, k, n, bytesOf(ah), bytesOf(wh)));
      for (uint64_t i = 0; i < m; ++i)
        for (uint64_t j = 0; j < n; ++j) {
          float ref = t == DType::F16 ? num::dotF16({ah.data() + i * k, k},
                                                    {wh.data() + j * k, k})
                                      : num::dotBf16({ah.data() + i * k, k},
                                                     {wh.data() + j * k, k});
          REQUIRE(bits(d32[i * n + j]) == bits(ref));
          REQUIRE(d16[i * n + j] == (t == DType::F16 ? num::fp32ToFp16(ref)
                                                     : num::fp32ToBf16(ref)));
        }
    }
  }
  SECTION("accumulate into f32") {
    auto init = randomFloats(rng, m * n);
    auto initB = bytesOf(init);
    auto d = as<float>(runMm(DType::F32, DType::F32, DType::F32, m, k, n,
                             bytesOf(af), bytesOf(wf), 0, &initB));
    for (uint64_t i = 0; i < m; ++i)
      for (uint64_t j = 0; j < n; ++j) {
        float ref = init[i * n + j] +
                    num::dotF32({af.data() + i * k, k}, {wf.data() + j * k, k});
        REQUIRE(bits(d[i * n + j]) == bits(ref));
      }
  }
}

TEST_CASE("mm fp8 products are exact, summed in lane order", "[mm]") {
  std::mt19937 rng(11);
  const uint64_t m = 2, k = 40, n = 9;
  auto af = randomFloats(rng, m * k, -8, 8),
       wf = randomFloats(rng, n * k, -8, 8);
  std::vector<uint8_t> a(m * k), w(n * k);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = num::fp32ToFp8E4M3(af[i]);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = num::fp32ToFp8E5M2(wf[i]);
  auto d = as<uint16_t>(
      runMm(DType::FP8E4M3, DType::FP8E5M2, DType::BF16, m, k, n, a, w));
  for (uint64_t i = 0; i < m; ++i)
    for (uint64_t j = 0; j < n; ++j) {
      std::vector<float> x(k), y(k);
      for (uint64_t t = 0; t < k; ++t) {
        x[t] = num::fp8E4M3ToFp32(a[i * k + t]);
        y[t] = num::fp8E5M2ToFp32(w[j * k + t]);
      }
      REQUIRE(d[i * n + j] == num::fp32ToBf16(num::dotF32(x, y)));
    }
}

TEST_CASE("mm integer paths with zero points wrap exactly", "[mm]") {
  std::mt19937 rng(12);
  const uint64_t m = 3, k = 64, n = 20;
  auto w8 = randomInts<int8_t>(rng, n * k, -128, 127);
  auto ref = [&](auto aval, auto wval, int azp) {
    std::vector<int32_t> r(m * n);
    for (uint64_t i = 0; i < m; ++i)
      for (uint64_t j = 0; j < n; ++j) {
        int64_t s = 0;
        for (uint64_t t = 0; t < k; ++t)
          s += (int64_t(aval(i, t)) - azp) * int64_t(wval(j, t));
        r[i * n + j] = static_cast<int32_t>(static_cast<uint32_t>(s));
      }
    return r;
  };
  auto w8at = [&](uint64_t j, uint64_t t) { return w8[j * k + t]; };
  SECTION("i8 x i8") {
    auto a = randomInts<int8_t>(rng, m * k, -128, 127);
    auto d = as<int32_t>(runMm(DType::I8, DType::I8, DType::I32, m, k, n,
                               bytesOf(a), bytesOf(w8), -5));
    REQUIRE(d == ref([&](uint64_t i, uint64_t t) { return a[i * k + t]; }, w8at,
                     -5));
    // And the plain kernel for azp = 0.
    auto d0 = as<int32_t>(runMm(DType::I8, DType::I8, DType::I32, m, k, n,
                                bytesOf(a), bytesOf(w8)));
    for (uint64_t i = 0; i < m; ++i)
      for (uint64_t j = 0; j < n; ++j)
        REQUIRE(d0[i * n + j] ==
                num::dotI8({w8.data() + j * k, k}, {a.data() + i * k, k}));
  }
  SECTION("u8 x i8 with zero point, accumulated") {
    auto a = randomInts<uint8_t>(rng, m * k, 0, 255);
    std::vector<int32_t> init =
        randomInts<int32_t>(rng, m * n, -100000, 100000);
    auto initB = bytesOf(init);
    auto d = as<int32_t>(runMm(DType::U8, DType::I8, DType::I32, m, k, n,
                               bytesOf(a), bytesOf(w8), 128, &initB));
    auto r =
        ref([&](uint64_t i, uint64_t t) { return a[i * k + t]; }, w8at, 128);
    for (size_t i = 0; i < r.size(); ++i)
      REQUIRE(d[i] == static_cast<int32_t>(static_cast<uint32_t>(r[i]) +
                                           static_cast<uint32_t>(init[i])));
  }
  for (DType at : {DType::I8, DType::U8}) {
    DYNAMIC_SECTION("i4 weights x " << dn(at)) {
      auto w4 = randomInts<int8_t>(rng, n * k, -8, 7);
      std::vector<uint8_t> packed(n * k / 2);
      for (uint64_t j = 0; j < n; ++j)
        num::packInt4({w4.data() + j * k, k},
                      {packed.data() + j * k / 2, k / 2});
      auto a = at == DType::I8
                   ? bytesOf(randomInts<int8_t>(rng, m * k, -128, 127))
                   : bytesOf(randomInts<uint8_t>(rng, m * k, 0, 255));
      int azp = at == DType::U8 ? 7 : 0;
      auto d = as<int32_t>(
          runMm(at, DType::I4, DType::I32, m, k, n, a, packed, azp));
      auto aval = [&](uint64_t i, uint64_t t) {
        return at == DType::I8 ? int32_t(int8_t(a[i * k + t]))
                               : int32_t(a[i * k + t]);
      };
      REQUIRE(d == ref(
                       aval,
                       [&](uint64_t j, uint64_t t) { return w4[j * k + t]; },
                       azp));
    }
  }
}

TEST_CASE("mm block floating point weights", "[mm]") {
  std::mt19937 rng(13);
  const uint64_t m = 2, k = 64, n = 6;
  auto af = randomFloats(rng, m * k, -4, 4),
       wf = randomFloats(rng, n * k, -1, 1);
  for (DType wt : {DType::MSFP8, DType::MSFP9}) {
    DYNAMIC_SECTION(dn(wt)) {
      auto mt =
          wt == DType::MSFP8 ? num::MsfpType::Msfp8 : num::MsfpType::Msfp9;
      std::vector<uint8_t> wExp(n * 4), wCodes(n * k), packed(n * rb(wt, k));
      for (uint64_t j = 0; j < n; ++j) {
        num::encodeMsfp(mt, 16, {wf.data() + j * k, k},
                        {wExp.data() + j * 4, 4}, {wCodes.data() + j * k, k});
        emulator::packMsfpRow(wt, wExp.data() + j * 4, wCodes.data() + j * k, k,
                              packed.data() + j * rb(wt, k));
      }
      std::vector<uint16_t> ah(m * k);
      for (size_t i = 0; i < ah.size(); ++i)
        ah[i] = num::fp32ToFp16(af[i]);
      auto d = as<float>(
          runMm(DType::F16, wt, DType::F32, m, k, n, bytesOf(ah), packed));
      for (uint64_t i = 0; i < m; ++i) {
        std::vector<float> x(k);
        for (uint64_t t = 0; t < k; ++t)
          x[t] = num::fp16ToFp32(ah[i * k + t]);
        std::vector<uint8_t> xe(4), xc(k);
        num::encodeMsfp(mt, 16, x, xe, xc);
        for (uint64_t j = 0; j < n; ++j) {
          num::MsfpView wv{
              mt, 16, {wExp.data() + j * 4, 4}, {wCodes.data() + j * k, k}};
          num::MsfpView xv{mt, 16, xe, xc};
          REQUIRE(bits(d[i * n + j]) == bits(num::msfpDot(xv, wv)));
        }
      }
    }
  }
  SECTION("mxint8") {
    std::vector<uint8_t> packed(n * 66), wSc(n * 2), wEl(n * k);
    for (uint64_t j = 0; j < n; ++j) {
      num::encodeMx(num::MxElemType::Int8, {wf.data() + j * k, k},
                    {wSc.data() + j * 2, 2}, {wEl.data() + j * k, k});
      for (int b = 0; b < 2; ++b) {
        packed[j * 66 + b * 33] = wSc[j * 2 + b];
        std::memcpy(&packed[j * 66 + b * 33 + 1], &wEl[j * k + b * 32], 32);
      }
    }
    auto d = as<float>(runMm(DType::F32, DType::MXINT8, DType::F32, m, k, n,
                             bytesOf(af), packed));
    for (uint64_t i = 0; i < m; ++i) {
      std::vector<uint8_t> xs(2), xe(k);
      num::encodeMx(num::MxElemType::Int8, {af.data() + i * k, k}, xs, xe);
      for (uint64_t j = 0; j < n; ++j)
        REQUIRE(bits(d[i * n + j]) ==
                bits(num::mxInt8Dot(xs, xe, {wSc.data() + j * 2, 2},
                                    {wEl.data() + j * k, k})));
    }
  }
  SECTION("mxfp8e4m3") {
    std::vector<uint8_t> packed(n * 66), wSc(n * 2), wEl(n * k);
    for (uint64_t j = 0; j < n; ++j) {
      num::encodeMx(num::MxElemType::Fp8E4M3, {wf.data() + j * k, k},
                    {wSc.data() + j * 2, 2}, {wEl.data() + j * k, k});
      for (int b = 0; b < 2; ++b) {
        packed[j * 66 + b * 33] = wSc[j * 2 + b];
        std::memcpy(&packed[j * 66 + b * 33 + 1], &wEl[j * k + b * 32], 32);
      }
    }
    auto d = as<float>(runMm(DType::F32, DType::MXFP8E4M3, DType::F32, m, k, n,
                             bytesOf(af), packed));
    for (uint64_t i = 0; i < m; ++i) {
      std::vector<uint8_t> xs(2), xe(k);
      num::encodeMx(num::MxElemType::Fp8E4M3, {af.data() + i * k, k}, xs, xe);
      std::vector<float> xd(k);
      num::decodeMx(num::MxElemType::Fp8E4M3, xs, xe, xd);
      for (uint64_t j = 0; j < n; ++j) {
        REQUIRE(bits(d[i * n + j]) ==
                bits(num::mxFp8Dot(num::MxElemType::Fp8E4M3, xs, xe,
                                   {wSc.data() + j * 2, 2},
                                   {wEl.data() + j * k, k})));
        // Against the decoded operands in double: one rounding per block.
        std::vector<float> wd(k);
        num::decodeMx(num::MxElemType::Fp8E4M3, {wSc.data() + j * 2, 2},
                      {wEl.data() + j * k, k}, wd);
        double ref = 0;
        for (uint64_t t = 0; t < k; ++t)
          ref += double(xd[t]) * double(wd[t]);
        CHECK(std::fabs(d[i * n + j] - ref) <= 1e-5 * (1 + std::fabs(ref)));
      }
    }
  }
}

namespace {

/// MX-encodes n rows of k floats: E8M0 scales, element codes and the ISA's
/// packed rows (33-byte blocks of scale + 32 codes).
struct MxRows {
  std::vector<uint8_t> scales, elems, packed;
};
MxRows packMxRows(num::MxElemType t, const std::vector<float> &w, uint64_t n,
                  uint64_t k) {
  const uint64_t nb = k / 32;
  MxRows r{std::vector<uint8_t>(n * nb), std::vector<uint8_t>(n * k),
           std::vector<uint8_t>(n * nb * 33)};
  for (uint64_t j = 0; j < n; ++j) {
    num::encodeMx(t, {w.data() + j * k, k}, {r.scales.data() + j * nb, nb},
                  {r.elems.data() + j * k, k});
    emulator::packMxInt8Row(r.scales.data() + j * nb, r.elems.data() + j * k, k,
                            r.packed.data() + j * nb * 33);
  }
  return r;
}

/// The reference of one output of an MX mm: the activation row encoded to
/// the weight's element type, then mxFp8Dot (docs/isa.md §8.6).
float mxFp8Ref(num::MxElemType t, const float *x, const MxRows &w, uint64_t j,
               uint64_t k) {
  const uint64_t nb = k / 32;
  std::vector<uint8_t> xs(nb), xe(k);
  num::encodeMx(t, {x, k}, xs, xe);
  return num::mxFp8Dot(t, xs, xe, {w.scales.data() + j * nb, nb},
                       {w.elems.data() + j * k, k});
}

} // namespace

TEST_CASE("mm mxfp8e5m2 weights (wt code 15 + wvar) are bit-exact with "
          "mxFp8Dot",
          "[mm]") {
  const auto E5 = num::MxElemType::Fp8E5M2, E4 = num::MxElemType::Fp8E4M3;
  SECTION("random rows with a wide dynamic range") {
    std::mt19937 rng(31);
    const uint64_t m = 3, k = 64, n = 8;
    auto af = randomFloats(rng, m * k, -4, 4),
         wf = randomFloats(rng, n * k, -1, 1);
    // Outliers: E5M2 keeps small elements of a block with a large one
    // that E4M3 flushes.
    af[5] = 3000.0f;
    wf[70] = -900.0f;
    MxRows w = packMxRows(E5, wf, n, k);
    auto d = as<float>(runMm(DType::F32, DType::MXFP8E5M2, DType::F32, m, k, n,
                             bytesOf(af), w.packed));
    // The same bytes read as E4M3 (wvar = 0) compute E4M3's dot: the bit is
    // what selects the element decoding.
    auto d4 = as<float>(runMm(DType::F32, DType::MXFP8E4M3, DType::F32, m, k, n,
                              bytesOf(af), w.packed));
    size_t differ = 0;
    for (uint64_t i = 0; i < m; ++i)
      for (uint64_t j = 0; j < n; ++j) {
        REQUIRE(bits(d[i * n + j]) ==
                bits(mxFp8Ref(E5, af.data() + i * k, w, j, k)));
        REQUIRE(bits(d4[i * n + j]) ==
                bits(mxFp8Ref(E4, af.data() + i * k, w, j, k)));
        differ += bits(d[i * n + j]) != bits(d4[i * n + j]);
        // Close to the decoded operands' exact product.
        std::vector<uint8_t> xs(k / 32), xe(k);
        num::encodeMx(E5, {af.data() + i * k, k}, xs, xe);
        std::vector<float> xd(k), wd(k);
        num::decodeMx(E5, xs, xe, xd);
        num::decodeMx(E5, {w.scales.data() + j * (k / 32), k / 32},
                      {w.elems.data() + j * k, k}, wd);
        double ref = 0;
        for (uint64_t t = 0; t < k; ++t)
          ref += double(xd[t]) * double(wd[t]);
        CHECK(std::fabs(d[i * n + j] - ref) <= 1e-5 * (1 + std::fabs(ref)));
      }
    CHECK(differ == m * n);
    // f16 and bf16 activations are widened, then encoded the same way.
    std::vector<uint16_t> ah(m * k);
    for (size_t i = 0; i < ah.size(); ++i)
      ah[i] = num::fp32ToBf16(af[i]);
    auto db = as<float>(runMm(DType::BF16, DType::MXFP8E5M2, DType::F32, m, k,
                              n, bytesOf(ah), w.packed));
    for (uint64_t i = 0; i < m; ++i) {
      std::vector<float> x(k);
      for (uint64_t t = 0; t < k; ++t)
        x[t] = num::bf16ToFp32(ah[i * k + t]);
      for (uint64_t j = 0; j < n; ++j)
        REQUIRE(bits(db[i * n + j]) == bits(mxFp8Ref(E5, x.data(), w, j, k)));
    }
  }
  SECTION("saturation and non-finite values") {
    const uint64_t m = 2, k = 64, n = 4;
    // Row 0: 61440 = 1.875 * 2^15 sets the block's scale to 2^0 and lies
    // beyond E5M2's largest element, 57344 (1.75 * 2^15) times the scale:
    // the encoder saturates it. Row 1 adds +inf in block 1, whose scale
    // becomes NaN.
    std::vector<float> af(m * k, 0.0f);
    af[0] = af[k] = 61440.0f;
    af[1] = af[k + 1] = 1.0f;
    af[k + 40] = std::numeric_limits<float>::infinity();
    // Weights 0 and 1 are exact in E5M2 (scales 2^-15 and 2^-14); 2 and 3
    // repeat them with an infinite element code (0x7C) in block 1 and a NaN
    // scale (0xFF) in block 0, which the encoder never writes.
    std::vector<float> wf(n * k, 0.0f);
    wf[0] = wf[1] = wf[2 * k] = wf[2 * k + 1] = 1.0f;
    wf[k] = wf[3 * k] = 0.5f;
    wf[k + 1] = wf[3 * k + 1] = -3.0f;
    MxRows w = packMxRows(E5, wf, n, k);
    w.elems[2 * k + 40] = 0x7C;
    w.packed[2 * 66 + 33 + 1 + 8] = 0x7C;
    w.scales[3 * 2] = 0xFF;
    w.packed[3 * 66] = 0xFF;
    auto d = as<float>(runMm(DType::F32, DType::MXFP8E5M2, DType::F32, m, k, n,
                             bytesOf(af), w.packed));
    // 57344 * 1 + 1 * 1 and 57344 * 0.5 + 1 * -3, exactly (f32 would give
    // 61441 and 30717).
    CHECK(d[0] == 57345.0f);
    CHECK(d[1] == 28669.0f);
    CHECK(std::isnan(d[2]));
    CHECK(std::isnan(d[3]));
    for (uint64_t j = 0; j < n; ++j)
      CHECK(std::isnan(d[n + j]));
    for (uint64_t i = 0; i < m; ++i)
      for (uint64_t j = 0; j < n; ++j) {
        float ref = mxFp8Ref(E5, af.data() + i * k, w, j, k);
        if (std::isnan(ref))
          CHECK(std::isnan(d[i * n + j]));
        else
          CHECK(bits(d[i * n + j]) == bits(ref));
      }
  }
}

namespace {

/// Runs one vector instruction on a = vrf[0] (pitch apitch), b = vrf[0x4000],
/// s = vrf[0x8000]; result in acc[0] (pitch dpitch); returns acc bytes.
struct VecRun {
  std::unique_ptr<emulator::Emulator> emu;
  emulator::Stats stats;
};

VecRun runVec(const std::string &inst, const std::vector<uint8_t> &a,
              const std::vector<uint8_t> &b = {},
              const std::vector<uint8_t> &s = {}) {
  auto target = loadTarget();
  VecRun r;
  r.emu = makeEmu(target, {inst + "\nhalt\n"});
  if (!a.empty())
    put(*r.emu, Space::Vrf, 0, a);
  if (!b.empty())
    put(*r.emu, Space::Vrf, 0x4000, b);
  if (!s.empty())
    put(*r.emu, Space::Vrf, 0x8000, s);
  r.stats = runOk(*r.emu);
  return r;
}

} // namespace

TEST_CASE("binary vector ops with broadcasts", "[vector]") {
  std::mt19937 rng(20);
  const uint64_t rows = 5, cols = 24;
  auto a = randomFloats(rng, rows * cols), b = randomFloats(rng, rows * cols);
  a[3] = std::nanf("");
  struct Case {
    const char *mn;
    void (*ref)(num::Span<const float>, num::Span<const float>,
                num::Span<float>);
  };
  for (Case c : {Case{"v.add", num::addF32}, Case{"v.sub", num::subF32},
                 Case{"v.mul", num::mulF32}, Case{"v.max", num::maxF32},
                 Case{"v.min", num::minF32}}) {
    for (const char *bc : {"none", "row", "col", "scalar"}) {
      std::string sbc = bc;
      auto r = runVec(fmt::format("{} acc[0x0], vrf[0x0], vrf[0x4000], f32, "
                                  "f32, f32, rows={}, cols={}, dpitch={}, "
                                  "apitch={}, bpitch={}, bcast={}",
                                  c.mn, rows, cols, cols * 4, cols * 4,
                                  sbc == "col" ? 4 : cols * 4, bc),
                      bytesOf(a), bytesOf(b));
      auto d = get<float>(*r.emu, Space::Acc, 0, rows * cols);
      std::vector<float> ref(rows * cols), brow(cols);
      for (uint64_t i = 0; i < rows; ++i) {
        for (uint64_t j = 0; j < cols; ++j)
          brow[j] = sbc == "none"  ? b[i * cols + j]
                    : sbc == "row" ? b[j]
                    : sbc == "col" ? b[i]
                                   : b[0];
        c.ref({a.data() + i * cols, cols}, brow, {ref.data() + i * cols, cols});
      }
      INFO(c.mn << " bcast=" << bc);
      requireBitEqual(d, ref);
      REQUIRE(r.stats.totalCycles > 0);
    }
  }
}

TEST_CASE("compares write 1/0 masks with IEEE NaN rules", "[vector]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {0.0f, -0.0f, nan, 1.0f, inf, -inf, 2.0f, nan},
                     b = {-0.0f, 0.0f, 1.0f, nan, inf, inf, 3.0f, nan};
  struct Case {
    const char *mn;
    num::ComparePredicate pred;
  };
  for (Case c : {Case{"v.ceq", num::ComparePredicate::Eq},
                 Case{"v.cne", num::ComparePredicate::Ne},
                 Case{"v.clt", num::ComparePredicate::Lt},
                 Case{"v.cle", num::ComparePredicate::Le},
                 Case{"v.cgt", num::ComparePredicate::Gt},
                 Case{"v.cge", num::ComparePredicate::Ge}}) {
    // Written as u8 bools, and as f16 1.0 / 0.0.
    auto r = runVec(fmt::format("{} acc[0x0], vrf[0x0], vrf[0x4000], u8, f32, "
                                "f32, rows=1, cols=8, dpitch=8, apitch=32, "
                                "bpitch=32",
                                c.mn),
                    bytesOf(a), bytesOf(b));
    auto d = get<uint8_t>(*r.emu, Space::Acc, 0, 8);
    for (size_t i = 0; i < 8; ++i) {
      INFO(c.mn << " element " << i);
      bool expect = c.pred == num::ComparePredicate::Ne
                        ? !(a[i] == b[i])
                        : num::compareF32(c.pred, a[i], b[i]);
      REQUIRE(d[i] == (expect ? 1 : 0));
    }
  }
  // NaN is false for all but ne; +0 == -0; inf == inf.
  CHECK(!num::compareF32(num::ComparePredicate::Eq, nan, nan));
  CHECK(num::compareF32(num::ComparePredicate::Ne, nan, nan));
  CHECK(num::compareF32(num::ComparePredicate::Eq, 0.0f, -0.0f));
  CHECK(num::compareF32(num::ComparePredicate::Le, inf, inf));
  // Integers compare exactly in i32 (a broadcast scalar b).
  std::vector<int32_t> ia = {-2000000000, -1, 0, 1, 7, 2000000000, 5, 6};
  std::vector<int32_t> ib = {5};
  auto r = runVec("v.clt acc[0x0], vrf[0x0], vrf[0x4000], i8, i32, i32, "
                  "rows=1, cols=8, dpitch=8, apitch=32, bcast=scalar",
                  bytesOf(ia), bytesOf(ib));
  auto d = get<int8_t>(*r.emu, Space::Acc, 0, 8);
  for (size_t i = 0; i < 8; ++i)
    REQUIRE(d[i] == (ia[i] < 5 ? 1 : 0));
}

TEST_CASE("v.sel copies the taken and the kept elements bit for bit",
          "[vector]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Mask bytes (nonzero = take b), b, and the destination's old values.
  std::vector<uint8_t> mask = {1, 0, 1, 0, 2, 0, 255, 0};
  std::vector<float> b = {-0.0f, nan, inf, 1.0f, nan, 3.0f, -inf, 4.0f};
  std::vector<float> old = {9.0f, -0.0f, 9.0f, nan, 9.0f, -inf, 9.0f, 5.0f};
  auto r = runVec("v.sel vrf[0x8000], vrf[0x0], vrf[0x4000], f32, u8, f32, "
                  "rows=1, cols=8, dpitch=32, apitch=8, bpitch=32",
                  mask, bytesOf(b), bytesOf(old));
  auto d = get<float>(*r.emu, Space::Vrf, 0x8000, 8);
  for (size_t i = 0; i < 8; ++i) {
    float expect = mask[i] ? b[i] : old[i];
    INFO("element " << i);
    if (std::isnan(expect))
      REQUIRE(std::isnan(d[i]));
    else
      REQUIRE(std::memcmp(&d[i], &expect, 4) == 0);
  }
  // A row-broadcast b and an f32 mask (NaN counts as nonzero).
  std::vector<float> fmask = {0.0f, nan, -0.0f, 1.0f};
  std::vector<float> row = {7.0f, 8.0f, 9.0f, 10.0f};
  std::vector<float> old2(8, -1.0f);
  std::vector<float> fmask2(fmask);
  fmask2.insert(fmask2.end(), fmask.begin(), fmask.end());
  auto r2 = runVec("v.sel vrf[0x8000], vrf[0x0], vrf[0x4000], f32, f32, f32, "
                   "rows=2, cols=4, dpitch=16, apitch=16, bpitch=16, "
                   "bcast=row",
                   bytesOf(fmask2), bytesOf(row), bytesOf(old2));
  auto d2 = get<float>(*r2.emu, Space::Vrf, 0x8000, 8);
  for (size_t i = 0; i < 8; ++i)
    REQUIRE(d2[i] == (i % 4 == 1 || i % 4 == 3 ? row[i % 4] : -1.0f));
}

TEST_CASE("f32 binary ops in place and on overlapping operands", "[vector]") {
  // The emulator computes dense f32 operands straight in memory; a result
  // exactly on an operand is element-wise in place, a result overlapping an
  // operand shifted must still see the operand as it was (read, then
  // write), and the immediate form broadcasts a scalar.
  std::mt19937 rng(21);
  const uint64_t rows = 3, cols = 20;
  auto a = randomFloats(rng, rows * cols), b = randomFloats(rng, rows * cols);
  std::vector<float> sum(rows * cols);
  num::addF32(a, b, sum);
  SECTION("exactly in place") {
    auto r = runVec(fmt::format("v.add vrf[0x0], vrf[0x0], vrf[0x4000], f32, "
                                "f32, f32, rows={}, cols={}, dpitch={}, "
                                "apitch={}, bpitch={}",
                                rows, cols, cols * 4, cols * 4, cols * 4),
                    bytesOf(a), bytesOf(b));
    requireBitEqual(get<float>(*r.emu, Space::Vrf, 0, rows * cols), sum);
  }
  SECTION("shifted by one element") {
    auto r = runVec(fmt::format("v.add vrf[0x4], vrf[0x0], vrf[0x4000], f32, "
                                "f32, f32, rows={}, cols={}, dpitch={}, "
                                "apitch={}, bpitch={}",
                                rows, cols, cols * 4, cols * 4, cols * 4),
                    bytesOf(a), bytesOf(b));
    requireBitEqual(get<float>(*r.emu, Space::Vrf, 4, rows * cols), sum);
  }
  SECTION("scalar immediate") {
    auto r = runVec(fmt::format("vs.mul acc[0x0], vrf[0x0], f32, f32, "
                                "rows={}, cols={}, dpitch={}, apitch={}, "
                                "imm=2.5",
                                rows, cols, cols * 4, cols * 4),
                    bytesOf(a));
    std::vector<float> twice(rows * cols, 2.5f), ref(rows * cols);
    num::mulF32(a, twice, ref);
    requireBitEqual(get<float>(*r.emu, Space::Acc, 0, rows * cols), ref);
  }
}

TEST_CASE("integer vector ops wrap and saturate on narrowing", "[vector]") {
  std::mt19937 rng(21);
  auto a = randomInts<int32_t>(rng, 64, -2000000000, 2000000000);
  auto b = randomInts<int32_t>(rng, 64, -2000000000, 2000000000);
  auto r = runVec("v.add acc[0x0], vrf[0x0], vrf[0x4000], i32, i32, i32, "
                  "rows=2, cols=32, dpitch=128, apitch=128, bpitch=128",
                  bytesOf(a), bytesOf(b));
  auto d = get<int32_t>(*r.emu, Space::Acc, 0, 64);
  for (size_t i = 0; i < 64; ++i)
    REQUIRE(d[i] == static_cast<int32_t>(static_cast<uint32_t>(a[i]) +
                                         static_cast<uint32_t>(b[i])));
  auto r2 = runVec("vs.mul acc[0x0], vrf[0x0], i8, i32, rows=2, cols=32, "
                   "dpitch=32, apitch=128, imm=0x3",
                   bytesOf(a));
  auto d2 = get<int8_t>(*r2.emu, Space::Acc, 0, 64);
  for (size_t i = 0; i < 64; ++i) {
    int32_t p = static_cast<int32_t>(static_cast<uint32_t>(a[i]) * 3u);
    REQUIRE(d2[i] == std::clamp(p, -128, 127));
  }
}

TEST_CASE("unary vector ops call the Numerics definitions", "[vector]") {
  std::mt19937 rng(22);
  auto a = randomFloats(rng, 64, -6, 6);
  a[0] = -0.0f;
  a[1] = std::numeric_limits<float>::infinity();
  struct Case {
    const char *mn;
    void (*ref)(num::Span<const float>, num::Span<float>);
  };
  for (Case c :
       {Case{"v.relu", num::reluF32}, Case{"v.sigm", num::sigmoidF32},
        Case{"v.tanh", num::tanhF32}, Case{"v.exp", num::expF32},
        Case{"v.gelu", num::geluErfF32}, Case{"v.gelut", num::geluTanhF32},
        Case{"v.recip", num::reciprocalF32}, Case{"v.rsqrt", num::rsqrtF32},
        Case{"v.abs", num::absF32}, Case{"v.neg", num::negF32}}) {
    auto r = runVec(fmt::format("{} acc[0x0], vrf[0x0], f32, f32, rows=4, "
                                "cols=16, dpitch=64, apitch=64",
                                c.mn),
                    bytesOf(a));
    std::vector<float> ref(64);
    c.ref(a, ref);
    INFO(c.mn);
    requireBitEqual(get<float>(*r.emu, Space::Acc, 0, 64), ref);
  }
}

TEST_CASE("v.cvt narrows to every type; v.mov copies bits", "[vector]") {
  std::mt19937 rng(23);
  auto a = randomFloats(rng, 64, -300, 300);
  for (DType t :
       {DType::F16, DType::BF16, DType::FP8E4M3, DType::FP8E5M2, DType::I32,
        DType::I16, DType::I8, DType::U8, DType::I4, DType::U4, DType::MSFP8,
        DType::MSFP9, DType::MXINT8, DType::MXFP8E4M3}) {
    uint64_t row = rb(t, 32);
    auto r = runVec(fmt::format("v.cvt acc[0x0], vrf[0x0], {}, f32, rows=2, "
                                "cols=32, dpitch={}, apitch=128",
                                dn(t), pad4(row)),
                    bytesOf(a));
    auto d = get<uint8_t>(*r.emu, Space::Acc, 0, pad4(row) + row);
    for (int i = 0; i < 2; ++i) {
      std::vector<uint8_t> ref(row);
      const float *x = a.data() + i * 32;
      switch (t) {
      case DType::F16:
      case DType::BF16:
        for (int j = 0; j < 32; ++j) {
          uint16_t h =
              t == DType::F16 ? num::fp32ToFp16(x[j]) : num::fp32ToBf16(x[j]);
          std::memcpy(&ref[2 * j], &h, 2);
        }
        break;
      case DType::FP8E4M3:
        for (int j = 0; j < 32; ++j)
          ref[j] = num::fp32ToFp8E4M3(x[j], num::Fp8Overflow::Saturate);
        break;
      case DType::FP8E5M2:
        for (int j = 0; j < 32; ++j)
          ref[j] = num::fp32ToFp8E5M2(x[j], num::Fp8Overflow::NonSaturating);
        break;
      case DType::MSFP8:
      case DType::MSFP9:
      case DType::MXINT8:
      case DType::MXFP8E4M3:
        emulator::encodeBlockRow(t, x, 32, ref.data());
        break;
      default: {
        int lo = t == DType::I16   ? -32768
                 : t == DType::I8  ? -128
                 : t == DType::I4  ? -8
                 : t == DType::I32 ? INT32_MIN
                                   : 0;
        int hi = t == DType::I16  ? 32767
                 : t == DType::I8 ? 127
                 : t == DType::U8 ? 255
                 : t == DType::I4 ? 7
                 : t == DType::U4 ? 15
                                  : INT32_MAX;
        std::vector<int32_t> q(32);
        for (int j = 0; j < 32; ++j)
          q[j] = num::saturateToInt(num::roundHalfEven(x[j]), lo, hi);
        if (t == DType::I4 || t == DType::U4) {
          for (int j = 0; j < 16; ++j)
            ref[j] = static_cast<uint8_t>((q[2 * j] & 0xF) |
                                          ((q[2 * j + 1] & 0xF) << 4));
        } else {
          for (int j = 0; j < 32; ++j) {
            int32_t v = q[j];
            std::memcpy(&ref[j * nnaccel::isa::elementBytes(t)], &v,
                        nnaccel::isa::elementBytes(t));
          }
        }
      }
      }
      INFO("to " << dn(t) << " row " << i);
      REQUIRE(std::vector<uint8_t>(d.begin() + i * pad4(row),
                                   d.begin() + i * pad4(row) + row) == ref);
    }
    // v.mov of the converted rows is a bit copy.
    auto r2 = runVec(fmt::format("v.mov acc[0x0], vrf[0x0], {0}, {0}, rows=2, "
                                 "cols=32, dpitch={1}, apitch={1}",
                                 dn(t), pad4(row)),
                     d);
    auto d2 = get<uint8_t>(*r2.emu, Space::Acc, 0, d.size());
    REQUIRE(d2 == d);
  }
}

TEST_CASE("reductions along both axes", "[vector]") {
  std::mt19937 rng(24);
  const uint64_t rows = 6, cols = 40;
  auto a = randomFloats(rng, rows * cols);
  for (const char *mn : {"v.rsum", "v.rmax", "v.rmin"}) {
    std::string m = mn;
    auto red = [&](num::Span<const float> s) {
      return m == "v.rsum"   ? num::reduceSumF32(s)
             : m == "v.rmax" ? num::reduceMaxF32(s)
                             : num::reduceMinF32(s);
    };
    auto r = runVec(fmt::format("{} acc[0x0], vrf[0x0], f32, f32, rows={}, "
                                "cols={}, dpitch=4, apitch={}",
                                mn, rows, cols, cols * 4),
                    bytesOf(a));
    auto d = get<float>(*r.emu, Space::Acc, 0, rows);
    for (uint64_t i = 0; i < rows; ++i)
      REQUIRE(bits(d[i]) == bits(red({a.data() + i * cols, cols})));
    auto r2 = runVec(fmt::format("{} acc[0x0], vrf[0x0], f32, f32, rows={}, "
                                 "cols={}, dpitch={}, apitch={}, axis=rows",
                                 mn, rows, cols, cols * 4, cols * 4),
                     bytesOf(a));
    auto d2 = get<float>(*r2.emu, Space::Acc, 0, cols);
    for (uint64_t j = 0; j < cols; ++j) {
      std::vector<float> col(rows);
      for (uint64_t i = 0; i < rows; ++i)
        col[i] = a[i * cols + j];
      REQUIRE(bits(d2[j]) == bits(red(col)));
    }
  }
  auto ai = randomInts<int32_t>(rng, 64, -1000, 1000);
  auto r = runVec("v.rsum acc[0x0], vrf[0x0], i32, i32, rows=2, cols=32, "
                  "dpitch=4, apitch=128",
                  bytesOf(ai));
  auto d = get<int32_t>(*r.emu, Space::Acc, 0, 2);
  for (int i = 0; i < 2; ++i) {
    int32_t s = 0;
    for (int j = 0; j < 32; ++j)
      s += ai[i * 32 + j];
    REQUIRE(d[i] == s);
  }
}

TEST_CASE("requantise, dequantise and fill", "[vector]") {
  std::mt19937 rng(25);
  auto acc = randomInts<int32_t>(rng, 64, -40000, 40000);
  auto scales = randomFloats(rng, 32, 0.001f, 0.01f);
  auto r = runVec("v.rqnt acc[0x0], vrf[0x0], vrf[0x8000], i8, i32, rows=2, "
                  "cols=32, dpitch=32, apitch=128, zp=-3, perch=1",
                  bytesOf(acc), {}, bytesOf(scales));
  auto q = get<int8_t>(*r.emu, Space::Acc, 0, 64);
  for (int i = 0; i < 64; ++i)
    REQUIRE(q[i] ==
            num::requantizeFloat(acc[i], scales[i % 32], -3, num::kInt8Range));
  std::vector<float> one = {0.05f};
  auto r2 = runVec("v.dqnt acc[0x0], vrf[0x0], vrf[0x8000], f32, i8, rows=2, "
                   "cols=32, dpitch=128, apitch=32, zp=4",
                   bytesOf(q), {}, bytesOf(one));
  auto y = get<float>(*r2.emu, Space::Acc, 0, 64);
  for (int i = 0; i < 64; ++i)
    REQUIRE(bits(y[i]) == bits(num::dequantizeValue(q[i], {0.05f, 4})));
  auto r3 = runVec("v.fill acc[0x0], bf16, rows=3, cols=8, dpitch=16, "
                   "imm=-1.5",
                   {});
  auto f = get<uint16_t>(*r3.emu, Space::Acc, 0, 24);
  for (uint16_t v : f)
    REQUIRE(v == num::fp32ToBf16(-1.5f));
}

TEST_CASE("a chain equals writing and re-reading each result", "[vector]") {
  std::mt19937 rng(26);
  const uint64_t m = 4, k = 32, n = 16;
  auto a = randomFloats(rng, m * k), w = randomFloats(rng, n * k),
       bias = randomFloats(rng, n);
  auto target = loadTarget();
  std::string chained =
      "mm chain, vrf[0x0], mrf[0x0], f32, f32, f32, m=4, k=32, n=16, "
      "apitch=128 @chain\n"
      "v.add chain, chain, vrf[0x4000], f16, f32, f32, rows=4, cols=16, "
      "bcast=row @chain\n"
      "v.gelu acc[0x0], chain, bf16, f16, rows=4, cols=16, dpitch=32\nhalt\n";
  std::string unchained =
      "mm acc[0x100], vrf[0x0], mrf[0x0], f32, f32, f32, m=4, k=32, n=16, "
      "dpitch=64, apitch=128\n"
      "v.add acc[0x200], acc[0x100], vrf[0x4000], f16, f32, f32, rows=4, "
      "cols=16, dpitch=32, apitch=64, bcast=row\n"
      "v.gelu acc[0x0], acc[0x200], bf16, f16, rows=4, cols=16, dpitch=32, "
      "apitch=32\nhalt\n";
  std::vector<std::vector<uint16_t>> outs;
  for (const std::string &p : {chained, unchained}) {
    auto emu = makeEmu(target, {p});
    put(*emu, Space::Vrf, 0, a);
    put(*emu, Space::Mrf, 0, w);
    put(*emu, Space::Vrf, 0x4000, bias);
    auto st = runOk(*emu);
    REQUIRE(st.cores[0].queues[1].instructions == 3);
    outs.push_back(get<uint16_t>(*emu, Space::Acc, 0, m * n));
  }
  REQUIRE(outs[0] == outs[1]);
}

TEST_CASE("integer and mixed-type chains equal writing and re-reading each "
          "result",
          "[vector]") {
  // The binary ops stream rows straight from the memories and the chain;
  // these programs cover what that path takes: u8 x i8 products into an
  // i32 chain, a result forwarded in place over the chain it reads, a
  // result both stored and forwarded, column and row broadcasts that are
  // converted, and the f32 tail of an mm chain. Each equals the same steps
  // through memory, and the int products equal a scalar reference.
  std::mt19937 rng(27);
  auto x = randomInts<uint8_t>(rng, 4 * 48, 0, 255);
  auto w = randomInts<int8_t>(rng, 2 * 48, -128, 127);
  auto col = randomInts<int8_t>(rng, 4, -128, 127);
  auto acc0 = randomInts<int32_t>(rng, 4 * 48, -1000000, 1000000);
  auto target = loadTarget();
  std::string chained =
      "v.mul chain, acc[0x0], vrf[0x4000], i32, u8, i8, rows=4, cols=48, "
      "apitch=48, bcast=row @chain\n"
      "v.add chain, chain, acc[0x1000], i32, i32, i32, rows=4, cols=48, "
      "bpitch=192 @chain\n"
      "v.mul acc[0x2000], chain, vrf[0x4100], i32, i32, i8, rows=4, cols=48, "
      "dpitch=192, bpitch=4, bcast=col @chain\n"
      "v.sub chain, chain, vrf[0x4030], i32, i32, i8, rows=4, cols=48, "
      "bcast=row @chain\n"
      "v.max acc[0x3000], chain, acc[0x1000], i16, i32, i32, rows=4, cols=48, "
      "dpitch=96, bpitch=192\nhalt\n";
  std::string unchained =
      "v.mul acc[0x4000], acc[0x0], vrf[0x4000], i32, u8, i8, rows=4, "
      "cols=48, dpitch=192, apitch=48, bcast=row\n"
      "v.add acc[0x5000], acc[0x4000], acc[0x1000], i32, i32, i32, rows=4, "
      "cols=48, dpitch=192, apitch=192, bpitch=192\n"
      "v.mul acc[0x2000], acc[0x5000], vrf[0x4100], i32, i32, i8, rows=4, "
      "cols=48, dpitch=192, apitch=192, bpitch=4, bcast=col\n"
      "v.sub acc[0x6000], acc[0x2000], vrf[0x4030], i32, i32, i8, rows=4, "
      "cols=48, dpitch=192, apitch=192, bcast=row\n"
      "v.max acc[0x3000], acc[0x6000], acc[0x1000], i16, i32, i32, rows=4, "
      "cols=48, dpitch=96, apitch=192, bpitch=192\nhalt\n";
  std::vector<std::vector<int32_t>> mids;
  std::vector<std::vector<int16_t>> outs;
  for (const std::string &p : {chained, unchained}) {
    auto emu = makeEmu(target, {p});
    put(*emu, Space::Acc, 0, x);
    put(*emu, Space::Acc, 0x1000, acc0);
    put(*emu, Space::Vrf, 0x4000, w);
    // One i8 per 4-byte row (bpitch=4).
    std::vector<uint8_t> colBytes(16, 0);
    for (size_t r = 0; r < 4; ++r)
      colBytes[r * 4] = static_cast<uint8_t>(col[r]);
    put(*emu, Space::Vrf, 0x4100, colBytes);
    runOk(*emu);
    mids.push_back(get<int32_t>(*emu, Space::Acc, 0x2000, 4 * 48));
    outs.push_back(get<int16_t>(*emu, Space::Acc, 0x3000, 4 * 48));
  }
  REQUIRE(mids[0] == mids[1]);
  REQUIRE(outs[0] == outs[1]);
  auto wrap = [](int64_t v) {
    return static_cast<int32_t>(static_cast<uint32_t>(v));
  };
  for (size_t r = 0; r < 4; ++r)
    for (size_t c = 0; c < 48; ++c) {
      size_t i = r * 48 + c;
      int32_t p = wrap(int64_t(x[i]) * w[c]);
      int32_t s = wrap(int64_t(p) + acc0[i]);
      int32_t m = wrap(int64_t(s) * col[r]);
      REQUIRE(mids[0][i] == m);
      int32_t d = wrap(int64_t(m) - w[48 + c]);
      int32_t q = std::max(d, acc0[i]);
      REQUIRE(outs[0][i] == std::clamp<int32_t>(q, -32768, 32767));
    }
}

TEST_CASE("f32 chains forwarded in place and stored at once", "[vector]") {
  std::mt19937 rng(28);
  auto a = randomFloats(rng, 4 * 32), w = randomFloats(rng, 16 * 32),
       bias = randomFloats(rng, 16), other = randomFloats(rng, 4 * 16);
  auto target = loadTarget();
  std::string chained =
      "mm chain, vrf[0x0], mrf[0x0], f32, f32, f32, m=4, k=32, n=16, "
      "apitch=128 @chain\n"
      "v.add chain, chain, vrf[0x4000], f32, f32, f32, rows=4, cols=16, "
      "bcast=row @chain\n"
      "vs.max acc[0x400], chain, f32, f32, rows=4, cols=16, dpitch=64, "
      "imm=0.0 @chain\n"
      "v.mul chain, chain, vrf[0x5000], f16, f32, f32, rows=4, cols=16, "
      "bpitch=64 @chain\n"
      "vs.min acc[0x0], chain, f32, f16, rows=4, cols=16, dpitch=64, "
      "imm=6.0\nhalt\n";
  std::string unchained =
      "mm acc[0x100], vrf[0x0], mrf[0x0], f32, f32, f32, m=4, k=32, n=16, "
      "dpitch=64, apitch=128\n"
      "v.add acc[0x200], acc[0x100], vrf[0x4000], f32, f32, f32, rows=4, "
      "cols=16, dpitch=64, apitch=64, bcast=row\n"
      "vs.max acc[0x400], acc[0x200], f32, f32, rows=4, cols=16, dpitch=64, "
      "apitch=64, imm=0.0\n"
      "v.mul acc[0x600], acc[0x400], vrf[0x5000], f16, f32, f32, rows=4, "
      "cols=16, dpitch=32, apitch=64, bpitch=64\n"
      "vs.min acc[0x0], acc[0x600], f32, f16, rows=4, cols=16, dpitch=64, "
      "apitch=32, imm=6.0\nhalt\n";
  std::vector<std::vector<float>> relus, outs;
  for (const std::string &p : {chained, unchained}) {
    auto emu = makeEmu(target, {p});
    put(*emu, Space::Vrf, 0, a);
    put(*emu, Space::Mrf, 0, w);
    put(*emu, Space::Vrf, 0x4000, bias);
    put(*emu, Space::Vrf, 0x5000, other);
    runOk(*emu);
    relus.push_back(get<float>(*emu, Space::Acc, 0x400, 4 * 16));
    outs.push_back(get<float>(*emu, Space::Acc, 0, 4 * 16));
  }
  requireBitEqual(relus[0], relus[1]);
  requireBitEqual(outs[0], outs[1]);
}

TEST_CASE("block-float weights unpacked once are reloaded after a write",
          "[matrix]") {
  // mm keeps the msfp8 tile it unpacked from the MRF; a second mm by the
  // same tile reuses it, and a DMA into those MRF bytes makes it unpack the
  // new weights. Each product equals a fresh emulator's from the same
  // weights.
  std::mt19937 rng(29);
  const uint64_t k = 64, n = 8, m = 2, row = 36; // 4 blocks of 9 bytes
  auto x = randomFloats(rng, m * k);
  auto packWeights = [&](float lo, float hi) {
    auto w = randomFloats(rng, n * k, lo, hi);
    std::vector<uint8_t> packed(n * row);
    for (uint64_t j = 0; j < n; ++j)
      emulator::encodeBlockRow(DType::MSFP8, w.data() + j * k, k,
                               packed.data() + j * row);
    return packed;
  };
  auto first = packWeights(-1, 1), second = packWeights(-3, 3);
  const std::string mm = "mm acc[{:#x}], vrf[0x0], mrf[0x0], f32, f32, msfp8, "
                         "m=2, k=64, n=8, dpitch=32, apitch=256{}\n";
  auto target = loadTarget();
  emulator::EmulatorOptions checked;
  checked.checkRaces = true;
  auto emu = makeEmu(
      target,
      {fmt::format(mm, 0x0, "") + fmt::format(mm, 0x100, " @push_prev") +
       "dma.ld mrf[0x0], dram[0x1000], msfp8, x=64, y=8, z=1, sy=36, "
       "dpitch=36 @pop_next @push_next\n" +
       fmt::format(mm, 0x200, " @pop_prev") + "halt\n"},
      checked);
  put(*emu, Space::Vrf, 0, x);
  put(*emu, Space::Mrf, 0, first);
  put(*emu, Space::Dram, 0x1000, second);
  runOk(*emu);
  auto reference = [&](const std::vector<uint8_t> &weights) {
    auto fresh = makeEmu(target, {fmt::format(mm, 0x0, "") + "halt\n"});
    put(*fresh, Space::Vrf, 0, x);
    put(*fresh, Space::Mrf, 0, weights);
    runOk(*fresh);
    return get<float>(*fresh, Space::Acc, 0, m * n);
  };
  const auto withFirst = reference(first), withSecond = reference(second);
  REQUIRE(get<uint8_t>(*emu, Space::Mrf, 0, n * row) == second);
  requireBitEqual(get<float>(*emu, Space::Acc, 0x0, m * n), withFirst);
  requireBitEqual(get<float>(*emu, Space::Acc, 0x100, m * n), withFirst);
  requireBitEqual(get<float>(*emu, Space::Acc, 0x200, m * n), withSecond);
  REQUIRE(withFirst != withSecond);
}

TEST_CASE("dma.ld pads and dma.st scatters", "[dma]") {
  auto target = loadTarget();
  std::vector<uint16_t> src(8 * 16);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<uint16_t>(i + 1);
  // 2 planes of 3 rows of 4 f16, source row stride 32 B, plane stride 128 B,
  // padded by 1 row top/bottom and 2 columns left/right.
  auto emu = makeEmu(
      target, {"dma.ld vrf[0x0], dram[0x1000], f16, x=4, y=3, z=2, sy=32, "
               "sz=128, dpitch=16, pt=1, pb=1, pl=2, pr=2 @push_next\n"
               "sync ex @pop_prev @push_next\n"
               "dma.st dram[0x2000], vrf[0x0], f16, x=8, y=5, z=2, dy=64, "
               "dz=1024, spitch=16 @pop_prev\nhalt\n"});
  put(*emu, Space::Dram, 0x1000, src);
  runOk(*emu);
  auto v = get<uint16_t>(*emu, Space::Vrf, 0, 2 * 5 * 8);
  for (int p = 0; p < 2; ++p)
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 8; ++c) {
        uint16_t want = 0;
        if (r >= 1 && r < 4 && c >= 2 && c < 6)
          want = src[(p * 128 + (r - 1) * 32) / 2 + (c - 2)];
        REQUIRE(v[(p * 5 + r) * 8 + c] == want);
      }
  for (int p = 0; p < 2; ++p)
    for (int r = 0; r < 5; ++r) {
      auto row =
          get<uint16_t>(*emu, Space::Dram, 0x2000 + p * 1024 + r * 64, 8);
      for (int c = 0; c < 8; ++c)
        REQUIRE(row[c] == v[(p * 5 + r) * 8 + c]);
    }
}

TEST_CASE("transposing DMAs move every element, dense or sparse", "[dma]") {
  // dma.ld with rows of one element (x=1) and the z elements of a source
  // row adjacent (sz = element size) is a 2-D transpose: in 16 x 16 blocks
  // with partial edges, and, when the source rows lie far apart in paged
  // DRAM (a channel slice), from a gathered copy of the rows. dma.st the
  // other way. Every element is checked against the definition, for
  // 1-, 2- and 4-byte elements and shapes with and without whole blocks.
  auto target = loadTarget();
  struct Type {
    const char *name;
    unsigned bytes;
  };
  for (Type t : {Type{"i8", 1}, Type{"f16", 2}, Type{"f32", 4}})
    for (auto [z, y] :
         {std::pair<unsigned, unsigned>{192, 16}, {37, 5}, {16, 16}, {3, 40}})
      for (unsigned sy : {z * t.bytes + 8, 40000u}) {
        INFO(t.name << " z " << z << " y " << y << " sy " << sy);
        const unsigned e = t.bytes;
        auto emu = makeEmu(
            target,
            {fmt::format("dma.ld vrf[0x0], dram[0x0], {}, x=1, y={}, z={}, "
                         "sy={}, sz={}, dpitch={} @push_next\n"
                         "sync ex @pop_prev @push_next\n"
                         "dma.st dram[0x100000], vrf[0x0], {}, x=1, y={}, "
                         "z={}, dy={}, dz={}, spitch={} @pop_prev\nhalt\n",
                         t.name, y, z, sy, e, e, t.name, y, z, sy, e, e)});
        std::mt19937 rng(z * 131 + y + sy);
        std::vector<uint8_t> src(size_t(y - 1) * sy + z * e);
        for (uint8_t &b : src)
          b = static_cast<uint8_t>(rng());
        put(*emu, Space::Dram, 0, src);
        runOk(*emu);
        auto v = get<uint8_t>(*emu, Space::Vrf, 0, size_t(z) * y * e);
        for (unsigned p = 0; p < z; ++p)
          for (unsigned r = 0; r < y; ++r)
            for (unsigned b = 0; b < e; ++b)
              REQUIRE(v[(p * y + r) * e + b] == src[r * sy + p * e + b]);
        // The store puts every element back where the load took it.
        auto back = get<uint8_t>(*emu, Space::Dram, 0x100000, src.size());
        for (unsigned r = 0; r < y; ++r)
          for (unsigned i = 0; i < z * e; ++i)
            REQUIRE(back[r * sy + i] == src[r * sy + i]);
      }
}

TEST_CASE("emb.gather: rowwise formats, weights, sum and mean", "[gather]") {
  std::mt19937 rng(30);
  auto target = loadTarget();
  const size_t dim = 24, nrows = 50;
  std::vector<float> table = randomFloats(rng, nrows * dim, -3, 3);
  std::vector<int32_t> idx = {3, 7, 7, 49, 0, 12, 30};
  std::vector<float> wts = {0.5f, 2.0f, -1.0f, 1.25f, 3.0f, 0.75f, 1.0f};
  for (auto fmtName : {"rw8", "rw4", "f32"}) {
    std::string f = fmtName;
    num::RowwiseBits b =
        f == "rw8" ? num::RowwiseBits::Eight : num::RowwiseBits::Four;
    size_t rowbytes = f == "f32" ? dim * 4 : num::fusedRowBytes(b, dim) + 4;
    std::vector<uint8_t> tbl(nrows * rowbytes, 0);
    for (size_t r = 0; r < nrows; ++r) {
      if (f == "f32")
        std::memcpy(&tbl[r * rowbytes], &table[r * dim], dim * 4);
      else
        REQUIRE(num::quantizeFusedRow(
                    b, {table.data() + r * dim, dim},
                    {&tbl[r * rowbytes], num::fusedRowBytes(b, dim)})
                    .ok());
    }
    // Segments by offsets: [0,2) [2,2) [2,7).
    std::vector<int32_t> offs = {0, 2, 2, 7};
    for (const char *pool : {"sum", "mean"}) {
      std::string prog = fmt::format(
          "s.li s1, imm=0x100\ns.li s2, imm=0x200\ns.li s3, imm=0x300\n"
          "emb.gather acc[0x0], dram[0x10000], vrf[s1], vrf[s2], vrf[s3], "
          "f32, fmt={}, dim={}, rowbytes={}, nrows={}, nseg=3, offs=1, "
          "pool={}, weighted=1, dpitch={}\nhalt\n",
          f, dim, rowbytes, nrows, pool, dim * 4);
      auto emu = makeEmu(target, {prog});
      put(*emu, Space::Dram, 0x10000, tbl);
      put(*emu, Space::Vrf, 0x100, idx);
      put(*emu, Space::Vrf, 0x200, offs);
      put(*emu, Space::Vrf, 0x300, wts);
      runOk(*emu);
      auto out = get<float>(*emu, Space::Acc, 0, 3 * dim);
      for (size_t s = 0; s < 3; ++s) {
        std::vector<float> acc(dim, 0.0f), x(dim);
        for (int j = offs[s]; j < offs[s + 1]; ++j) {
          const uint8_t *row = &tbl[idx[j] * rowbytes];
          if (f == "f32")
            std::memcpy(x.data(), row, dim * 4);
          else
            num::dequantizeFusedRow(b, {row, num::fusedRowBytes(b, dim)}, x);
          for (size_t i = 0; i < dim; ++i)
            acc[i] = acc[i] + x[i] * wts[j];
        }
        size_t len = offs[s + 1] - offs[s];
        if (std::string(pool) == "mean" && len)
          for (float &v : acc)
            v = v / static_cast<float>(len);
        INFO(f << " " << pool << " segment " << s);
        std::vector<float> segment(out.begin() + s * dim,
                                   out.begin() + (s + 1) * dim);
        requireBitEqual(segment, acc);
        if (f != "f32" && std::string(pool) == "sum") {
          // The numerics reference (what the host runtime computes) agrees
          // with the device bit for bit.
          std::vector<float> reference(dim, 0.0f);
          for (int j = offs[s]; j < offs[s + 1]; ++j)
            num::accumulateFusedRow(
                b, {&tbl[idx[j] * rowbytes], num::fusedRowBytes(b, dim)},
                wts[j], reference);
          requireBitEqual(segment, reference);
        }
      }
    }
  }
}
