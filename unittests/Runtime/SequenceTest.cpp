//===- SequenceTest.cpp - embedding_bag, LSTM and GRU tests ---------------===//
//
// Embedding bags in all three bag forms (f32 and rowwise-quantized tables,
// the latter bit for bit against lib/Numerics), and the recurrences against a
// straightforward double-precision ONNX reference written here (plus one
// LSTM time step computed by hand).
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include "nnaccel/Numerics/RowwiseEmbedding.h"

#include <cmath>

using namespace nnaccel::runtime;
using namespace nnaccel::runtime::test;

namespace {
std::vector<float> ramp(size_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = offset + scale * static_cast<float>((i * 5) % 17);
  return v;
}
double sig(double x) { return 1 / (1 + std::exp(-x)); }
double clipTo(double v, double c) {
  return c > 0 ? std::max(-c, std::min(c, v)) : v;
}

/// ONNX LSTM, layout 0, one direction over time order `ts`.
void refLstm(const std::vector<float> &x, const std::vector<float> &w,
             const std::vector<float> &r, const std::vector<float> &b,
             const std::vector<float> &p, int64_t S, int64_t B, int64_t I,
             int64_t H, int64_t d, int64_t D, bool reverse, double clip,
             std::vector<double> &y, std::vector<double> &yh,
             std::vector<double> &yc) {
  std::vector<double> h(B * H, 0.0), c(B * H, 0.0);
  const float *W = w.data() + d * 4 * H * I, *R = r.data() + d * 4 * H * H;
  for (int64_t s = 0; s < S; ++s) {
    int64_t t = reverse ? S - 1 - s : s;
    std::vector<double> hn(B * H), cn(B * H);
    for (int64_t bb = 0; bb < B; ++bb)
      for (int64_t j = 0; j < H; ++j) {
        double g[4];
        for (int q = 0; q < 4; ++q) {
          int64_t row = q * H + j;
          double acc = 0;
          for (int64_t k = 0; k < I; ++k)
            acc += double(W[row * I + k]) * x[(t * B + bb) * I + k];
          for (int64_t k = 0; k < H; ++k)
            acc += double(R[row * H + k]) * h[bb * H + k];
          if (!b.empty())
            acc += double(b[d * 8 * H + row]) + b[d * 8 * H + 4 * H + row];
          g[q] = acc;
        }
        double cp = c[bb * H + j];
        double pi = p.empty() ? 0 : p[d * 3 * H + j];
        double po = p.empty() ? 0 : p[d * 3 * H + H + j];
        double pf = p.empty() ? 0 : p[d * 3 * H + 2 * H + j];
        double it = sig(clipTo(g[0] + pi * cp, clip));
        double ft = sig(clipTo(g[2] + pf * cp, clip));
        double ct = std::tanh(clipTo(g[3], clip));
        double cc = ft * cp + it * ct;
        double ot = sig(clipTo(g[1] + po * cc, clip));
        cn[bb * H + j] = cc;
        hn[bb * H + j] = ot * std::tanh(cc);
      }
    h = hn;
    c = cn;
    for (int64_t i = 0; i < B * H; ++i)
      y[(t * D + d) * B * H + i] = h[i];
  }
  for (int64_t i = 0; i < B * H; ++i) {
    yh[d * B * H + i] = h[i];
    yc[d * B * H + i] = c[i];
  }
}

void refGru(const std::vector<float> &x, const std::vector<float> &w,
            const std::vector<float> &r, const std::vector<float> &b,
            const std::vector<float> &h0, int64_t S, int64_t B, int64_t I,
            int64_t H, int64_t d, int64_t D, bool reverse, bool lbr,
            std::vector<double> &y, std::vector<double> &yh) {
  std::vector<double> h(B * H);
  for (int64_t i = 0; i < B * H; ++i)
    h[i] = h0.empty() ? 0 : h0[d * B * H + i];
  const float *W = w.data() + d * 3 * H * I, *R = r.data() + d * 3 * H * H;
  auto bias = [&](int64_t k) {
    return b.empty() ? 0.0 : double(b[d * 6 * H + k]);
  };
  for (int64_t s = 0; s < S; ++s) {
    int64_t t = reverse ? S - 1 - s : s;
    std::vector<double> hn(B * H);
    for (int64_t bb = 0; bb < B; ++bb) {
      auto xw = [&](int64_t row) {
        double a = 0;
        for (int64_t k = 0; k < I; ++k)
          a += double(W[row * I + k]) * x[(t * B + bb) * I + k];
        return a;
      };
      auto rv = [&](int64_t row, const std::vector<double> &v) {
        double a = 0;
        for (int64_t k = 0; k < H; ++k)
          a += double(R[row * H + k]) * v[k];
        return a;
      };
      std::vector<double> hb(h.begin() + bb * H, h.begin() + (bb + 1) * H);
      std::vector<double> z(H), rg(H), rh(H);
      for (int64_t j = 0; j < H; ++j) {
        z[j] = sig(xw(j) + rv(j, hb) + bias(j) + bias(3 * H + j));
        rg[j] = sig(xw(H + j) + rv(H + j, hb) + bias(H + j) + bias(4 * H + j));
        rh[j] = rg[j] * hb[j];
      }
      for (int64_t j = 0; j < H; ++j) {
        double pre = lbr ? xw(2 * H + j) + bias(2 * H + j) +
                               rg[j] * (rv(2 * H + j, hb) + bias(5 * H + j))
                         : xw(2 * H + j) + bias(2 * H + j) + rv(2 * H + j, rh) +
                               bias(5 * H + j);
        double hh = std::tanh(pre);
        hn[bb * H + j] = (1 - z[j]) * hh + z[j] * hb[j];
      }
    }
    h = hn;
    for (int64_t i = 0; i < B * H; ++i)
      y[(t * D + d) * B * H + i] = h[i];
  }
  for (int64_t i = 0; i < B * H; ++i)
    yh[d * B * H + i] = h[i];
}
} // namespace

TEST_CASE("embedding_bag: 2-D indices, offsets, lengths, weights, mean",
          "[runtime][sequence]") {
  Tensor table = f32({4, 2}, {1, 2, 10, 20, 100, 200, 1000, 2000});
  Tensor idx2 = i64({2, 2}, {0, 1, 3, 3});
  auto out = run(makeOp("accel.embedding_bag"), {&table, &idx2},
                 {{DType::F32, {2, 2}}});
  CHECK(values<float>(out[0]) == std::vector<float>{11, 22, 2000, 4000});

  Tensor flat = i32({5}, {2, 0, 1, 3, 1});
  Tensor offsets = i64({3}, {0, 1, 1});
  out = run(makeOp("accel.embedding_bag"), {&table, &flat, &offsets},
            {{DType::F32, {3, 2}}});
  CHECK(values<float>(out[0]) ==
        std::vector<float>{100, 200, 0, 0, 1021, 2042});

  Tensor lengths = i32({3}, {2, 0, 3});
  Tensor weights = f32({5}, {1, 0.5f, 2, 1, -1});
  out =
      run(makeOp("accel.embedding_bag", {{"mode", std::string("mean")}}),
          {&table, &flat, nullptr, &lengths, &weights}, {{DType::F32, {3, 2}}});
  // Bag 0: 100 + 0.5 * 1 = 100.5 (/2); bag 1 empty; bag 2: 2*10 + 1000 - 10.
  checkClose(values<float>(out[0]),
             {50.25, 100.5, 0, 0, 1010.0 / 3, 2020.0 / 3});

  Tensor bad = i64({2, 2}, {0, 4, 1, 1});
  CHECK(runError(makeOp("accel.embedding_bag"), {&table, &bad},
                 {{DType::F32, {2, 2}}}) ==
        "accel.embedding_bag: index 4 at position 1 is out of range for a "
        "table of 4 rows");
  Tensor negative = i64({2, 1}, {-1, 0});
  CHECK(runError(makeOp("accel.embedding_bag"), {&table, &negative},
                 {{DType::F32, {2, 2}}})
            .find("index -1") != std::string::npos);
  Tensor badLen = i32({2}, {2, 4});
  CHECK(runError(makeOp("accel.embedding_bag"),
                 {&table, &flat, nullptr, &badLen}, {{DType::F32, {2, 2}}})
            .find("overruns") != std::string::npos);
  Tensor badOff = i64({2}, {3, 1});
  CHECK(runError(makeOp("accel.embedding_bag"), {&table, &flat, &badOff},
                 {{DType::F32, {2, 2}}})
            .find("decreasing") != std::string::npos);
  CHECK(runError(makeOp("accel.embedding_bag"), {&table, &flat},
                 {{DType::F32, {2, 2}}})
            .find("need offsets or lengths") != std::string::npos);
}

TEST_CASE("embedding_bag and gather read rowwise tables as the numerics do",
          "[runtime][sequence]") {
  namespace num = nnaccel::numerics;
  const int64_t rows = 6, dim = 5;
  std::vector<float> data = ramp(size_t(rows * dim), 0.37f, -2.0f);
  for (auto [dtype, bits] : {std::pair{DType::RW8, num::RowwiseBits::Eight},
                             std::pair{DType::RW4, num::RowwiseBits::Four}}) {
    INFO(getDTypeName(dtype));
    const size_t rowBytes = num::fusedRowBytes(bits, size_t(dim));
    std::vector<uint8_t> bytes(size_t(rows) * rowBytes);
    REQUIRE(num::quantizeFusedTable(bits, data, size_t(dim), bytes).ok());
    Tensor table = Tensor::allocate(TensorDesc(dtype, {rows, dim}));
    REQUIRE(table.getByteSize() == bytes.size());
    std::memcpy(table.mutableData(), bytes.data(), bytes.size());

    // Weighted bags by offsets: numerics' EmbeddingBag is the reference.
    std::vector<int64_t> idx = {2, 0, 5, 3, 5}, offs = {0, 1, 1};
    std::vector<float> w = {1, 0.5f, 2, 1, -1};
    Tensor flat = i64({5}, idx), offsets = i64({3}, offs),
           weights = f32({5}, w);
    auto out = run(makeOp("accel.embedding_bag"),
                   {&table, &flat, &offsets, nullptr, &weights},
                   {{DType::F32, {3, dim}}});
    std::vector<float> want(size_t(3 * dim));
    REQUIRE(num::embeddingBagFused(bits, bytes, size_t(dim), idx, offs, w, want)
                .ok());
    CHECK(values<float>(out[0]) == want);

    // Fixed-size bags, mean: dequantized rows summed in order, then divided.
    std::vector<int32_t> ids = {1, 1, 4, 0, 5, 2};
    Tensor idx2 = i32({2, 3}, ids);
    out = run(makeOp("accel.embedding_bag", {{"mode", std::string("mean")}}),
              {&table, &idx2}, {{DType::F32, {2, dim}}});
    std::vector<float> mean(size_t(2 * dim), 0.0f);
    std::vector<float> row(static_cast<size_t>(dim));
    for (size_t j = 0; j < ids.size(); ++j) {
      num::dequantizeFusedRow(
          bits, {&bytes[size_t(ids[j]) * rowBytes], rowBytes}, row);
      for (int64_t d = 0; d < dim; ++d)
        mean[j / 3 * dim + d] = mean[j / 3 * dim + d] + row[size_t(d)];
    }
    for (float &v : mean)
      v = v / 3.0f;
    CHECK(values<float>(out[0]) == mean);

    // A row gather dequantizes the rows it picks (negative indices wrap).
    Tensor pick = i64({2, 2}, {5, 0, -6, 3});
    out = run(makeOp("accel.gather", {{"axis", int64_t(0)}}), {&table, &pick},
              {{DType::F32, {2, 2, dim}}});
    std::vector<float> rowsWant;
    for (int64_t r : {5, 0, 0, 3}) {
      num::dequantizeFusedRow(bits, {&bytes[size_t(r) * rowBytes], rowBytes},
                              row);
      rowsWant.insert(rowsWant.end(), row.begin(), row.end());
    }
    CHECK(values<float>(out[0]) == rowsWant);
    CHECK(runError(makeOp("accel.gather", {{"axis", int64_t(1)}}),
                   {&table, &pick}, {{DType::F32, {6, 2, 2}}}) ==
          "accel.gather: a gather from a rowwise table takes rows (axis 0) "
          "of a rank-2 table");
  }
}

TEST_CASE("lstm one step by hand", "[runtime][sequence]") {
  // H = 1, I = 1, x = 1, W gates (i,o,f,c) = [1, 2, 3, 4], R = 0, no bias:
  // i = s(1), o = s(2), f = s(3), c~ = tanh(4); C = i * c~; H = o tanh(C).
  Tensor x = f32({1, 1, 1}, {1});
  Tensor w = f32({1, 4, 1}, {1, 2, 3, 4});
  Tensor r = f32({1, 4, 1}, {0, 0, 0, 0});
  auto out =
      run(makeOp("accel.lstm", {{"hidden_size", int64_t(1)}}), {&x, &w, &r},
          {{DType::F32, {1, 1, 1, 1}},
           {DType::F32, {1, 1, 1}},
           {DType::F32, {1, 1, 1}}});
  double c = sig(1) * std::tanh(4.0), h = sig(2) * std::tanh(c);
  checkClose(values<float>(out[0]), {h}, 1e-6);
  checkClose(values<float>(out[1]), {h}, 1e-6);
  checkClose(values<float>(out[2]), {c}, 1e-6);
}

TEST_CASE("lstm matches the ONNX reference in all directions",
          "[runtime][sequence]") {
  const int64_t S = 4, B = 2, I = 3, H = 5;
  for (const char *dir : {"forward", "reverse", "bidirectional"}) {
    for (bool extras : {false, true}) {
      const int64_t D = std::string(dir) == "bidirectional" ? 2 : 1;
      auto xv = ramp(S * B * I, 0.21f, -1.5f);
      auto wv = ramp(D * 4 * H * I, 0.09f, -0.7f);
      auto rv = ramp(D * 4 * H * H, 0.05f, -0.4f);
      auto bv = extras ? ramp(D * 8 * H, 0.1f, -0.8f) : std::vector<float>{};
      auto pv = extras ? ramp(D * 3 * H, 0.08f, -0.6f) : std::vector<float>{};
      Tensor x = f32({S, B, I}, xv), w = f32({D, 4 * H, I}, wv),
             r = f32({D, 4 * H, H}, rv);
      Tensor b = extras ? f32({D, 8 * H}, bv) : Tensor();
      Tensor p = extras ? f32({D, 3 * H}, pv) : Tensor();
      std::map<std::string, AttrValue, std::less<>> attrs = {
          {"hidden_size", H}, {"direction", std::string(dir)}};
      if (extras)
        attrs["clip"] = 0.9;
      auto out = run(makeOp("accel.lstm", attrs),
                     {&x, &w, &r, extras ? &b : nullptr, nullptr, nullptr,
                      extras ? &p : nullptr},
                     {{DType::F32, {S, D, B, H}},
                      {DType::F32, {D, B, H}},
                      {DType::F32, {D, B, H}}});
      std::vector<double> y(S * D * B * H), yh(D * B * H), yc(D * B * H);
      for (int64_t d = 0; d < D; ++d)
        refLstm(xv, wv, rv, bv, pv, S, B, I, H, d, D,
                std::string(dir) == "reverse" || d == 1, extras ? 0.9 : 0, y,
                yh, yc);
      INFO(dir << " extras " << extras);
      checkClose(values<float>(out[0]), y, 2e-5);
      checkClose(values<float>(out[1]), yh, 2e-5);
      checkClose(values<float>(out[2]), yc, 2e-5);
    }
  }
}

TEST_CASE("gru matches the ONNX reference, both reset forms",
          "[runtime][sequence]") {
  const int64_t S = 3, B = 2, I = 4, H = 3;
  for (const char *dir : {"forward", "reverse", "bidirectional"})
    for (int64_t lbr : {0, 1}) {
      const int64_t D = std::string(dir) == "bidirectional" ? 2 : 1;
      auto xv = ramp(S * B * I, 0.19f, -1.2f);
      auto wv = ramp(D * 3 * H * I, 0.08f, -0.6f);
      auto rv = ramp(D * 3 * H * H, 0.06f, -0.5f);
      auto bv = ramp(D * 6 * H, 0.1f, -0.7f);
      auto hv = ramp(D * B * H, 0.1f, -0.3f);
      Tensor x = f32({S, B, I}, xv), w = f32({D, 3 * H, I}, wv),
             r = f32({D, 3 * H, H}, rv), b = f32({D, 6 * H}, bv),
             h0 = f32({D, B, H}, hv);
      auto out = run(makeOp("accel.gru", {{"hidden_size", H},
                                          {"direction", std::string(dir)},
                                          {"linear_before_reset", lbr}}),
                     {&x, &w, &r, &b, &h0},
                     {{DType::F32, {S, D, B, H}}, {DType::F32, {D, B, H}}});
      std::vector<double> y(S * D * B * H), yh(D * B * H);
      for (int64_t d = 0; d < D; ++d)
        refGru(xv, wv, rv, bv, hv, S, B, I, H, d, D,
               std::string(dir) == "reverse" || d == 1, lbr != 0, y, yh);
      INFO(dir << " lbr " << lbr);
      checkClose(values<float>(out[0]), y, 2e-5);
      checkClose(values<float>(out[1]), yh, 2e-5);
    }
}

TEST_CASE("rnn shape errors", "[runtime][sequence]") {
  Tensor x = f32({1, 1, 2}, {1, 2});
  Tensor w = f32({1, 4, 3}, std::vector<float>(12, 0));
  Tensor r = f32({1, 4, 1}, {0, 0, 0, 0});
  CHECK(runError(makeOp("accel.lstm", {{"hidden_size", int64_t(1)}}),
                 {&x, &w, &r},
                 {{DType::F32, {1, 1, 1, 1}},
                  {DType::F32, {1, 1, 1}},
                  {DType::F32, {1, 1, 1}}})
            .find("W must have shape [1x4x2]") != std::string::npos);
  CHECK(runError(makeOp("accel.gru"), {&x, &w, &r},
                 {{DType::F32, {1, 1, 1, 1}}, {DType::F32, {1, 1, 1}}})
            .find("missing required attribute 'hidden_size'") !=
        std::string::npos);
}
