//===- nnaccel-run.cpp - Run a model package on the runtime ---------------===//
//
//   nnaccel-run model.nnpkg --input DIR|FILE... [--expect DIR] [--output DIR]
//               [--trace out.json] [--stats] [--repeat N] [--atol A]
//               [--rtol R] [--min-cosine X] [--min-top1 P]
//               [--max-ne-delta P] [--ctr-output NAME]...
//               [--report-json FILE] [--threads N] [--check-races]
//               [--no-replay]
//
// Loads a package, feeds it inputs from an ONNX backend-test directory
// (input_0.pb, ...) or from explicit .pb/.npy files, runs it through a
// runtime Session (host kernels + the emulator), prints the modelled device
// latency next to the wall time, and optionally checks the outputs against
// reference tensors (output_0.pb, ...) -- by elementwise tolerance or, for
// quantised models, by accuracy criteria (cosine, top-1 agreement, NE
// delta) -- writes them as .npy, writes a Chrome trace, a JSON accuracy
// report and the emulator statistics. docs/runtime.md describes the output
// format and defines the accuracy figures.
//
// Exit status: 0 success (all compared outputs passed), 1 the run failed or
// an output failed its comparison, 2 usage or I/O error (bad arguments,
// unreadable package or tensor file).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/TensorIO/Compare.h"
#include "nnaccel/TensorIO/TensorIO.h"

#include "nnaccel/Numerics/Float16.h"
#include "nnaccel/Runtime/Session.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

using namespace nnaccel;
using runtime::DType;
using runtime::Tensor;
using runtime::TensorDesc;

namespace fs = std::filesystem;

namespace {

constexpr int ExitFail = 1;
constexpr int ExitUsage = 2;

/// A failure to report, with the exit status it maps to.
struct Failure {
  int code;
  std::string message;
};

void usage(std::FILE *out) {
  fmt::print(
      out,
      "usage: nnaccel-run <model.nnpkg> --input <DIR | FILE...> [options]\n"
      "\n"
      "inputs:\n"
      "  --input DIR        ONNX test-data directory: input_0.pb, input_1.pb, "
      "...\n"
      "                     in model input order\n"
      "  --input FILE...    tensor files, each 'name=path' or 'path' (.pb = "
      "ONNX\n"
      "                     TensorProto, .npy = NumPy); unnamed files take a "
      ".pb's\n"
      "                     own name if it is an input, else the next input "
      "in order\n"
      "options:\n"
      "  --expect DIR       compare output i with DIR/output_i.pb (PASS if "
      "|out-ref|\n"
      "                     <= atol + rtol*|ref| everywhere; integers "
      "exactly)\n"
      "  --atol A           absolute tolerance (default 1e-4)\n"
      "  --rtol R           relative tolerance (default 1e-3)\n"
      "accuracy criteria (instead of atol/rtol, which still apply if given "
      "too):\n"
      "  --min-cosine X     pass when the cosine similarity is >= X\n"
      "  --min-top1 P       [batch, classes] outputs: pass when >= P percent "
      "of the\n"
      "                     rows have the reference's argmax as their own\n"
      "  --max-ne-delta P   CTR outputs: pass when the normalised-entropy "
      "delta is\n"
      "                     <= P percent\n"
      "  --ctr-output NAME  treat output NAME as CTR probabilities (logits "
      "if any\n"
      "                     value is outside [0, 1]); repeatable. Outputs "
      "whose\n"
      "                     reference lies in [0, 1] are CTR outputs "
      "anyway\n"
      "  --report-json FILE write the per-output accuracy figures as JSON\n"
      "  --output DIR       write output i to DIR/output_i.npy\n"
      "  --trace FILE       write a Chrome trace (per-instruction for card "
      "partitions)\n"
      "  --stats            print per-partition and emulator statistics\n"
      "  --repeat N         run N times; print wall-time statistics\n"
      "  --threads N        emulator worker threads (0 = automatic, default:\n"
      "                     one per card; a one-card launch's cores on them\n"
      "                     when its first runs measured that faster)\n"
      "  --check-races      fail a card partition on a data race between its\n"
      "                     queues or cores (accesses not ordered by tokens,\n"
      "                     barriers or send/recv)\n"
      "  --no-replay        schedule every run cycle by cycle (by default a\n"
      "                     launch whose schedule cannot depend on data\n"
      "                     replays its first run's schedule: the same\n"
      "                     outputs and statistics, faster)\n"
      "  --no-verify-weights  skip the weights CRC check on load\n"
      "Options with a value also take it as --option=VALUE.\n"
      "exit status: 0 ok, 1 run failed or an output failed, 2 usage/IO "
      "error\n");
}

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::string expect, output, trace;
  bool stats = false;
  bool verifyWeights = true;
  bool checkRaces = false;
  bool replay = true;
  unsigned repeat = 1;
  unsigned threads = 0;
  /// Tolerance and accuracy criteria; `alsoTolerance` records --atol/--rtol.
  tensorio::Criteria criteria;
  std::vector<std::string> ctrOutputs;
  std::string reportJson;
  /// The options given that only make sense with --expect, for the error.
  std::vector<std::string> needExpect;
};

std::optional<double> parseDouble(const std::string &s) {
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || errno || !std::isfinite(v) || v < 0)
    return std::nullopt;
  return v;
}

/// A finite number in [lo, hi]; percentages may end in '%'.
std::optional<double> parseNumberIn(std::string s, double lo, double hi,
                                    bool percent) {
  if (percent && !s.empty() && s.back() == '%')
    s.pop_back();
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end || errno || !std::isfinite(v) || v < lo || v > hi)
    return std::nullopt;
  return v;
}

std::optional<unsigned> parseCount(const std::string &s, unsigned max) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) {
        return c >= '0' && c <= '9';
      }))
    return std::nullopt;
  unsigned long v = std::stoul(s);
  if (v > max)
    return std::nullopt;
  return static_cast<unsigned>(v);
}

std::optional<Failure> parseArgs(int argc, char **argv, Options &o) {
  auto bad = [](std::string m) { return Failure{ExitUsage, std::move(m)}; };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    // --option=VALUE is --option VALUE.
    std::optional<std::string> inlineValue;
    if (size_t eq = a.find('=');
        a.rfind("--", 0) == 0 && eq != std::string::npos) {
      inlineValue = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    auto value = [&]() -> std::optional<std::string> {
      if (inlineValue)
        return inlineValue;
      if (i + 1 >= argc)
        return std::nullopt;
      return std::string(argv[++i]);
    };
    if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--input") {
      size_t before = o.inputs.size();
      if (inlineValue)
        o.inputs.push_back(*inlineValue);
      while (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0)
        o.inputs.push_back(argv[++i]);
      if (o.inputs.size() == before || (inlineValue && inlineValue->empty()))
        return bad("--input needs a directory or files");
    } else if (a == "--expect" || a == "--output" || a == "--trace" ||
               a == "--atol" || a == "--rtol" || a == "--repeat" ||
               a == "--threads" || a == "--min-cosine" || a == "--min-top1" ||
               a == "--max-ne-delta" || a == "--ctr-output" ||
               a == "--report-json") {
      std::optional<std::string> v = value();
      if (!v || v->empty())
        return bad(a + " needs a value");
      if (a == "--min-cosine" || a == "--min-top1" || a == "--max-ne-delta" ||
          a == "--ctr-output" || a == "--report-json")
        o.needExpect.push_back(a);
      tensorio::Criteria &k = o.criteria;
      if (a == "--expect")
        o.expect = *v;
      else if (a == "--output")
        o.output = *v;
      else if (a == "--trace")
        o.trace = *v;
      else if (a == "--report-json")
        o.reportJson = *v;
      else if (a == "--ctr-output")
        o.ctrOutputs.push_back(*v);
      else if (a == "--atol" || a == "--rtol") {
        std::optional<double> d = parseDouble(*v);
        if (!d)
          return bad(a + " needs a non-negative number, got '" + *v + "'");
        (a == "--atol" ? k.tol.atol : k.tol.rtol) = *d;
        k.alsoTolerance = true;
      } else if (a == "--min-cosine") {
        k.minCosine = parseNumberIn(*v, -1, 1, /*percent=*/false);
        if (!k.minCosine)
          return bad("--min-cosine needs a number in [-1, 1], got '" + *v +
                     "'");
      } else if (a == "--min-top1") {
        k.minTop1Percent = parseNumberIn(*v, 0, 100, /*percent=*/true);
        if (!k.minTop1Percent)
          return bad("--min-top1 needs a percentage in [0, 100], got '" + *v +
                     "'");
      } else if (a == "--max-ne-delta") {
        // The delta is never negative (Gibbs' inequality), so neither is a
        // useful bound.
        k.maxNeDeltaPercent = parseNumberIn(
            *v, 0, std::numeric_limits<double>::max(), /*percent=*/true);
        if (!k.maxNeDeltaPercent)
          return bad("--max-ne-delta needs a non-negative percentage, got '" +
                     *v + "'");
      } else if (a == "--repeat") {
        std::optional<unsigned> n = parseCount(*v, 1000000);
        if (!n || *n == 0)
          return bad("--repeat needs a count in [1, 1000000], got '" + *v +
                     "'");
        o.repeat = *n;
      } else {
        std::optional<unsigned> n = parseCount(*v, 1024);
        if (!n)
          return bad("--threads needs a count in [0, 1024], got '" + *v + "'");
        o.threads = *n;
      }
    } else if (inlineValue && (a == "--stats" || a == "--no-verify-weights" ||
                               a == "--check-races" || a == "--no-replay")) {
      return bad(a + " takes no value");
    } else if (a == "--stats") {
      o.stats = true;
    } else if (a == "--no-verify-weights") {
      o.verifyWeights = false;
    } else if (a == "--check-races") {
      o.checkRaces = true;
    } else if (a == "--no-replay") {
      o.replay = false;
    } else if (a.size() > 1 && a[0] == '-') {
      return bad("unknown option '" + a + "'");
    } else if (o.model.empty()) {
      o.model = a;
    } else {
      return bad("unexpected argument '" + a +
                 "' (input files go after "
                 "--input)");
    }
  }
  if (o.model.empty())
    return bad("no model package given");
  if (o.expect.empty() && !o.needExpect.empty())
    return bad(o.needExpect.front() +
               " needs --expect (it is about the comparison with reference "
               "outputs)");
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Converts `t` to `dtype` when both are float or both integer types and
/// every value survives (floats are rounded to the narrower type; integers
/// must fit). ONNX test data often stores i64 where a model takes i32.
std::optional<Tensor> convertTensor(const Tensor &t, DType dtype,
                                    std::string &error) {
  bool fromFloat = runtime::isFloatDType(t.getDType());
  bool toFloat = runtime::isFloatDType(dtype);
  if (fromFloat != toFloat) {
    error = "cannot convert between floating and integer types";
    return std::nullopt;
  }
  Tensor out = Tensor::allocate(TensorDesc(dtype, t.getShape()));
  if (out.isNull()) {
    error = "cannot allocate the converted tensor";
    return std::nullopt;
  }
  auto *dst = static_cast<uint8_t *>(out.mutableData());
  for (int64_t i = 0; i < t.getNumElements(); ++i) {
    double v = tensorio::elementAsDouble(t, i);
    if (toFloat) {
      switch (dtype) {
      case DType::F32: {
        float f = static_cast<float>(v);
        std::memcpy(dst + i * 4, &f, 4);
        break;
      }
      case DType::F64:
        std::memcpy(dst + i * 8, &v, 8);
        break;
      case DType::F16: {
        uint16_t h = numerics::fp32ToFp16(static_cast<float>(v));
        std::memcpy(dst + i * 2, &h, 2);
        break;
      }
      default: {
        uint16_t h = numerics::fp32ToBf16(static_cast<float>(v));
        std::memcpy(dst + i * 2, &h, 2);
        break;
      }
      }
      continue;
    }
    // Integers: go through int64 to stay exact for i64 sources.
    int64_t x;
    if (t.getDType() == DType::I64)
      std::memcpy(&x, static_cast<const uint8_t *>(t.data()) + i * 8, 8);
    else
      x = static_cast<int64_t>(v);
    int64_t lo = 0, hi = 0;
    size_t size = runtime::getDTypeSize(dtype);
    switch (dtype) {
    case DType::I1:
      lo = 0;
      hi = 1;
      break;
    case DType::U8:
      lo = 0;
      hi = 255;
      break;
    case DType::I8:
      lo = -128;
      hi = 127;
      break;
    case DType::I16:
      lo = -32768;
      hi = 32767;
      break;
    case DType::U16:
      lo = 0;
      hi = 65535;
      break;
    case DType::U32:
      lo = 0;
      hi = std::numeric_limits<uint32_t>::max();
      break;
    case DType::I32:
      lo = std::numeric_limits<int32_t>::min();
      hi = std::numeric_limits<int32_t>::max();
      break;
    default:
      lo = std::numeric_limits<int64_t>::min();
      hi = std::numeric_limits<int64_t>::max();
      break;
    }
    if (x < lo || x > hi) {
      error = fmt::format("element {} = {} does not fit {}", i, x,
                          runtime::getDTypeName(dtype));
      return std::nullopt;
    }
    // Little-endian truncation of an in-range value is the value.
    std::memcpy(dst + static_cast<size_t>(i) * size, &x, size);
  }
  return out;
}

/// Reads a TensorProto for a port of type `expected`. numpy has no
/// bfloat16, so the ONNX backend tests store bf16 data as UINT16 tensors of
/// the bit patterns (in int32_data or raw_data, as BFLOAT16 stores them):
/// for a bf16 port such a file is read as BFLOAT16.
tensorio::Expected<tensorio::NamedTensor>
readTensorProtoFor(const std::string &path, DType expected) {
  if (expected != DType::BF16)
    return tensorio::readTensorProto(path);
  auto bytes = tensorio::readFileBytes(path);
  if (!bytes)
    return tensorio::readTensorProto(path);
  std::vector<uint8_t> &b = bytes.value();
  // Walk the top-level fields for data_type (field 2, varint).
  size_t pos = 0;
  auto varint = [&](uint64_t &v) {
    v = 0;
    for (int shift = 0; pos < b.size() && shift < 64; shift += 7) {
      uint8_t byte = b[pos++];
      v |= uint64_t(byte & 0x7F) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  };
  while (pos < b.size()) {
    uint64_t key, value;
    if (!varint(key))
      break;
    uint64_t field = key >> 3, wire = key & 7;
    if (field == 2 && wire == 0) {
      size_t at = pos;
      if (!varint(value))
        break;
      if (value == 4 && pos == at + 1) // UINT16 -> BFLOAT16 (16), one byte
        b[at] = 16;
      break;
    }
    if (wire == 0) {
      if (!varint(value))
        break;
    } else if (wire == 1) {
      pos += 8;
    } else if (wire == 5) {
      pos += 4;
    } else if (wire == 2) {
      if (!varint(value))
        break;
      pos += value;
    } else {
      break;
    }
  }
  return tensorio::parseTensorProto(b.data(), b.size(), path);
}

std::optional<Failure> loadInputs(const Options &o, const runtime::Model &model,
                                  std::map<std::string, Tensor> &inputs,
                                  std::vector<std::string> &sources) {
  const auto &ports = model.getInputs();
  sources.assign(ports.size(), std::string());
  auto io = [](std::string m) { return Failure{ExitUsage, std::move(m)}; };
  std::vector<std::optional<tensorio::NamedTensor>> byIndex(ports.size());

  std::error_code ec;
  if (o.inputs.size() == 1 && fs::is_directory(o.inputs[0], ec)) {
    const std::string &dir = o.inputs[0];
    for (size_t i = 0; i < ports.size(); ++i) {
      std::string path =
          (fs::path(dir) / fmt::format("input_{}.pb", i)).string();
      if (!fs::exists(path, ec))
        return io(fmt::format("{}: missing for model input {} '{}'", path, i,
                              ports[i].name));
      auto t = readTensorProtoFor(path, ports[i].dtype);
      if (!t)
        return io(t.message());
      byIndex[i] = std::move(t.value());
      sources[i] = path;
    }
    std::string extra =
        (fs::path(dir) / fmt::format("input_{}.pb", ports.size())).string();
    if (fs::exists(extra, ec))
      return io(fmt::format("{}: the model has only {} input(s)", extra,
                            ports.size()));
  } else {
    for (const std::string &arg : o.inputs) {
      size_t eq = arg.find('=');
      std::string name, path = arg;
      if (eq != std::string::npos && !fs::exists(arg, ec)) {
        name = arg.substr(0, eq);
        path = arg.substr(eq + 1);
      }
      auto t = tensorio::readTensorFile(path);
      if (!t)
        return io(t.message());
      int index = -1;
      if (!name.empty()) {
        index = model.findInput(name);
        if (index < 0)
          return io(fmt::format("{}: the model has no input '{}'", path, name));
      } else if (!t->name.empty() && model.findInput(t->name) >= 0 &&
                 !byIndex[static_cast<size_t>(model.findInput(t->name))]) {
        index = model.findInput(t->name);
      } else {
        for (size_t i = 0; i < ports.size() && index < 0; ++i)
          if (!byIndex[i])
            index = static_cast<int>(i);
        if (index < 0)
          return io(fmt::format("{}: more input files than model inputs ({})",
                                path, ports.size()));
      }
      if (byIndex[static_cast<size_t>(index)])
        return io(fmt::format("{}: input '{}' is given twice", path,
                              ports[static_cast<size_t>(index)].name));
      byIndex[static_cast<size_t>(index)] = std::move(t.value());
      sources[static_cast<size_t>(index)] = path;
    }
    for (size_t i = 0; i < ports.size(); ++i)
      if (!byIndex[i])
        return io(fmt::format("no tensor file for model input {} '{}' ({})", i,
                              ports[i].name, ports[i].toString()));
  }

  for (size_t i = 0; i < ports.size(); ++i) {
    Tensor t = byIndex[i]->tensor;
    if (t.getDType() != ports[i].dtype) {
      std::string error;
      std::optional<Tensor> c = convertTensor(t, ports[i].dtype, error);
      if (!c)
        return io(fmt::format("{}: input '{}' is {}, the model takes {}: {}",
                              sources[i], ports[i].name, t.getDesc().toString(),
                              runtime::getDTypeName(ports[i].dtype), error));
      fmt::print(stderr, "note: input '{}': converted {} to {}\n",
                 ports[i].name, runtime::getDTypeName(t.getDType()),
                 runtime::getDTypeName(ports[i].dtype));
      t = std::move(*c);
    }
    inputs[ports[i].name] = std::move(t);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

std::string formatMicros(double us) {
  if (us < 1000)
    return fmt::format("{:.1f} us", us);
  if (us < 1e6)
    return fmt::format("{:.3f} ms", us / 1e3);
  return fmt::format("{:.3f} s", us / 1e6);
}

struct Summary {
  double min = 0, median = 0, mean = 0, max = 0;
};

Summary summarize(std::vector<double> v) {
  Summary s;
  if (v.empty())
    return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  double sum = 0;
  for (double x : v)
    sum += x;
  s.mean = sum / static_cast<double>(n);
  return s;
}

std::string join(const std::vector<std::string> &items, const char *sep) {
  std::string s;
  for (const std::string &item : items)
    s += (s.empty() ? "" : sep) + item;
  return s;
}

/// Prints one compared output: the first line carries the verdict (its
/// format predates the accuracy figures and scripts grep it), the indented
/// lines below the figures of floating outputs.
void printComparison(const std::string &head, const tensorio::Comparison &c,
                     const tensorio::Verdict &v) {
  if (!c.error.empty()) {
    fmt::print("{}: FAIL ({})\n", head, c.error);
    return;
  }
  fmt::print("{}: max abs err {:.3g}, max rel err {:.3g}, cosine {:.6f}, {} "
             "{}{}\n",
             head, c.maxAbsError, c.maxRelError, c.cosine, join(v.checks, ", "),
             v.pass ? "PASS" : "FAIL",
             v.failures.empty() ? std::string()
                                : " (" + join(v.failures, "; ") + ")");
  if (c.exact)
    return;
  fmt::print("  mean abs err {:.3g}, rmse {:.3g}, snr {:.1f} dB{}\n",
             c.meanAbsError, c.rmse, c.snrDb,
             c.nonFiniteMismatches
                 ? fmt::format(", {} NaN/inf mismatches", c.nonFiniteMismatches)
                 : std::string());
  if (c.top1) {
    std::string top5;
    if (c.top5)
      top5 = fmt::format(", top-5 agreement {:.1f}% ({}/{} rows)",
                         c.top5->percent(), c.top5->agree, c.top5->rows);
    fmt::print("  top-1 agreement {:.1f}% ({}/{} rows){}\n", c.top1->percent(),
               c.top1->agree, c.top1->rows, top5);
  }
  if (c.ctr)
    fmt::print("  NE delta {:+.3g}% (cross-entropy {:.6f}, reference entropy "
               "{:.6f}{})\n",
               c.ctr->neDeltaPercent, c.ctr->crossEntropy, c.ctr->refEntropy,
               c.ctr->logits ? "; sigmoid of logits" : "");
}

using Json = nlohmann::ordered_json;

template <typename T> Json orNull(const std::optional<T> &v) {
  return v ? Json(*v) : Json();
}

/// One output of the --report-json file (docs/runtime.md lists the keys).
/// JSON has no infinities: nlohmann writes them, and NaN, as null.
Json reportOutput(size_t index, const runtime::PortInfo &port,
                  const Tensor &out, const tensorio::Comparison &c,
                  const tensorio::Verdict &v) {
  Json j = {{"index", index},
            {"name", port.name},
            {"type", out.getDesc().toString()},
            {"pass", v.pass},
            {"checks", v.checks},
            {"failures", v.failures}};
  if (!c.error.empty()) {
    j["error"] = c.error;
    return j;
  }
  j["elements"] = c.elements;
  j["exact"] = c.exact;
  j["mismatches"] = c.mismatches;
  j["first_mismatch"] = c.firstMismatch < 0 ? Json() : Json(c.firstMismatch);
  j["non_finite_mismatches"] = c.nonFiniteMismatches;
  j["max_abs_error"] = c.maxAbsError;
  j["max_rel_error"] = c.maxRelError;
  j["mean_abs_error"] = c.meanAbsError;
  j["rmse"] = c.rmse;
  j["snr_db"] = c.snrDb;
  j["cosine"] = c.cosine;
  auto topK = [](const tensorio::TopKAgreement &t) {
    return Json{{"rows", t.rows}, {"agree", t.agree}, {"percent", t.percent()}};
  };
  if (c.top1)
    j["top1"] = topK(*c.top1);
  if (c.top5)
    j["top5"] = topK(*c.top5);
  if (c.ctr)
    j["ctr"] = {{"logits", c.ctr->logits},
                {"elements", c.ctr->elements},
                {"cross_entropy", c.ctr->crossEntropy},
                {"reference_entropy", c.ctr->refEntropy},
                {"ne_delta_percent", c.ctr->neDeltaPercent}};
  return j;
}

/// Compares every output with its reference, prints the result and writes
/// --report-json. Returns the exit status: ExitFail if an output failed,
/// else ExitUsage if the report cannot be written, else 0.
int compareOutputs(const Options &o, const runtime::Model &m,
                   const std::vector<Tensor> &outputs,
                   const std::vector<Tensor> &refs) {
  const tensorio::Criteria &k = o.criteria;
  Json report = {{"model", o.model},
                 {"criteria",
                  {{"atol", k.tol.atol},
                   {"rtol", k.tol.rtol},
                   {"tolerance_explicit", k.alsoTolerance},
                   {"min_cosine", orNull(k.minCosine)},
                   {"min_top1_percent", orNull(k.minTop1Percent)},
                   {"max_ne_delta_percent", orNull(k.maxNeDeltaPercent)},
                   {"ctr_outputs", o.ctrOutputs}}},
                 {"outputs", Json::array()}};
  unsigned passed = 0, failed = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const runtime::PortInfo &port = m.getOutputs()[i];
    bool ctr = std::find(o.ctrOutputs.begin(), o.ctrOutputs.end(), port.name) !=
               o.ctrOutputs.end();
    tensorio::Comparison c = tensorio::compareTensors(
        outputs[i], refs[i], k.tol,
        ctr ? tensorio::CtrMode::Forced : tensorio::CtrMode::Auto);
    tensorio::Verdict v = tensorio::judge(c, k);
    printComparison(fmt::format("output {} {} {}", i, port.name,
                                outputs[i].getDesc().toString()),
                    c, v);
    report["outputs"].push_back(reportOutput(i, port, outputs[i], c, v));
    (v.pass ? passed : failed) += 1;
  }
  fmt::print("{} outputs passed, {} failed\n", passed, failed);
  report["passed"] = passed;
  report["failed"] = failed;
  // A failed output outranks an unwritable report, as in runTool.
  int code = failed ? ExitFail : 0;
  if (!o.reportJson.empty()) {
    std::string json = report.dump(2) + "\n";
    if (auto s = tensorio::writeFileBytes(
            o.reportJson, std::vector<uint8_t>(json.begin(), json.end()));
        !s.ok()) {
      fmt::print(stderr, "error: {}\n", s.message());
      code = code ? code : ExitUsage;
    }
  }
  return code;
}

int runTool(const Options &o) {
  runtime::LoadOptions load;
  load.verifyWeightsChecksum = o.verifyWeights;
  auto model = runtime::Model::load(o.model, load);
  if (!model) {
    fmt::print(stderr, "error: {}\n", model.message());
    return ExitUsage;
  }
  const runtime::Model &m = **model;

  std::map<std::string, Tensor> inputs;
  std::vector<std::string> sources;
  if (!m.getInputs().empty() && o.inputs.empty()) {
    fmt::print(stderr,
               "error: the model has {} input(s); give them with "
               "--input\n",
               m.getInputs().size());
    return ExitUsage;
  }
  if (auto f = loadInputs(o, m, inputs, sources)) {
    fmt::print(stderr, "error: {}\n", f->message);
    return f->code;
  }

  // Output names and references are checked before running, so a bad
  // --ctr-output or --expect fails fast.
  for (const std::string &name : o.ctrOutputs)
    if (m.findOutput(name) < 0) {
      std::string names;
      for (const runtime::PortInfo &port : m.getOutputs())
        names += (names.empty() ? "'" : ", '") + port.name + "'";
      fmt::print(stderr,
                 "error: --ctr-output: the model has no output '{}' (its "
                 "outputs are {})\n",
                 name, names);
      return ExitUsage;
    }
  std::vector<Tensor> refs;
  if (!o.expect.empty()) {
    for (size_t i = 0; i < m.getOutputs().size(); ++i) {
      std::string path =
          (fs::path(o.expect) / fmt::format("output_{}.pb", i)).string();
      auto t = readTensorProtoFor(path, m.getOutputs()[i].dtype);
      if (!t) {
        fmt::print(stderr, "error: {}\n", t.message());
        return ExitUsage;
      }
      refs.push_back(std::move(t->tensor));
    }
  }

  runtime::SessionOptions so;
  so.trace = !o.trace.empty();
  so.emulatorThreads = o.threads;
  so.checkRaces = o.checkRaces;
  so.replaySchedules = o.replay;
  auto session = runtime::Session::create(*model, so);
  if (!session) {
    fmt::print(stderr, "error: {}\n", session.message());
    return ExitFail;
  }

  fmt::print("model: {} ({} input(s), {} output(s))\n", o.model,
             m.getInputs().size(), m.getOutputs().size());
  for (size_t i = 0; i < m.getInputs().size(); ++i)
    fmt::print("  input {} {} <- {}\n", i,
               m.getInputs()[i].name + " " +
                   inputs[m.getInputs()[i].name].getDesc().toString(),
               sources[i]);

  std::vector<Tensor> outputs;
  std::vector<double> wall, emulation;
  runtime::RunStats stats;
  // Pinned weights: the setup runs happen on the first run (and again only
  // when something evicted the tiles), so they are summed over the runs.
  uint64_t setupCycles = 0;
  double setupMicros = 0;
  unsigned setupRuns = 0;
  for (unsigned r = 0; r < o.repeat; ++r) {
    auto result = (*session)->run(inputs);
    if (!result) {
      fmt::print(stderr, "error: run failed: {}\n", result.message());
      return ExitFail;
    }
    outputs = std::move(result.value());
    stats = (*session)->getLastStats();
    wall.push_back(stats.wallMicros);
    emulation.push_back(stats.emulationMicros);
    setupCycles += stats.setupCycles;
    setupMicros += stats.setupMicros;
    setupRuns += stats.setupCycles > 0;
  }

  fmt::print("variant: {}{}\n", stats.variant,
             stats.target.empty() ? std::string(" (host only)")
                                  : fmt::format(" on target '{}' ({} MHz)",
                                                stats.target, stats.clockMHz));
  fmt::print("modelled device latency: {} cycles ({:.3f} us)\n",
             stats.deviceCycles, stats.deviceMicros);
  if (setupRuns)
    fmt::print("modelled pinned-weight setup: {} cycles ({:.3f} us) in {} of "
               "{} run(s), not in the device latency\n",
               setupCycles, setupMicros, setupRuns, o.repeat);
  // The last run's host-link transfers (weights only when it uploaded
  // them; a padded input with its valid rows only).
  if (stats.transferCycles)
    fmt::print("modelled host-link transfers: {} cycles ({:.3f} us), not in "
               "the device latency\n",
               stats.transferCycles, stats.transferMicros);
  fmt::print("host wall time: {} (host kernels {}, emulation {})\n",
             formatMicros(stats.wallMicros), formatMicros(stats.hostMicros),
             formatMicros(stats.emulationMicros));
  if (o.repeat > 1) {
    Summary w = summarize(wall), e = summarize(emulation);
    fmt::print("repeat {}: wall min {} / median {} / mean {} / max {}\n",
               o.repeat, formatMicros(w.min), formatMicros(w.median),
               formatMicros(w.mean), formatMicros(w.max));
    fmt::print("repeat {}: emulation min {} / median {} / mean {} / max {}\n",
               o.repeat, formatMicros(e.min), formatMicros(e.median),
               formatMicros(e.mean), formatMicros(e.max));
    fmt::print("repeat {}: modelled latency {} cycles ({:.3f} us) per run\n",
               o.repeat, stats.deviceCycles, stats.deviceMicros);
  }
  if (o.stats)
    fmt::print("{}", stats.summary());

  int exitCode = 0;
  if (!o.trace.empty()) {
    std::string json = (*session)->getTraceJson();
    if (auto s = tensorio::writeFileBytes(
            o.trace, std::vector<uint8_t>(json.begin(), json.end()));
        !s.ok()) {
      fmt::print(stderr, "error: {}\n", s.message());
      exitCode = ExitUsage;
    } else {
      fmt::print("trace: {}\n", o.trace);
    }
  }

  if (!o.output.empty()) {
    std::error_code ec;
    fs::create_directories(o.output, ec);
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path =
          (fs::path(o.output) / fmt::format("output_{}.npy", i)).string();
      if (auto s = tensorio::writeNpy(path, outputs[i]); !s.ok()) {
        fmt::print(stderr, "error: {}\n", s.message());
        exitCode = ExitUsage;
      }
    }
    if (exitCode == 0)
      fmt::print("outputs written to {}/output_*.npy\n", o.output);
  }

  if (refs.empty()) {
    for (size_t i = 0; i < outputs.size(); ++i)
      fmt::print("output {} {} {}\n", i, m.getOutputs()[i].name,
                 outputs[i].getDesc().toString());
    return exitCode;
  }
  // A failed output decides the exit status over an I/O error.
  int compared = compareOutputs(o, m, outputs, refs);
  if (compared == ExitFail)
    return ExitFail;
  return exitCode ? exitCode : compared;
}

} // namespace

int main(int argc, char **argv) {
  try {
    Options o;
    if (auto f = parseArgs(argc, argv, o)) {
      fmt::print(stderr, "error: {}\n", f->message);
      if (argc <= 1)
        usage(stderr);
      else
        fmt::print(stderr, "run 'nnaccel-run --help' for usage\n");
      return f->code;
    }
    return runTool(o);
  } catch (const std::exception &e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return ExitUsage;
  } catch (...) {
    fmt::print(stderr, "error: unexpected failure\n");
    return ExitUsage;
  }
}
