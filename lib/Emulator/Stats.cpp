//===- Stats.cpp - Text summary of an emulator run ----------------------===//
//
// Formats Stats for people: totals first (cycles, time at the target's
// clock, MACs and utilisation), then one line per active core with its
// queues' busy/stall cycles, then per-card memory and link traffic.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Emulator/Stats.h"

#include <fmt/format.h>

namespace nnaccel::emulator {

std::string Stats::summary() const {
  std::string s;
  s += fmt::format("target {}: {} cycles ({:.3f} us at {} MHz), {} "
                   "instructions, {} MACs, MAC utilisation {:.1f}%\n",
                   target, totalCycles, microseconds(), clockMHz, instructions,
                   macs, macUtilization * 100.0);
  static const char *const Q[3] = {"ld", "ex", "st"};
  for (const CoreStats &c : cores) {
    if (!c.active)
      continue;
    s += fmt::format("  card {} core {}: finish {} cycles, {} dispatched, "
                     "dispatch stall {}, barrier wait {}, MACs {} ({:.1f}% "
                     "util)\n",
                     c.card, c.core, c.finishCycle, c.dispatched,
                     c.dispatchStallCycles, c.barrierWaitCycles, c.macs,
                     c.macUtilization * 100.0);
    for (unsigned q = 0; q < 3; ++q) {
      const QueueStats &qs = c.queues[q];
      if (!qs.instructions)
        continue;
      s += fmt::format(
          "    {}: {} instr, busy {} ({:.1f}%), token stall {}, "
          "push stall {}, link wait {}\n",
          Q[q], qs.instructions, qs.busyCycles,
          c.finishCycle ? 100.0 * static_cast<double>(qs.busyCycles) /
                              static_cast<double>(c.finishCycle)
                        : 0.0,
          qs.tokenStallCycles, qs.pushStallCycles, qs.linkWaitCycles);
    }
  }
  for (const CardStats &c : cards) {
    std::string mem;
    for (unsigned i = 0; i < isa::NumMemSpaces; ++i) {
      if (!c.bytes.read[i] && !c.bytes.written[i])
        continue;
      mem +=
          fmt::format(" {} r{}/w{}", isa::spaceName(static_cast<isa::Space>(i)),
                      c.bytes.read[i], c.bytes.written[i]);
    }
    if (mem.empty() && !c.linkBytesSent && !c.linkBytesReceived &&
        !c.hostBytesSent && !c.hostBytesReceived)
      continue;
    s += fmt::format("  card {} bytes:{}; link sent {} received {}; host sent "
                     "{} received {}\n",
                     c.card, mem.empty() ? " none" : mem, c.linkBytesSent,
                     c.linkBytesReceived, c.hostBytesSent, c.hostBytesReceived);
  }
  return s;
}

} // namespace nnaccel::emulator
