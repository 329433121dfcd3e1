//===- Units.h - Execution units of a core ----------------------*- C++ -*-===//
//
// The interface between the scheduler (which decides *when* an instruction
// runs) and the execution units (which compute *what* it does): the matrix
// unit, the vector/MFU unit and the DMA/gather engines. A unit reads its
// operands, computes through lib/Numerics, writes its results, and reports
// modelled cycles, MACs and bytes moved. Errors are runtime faults of the
// instruction (the scheduler adds card/core/pc context).
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_LIB_EMULATOR_UNITS_H
#define NNACCEL_LIB_EMULATOR_UNITS_H

#include "CycleModel.h"
#include "Op.h"

#include "nnaccel/Emulator/Memory.h"
#include "nnaccel/Emulator/Stats.h"
#include "nnaccel/ISA/Error.h"
#include "nnaccel/ISA/Target.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace nnaccel::emulator {

using isa::Error;

/// Effective addresses of an instruction's memory operands, resolved at
/// dispatch (indexed by OperandId).
using EffAddrs = std::array<int64_t, NumOperandIds>;

/// The value forwarded along a chain: exactly the bytes the producer would
/// have written in its `dt`, as dense rows.
struct ChainValue {
  bool valid = false;
  isa::DType type = isa::DType::F32;
  uint64_t rows = 0, cols = 0;
  std::vector<uint8_t> data;
};

/// A rows x cols block in its compute domain (f32 or i32), row-major.
struct Tile {
  bool isFloat = true;
  uint64_t rows = 0, cols = 0;
  std::vector<float> f;
  std::vector<int32_t> i;
  /// Shapes the tile for a new result. The elements are left as they are
  /// (tiles are reused, instruction after instruction): every producer
  /// writes all of them, so zeroing first would only cost time.
  void reset(bool flt, uint64_t r, uint64_t c) {
    isFloat = flt;
    rows = r;
    cols = c;
    if (flt)
      f.resize(r * c);
    else
      i.resize(r * c);
  }
};

/// What a core's units see: the memories indexed by isa::Space (dram/shared
/// of the card, vrf/mrf/acc of the core), the chain register, counters and
/// reusable scratch buffers.
struct ExecContext {
  const isa::TargetDesc *target = nullptr;
  const CycleModel *cycles = nullptr;
  std::array<Memory *, isa::NumMemSpaces> mem{};
  ChainValue chain;
  ByteCounters *bytes = nullptr;
  // Scratch reused across instructions to avoid reallocation.
  std::vector<uint8_t> scratchA, scratchB, scratchC;
  /// tileC: a compare's or select's b with its broadcast expanded.
  Tile tileA, tileB, tileC, tileD;
  /// emb.gather's segment bounds, lists and row accumulators.
  struct GatherScratch {
    std::vector<uint64_t> begin;
    std::vector<uint8_t> lens, indices, weights;
    std::vector<float> acc, row;
  } gather;
  /// Weight tiles mm repacked from the MRF, reused while the MRF's
  /// writeCount() of their bytes is the one they were packed at: pinned or
  /// resident weights are repacked once, not by every mm that multiplies by
  /// them. Block formats are unpacked into exponents / scales and element
  /// codes; f32 and int8 tiles into the layouts of Numerics/PackedMatVec.h.
  struct DecodedWeights {
    enum class Layout : uint8_t { BlockCodes, TransposedF32, QuadsI8 };
    uint64_t addr = 0, n = 0, k = 0, writes = 0;
    isa::DType wt = isa::DType::F32;
    Layout layout = Layout::BlockCodes;
    /// Activation rows multiplied by the tile at these writes: the f32 and
    /// int8 layouts are built once enough rows repay the repacking.
    uint64_t rows = 0;
    bool packed = false;
    std::vector<uint8_t> scales, codes;
    std::vector<float> floats;
    std::vector<int32_t> sums;
  };
  /// By MRF address / kWeightSlotBytes (the MRF's tile alignment), created
  /// on first use: a lookup is an index, not a hash.
  static constexpr uint64_t kWeightSlotBytes = 64;
  std::vector<std::unique_ptr<DecodedWeights>> decodedWeights;
  /// Weights outside the MRF: nothing counts their writes, so never reused.
  DecodedWeights uncountedWeights;
};

/// Result of one instruction.
struct ExecResult {
  /// Cycles the queue (or chain) is busy.
  uint64_t cycles = 0;
  /// Cycles after that until the result is visible (memory latency of a
  /// DMA or gather); the queue takes its next instruction meanwhile.
  uint64_t latency = 0;
  /// A posted write (dma.st): its tokens go out once the source is read,
  /// not when the data lands; the memory orders later reads behind it.
  bool posted = false;
  uint64_t macs = 0;
  double peakMacCycles = 0;
  /// emb.gather: entries read from the index (and weight) list, the extent
  /// of those operands that the footprint at dispatch cannot know.
  uint64_t listEntries = 0;
};

/// Matrix unit: `mm`.
Error executeMatrix(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                    ExecResult &res);
/// Vector unit: v.*, vs.*.
Error executeVector(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                    ExecResult &res);
/// DMA engines: dma.ld, dma.st.
Error executeDma(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                 ExecResult &res);
/// Gather engine: emb.gather.
Error executeGather(const Op &op, const EffAddrs &eff, ExecContext &ctx,
                    ExecResult &res);

//===--- Operand helpers shared by the units (VectorUnit.cpp) -------------===//

/// Reads a rows x cols operand of type `t` (from memory at `addr` with
/// `pitch`, or from the chain) widened into `tile` in domain `asFloat`.
Error readTile(ExecContext &ctx, isa::Space space, uint64_t addr,
               uint64_t pitch, isa::DType t, uint64_t rows, uint64_t cols,
               bool asFloat, Tile &tile);
/// Writes `tile` converted to `t` to memory (unless `space` is chain) and,
/// if `toChain`, into the chain register.
Error writeTile(ExecContext &ctx, isa::Space space, uint64_t addr,
                uint64_t pitch, isa::DType t, const Tile &tile, bool toChain);

} // namespace nnaccel::emulator

#endif // NNACCEL_LIB_EMULATOR_UNITS_H
