//===- nnaccel-pkg.cpp - Inspect and verify .nnpkg packages ---------------===//
//
// A small operator's tool for model packages:
//
//   nnaccel-pkg info [--ops] [--ir] model.nnpkg   summary (validates first)
//   nnaccel-pkg verify model.nnpkg...              full validation, "OK"/error
//
// Both commands run the complete reader validation (header, layout, CRCs,
// FlatBuffers verifier, semantic rules), so `info` never prints a summary of
// a package the runtime would refuse. Exit status: 0 valid, 1 invalid, 2
// usage error.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Package/Package.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace nnaccel::package;

namespace {

void usage(std::FILE *out) {
  fmt::print(out,
             "usage: nnaccel-pkg info [--ops] [--ir] <model.nnpkg>\n"
             "       nnaccel-pkg verify <model.nnpkg>...\n"
             "\n"
             "  info    validate the package and print a summary of its "
             "manifest\n"
             "          --ops  also list every host op and card program\n"
             "          --ir   also print the embedded final IR text\n"
             "  verify  validate each package (header, checksums, manifest)\n");
}

std::string formatBytes(uint64_t n) {
  if (n < 10 * 1024)
    return fmt::format("{} B", n);
  if (n < 10ull * 1024 * 1024)
    return fmt::format("{:.1f} KiB", n / 1024.0);
  if (n < 10ull * 1024 * 1024 * 1024)
    return fmt::format("{:.1f} MiB", n / (1024.0 * 1024.0));
  return fmt::format("{:.1f} GiB", n / (1024.0 * 1024.0 * 1024.0));
}

std::string formatType(const TensorType &t) {
  std::string s;
  for (int64_t d : t.shape)
    s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  s += toString(t.dtype);
  if (t.quant)
    s += fmt::format(
        " (quantised {}, {} scale{}{})", toString(t.quant->storage),
        t.quant->scales.size(), t.quant->scales.size() == 1 ? "" : "s",
        t.quant->axis >= 0 ? fmt::format(", axis {}", t.quant->axis)
                           : std::string());
  return s;
}

std::string formatAttr(const AttrValue &v) {
  if (const auto *i = std::get_if<int64_t>(&v))
    return std::to_string(*i);
  if (const auto *d = std::get_if<double>(&v))
    return fmt::format("{}", *d);
  if (const auto *s = std::get_if<std::string>(&v))
    return fmt::format("\"{}\"", *s);
  if (const auto *iv = std::get_if<std::vector<int64_t>>(&v))
    return fmt::format("[{}]", fmt::join(*iv, ", "));
  return fmt::format("[{}]", fmt::join(std::get<std::vector<double>>(v), ", "));
}

void printPorts(const char *title, const std::vector<Port> &ports,
                const ModelDesc &m) {
  fmt::print("{}:\n", title);
  for (const Port &p : ports) {
    fmt::print("  {}: {}", p.name, formatType(p.type));
    std::vector<std::string> padded;
    for (size_t d = 0; d < p.bucketIndex.size(); ++d)
      if (p.bucketIndex[d] >= 0)
        padded.push_back(
            fmt::format("dim {} = {}", d, m.bucketNames[p.bucketIndex[d]]));
    if (!padded.empty())
      fmt::print("  [bucketed: {}]", fmt::join(padded, ", "));
    if (p.lengthOf >= 0 &&
        static_cast<size_t>(p.lengthOf) < m.bucketNames.size())
      fmt::print("  [true length of {}, fed by the runtime]",
                 m.bucketNames[p.lengthOf]);
    fmt::print("\n");
  }
}

void printInfo(const Package &pkg, bool ops, bool ir) {
  const ModelDesc &m = pkg.model();
  const FileHeader &h = pkg.header();
  fmt::print("model:     {}\n", m.name.empty() ? "(unnamed)" : m.name);
  fmt::print("producer:  {} {}\n", m.producer, m.producerVersion);
  fmt::print("format:    {}.{}\n", h.versionMajor, h.versionMinor);
  fmt::print("file:      {} (manifest {}, weights {})\n",
             formatBytes(h.fileSize), formatBytes(h.manifestSize),
             formatBytes(h.weightsSize));
  fmt::print("target:    {} of JSON\n", formatBytes(m.target.size()));
  fmt::print("ir:        {}\n",
             m.ir.empty() ? std::string("(none)") : formatBytes(m.ir.size()));
  printPorts("inputs", m.inputs, m);
  printPorts("outputs", m.outputs, m);
  if (!m.bucketNames.empty()) {
    // The bucket table: every bucketed dimension's sizes across variants.
    fmt::print("buckets:   {}\n", fmt::join(m.bucketNames, ", "));
    for (size_t b = 0; b < m.bucketNames.size(); ++b) {
      std::vector<int64_t> sizes;
      for (const VariantDesc &v : m.variants)
        if (b < v.bucket.size())
          sizes.push_back(v.bucket[b]);
      fmt::print("  {}: {}\n", m.bucketNames[b], fmt::join(sizes, ", "));
    }
    fmt::print("padding:   {}, pad value {}\n",
               m.exactPadding ? "exact (masked)" : "by value, not exact",
               m.padValue);
  }

  uint64_t referenced = 0;
  for (const VariantDesc &v : m.variants)
    for (const ValueDesc &val : v.values)
      if (val.weight >= 0)
        referenced += pkg.weightInfo(val.weight).size;
  fmt::print("weights:   {} stored, {} ({} before deduplication)\n",
             pkg.numWeights(), formatBytes(h.weightsSize),
             formatBytes(referenced));
  // Bytes per element type (each stored weight once), so a quantized
  // package shows what its weights became (e.g. rw4 embedding tables).
  std::map<std::string, uint64_t> byType;
  std::set<int32_t> counted;
  for (const VariantDesc &v : m.variants)
    for (const ValueDesc &val : v.values)
      if (val.weight >= 0 && counted.insert(val.weight).second)
        byType[std::string(toString(val.type.storageType()))] +=
            pkg.weightInfo(val.weight).size;
  if (!byType.empty()) {
    std::vector<std::string> parts;
    for (const auto &[type, bytes] : byType)
      parts.push_back(type + " " + formatBytes(bytes));
    fmt::print("           by type: {}\n", fmt::join(parts, ", "));
  }

  fmt::print("variants:  {}\n", m.variants.size());
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const VariantDesc &v = m.variants[i];
    fmt::print("  #{} '{}'", i, v.name);
    if (!v.bucket.empty())
      fmt::print(" bucket [{}]", fmt::join(v.bucket, ", "));
    fmt::print(": {} values, {} partitions\n", v.values.size(),
               v.partitions.size());
    if (ops)
      for (size_t id = 0; id < v.values.size(); ++id)
        if (const ValueDesc &val = v.values[id]; val.weight >= 0)
          fmt::print("    weight value {}{}: {}, {}\n", id,
                     val.name.empty() ? std::string() : " '" + val.name + "'",
                     formatType(val.type),
                     formatBytes(pkg.weightInfo(val.weight).size));
    for (size_t p = 0; p < v.partitions.size(); ++p) {
      if (const auto *host = std::get_if<HostPartitionDesc>(&v.partitions[p])) {
        fmt::print("    partition {}: host, {} ops{}\n", p, host->ops.size(),
                   host->reason.empty() ? std::string()
                                        : " (" + host->reason + ")");
        if (!ops)
          continue;
        for (const HostOpDesc &op : host->ops) {
          std::vector<std::string> attrs;
          for (const auto &[name, value] : op.attrs)
            attrs.push_back(name + "=" + formatAttr(value));
          fmt::print(
              "      {}({}) -> ({}){}{}\n", op.kind, fmt::join(op.inputs, ", "),
              fmt::join(op.outputs, ", "),
              attrs.empty()
                  ? std::string()
                  : " {" + fmt::format("{}", fmt::join(attrs, ", ")) + "}",
              op.location.empty() ? std::string() : "  @ " + op.location);
        }
        continue;
      }
      const auto &card = std::get<CardPartitionDesc>(v.partitions[p]);
      uint64_t code = 0;
      for (const CoreProgramDesc &prog : card.programs)
        code += prog.code.size();
      fmt::print("    partition {}: card {}, {} core program{} ({}), {} "
                 "bindings",
                 p, card.card, card.programs.size(),
                 card.programs.size() == 1 ? "" : "s", formatBytes(code),
                 card.bindings.size());
      if (card.modeledCycles)
        fmt::print(", {} modelled cycles", card.modeledCycles);
      if (card.hasWorkRange())
        fmt::print(", work memory [0x{:x}, 0x{:x})", card.workBegin,
                   card.workEnd);
      fmt::print("\n");
      // Pinned weights are rare and change how the partition runs, so they
      // are listed even without --ops.
      if (!card.setupPrograms.empty()) {
        std::vector<std::string> setup;
        for (const CoreProgramDesc &prog : card.setupPrograms)
          setup.push_back(fmt::format("core {} ({} instructions)", prog.core,
                                      (prog.code.size() - 32) / 32));
        fmt::print("      setup programs: {}\n", fmt::join(setup, ", "));
      }
      if (!ops)
        continue;
      for (const CoreProgramDesc &prog : card.programs)
        fmt::print("      core {}: {} instructions\n", prog.core,
                   (prog.code.size() - 32) / 32);
      for (const CoreProgramDesc &prog : card.setupPrograms)
        fmt::print("      setup core {}: {} instructions\n", prog.core,
                   (prog.code.size() - 32) / 32);
      for (const DramBindingDesc &b : card.bindings)
        fmt::print("      {} value {} at dram 0x{:x}\n", toString(b.role),
                   b.value, b.address);
    }
  }
  if (ir && !m.ir.empty())
    fmt::print("--- ir ---\n{}{}", m.ir, m.ir.back() == '\n' ? "" : "\n");
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  std::string command = argv[1];
  if (command == "-h" || command == "--help") {
    usage(stdout);
    return 0;
  }
  bool ops = false, ir = false;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    if (command == "info" && std::strcmp(argv[i], "--ops") == 0)
      ops = true;
    else if (command == "info" && std::strcmp(argv[i], "--ir") == 0)
      ir = true;
    else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fmt::print(stderr, "nnaccel-pkg: unknown option '{}'\n", argv[i]);
      usage(stderr);
      return 2;
    } else
      files.push_back(argv[i]);
  }
  if ((command != "info" && command != "verify") || files.empty() ||
      (command == "info" && files.size() != 1)) {
    usage(stderr);
    return 2;
  }

  int status = 0;
  for (const std::string &file : files) {
    Expected<Package> pkg = Package::open(file);
    if (!pkg) {
      fmt::print(stderr, "nnaccel-pkg: error: {}\n", pkg.message());
      status = 1;
      continue;
    }
    if (command == "info")
      printInfo(*pkg, ops, ir);
    else
      fmt::print("{}: OK ({} variants, {} weights, {} bytes)\n", file,
                 pkg->model().variants.size(), pkg->numWeights(), pkg->size());
  }
  return status;
}
