//===- Target.cpp - Target description parsing ----------------------------===//
//
// Reads targets/*.json into a TargetDesc. Parsing is strict: every required
// key must be present, every number in range, and unknown keys are rejected,
// because a misspelt key silently falling back to a default would make cycle
// estimates and verifier limits quietly wrong. nlohmann::json throws; all of
// that is contained here and turned into Error messages naming the key path.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Target.h"

#include "nnaccel/ISA/Program.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

namespace nnaccel::isa {

namespace {

using nlohmann::json;

/// Walks a JSON object, remembering which keys were read so unknown ones can
/// be reported.
class ObjectReader {
public:
  ObjectReader(const json &obj, std::string path, std::string &error)
      : obj_(obj), path_(std::move(path)), error_(error) {
    if (!obj_.is_object())
      fail(path_.empty() ? "<root>" : path_, "must be an object");
  }

  bool ok() const { return error_.empty(); }

  std::string key(std::string_view k) const {
    return path_.empty() ? std::string(k) : path_ + "." + std::string(k);
  }

  const json *find(std::string_view k, bool required) {
    if (!ok() || !obj_.is_object())
      return nullptr;
    seen_.insert(std::string(k));
    auto it = obj_.find(std::string(k));
    if (it == obj_.end()) {
      if (required)
        fail(key(k), "missing required key");
      return nullptr;
    }
    return &*it;
  }

  uint64_t getUInt(std::string_view k, uint64_t lo, uint64_t hi,
                   bool required = true, uint64_t dflt = 0) {
    const json *v = find(k, required);
    if (!v)
      return dflt;
    if (!v->is_number_integer() ||
        (v->is_number_integer() && !v->is_number_unsigned() &&
         v->get<int64_t>() < 0)) {
      fail(key(k),
           fmt::format("expected a non-negative integer, got {}", v->dump()));
      return dflt;
    }
    uint64_t x = v->get<uint64_t>();
    if (x < lo || x > hi) {
      fail(key(k), fmt::format("must be in [{}, {}], got {}", lo, hi, x));
      return dflt;
    }
    return x;
  }

  double getNumber(std::string_view k, double lo, double hi,
                   bool required = true, double dflt = 0) {
    const json *v = find(k, required);
    if (!v)
      return dflt;
    if (!v->is_number()) {
      fail(key(k), fmt::format("expected a number, got {}", v->dump()));
      return dflt;
    }
    double x = v->get<double>();
    if (!(x >= lo && x <= hi)) {
      fail(key(k), fmt::format("must be in [{}, {}], got {}", lo, hi, x));
      return dflt;
    }
    return x;
  }

  std::string getString(std::string_view k, bool required = true) {
    const json *v = find(k, required);
    if (!v)
      return {};
    if (!v->is_string()) {
      fail(key(k), fmt::format("expected a string, got {}", v->dump()));
      return {};
    }
    return v->get<std::string>();
  }

  /// Reports the first key of the object that was never read.
  void rejectUnknown() {
    if (!ok() || !obj_.is_object())
      return;
    for (auto it = obj_.begin(); it != obj_.end(); ++it)
      if (!seen_.count(it.key())) {
        fail(key(it.key()), "unknown key");
        return;
      }
  }

  void fail(const std::string &k, const std::string &msg) {
    if (error_.empty())
      error_ = k + ": " + msg;
  }

private:
  const json &obj_;
  std::string path_;
  std::string &error_;
  std::set<std::string> seen_;
};

bool isPow2(uint64_t v) { return v && !(v & (v - 1)); }

void readMemory(ObjectReader &parent, std::string_view k, MemoryDesc &m,
                bool needsBandwidth, std::string &error) {
  const json *j = parent.find(k, true);
  if (!j)
    return;
  ObjectReader r(*j, parent.key(k), error);
  m.bytes = r.getUInt("bytes", 1, uint64_t(1) << 40);
  m.align = static_cast<uint32_t>(r.getUInt("align", 1, 4096));
  if (r.ok() && !isPow2(m.align))
    r.fail(r.key("align"),
           fmt::format("must be a power of two, got {}", m.align));
  m.bytesPerCycle = r.getNumber("bytes_per_cycle", 1e-3, 1e6, needsBandwidth);
  m.latencyCycles = static_cast<uint32_t>(
      r.getUInt("latency_cycles", 0, 1u << 24, needsBandwidth));
  r.rejectUnknown();
}

/// The emulator backs every memory of the machine: on-chip memories up
/// front, DRAM through a page table sized by its capacity. Each memory is
/// bounded on its own, but cards x cores x memories can still multiply to
/// terabytes; a target (one embedded in a package, say) must not make the
/// host allocate that, so the totals are refused here, before anything is
/// allocated.
Expected<TargetDesc> checkMachineSize(TargetDesc t) {
  constexpr uint64_t MaxOnChipBytes = uint64_t(4) << 30;
  constexpr uint64_t MaxDramBytes = uint64_t(1) << 40;
  // No overflow: cards <= 254, cores <= 32, every memory <= 2^40 bytes.
  uint64_t perCore = t.memory(Space::Vrf).bytes + t.memory(Space::Mrf).bytes +
                     t.memory(Space::Acc).bytes;
  uint64_t onChip =
      t.cards * (t.memory(Space::Shared).bytes + t.coresPerCard * perCore);
  if (onChip > MaxOnChipBytes)
    return Error::make(fmt::format(
        "the on-chip memories total {} bytes over {} card(s) x {} core(s), "
        "more than the {} bytes the emulator can back",
        onChip, t.cards, t.coresPerCard, MaxOnChipBytes));
  uint64_t dram = t.cards * t.memory(Space::Dram).bytes;
  if (dram > MaxDramBytes)
    return Error::make(
        fmt::format("dram totals {} bytes over {} card(s), more than the {} "
                    "bytes the emulator can back",
                    dram, t.cards, MaxDramBytes));
  return t;
}

Expected<TargetDesc> parseJson(const json &root) {
  std::string error;
  TargetDesc t;
  ObjectReader r(root, "", error);
  t.name = r.getString("name");
  t.description = r.getString("description", false);
  std::string version = r.getString("isa_version");
  // Any minor up to this library's: minors only add encodings.
  int versionMinor = -1;
  for (int minor = 0; minor <= IsaVersionMinor; ++minor)
    if (version == fmt::format("{}.{}", IsaVersionMajor, minor))
      versionMinor = minor;
  if (versionMinor >= 0)
    t.isaMinor = static_cast<uint16_t>(versionMinor);
  if (r.ok() && versionMinor < 0)
    r.fail("isa_version",
           fmt::format("target is for ISA '{}', this library implements "
                       "{}.{}",
                       version, IsaVersionMajor, IsaVersionMinor));
  t.clockMHz = r.getNumber("clock_mhz", 1, 1e5);
  t.cards = static_cast<uint32_t>(r.getUInt("cards", 1, 254));
  t.coresPerCard = static_cast<uint32_t>(r.getUInt("cores_per_card", 1, 32));

  if (const json *cj = r.find("core", true)) {
    ObjectReader c(*cj, "core", error);
    t.nativeDim = static_cast<uint32_t>(c.getUInt("native_dim", 1, 4095));
    t.matrixLanes = static_cast<uint32_t>(c.getUInt("matrix_lanes", 1, 4095));
    if (c.ok() && t.nativeDim % t.matrixLanes != 0)
      c.fail("core.matrix_lanes",
             fmt::format("must divide native_dim {}, got {}", t.nativeDim,
                         t.matrixLanes));
    t.mfuCount = static_cast<uint32_t>(c.getUInt("mfu_count", 1, 8));
    t.vectorLanes = static_cast<uint32_t>(c.getUInt("vector_lanes", 1, 4096));
    t.maxChainLength =
        static_cast<uint32_t>(c.getUInt("max_chain_length", 1, 64));
    t.loopDepth = static_cast<uint32_t>(c.getUInt("loop_depth", 1, 16));
    t.tokenFifoDepth =
        static_cast<uint32_t>(c.getUInt("token_fifo_depth", 1, 256));
    t.instrQueueDepth =
        static_cast<uint32_t>(c.getUInt("instr_queue_depth", 1, 4096));
    if (const json *vj = c.find("vrf", true)) {
      ObjectReader v(*vj, "core.vrf", error);
      t.vrfRegisters = static_cast<uint32_t>(v.getUInt("registers", 1, 65536));
      t.vrfRegisterBytes =
          static_cast<uint32_t>(v.getUInt("register_bytes", 4, 1u << 20));
      MemoryDesc &m = t.memories[static_cast<size_t>(Space::Vrf)];
      m.align = static_cast<uint32_t>(v.getUInt("align", 1, 4096));
      if (v.ok() && !isPow2(m.align))
        v.fail("core.vrf.align",
               fmt::format("must be a power of two, got {}", m.align));
      m.bytes = uint64_t(t.vrfRegisters) * t.vrfRegisterBytes;
      v.rejectUnknown();
    }
    readMemory(c, "mrf", t.memories[static_cast<size_t>(Space::Mrf)], false,
               error);
    readMemory(c, "acc", t.memories[static_cast<size_t>(Space::Acc)], false,
               error);
    if (const json *mj = c.find("macs_per_cycle", true)) {
      ObjectReader m(*mj, "core.macs_per_cycle", error);
      if (m.ok()) {
        for (auto it = mj->begin(); it != mj->end(); ++it) {
          auto dt = parseDType(it.key());
          if (!dt || !isMmWeightType(*dt)) {
            m.fail(m.key(it.key()), "not an element type name");
            break;
          }
          // E5M2 weights are mm's wvar bit, an ISA 1.1 field.
          if (*dt == DType::MXFP8E5M2 && versionMinor == 0) {
            m.fail(m.key(it.key()),
                   fmt::format("needs isa_version {}.1 (mm's wvar bit), got "
                               "'{}'",
                               IsaVersionMajor, version));
            break;
          }
          uint64_t rate = m.getUInt(it.key(), 1, uint64_t(1) << 32);
          t.macsPerCycle[*dt] = rate;
          // An `mm` multiplies by one weight tile of at most N x N, so the
          // matrix unit cannot do more than N^2 MACs a cycle: a larger rate
          // would be a peak no instruction reaches, and every utilisation
          // figure divides by it.
          uint64_t tileMacs = uint64_t(t.nativeDim) * t.nativeDim;
          if (m.ok() && c.ok() && rate > tileMacs) {
            m.fail(m.key(it.key()),
                   fmt::format("must be at most native_dim^2 = {} (one N x N "
                               "weight tile a cycle), got {}",
                               tileMacs, rate));
            break;
          }
        }
        if (m.ok() && t.macsPerCycle.empty())
          m.fail("core.macs_per_cycle", "must list at least one type");
      }
    }
    c.rejectUnknown();
  }
  readMemory(r, "shared", t.memories[static_cast<size_t>(Space::Shared)], true,
             error);
  readMemory(r, "dram", t.memories[static_cast<size_t>(Space::Dram)], true,
             error);
  if (const json *lj = r.find("link", true)) {
    ObjectReader l(*lj, "link", error);
    t.linkBytesPerCycle = l.getNumber("bytes_per_cycle", 1e-3, 1e6);
    t.linkLatencyCycles =
        static_cast<uint32_t>(l.getUInt("latency_cycles", 0, 1u << 30));
    t.hostBytesPerCycle = l.getNumber("host_bytes_per_cycle", 1e-3, 1e6);
    t.hostLatencyCycles =
        static_cast<uint32_t>(l.getUInt("host_latency_cycles", 0, 1u << 30));
    l.rejectUnknown();
  }
  r.rejectUnknown();
  if (!error.empty())
    return Error::make(error);
  return checkMachineSize(t);
}

} // namespace

Expected<TargetDesc> parseTarget(std::string_view jsonText,
                                 std::string_view sourceName) {
  try {
    json root = json::parse(jsonText.begin(), jsonText.end());
    auto t = parseJson(root);
    if (!t)
      return Error::make(fmt::format("{}: {}", sourceName, t.message()));
    return t;
  } catch (const json::parse_error &e) {
    return Error::make(fmt::format("{}: invalid JSON at byte {}: {}",
                                   sourceName, e.byte, e.what()));
  } catch (const std::exception &e) {
    return Error::make(fmt::format("{}: {}", sourceName, e.what()));
  }
}

Expected<TargetDesc> loadTarget(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error::make(fmt::format("{}: cannot open target file", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseTarget(ss.str(), path);
}

} // namespace nnaccel::isa
