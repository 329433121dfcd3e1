//===- nnaccel-emu.cpp - Command-line driver for the emulator -----------===//
//
// Runs one or more programs (assembly or binary, one per core) on a target:
//
//   nnaccel-emu --target targets/default.json prog.s [--core N prog2.s ...]
//               [--card C] [--stats] [--trace out.json] [--threads N]
//               [--check-races]
//
// A program goes to the card/core named by its header (`.core` directive or
// binary header) unless --card/--core given before it override them. Any
// load or run error -- with --check-races also a data race between queues
// or cores -- is printed and the exit status is 1.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Emulator/Emulator.h"
#include "nnaccel/ISA/Asm.h"
#include "nnaccel/ISA/Encoding.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

using namespace nnaccel;

namespace {

void usage() {
  std::fputs(
      "usage: nnaccel-emu --target <target.json> [--card C] [--core N] "
      "<prog> ...\n"
      "                   [--stats] [--trace out.json] [--threads N]\n"
      "                   [--check-races] [--max-steps N]\n"
      "  <prog> is assembly text or an NNPU binary; --card/--core apply to\n"
      "  the next program (default: the program's own header).\n"
      "  --check-races fails the run on a data race: overlapping accesses\n"
      "  (one a write) of two queues or cores not ordered by tokens,\n"
      "  barriers or send/recv.\n"
      "  --max-steps fails the run after N dispatched instructions (default\n"
      "  2^36), a bound on runaway loop counts.\n",
      stderr);
}

int fail(const std::string &msg) {
  std::fprintf(stderr, "nnaccel-emu: error: %s\n", msg.c_str());
  return 1;
}

struct ProgramArg {
  std::string path;
  std::optional<unsigned> card, core;
};

std::optional<unsigned> parseUInt(const std::string &s) {
  char *end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 0);
  if (s.empty() || *end || v > 0xFFFF)
    return std::nullopt;
  return static_cast<unsigned>(v);
}

} // namespace

int main(int argc, char **argv) {
  std::string targetPath, tracePath;
  bool printStats = false;
  bool checkRaces = false;
  std::optional<uint64_t> maxSteps;
  unsigned threads = 0;
  std::vector<ProgramArg> programs;
  std::optional<unsigned> nextCard, nextCore;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *opt) -> std::optional<std::string> {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "nnaccel-emu: error: %s needs a value\n", opt);
        return std::nullopt;
      }
      return std::string(argv[++i]);
    };
    if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else if (a == "--target") {
      auto v = value("--target");
      if (!v)
        return 1;
      targetPath = *v;
    } else if (a == "--trace") {
      auto v = value("--trace");
      if (!v)
        return 1;
      tracePath = *v;
    } else if (a == "--stats") {
      printStats = true;
    } else if (a == "--check-races") {
      checkRaces = true;
    } else if (a == "--max-steps") {
      auto v = value("--max-steps");
      if (!v)
        return 1;
      char *end = nullptr;
      unsigned long long n = std::strtoull(v->c_str(), &end, 0);
      if (v->empty() || *end || n == 0 || (*v)[0] == '-')
        return fail(fmt::format("--max-steps expects a positive number, got "
                                "'{}'",
                                *v));
      maxSteps = n;
    } else if (a == "--threads" || a == "--core" || a == "--card") {
      auto v = value(a.c_str());
      if (!v)
        return 1;
      auto n = parseUInt(*v);
      if (!n)
        return fail(fmt::format("{} expects a number, got '{}'", a, *v));
      if (a == "--threads")
        threads = *n;
      else if (a == "--core")
        nextCore = n;
      else
        nextCard = n;
    } else if (!a.empty() && a[0] == '-') {
      usage();
      return fail("unknown option '" + a + "'");
    } else {
      programs.push_back({a, nextCard, nextCore});
      nextCard.reset();
      nextCore.reset();
    }
  }
  if (targetPath.empty() || programs.empty()) {
    usage();
    return 1;
  }
  auto target = isa::loadTarget(targetPath);
  if (!target)
    return fail(target.message());

  emulator::EmulatorOptions opts;
  opts.threads = threads;
  opts.trace = !tracePath.empty();
  opts.checkRaces = checkRaces;
  if (maxSteps)
    opts.maxSteps = *maxSteps;
  emulator::Emulator emu(*target, opts);
  for (const ProgramArg &p : programs) {
    std::ifstream in(p.path, std::ios::binary);
    if (!in)
      return fail("cannot open '" + p.path + "'");
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    bool binary = bytes.size() >= 4 && bytes[0] == 'N' && bytes[1] == 'N' &&
                  bytes[2] == 'P' && bytes[3] == 'U';
    auto prog =
        binary
            ? isa::decodeProgram(bytes)
            : isa::parseAsm(std::string_view(
                  reinterpret_cast<const char *>(bytes.data()), bytes.size()));
    if (!prog)
      return fail(p.path + ": " + prog.message());
    if (p.card)
      prog->card = static_cast<uint16_t>(*p.card);
    if (p.core)
      prog->core = static_cast<uint16_t>(*p.core);
    if (auto e = emu.loadProgram(*prog))
      return fail(p.path + ": " + e.message());
  }
  auto stats = emu.run();
  if (!tracePath.empty())
    if (auto e = emu.writeTrace(tracePath))
      return fail(e.message());
  if (!stats)
    return fail(stats.message());
  if (printStats)
    std::fputs(stats->summary().c_str(), stdout);
  else
    std::printf("ok: %llu cycles (%.3f us)\n",
                static_cast<unsigned long long>(stats->totalCycles),
                stats->microseconds());
  return 0;
}
