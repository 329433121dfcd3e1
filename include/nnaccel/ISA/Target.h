//===- Target.h - Target descriptions (targets/*.json) ---------*- C++ -*-===//
//
// The hardware an ISA program runs on is data, not code: card and core
// counts, native matrix dimension, memory sizes and alignments, queue depths,
// and the throughput figures the emulator's cycle model reads. TargetDesc is
// the parsed form of a targets/*.json file; every key is documented in
// docs/isa.md, "Target descriptions".
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_ISA_TARGET_H
#define NNACCEL_ISA_TARGET_H

#include "nnaccel/ISA/Error.h"
#include "nnaccel/ISA/Types.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace nnaccel::isa {

/// One memory of the machine model.
struct MemoryDesc {
  uint64_t bytes =
      0; ///< capacity (per card for dram/shared, per core otherwise)
  uint32_t align = 1;       ///< required operand address alignment (power of 2)
  double bytesPerCycle = 0; ///< sustained bandwidth seen by one DMA engine
  uint32_t latencyCycles = 0; ///< first-byte latency
};

struct TargetDesc {
  std::string name;
  std::string description;
  double clockMHz = 0;
  /// The ISA minor version the target implements (`isa_version` 1.x): the
  /// compiler uses a later minor's instructions only when this allows.
  uint16_t isaMinor = 0;

  uint32_t cards = 1;
  uint32_t coresPerCard = 1;

  // Per core.
  uint32_t nativeDim = 0;   ///< N: matrix tiles are N x N
  uint32_t matrixLanes = 0; ///< L: dot-product lanes per engine
  uint32_t mfuCount = 0;    ///< multifunction units (chain stages)
  uint32_t vectorLanes = 0; ///< elements per cycle per MFU
  uint32_t vrfRegisters = 0;
  uint32_t vrfRegisterBytes = 0;
  uint32_t maxChainLength = 0;
  uint32_t loopDepth = 0;
  uint32_t tokenFifoDepth = 0;
  uint32_t instrQueueDepth = 0;
  /// Multiply-accumulates per cycle per core for each weight type the matrix
  /// unit supports; a weight type absent here is not supported by `mm`.
  std::map<DType, uint64_t> macsPerCycle;

  /// Indexed by Space (Dram..Acc). vrf bytes = registers * register bytes.
  std::array<MemoryDesc, NumMemSpaces> memories{};

  // Card-to-card and host link.
  double linkBytesPerCycle = 0;
  uint32_t linkLatencyCycles = 0;
  double hostBytesPerCycle = 0;
  uint32_t hostLatencyCycles = 0;

  const MemoryDesc &memory(Space s) const {
    return memories[static_cast<size_t>(s)];
  }

  /// Lanes per dot-product engine for weights of type `wt`. A narrow format
  /// whose macs_per_cycle exceeds N x matrix_lanes packs that many more
  /// products into each lane (as Brainwave's ms-fp lanes do), so its rate is
  /// reachable by `mm`; at most N (one tile row per cycle).
  uint32_t matrixLanesFor(DType wt) const {
    uint64_t lanes = std::max<uint32_t>(matrixLanes, 1);
    auto it = macsPerCycle.find(wt);
    if (it != macsPerCycle.end() && nativeDim)
      lanes = std::max<uint64_t>(lanes, it->second / nativeDim);
    return static_cast<uint32_t>(
        std::min<uint64_t>(lanes, std::max<uint32_t>(nativeDim, 1)));
  }
};

/// Parses and validates target JSON text. `sourceName` prefixes messages.
/// Errors name the key path, e.g. "default.json: core.native_dim: must be in
/// [1, 4095], got 0".
Expected<TargetDesc> parseTarget(std::string_view jsonText,
                                 std::string_view sourceName = "<target>");
/// Reads and parses a target file.
Expected<TargetDesc> loadTarget(const std::string &path);

} // namespace nnaccel::isa

#endif // NNACCEL_ISA_TARGET_H
