//===- Emulator.h - Functional, cycle-modelled soft-NPU emulator -*- C++
//-*-===//
//
// The emulator runs one isa::Program per core on a machine described by an
// isa::TargetDesc: every core's dispatcher and ld/ex/st queues with the ISA's
// dependency tokens, barriers across the cores of a card, card-to-card and
// host transfers, and every instruction bit-exactly through lib/Numerics.
// It models time (docs/emulator.md gives the formulas) and records
// statistics and an optional Chrome/Perfetto trace.
//
// Typical use by a runtime:
//
//   auto target = isa::loadTarget("targets/default.json");
//   emulator::Emulator emu(*target);
//   emu.loadProgram(program);                         // one per core
//   emu.writeMemory(0, isa::Space::Dram, 0x1000, inputBytes);
//   auto stats = emu.run();                           // Expected<Stats>
//   auto out = emu.readMemory(0, isa::Space::Dram, 0x8000, outSize);
//
// Bad programs never crash or throw: faults (out-of-bounds or misaligned
// accesses, undecodable binaries, deadlocks, ...) come back as an Error whose
// message names the card, core, program counter and the disassembled
// instruction. Results do not depend on the number of worker threads.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_EMULATOR_EMULATOR_H
#define NNACCEL_EMULATOR_EMULATOR_H

#include "nnaccel/Emulator/Stats.h"
#include "nnaccel/ISA/Error.h"
#include "nnaccel/ISA/Program.h"
#include "nnaccel/ISA/Target.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::emulator {

using isa::Error;
using isa::Expected;

struct EmulatorOptions {
  /// Worker threads that simulate cards in parallel (a one-card launch
  /// without trace, race checking or messages: its cores, between
  /// barriers). 0 = one per card (core) up to the host's hardware
  /// concurrency, a one-card launch's cores on them only when its first
  /// runs (timed both ways after a warm-up) were faster so; 1 = everything
  /// on the calling thread; N > 1 = always on N threads.
  unsigned threads = 0;
  /// Record one trace event per executed instruction (see traceJson()).
  bool trace = false;
  /// Run per-instruction ISA verification (isa::verifyInstruction) when a
  /// program is loaded. Without it the emulator still faults cleanly.
  bool verifyOnLoad = true;
  /// Upper bound on executed steps (dispatched instructions), a guard
  /// against runaway loop counts; exceeding it is an error.
  uint64_t maxSteps = uint64_t(1) << 36;
  /// Detect data races: two accesses to overlapping bytes by different
  /// queues or cores, at least one a write, that no program order, token,
  /// barrier or send/recv orders (docs/emulator.md §7). A race fails the
  /// run with a message naming both instructions. Off by default: it keeps
  /// a vector clock per queue and an access history per memory.
  bool checkRaces = false;
  /// Replay the schedule of the first run of a loaded program set whose
  /// schedule cannot depend on data (no emb.gather, send or recv; no trace
  /// or race checking): later runs execute the recorded instructions in
  /// each core's order, the barriers kept, without the cycle-by-cycle
  /// scheduling, and report the recorded statistics (docs/emulator.md §9).
  /// Outputs are the same for a race-free program. Never with threads = 1,
  /// which keeps the exact one-thread order for every program.
  bool replaySchedules = true;
};

class Machine;

class Emulator {
public:
  explicit Emulator(const isa::TargetDesc &target,
                    EmulatorOptions options = {});
  ~Emulator();
  Emulator(const Emulator &) = delete;
  Emulator &operator=(const Emulator &) = delete;

  const isa::TargetDesc &target() const;

  //===--- Programs -------------------------------------------------------===//
  /// Installs `program` on the core named by its card/core header (replacing
  /// any previous program there).
  Error loadProgram(const isa::Program &program);
  /// Decodes a binary program file (docs/isa.md §9) and installs it.
  Error loadProgramBinary(const uint8_t *data, size_t size);
  Error loadProgramBinary(const std::vector<uint8_t> &bytes) {
    return loadProgramBinary(bytes.data(), bytes.size());
  }
  /// Parses assembly text and installs it.
  Error loadProgramAsm(std::string_view text);
  /// Loads a file: binary if it starts with the "NNPU" magic, else assembly.
  Error loadProgramFile(const std::string &path);
  /// Removes all programs (memories are kept).
  void clearPrograms();

  //===--- Host interface -------------------------------------------------===//
  /// Writes/reads `space` of `card` (and, for vrf/mrf/acc, of `core`).
  /// Errors on a bad card/core/space or an out-of-range access.
  Error writeMemory(unsigned card, isa::Space space, uint64_t addr,
                    const void *data, size_t size, unsigned core = 0);
  Error writeMemory(unsigned card, isa::Space space, uint64_t addr,
                    const std::vector<uint8_t> &bytes, unsigned core = 0) {
    return writeMemory(card, space, addr, bytes.data(), bytes.size(), core);
  }
  Error readMemory(unsigned card, isa::Space space, uint64_t addr, void *out,
                   size_t size, unsigned core = 0) const;
  Expected<std::vector<uint8_t>> readMemory(unsigned card, isa::Space space,
                                            uint64_t addr, size_t size,
                                            unsigned core = 0) const;
  /// Zeroes every memory of every card and core.
  void clearMemory();

  /// Queues a host -> card message on channel `chan`, received by a `recv`
  /// with peer=255 on that card (they pair in FIFO order).
  Error hostSend(unsigned card, unsigned chan, std::vector<uint8_t> data);
  /// Takes the card -> host messages sent so far on `chan` (send peer=255).
  std::vector<std::vector<uint8_t>> hostReceive(unsigned card, unsigned chan);

  //===--- Running --------------------------------------------------------===//
  /// Runs every loaded program to completion. Memories persist across runs;
  /// cores, tokens, barriers and statistics restart at cycle 0. Unconsumed
  /// host messages stay queued.
  Expected<Stats> run();
  /// Statistics of the last successful (or failed, up to the fault) run.
  const Stats &stats() const;
  /// Chrome trace-event JSON of the last run (empty trace unless
  /// EmulatorOptions::trace): one process per card, one thread per
  /// core/queue, timestamps in microseconds of modelled time.
  std::string traceJson() const;
  Error writeTrace(const std::string &path) const;

private:
  std::unique_ptr<Machine> machine_;
};

} // namespace nnaccel::emulator

#endif // NNACCEL_EMULATOR_EMULATOR_H
