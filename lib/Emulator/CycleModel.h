//===- CycleModel.h - Modelled instruction timing ---------------*- C++ -*-===//
//
// The emulator's timing formulas in one place. Each takes the instruction's
// shape and the target's throughput figures and returns cycles; the
// scheduler adds queueing, token and barrier waits on top. docs/emulator.md
// lists the same formulas; tests compute expected cycle counts from them.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_LIB_EMULATOR_CYCLEMODEL_H
#define NNACCEL_LIB_EMULATOR_CYCLEMODEL_H

#include "nnaccel/ISA/Target.h"

#include <cstdint>

namespace nnaccel::emulator {

class CycleModel {
public:
  /// Dispatcher cycles per dispatched instruction (control or queued).
  static constexpr uint64_t DispatchCycles = 1;
  /// Duration of `sync` (it only moves tokens).
  static constexpr uint64_t SyncCycles = 1;
  /// Pipeline fill per additional chain member (MFU stage latency).
  static constexpr uint64_t ChainFillCycles = 2;
  /// No queue instruction takes less than this.
  static constexpr uint64_t MinCycles = 1;

  explicit CycleModel(const isa::TargetDesc &target) : t_(target) {}

  /// Queue cycles of a DMA of `bytes`: ceil(bytes / min(bw(src), bw(dst)));
  /// a memory without a bandwidth figure is ideal. The data lands
  /// dmaLatency() later: the engine keeps requests in flight, so the next
  /// DMA on the queue streams while this one's latency runs.
  uint64_t dma(isa::Space src, isa::Space dst, uint64_t bytes) const;
  /// max(lat(src), lat(dst)).
  uint64_t dmaLatency(isa::Space src, isa::Space dst) const;
  /// mm: max(m * ceil(k / L) * ceil(n / N), ceil(m * k * n / macs[wt])).
  uint64_t matrix(uint64_t m, uint64_t k, uint64_t n, isa::DType wt) const;
  /// MAC-equivalent peak cycles of an mm (macs / macs_per_cycle[wt]).
  double peakMacCycles(uint64_t macs, isa::DType wt) const;
  /// One MFU stage: rows * ceil(cols / vector_lanes).
  uint64_t vector(uint64_t rows, uint64_t cols) const;
  /// The pipeline fill of a chain of `stages` members, (stages - 1) *
  /// ChainFillCycles: the latency after its slowest member's cycles until
  /// its results land.
  static uint64_t chainFill(uint64_t stages) {
    return (stages ? stages - 1 : 0) * ChainFillCycles;
  }
  /// Queue cycles of an emb.gather: max(ceil(lookups * rowbytes /
  /// bw(table)), ceil(lookups * dim / vector_lanes)); the result lands
  /// lat(table) later (as for dma).
  uint64_t gather(isa::Space table, uint64_t lookups, uint64_t rowbytes,
                  uint64_t dim) const;
  /// send: ceil(bytes / link bandwidth) (host link for the host).
  uint64_t linkSend(uint64_t bytes, bool host) const;
  /// Link latency added between a send's completion and its arrival.
  uint64_t linkLatency(bool host) const;

private:
  const isa::TargetDesc &t_;
};

} // namespace nnaccel::emulator

#endif // NNACCEL_LIB_EMULATOR_CYCLEMODEL_H
