//===- RaceDetector.cpp - Vector clocks and per-memory access history -----===//
//
// The interval structure of AccessHistory: a map from segment start to a
// segment [start, end) whose bytes share one history (last write, reads
// since). An access first checks every segment it overlaps, then splits the
// segments at its boundaries and updates the ones inside: a write replaces
// them all by one segment, a read adds itself to each (filling gaps with new
// segments) and equal neighbours are merged again, so the map stays about as
// small as the number of live buffers.
//
//===----------------------------------------------------------------------===//

#include "RaceDetector.h"

#include <algorithm>
#include <iterator>

namespace nnaccel::emulator {

void joinClock(VectorClock &dst, const VectorClock &src) {
  if (dst.size() < src.size())
    dst.resize(src.size(), 0);
  for (size_t i = 0; i < src.size(); ++i)
    dst[i] = std::max(dst[i], src[i]);
}

void AccessHistory::split(uint64_t x) {
  auto j = segs_.upper_bound(x);
  if (j == segs_.begin())
    return;
  --j;
  if (j->first < x && j->second.end > x) {
    Segment tail = j->second;
    j->second.end = x;
    segs_.emplace_hint(std::next(j), x, std::move(tail));
  }
}

void AccessHistory::merge(uint64_t from, uint64_t to) {
  auto j = segs_.lower_bound(from);
  if (j != segs_.begin() && std::prev(j)->second.end == from)
    --j;
  while (j != segs_.end()) {
    auto n = std::next(j);
    if (n == segs_.end() || n->first > to)
      break;
    if (j->second.end == n->first && j->second.sameState(n->second)) {
      j->second.end = n->second.end;
      segs_.erase(n);
      continue;
    }
    j = n;
  }
}

void AccessHistory::addRead(Segment &g, const AccessRecord &a,
                            const VectorClock &vc) {
  // Reads ordered before `a` (including the agent's own) are subsumed: any
  // later write racing with them races with `a` too.
  auto stale = [&](const AccessRecord &r) { return r.orderedBefore(vc); };
  if (!g.moreReads.empty())
    g.moreReads.erase(
        std::remove_if(g.moreReads.begin(), g.moreReads.end(), stale),
        g.moreReads.end());
  if (!g.read.valid() || stale(g.read)) {
    if (g.moreReads.empty()) {
      g.read = a;
      return;
    }
    g.read = g.moreReads.front();
    g.moreReads.erase(g.moreReads.begin());
  }
  g.moreReads.push_back(a);
}

std::optional<RaceReport> AccessHistory::access(const AccessRecord &a,
                                                bool write,
                                                const VectorClock &vc) {
  if (a.start < 0 || a.end <= a.start)
    return std::nullopt;
  auto s = static_cast<uint64_t>(a.start), e = static_cast<uint64_t>(a.end);

  // Check against every overlapping segment, lowest address first.
  auto first = segs_.upper_bound(s);
  if (first != segs_.begin() && std::prev(first)->second.end > s)
    --first;
  for (auto j = first; j != segs_.end() && j->first < e; ++j) {
    const Segment &g = j->second;
    auto report = [&](const AccessRecord &r, bool w) {
      return RaceReport{r, w, std::max(j->first, s), std::min(g.end, e)};
    };
    if (g.write.valid() && !g.write.orderedBefore(vc))
      return report(g.write, true);
    if (!write)
      continue;
    if (g.read.valid() && !g.read.orderedBefore(vc))
      return report(g.read, false);
    for (const AccessRecord &r : g.moreReads)
      if (!r.orderedBefore(vc))
        return report(r, false);
  }

  split(s);
  split(e);
  if (write) {
    auto j = segs_.lower_bound(s);
    j = segs_.erase(j, segs_.lower_bound(e));
    Segment g;
    g.end = e;
    g.write = a;
    segs_.emplace_hint(j, s, std::move(g));
    return std::nullopt;
  }
  uint64_t cur = s;
  auto j = segs_.lower_bound(s);
  while (cur < e) {
    if (j == segs_.end() || j->first > cur) {
      Segment g;
      g.end = j == segs_.end() ? e : std::min(e, j->first);
      g.read = a;
      uint64_t gapStart = cur;
      cur = g.end;
      segs_.emplace_hint(j, gapStart, std::move(g));
      continue;
    }
    addRead(j->second, a, vc);
    cur = j->second.end;
    ++j;
  }
  merge(s, e);
  return std::nullopt;
}

} // namespace nnaccel::emulator
