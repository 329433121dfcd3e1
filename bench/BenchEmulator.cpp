//===- BenchEmulator.cpp - Emulator throughput benchmark ----------------===//
//
// Measures how fast the emulator executes its hot instructions, in emulated
// operations per second of host time: int8 and fp32 `mm` (2 ops per MAC)
// and a rowwise-quantised embedding gather (lookups/s and table GB/s). Next
// to them it times simple native loops of the same arithmetic on this host,
// as a yardstick for what a straightforward scalar C++ kernel achieves.
//
//   nnaccel-bench-emulator [targets/default.json]
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Emulator/Emulator.h"
#include "nnaccel/ISA/Target.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

using namespace nnaccel;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// Runs `asmText` once to warm up, then `reps` times; returns seconds per run.
double timeRun(emulator::Emulator &emu, int reps) {
  if (auto r = emu.run(); !r) {
    std::fprintf(stderr, "error: %s\n", r.message().c_str());
    std::exit(1);
  }
  auto t0 = Clock::now();
  for (int i = 0; i < reps; ++i)
    if (auto r = emu.run(); !r) {
      std::fprintf(stderr, "error: %s\n", r.message().c_str());
      std::exit(1);
    }
  return seconds(t0, Clock::now()) / reps;
}

emulator::Emulator &load(emulator::Emulator &emu, const std::string &text) {
  emu.clearPrograms();
  if (auto e = emu.loadProgramAsm(text)) {
    std::fprintf(stderr, "error: %s\n", e.message().c_str());
    std::exit(1);
  }
  return emu;
}

/// Native int8 and fp32 matrix loops (m x k times n x k), scalar C++.
double nativeInt8Gops(int m, int k, int n, int reps) {
  std::vector<int8_t> a(m * k, 3), w(n * k, -2);
  std::vector<int32_t> d(m * n);
  auto t0 = Clock::now();
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        int32_t s = 0;
        for (int t = 0; t < k; ++t)
          s += int32_t(a[i * k + t]) * int32_t(w[j * k + t]);
        d[i * n + j] = s + r;
      }
  double dt = seconds(t0, Clock::now());
  volatile int32_t sink = d[0];
  (void)sink;
  return 2.0 * m * k * n * reps / dt / 1e9;
}

double nativeF32Gops(int m, int k, int n, int reps) {
  std::vector<float> a(m * k, 0.5f), w(n * k, 0.25f), d(m * n);
  auto t0 = Clock::now();
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        float lanes[16] = {};
        for (int t = 0; t < k; ++t)
          lanes[t & 15] += a[i * k + t] * w[j * k + t];
        float s = 0;
        for (float l : lanes)
          s += l;
        d[i * n + j] = s + static_cast<float>(r);
      }
  double dt = seconds(t0, Clock::now());
  volatile float sink = d[0];
  (void)sink;
  return 2.0 * m * k * n * reps / dt / 1e9;
}

} // namespace

int main(int argc, char **argv) {
  std::string path = argc > 1 ? argv[1] : NNACCEL_DEFAULT_TARGET;
  auto target = isa::loadTarget(path);
  if (!target) {
    std::fprintf(stderr, "error: %s\n", target.message().c_str());
    return 1;
  }
  emulator::EmulatorOptions opts;
  opts.threads = 1;
  emulator::Emulator emu(*target, opts);
  std::mt19937 rng(1);
  std::vector<uint8_t> noise(1 << 16);
  for (auto &b : noise)
    b = static_cast<uint8_t>(rng());
  emu.writeMemory(0, isa::Space::Vrf, 0, noise);
  emu.writeMemory(0, isa::Space::Mrf, 0, noise);

  const int iters = 20;
  std::printf("nnaccel emulator benchmark on target '%s' (1 thread)\n",
              target->name.c_str());

  // int8: 512 x 64 activations, 64 x 64 tile, i32 out.
  load(emu, fmt::format("loop s1, count={}\n"
                        "mm acc[0x0], vrf[0x0], mrf[0x0], i32, i8, i8, m=512, "
                        "k=64, n=64, dpitch=256, apitch=64\nendloop\nhalt\n",
                        iters));
  double t = timeRun(emu, 5);
  double ops = 2.0 * 512 * 64 * 64 * iters;
  double int8Emu = ops / t / 1e9;
  std::printf("  mm i8 x i8 -> i32 (m=512 k=64 n=64): %8.2f GOPS emulated\n",
              int8Emu);

  // fp32: 128 x 64 activations (values from random bits are mostly finite).
  std::vector<float> f(1 << 14);
  for (auto &x : f)
    x = std::uniform_real_distribution<float>(-1, 1)(rng);
  emu.writeMemory(0, isa::Space::Vrf, 0, f.data(), f.size() * 4);
  emu.writeMemory(0, isa::Space::Mrf, 0, f.data(), f.size() * 4);
  load(emu, fmt::format("loop s1, count={}\n"
                        "mm acc[0x0], vrf[0x0], mrf[0x0], f32, f32, f32, "
                        "m=128, k=64, n=64, dpitch=256, apitch=256\nendloop\n"
                        "halt\n",
                        iters));
  t = timeRun(emu, 5);
  ops = 2.0 * 128 * 64 * 64 * iters;
  double f32Emu = ops / t / 1e9;
  std::printf("  mm f32 x f32 -> f32 (m=128 k=64 n=64): %8.2f GOPS emulated\n",
              f32Emu);

  // Embedding gather: rw8 table of 100000 rows x 64, 32 bags of 20 lookups.
  const unsigned dim = 64, rows = 100000, rowBytes = dim + 8, bags = 32,
                 per = 20;
  std::vector<uint8_t> table(size_t(rows) * rowBytes);
  for (auto &b : table)
    b = static_cast<uint8_t>(rng());
  for (unsigned r = 0; r < rows; ++r) {
    float sb[2] = {0.01f, -0.5f};
    std::memcpy(&table[size_t(r) * rowBytes + dim], sb, 8);
  }
  emu.writeMemory(0, isa::Space::Dram, 0x100000, table);
  std::vector<int32_t> idx(bags * per), lens(bags, per);
  for (auto &i : idx)
    i = static_cast<int32_t>(rng() % rows);
  emu.writeMemory(0, isa::Space::Vrf, 0x0, idx.data(), idx.size() * 4);
  emu.writeMemory(0, isa::Space::Vrf, 0x1000, lens.data(), lens.size() * 4);
  load(emu, fmt::format("s.li s2, imm=0x1000\nloop s1, count={}\n"
                        "emb.gather acc[0x0], dram[0x100000], vrf[s0], "
                        "vrf[s2], vrf[s0], f32, fmt=rw8, dim={}, rowbytes={}, "
                        "nrows={}, nseg={}, pool=sum, dpitch={}\nendloop\n"
                        "halt\n",
                        iters, dim, rowBytes, rows, bags, dim * 4));
  t = timeRun(emu, 5);
  double lookups = double(bags) * per * iters;
  std::printf("  emb.gather rw8 dim=64 sum (640 lookups/instr): %8.2f M "
              "lookups/s, %6.2f GB/s of table rows, %6.2f GOPS "
              "(3 ops/element)\n",
              lookups / t / 1e6, lookups * rowBytes / t / 1e9,
              lookups * dim * 3 / t / 1e9);

  double int8Native = nativeInt8Gops(512, 64, 64, 20);
  double f32Native = nativeF32Gops(128, 64, 64, 20);
  std::printf("native scalar C++ loops on this host (same shapes):\n");
  std::printf("  int8 dot loop: %8.2f GOPS   (emulator at %.0f%%)\n",
              int8Native, 100 * int8Emu / int8Native);
  std::printf("  fp32 16-lane dot loop: %8.2f GOPS   (emulator at %.0f%%)\n",
              f32Native, 100 * f32Emu / f32Native);
  return 0;
}
