//===- Trace.cpp - Chrome / Perfetto trace-event JSON -------------------===//
//
// Writes the recorded instruction spans in the Chrome trace-event format
// (loadable in chrome://tracing and ui.perfetto.dev): one process per card,
// one thread (track) per core and queue -- "core N ld/ex/st" plus
// "core N dispatch" for barrier waits and "core N link" for the messages the
// core sends, each from its `send` until it arrives at the other card (or
// the host), so a launch's link traffic shows. Timestamps are microseconds of
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
  constexpr unsigned NumTracks = 5;
  static const char *const Tracks[NumTracks] = {"ld", "ex", "st", "dispatch",
                                                "link"};
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
      for (unsigned t = 0; t < NumTracks; ++t) {
        unsigned tid = c.index * NumTracks + t;
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
      nlohmann::json args = {{"pc", e.pc},
                             {"start_cycle", e.start},
                             {"end_cycle", e.end},
                             {"asm", text}};
      if (e.track == 3)
        name = "barrier wait";
      if (e.track == 4 && e.pc < c.ops.size()) {
        const Op &send = c.ops[e.pc];
        name =
            (send.peer == HostPeer ? std::string("to host")
                                   : "to card " + std::to_string(send.peer)) +
            ", " + std::to_string(send.bytes) + " bytes";
        args["peer"] = send.peer;
        args["bytes"] = send.bytes;
        args["chan"] = send.chan;
      }
      events.push_back({{"name", name},
                        {"cat", Tracks[e.track]},
                        {"ph", "X"},
                        {"pid", card.index},
                        {"tid", e.core * NumTracks + e.track},
                        {"ts", static_cast<double>(e.start) / mhz},
                        {"dur", static_cast<double>(e.end - e.start) / mhz},
                        {"args", std::move(args)}});
    }
  }
  nlohmann::json doc = {
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ns"},
      {"otherData", {{"target", target.name}, {"clock_mhz", target.clockMHz}}}};
  return doc.dump();
}

} // namespace nnaccel::emulator
