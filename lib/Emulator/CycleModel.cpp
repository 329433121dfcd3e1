//===- CycleModel.cpp - Modelled instruction timing --------------------===//
//
// Timing formulas (see CycleModel.h and docs/emulator.md). They are simple
// throughput/latency bounds, not a microarchitectural model: enough to rank
// schedules and find the bottleneck queue, and exactly reproducible by hand
// so that compiler tests can assert on them.
//
//===----------------------------------------------------------------------===//

#include "CycleModel.h"

#include <algorithm>
#include <cmath>

namespace nnaccel::emulator {

using isa::Space;

namespace {
uint64_t ceilDiv(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : 0; }
/// ceil(bytes / bw) for a fractional bandwidth; bw <= 0 means ideal.
uint64_t transferCycles(uint64_t bytes, double bw) {
  if (bw <= 0)
    return 0;
  return static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / bw));
}
} // namespace

uint64_t CycleModel::dma(Space src, Space dst, uint64_t bytes) const {
  const auto &s = t_.memory(src), &d = t_.memory(dst);
  double bw;
  if (s.bytesPerCycle > 0 && d.bytesPerCycle > 0)
    bw = std::min(s.bytesPerCycle, d.bytesPerCycle);
  else
    bw = std::max(s.bytesPerCycle, d.bytesPerCycle); // one side ideal
  return std::max(transferCycles(bytes, bw), MinCycles);
}

uint64_t CycleModel::dmaLatency(Space src, Space dst) const {
  return std::max(t_.memory(src).latencyCycles, t_.memory(dst).latencyCycles);
}

uint64_t CycleModel::matrix(uint64_t m, uint64_t k, uint64_t n,
                            isa::DType wt) const {
  uint64_t lanes = t_.matrixLanesFor(wt);
  uint64_t dim = std::max<uint32_t>(t_.nativeDim, 1);
  uint64_t passes = m * ceilDiv(k, lanes) * ceilDiv(n, dim);
  auto it = t_.macsPerCycle.find(wt);
  uint64_t bound = it != t_.macsPerCycle.end() && it->second
                       ? ceilDiv(m * k * n, it->second)
                       : 0;
  return std::max({passes, bound, MinCycles});
}

double CycleModel::peakMacCycles(uint64_t macs, isa::DType wt) const {
  auto it = t_.macsPerCycle.find(wt);
  if (it == t_.macsPerCycle.end() || !it->second)
    return 0;
  return static_cast<double>(macs) / static_cast<double>(it->second);
}

uint64_t CycleModel::vector(uint64_t rows, uint64_t cols) const {
  uint64_t lanes = std::max<uint32_t>(t_.vectorLanes, 1);
  return std::max(rows * ceilDiv(cols, lanes), MinCycles);
}

uint64_t CycleModel::gather(Space table, uint64_t lookups, uint64_t rowbytes,
                            uint64_t dim) const {
  const auto &m = t_.memory(table);
  uint64_t read = transferCycles(lookups * rowbytes, m.bytesPerCycle);
  uint64_t compute =
      ceilDiv(lookups * dim, std::max<uint32_t>(t_.vectorLanes, 1));
  return std::max({read, compute, MinCycles});
}

uint64_t CycleModel::linkSend(uint64_t bytes, bool host) const {
  return std::max(
      transferCycles(bytes, host ? t_.hostBytesPerCycle : t_.linkBytesPerCycle),
      MinCycles);
}

uint64_t CycleModel::linkLatency(bool host) const {
  return host ? t_.hostLatencyCycles : t_.linkLatencyCycles;
}

} // namespace nnaccel::emulator
