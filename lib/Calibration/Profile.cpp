//===- Profile.cpp - Calibration statistics of a graph, on disk -----------===//
//
// The file is written one value per line (each value compact) so that it
// stays readable and diffable; it is read with llvm::json, whose paths name
// the entry a structural error is in. What llvm::json cannot check (a key
// without a node or input name, inconsistent statistics, duplicates) is
// checked here with the entry's index in the message.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Calibration/Profile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include <optional>

using namespace mlir;
using namespace mlir::nnaccel::calibration;
namespace json = llvm::json;

static constexpr llvm::StringLiteral kFormat = "nnaccel-calibration-profile";
static constexpr int64_t kVersion = 1;

std::string
mlir::nnaccel::calibration::computeGraphFingerprint(func::FuncOp func) {
  llvm::MD5 hash;
  std::string text;
  llvm::raw_string_ostream os(text);
  for (Type type : func.getArgumentTypes())
    os << type << ";";
  os << "\n";
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == func)
      return;
    os << op->getName() << "(" << op->getNumOperands() << ")";
    for (Type type : op->getResultTypes())
      os << " " << type;
    os << "\n";
  });
  hash.update(text);
  llvm::MD5::MD5Result result;
  hash.final(result);
  return result.digest().str().str();
}

//===----------------------------------------------------------------------===//
// Writing.
//===----------------------------------------------------------------------===//

/// Writes one entry of "values": key first, then the statistics.
static void writeValue(json::OStream &out, const ValueKey &key,
                       const ValueStatistics &stats) {
  ArrayRef<uint64_t> bins = stats.getBins();
  size_t first = 0, end = bins.size();
  while (first < end && bins[first] == 0)
    ++first;
  while (end > first && bins[end - 1] == 0)
    --end;
  out.object([&] {
    if (key.isArgument()) {
      out.attribute("input", key.name);
    } else {
      out.attribute("node", key.name);
      out.attribute("op", key.op);
      out.attribute("result", int64_t(key.result));
      out.attribute("occurrence", int64_t(key.occurrence));
    }
    if (!stats.empty()) {
      out.attribute("min", stats.getMin());
      out.attribute("max", stats.getMax());
      out.attribute("range", stats.getRange());
    }
    out.attribute("non_finite", stats.getNonFinite());
    out.attribute("first_bin", int64_t(first));
    out.attributeArray("counts", [&] {
      for (uint64_t count : bins.slice(first, end - first))
        out.value(count);
    });
  });
}

LogicalResult mlir::nnaccel::calibration::writeProfile(const Profile &profile,
                                                       StringRef path,
                                                       Location loc) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file)
    return emitError(loc) << "cannot write profile '" << path << "': " << error;
  llvm::raw_ostream &os = file->os();
  auto field = [&](StringRef name, json::Value value) {
    os << "  " << json::Value(name) << ": " << value << ",\n";
  };
  os << "{\n";
  field("format", kFormat);
  field("version", kVersion);
  field("fingerprint", profile.fingerprint);
  field("samples", profile.numSamples);
  field("bins", int64_t(ValueStatistics::kNumBins));
  os << "  \"values\": [";
  llvm::ListSeparator separator(",");
  for (const auto &[key, stats] : profile.values) {
    os << separator << "\n    ";
    json::OStream out(os);
    writeValue(out, key, stats);
  }
  os << "\n  ]\n}\n";
  file->keep();
  return success();
}

//===----------------------------------------------------------------------===//
// Reading.
//===----------------------------------------------------------------------===//

namespace {
/// One entry of "values" as written, before its consistency is checked.
struct RawValue {
  std::optional<std::string> input, node, op;
  int64_t result = 0, occurrence = 0;
  uint64_t nonFinite = 0;
  double min = 0, max = 0, range = 0;
  int64_t firstBin = 0;
  std::vector<uint64_t> counts;
};

struct RawProfile {
  std::string format;
  int64_t version = 0;
  std::string fingerprint;
  uint64_t samples = 0;
  int64_t bins = 0;
  std::vector<RawValue> values;
};

bool fromJSON(const json::Value &value, RawValue &raw, json::Path path) {
  json::ObjectMapper o(value, path);
  if (!o || !o.mapOptional("input", raw.input) ||
      !o.mapOptional("node", raw.node) || !o.mapOptional("op", raw.op) ||
      !o.mapOptional("result", raw.result) ||
      !o.mapOptional("occurrence", raw.occurrence) ||
      !o.map("non_finite", raw.nonFinite) ||
      !o.map("first_bin", raw.firstBin) || !o.map("counts", raw.counts))
    return false;
  // An empty histogram has no min, max or range.
  if (raw.counts.empty())
    return true;
  return o.map("min", raw.min) && o.map("max", raw.max) &&
         o.map("range", raw.range);
}

bool fromJSON(const json::Value &value, RawProfile &raw, json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.map("format", raw.format) && o.map("version", raw.version) &&
         o.map("fingerprint", raw.fingerprint) &&
         o.map("samples", raw.samples) && o.map("bins", raw.bins) &&
         o.map("values", raw.values);
}

/// The key and statistics of one entry, or a message saying what is wrong.
llvm::Expected<std::pair<ValueKey, ValueStatistics>>
convertValue(RawValue raw) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  ValueKey key;
  if (raw.input) {
    if (raw.node || raw.op)
      return fail("has both 'input' and 'node'/'op'");
    key.name = *raw.input;
  } else {
    if (!raw.node || !raw.op || raw.op->empty())
      return fail("names neither an input nor a node and op");
    if (raw.result < 0 || raw.occurrence < 0)
      return fail("has a negative result or occurrence");
    key = ValueKey{*raw.node, *raw.op, unsigned(raw.result),
                   unsigned(raw.occurrence)};
  }
  size_t numBins = ValueStatistics::kNumBins;
  if (raw.firstBin < 0 || size_t(raw.firstBin) > numBins ||
      raw.counts.size() > numBins - size_t(raw.firstBin))
    return fail(llvm::formatv("has {0} counts from bin {1}, past the {2} bins",
                              raw.counts.size(), raw.firstBin, numBins));
  std::vector<uint64_t> bins(numBins, 0);
  llvm::copy(raw.counts, bins.begin() + raw.firstBin);
  llvm::Expected<ValueStatistics> stats = ValueStatistics::fromParts(
      raw.min, raw.max, raw.range, raw.nonFinite, std::move(bins));
  if (!stats)
    return stats.takeError();
  return std::make_pair(std::move(key), std::move(*stats));
}
} // namespace

FailureOr<Profile> mlir::nnaccel::calibration::readProfile(StringRef path,
                                                           func::FuncOp func,
                                                           Location loc) {
  auto malformed = [&]() {
    return emitError(loc) << "profile '" << path << "' is malformed: ";
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return emitError(loc) << "cannot read profile '" << path
                          << "': " << buffer.getError().message();
  llvm::Expected<json::Value> document = json::parse((*buffer)->getBuffer());
  if (!document)
    return malformed() << llvm::toString(document.takeError());
  // What the file is, and which version, before how it is laid out: a
  // later version may lay it out differently.
  const json::Object *object = document->getAsObject();
  std::optional<StringRef> format =
      object ? object->getString("format") : std::nullopt;
  if (format != kFormat)
    return emitError(loc) << "'" << path
                          << "' is not a calibration profile (its 'format' "
                             "is not \""
                          << kFormat << "\")";
  if (std::optional<int64_t> version = object->getInteger("version");
      version != kVersion)
    return emitError(loc) << "profile '" << path << "' has version "
                          << (version ? std::to_string(*version) : "(none)")
                          << "; this compiler reads version " << kVersion;
  json::Path::Root root("profile");
  RawProfile raw;
  if (!fromJSON(*document, raw, root))
    return malformed() << llvm::toString(root.getError());
  if (raw.bins != ValueStatistics::kNumBins)
    return malformed() << "its histograms have " << raw.bins
                       << " bins; this compiler uses "
                       << ValueStatistics::kNumBins;
  std::string fingerprint = computeGraphFingerprint(func);
  if (raw.fingerprint != fingerprint)
    return emitError(loc)
           << "profile '" << path
           << "' was recorded for another graph (fingerprint "
           << raw.fingerprint << ", this graph's is " << fingerprint
           << "); calibrate again for this model and these input shapes";

  Profile profile;
  profile.fingerprint = raw.fingerprint;
  profile.numSamples = raw.samples;
  for (auto [index, rawValue] : llvm::enumerate(raw.values)) {
    llvm::Expected<std::pair<ValueKey, ValueStatistics>> value =
        convertValue(std::move(rawValue));
    if (!value)
      return malformed() << "values[" << index
                         << "]: " << llvm::toString(value.takeError());
    auto &[key, stats] = *value;
    if (!profile.values.try_emplace(key, std::move(stats)).second)
      return malformed() << "values[" << index << "]: a second entry for "
                         << key.describe();
  }
  return profile;
}
