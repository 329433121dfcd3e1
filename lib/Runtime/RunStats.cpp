//===- RunStats.cpp - Text report of one run ------------------------------===//
//
// The report nnaccel-run --stats prints: totals first (modelled device time
// next to the wall time it took to emulate; the setup of pinned weights
// apart), then one line per partition, each card partition followed by the
// emulator's own summary, indented.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/RunStats.h"

#include <fmt/format.h>

#include <algorithm>

namespace nnaccel {
namespace runtime {

namespace {
std::string indent(const std::string &text, const std::string &prefix) {
  std::string out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos)
      end = text.size();
    out += prefix + text.substr(begin, end - begin) + "\n";
    begin = end + 1;
  }
  return out;
}
} // namespace

std::string RunStats::summary() const {
  std::string s = fmt::format("variant '{}'", variant);
  if (!target.empty())
    s += fmt::format(" on target '{}' ({} MHz)", target, clockMHz);
  s += fmt::format(": device {} cycles ({:.3f} us modelled), host partitions "
                   "{:.1f} us, emulation {:.1f} us, total {:.1f} us wall\n",
                   deviceCycles, deviceMicros, hostMicros, emulationMicros,
                   wallMicros);
  s += fmt::format("  host -> card {} bytes (weights {}), card -> host {} "
                   "bytes",
                   bytesToCard, weightBytesToCard, bytesFromCard);
  if (padBytesFilled)
    s +=
        fmt::format(", {} bytes of padding filled on the card", padBytesFilled);
  if (transferCycles)
    s += fmt::format("; transfers {} cycles ({:.3f} us modelled), not in "
                     "the device time",
                     transferCycles, transferMicros);
  s += "\n";
  if (concurrentLaunches)
    s += fmt::format("  {} launch(es) ran several cards' partitions side by "
                     "side (device and transfer cycles count the slowest "
                     "card of each)\n",
                     concurrentLaunches);
  bool pinned = std::any_of(partitions.begin(), partitions.end(),
                            [](const PartitionStats &p) { return p.hasSetup; });
  if (pinned)
    s += fmt::format("  setup of pinned weights {} cycles ({:.3f} us "
                     "modelled), not in the device time\n",
                     setupCycles, setupMicros);
  for (const PartitionStats &p : partitions) {
    if (!p.onCard) {
      s += fmt::format("  partition {}: host, {} op(s), {:.1f} us wall\n",
                       p.index, p.hostOps, p.wallMicros);
      continue;
    }
    s += fmt::format("  partition {}: card {}, {} cycles, {:.1f} us wall, "
                     "{} bytes in ({} weights), {} bytes out",
                     p.index, p.card, p.cycles, p.wallMicros, p.bytesToCard,
                     p.weightBytesToCard, p.bytesFromCard);
    // 0 on the runs that found the tiles already pinned.
    if (p.hasSetup)
      s += fmt::format(", setup {} cycles", p.setupCycles);
    s += "\n";
    s += indent(p.emulatorSummary, "    ");
  }
  return s;
}

} // namespace runtime
} // namespace nnaccel
