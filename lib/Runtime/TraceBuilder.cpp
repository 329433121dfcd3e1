//===- TraceBuilder.cpp - One Chrome trace for a whole run ----------------===//
//
// Track layout per partition process: tid 0 "partition" carries one summary
// span for the whole partition (preceded by a "setup" span when the launch
// ran setup programs first); host ops go on tid 1 "host ops"; emulator
// tracks keep their own tids (core * 5 + track, always >= 0), shifted by 2 so
// they never collide with the two above, and by a block per card, since a
// launch runs several cards' partitions in one process: "card C core N
// ld/ex/st/dispatch/link" -- each card's timeline and the messages it
// sends.
//
//===----------------------------------------------------------------------===//

#include "TraceBuilder.h"

#include <nlohmann/json.hpp>

namespace nnaccel {
namespace runtime {

using nlohmann::json;

namespace {
constexpr int64_t SummaryTid = 0;
constexpr int64_t HostOpsTid = 1;
constexpr int64_t EmulatorTidBase = 2;
/// Tids per card: more than any card's cores times their tracks.
constexpr int64_t TidsPerCard = 1 << 12;

json threadName(unsigned pid, int64_t tid, const std::string &name) {
  return {{"name", "thread_name"},
          {"ph", "M"},
          {"pid", pid},
          {"tid", tid},
          {"args", {{"name", name}}}};
}
} // namespace

struct TraceBuilder::Events {
  json list = json::array();
  double partitionStart = 0;
  bool hostTrackNamed = false;
};

TraceBuilder::TraceBuilder() : events(std::make_unique<Events>()) {}
TraceBuilder::~TraceBuilder() = default;

void TraceBuilder::beginPartition(unsigned partition,
                                  const std::string &label) {
  pid = partition;
  events->partitionStart = cursor;
  events->hostTrackNamed = false;
  events->list.push_back({{"name", "process_name"},
                          {"ph", "M"},
                          {"pid", pid},
                          {"args", {{"name", label}}}});
  events->list.push_back({{"name", "process_sort_index"},
                          {"ph", "M"},
                          {"pid", pid},
                          {"args", {{"sort_index", pid}}}});
  events->list.push_back(threadName(pid, SummaryTid, "partition"));
}

void TraceBuilder::addHostOp(const std::string &name,
                             const std::string &location, double startMicros,
                             double durMicros) {
  if (!events->hostTrackNamed) {
    events->list.push_back(threadName(pid, HostOpsTid, "host ops (wall time)"));
    events->hostTrackNamed = true;
  }
  events->list.push_back({{"name", name},
                          {"cat", "host"},
                          {"ph", "X"},
                          {"pid", pid},
                          {"tid", HostOpsTid},
                          {"ts", events->partitionStart + startMicros},
                          {"dur", durMicros},
                          {"args", {{"location", location}}}});
}

void TraceBuilder::addEmulatorTrace(const std::string &text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("traceEvents") ||
      !doc["traceEvents"].is_array())
    return;
  for (json &e : doc["traceEvents"]) {
    if (!e.is_object())
      continue;
    // The emulator names one process per card; the partition's process
    // replaces it, and the card moves into the track.
    if (e.value("name", "") == "process_name")
      continue;
    const int64_t card = e.contains("pid") && e["pid"].is_number_integer()
                             ? e["pid"].get<int64_t>()
                             : 0;
    e["pid"] = pid;
    if (e.contains("tid") && e["tid"].is_number_integer())
      e["tid"] = e["tid"].get<int64_t>() + EmulatorTidBase + card * TidsPerCard;
    if (e.value("name", "") == "thread_name" && e.contains("args") &&
        e["args"].is_object() && e["args"].contains("name") &&
        e["args"]["name"].is_string())
      e["args"]["name"] = "card " + std::to_string(card) + " " +
                          e["args"]["name"].get<std::string>();
    if (e.value("name", "") == "thread_sort_index" && e.contains("tid"))
      e["args"] = {{"sort_index", e["tid"]}};
    if (e.contains("ts") && e["ts"].is_number())
      e["ts"] = e["ts"].get<double>() + events->partitionStart;
    events->list.push_back(std::move(e));
  }
}

void TraceBuilder::addSetup(const std::string &emulatorJson,
                            const std::string &spanName, double durMicros) {
  if (!emulatorJson.empty())
    addEmulatorTrace(emulatorJson);
  events->list.push_back({{"name", spanName},
                          {"cat", "setup"},
                          {"ph", "X"},
                          {"pid", pid},
                          {"tid", SummaryTid},
                          {"ts", events->partitionStart},
                          {"dur", durMicros}});
  // The launch, traced next, follows the setup on the same timeline.
  events->partitionStart += durMicros;
}

void TraceBuilder::endPartition(const std::string &spanName, double durMicros) {
  events->list.push_back({{"name", spanName},
                          {"cat", "partition"},
                          {"ph", "X"},
                          {"pid", pid},
                          {"tid", SummaryTid},
                          {"ts", events->partitionStart},
                          {"dur", durMicros}});
  cursor = events->partitionStart + durMicros;
}

std::string TraceBuilder::finish(const std::string &target,
                                 double clockMHz) const {
  json doc = {{"traceEvents", events->list},
              {"displayTimeUnit", "ns"},
              {"otherData",
               {{"target", target},
                {"clock_mhz", clockMHz},
                {"timeline", "card partitions in modelled time, host "
                             "partitions in measured wall time"}}}};
  // Locations come from model files: never let bad UTF-8 throw here.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace runtime
} // namespace nnaccel
