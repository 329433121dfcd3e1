//===- Trace.cpp - Chrome / Perfetto trace-event JSON -------------------===//
//
// Writes the recorded instruction spans in the Chrome trace-event format
// (loadable in chrome://tracing and ui.perfetto.dev): one process per card,
// one thread (track) per core and queue -- "core N ld/ex/st" plus
// "core N dispatch" for barrier waits. Timestamps are microseconds of
// modelled time (cycles / clock_mhz); each event carries its cycle range, pc
// and disassembly in `args`.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"

#include "nnaccel/ISA/Asm.h"

#include <nlohmann/json.hpp>

namespace nnaccel::emulator {

using namespace isa;

std::string buildTraceJson(const TargetDesc &target,
                           const std::vector<std::unique_ptr<Card>> &cards) {
  static const char *const Tracks[4] = {"ld", "ex", "st", "dispatch"};
  double mhz = target.clockMHz > 0 ? target.clockMHz : 1.0;
  nlohmann::json events = nlohmann::json::array();
  for (const auto &cp : cards) {
    const Card &card = *cp;
    events.push_back(
        {{"name", "process_name"},
         {"ph", "M"},
         {"pid", card.index},
         {"args", {{"name", "card " + std::to_string(card.index)}}}});
    for (const Core &c : card.cores) {
      if (!c.loaded)
        continue;
      for (unsigned t = 0; t < 4; ++t) {
        unsigned tid = c.index * 4 + t;
        events.push_back({{"name", "thread_name"},
                          {"ph", "M"},
                          {"pid", card.index},
                          {"tid", tid},
                          {"args",
                           {{"name", "core " + std::to_string(c.index) + " " +
                                         Tracks[t]}}}});
        events.push_back({{"name", "thread_sort_index"},
                          {"ph", "M"},
                          {"pid", card.index},
                          {"tid", tid},
                          {"args", {{"sort_index", tid}}}});
      }
    }
    for (const TraceEvent &e : card.events) {
      const Core &c = card.cores[e.core];
      std::string name, text;
      for (uint32_t i = 0; i < e.members; ++i) {
        if (e.pc + i >= c.program.instructions.size())
          break;
        const Instruction &inst = c.program.instructions[e.pc + i];
        name += (i ? "+" : "") + std::string(inst.desc().mnemonic);
        text += (i ? "\n" : "") + printInstruction(inst);
      }
      if (e.track == 3)
        name = "barrier wait";
      events.push_back({{"name", name},
                        {"cat", Tracks[e.track]},
                        {"ph", "X"},
                        {"pid", card.index},
                        {"tid", e.core * 4u + e.track},
                        {"ts", static_cast<double>(e.start) / mhz},
                        {"dur", static_cast<double>(e.end - e.start) / mhz},
                        {"args",
                         {{"pc", e.pc},
                          {"start_cycle", e.start},
                          {"end_cycle", e.end},
                          {"asm", text}}}});
    }
  }
  nlohmann::json doc = {
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ns"},
      {"otherData", {{"target", target.name}, {"clock_mhz", target.clockMHz}}}};
  return doc.dump();
}

} // namespace nnaccel::emulator
