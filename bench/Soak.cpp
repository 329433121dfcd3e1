//===- Soak.cpp - Runtime soak: many threads on shared sessions -----------===//
//
// nnaccel-soak loads several packages and hammers them from many threads at
// once: every thread picks a random (model, input set) pair per request and
// runs it on one of a few sessions that all threads share, so requests
// contend on each session's lock and the models' shared state. Every answer
// is compared byte for byte with the answer a private session gave for the
// same inputs before the soak started: results must not depend on threads,
// sessions or what ran before. Bucketed inputs get several sizes, so the
// requests mix padding buckets too. At the end it prints the latency
// percentiles and the throughput; any error or wrong answer fails the run.
//
//   nnaccel-soak [--threads 8] [--requests 10000] [--sessions 2]
//                [--seed 1] package.nnpkg...
//
// --requests is per thread. Runtime half only: no LLVM/MLIR.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/Model.h"
#include "nnaccel/Runtime/Session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace nnaccel;
using namespace nnaccel::runtime;

namespace {

struct Options {
  unsigned threads = 8;
  uint64_t requests = 10000;
  unsigned sessions = 2;
  uint32_t seed = 1;
  std::vector<std::string> packages;
};

/// One request and its expected answer.
struct Case {
  size_t model;
  std::map<std::string, Tensor> inputs;
  std::vector<Tensor> expected;
};

struct LoadedModel {
  std::string path;
  std::shared_ptr<const Model> model;
  std::vector<std::unique_ptr<Session>> sessions;
};

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "nnaccel-soak: %s\n", message.c_str());
  std::exit(1);
}

/// Inputs for `port` with bucketed dimensions set to `dynamicSize`. Floats
/// are uniform in [-1, 1); integers are 0 or 1, valid as indices, lengths
/// and booleans alike.
Tensor makeInput(const PortInfo &port, int64_t dynamicSize, std::mt19937 &rng) {
  std::vector<int64_t> shape = port.shape;
  for (int64_t &d : shape)
    if (d < 0)
      d = dynamicSize;
  Tensor t = Tensor::allocate(TensorDesc(port.dtype, shape));
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  int64_t n = t.getNumElements();
  switch (port.dtype) {
  case DType::F32: {
    float *p = t.mutableAs<float>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = real(rng);
    break;
  }
  case DType::I64: {
    int64_t *p = t.mutableAs<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = rng() & 1;
    break;
  }
  case DType::I32: {
    int32_t *p = t.mutableAs<int32_t>();
    for (int64_t i = 0; i < n; ++i)
      p[i] = rng() & 1;
    break;
  }
  default: {
    // Other types travel as their storage bytes; zeros are valid in all.
    std::memset(t.mutableData(), 0, t.getByteSize());
    break;
  }
  }
  return t;
}

bool sameBytes(const Tensor &a, const Tensor &b) {
  return a.getDesc() == b.getDesc() &&
         std::memcmp(a.data(), b.data(), a.getByteSize()) == 0;
}

Options parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> uint64_t {
      if (i + 1 >= argc)
        die(arg + " needs a value");
      char *end = nullptr;
      uint64_t v = std::strtoull(argv[++i], &end, 10);
      if (!end || *end || v == 0 || v > (uint64_t(1) << 32))
        die(arg + ": expected a positive integer, got '" + argv[i] + "'");
      return v;
    };
    if (arg == "--threads")
      o.threads = static_cast<unsigned>(value());
    else if (arg == "--requests")
      o.requests = value();
    else if (arg == "--sessions")
      o.sessions = static_cast<unsigned>(value());
    else if (arg == "--seed")
      o.seed = static_cast<uint32_t>(value());
    else if (arg.rfind("--", 0) == 0)
      die("unknown option " + arg);
    else
      o.packages.push_back(arg);
  }
  if (o.packages.empty())
    die("usage: nnaccel-soak [--threads N] [--requests N] [--sessions N] "
        "[--seed N] package.nnpkg...");
  return o;
}

double percentile(std::vector<double> &sorted, double p) {
  size_t index = static_cast<size_t>(p * (sorted.size() - 1) + 0.5);
  return sorted[std::min(index, sorted.size() - 1)];
}

} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  std::mt19937 rng(options.seed);

  std::vector<LoadedModel> models;
  std::vector<Case> cases;
  for (const std::string &path : options.packages) {
    auto model = Model::load(path);
    if (!model)
      die(model.status().message());
    LoadedModel loaded{path, *model, {}};
    for (unsigned s = 0; s < options.sessions; ++s) {
      auto session = Session::create(*model);
      if (!session)
        die(path + ": " + session.status().message());
      loaded.sessions.push_back(std::move(*session));
    }
    // Input sets: for a bucketed model, sizes across and between the
    // buckets (1, half, full of the largest); otherwise three random sets.
    int64_t largest = 0;
    for (const PortInfo &port : (*model)->getInputs())
      for (size_t d = 0; d < port.shape.size(); ++d)
        if (port.shape[d] < 0)
          largest = 1; // Marks the model as bucketed.
    std::vector<int64_t> sizes = {1, 1, 1};
    if (largest) {
      // The largest accepted size is not in PortInfo; probe downwards.
      sizes.clear();
      for (int64_t size : {1, 3, 5, 8, 11, 16, 24, 32, 64, 128})
        sizes.push_back(size);
    }
    auto reference = Session::create(*model);
    if (!reference)
      die(path + ": " + reference.status().message());
    size_t accepted = 0;
    for (int64_t size : sizes) {
      Case c;
      c.model = models.size();
      for (const PortInfo &port : (*model)->getInputs())
        c.inputs[port.name] = makeInput(port, size, rng);
      auto out = (*reference)->run(c.inputs);
      if (!out) {
        // Past the largest bucket: a clear error, then stop probing.
        if (largest && accepted)
          break;
        die(path + ": reference run failed: " + out.status().message());
      }
      c.expected = std::move(*out);
      cases.push_back(std::move(c));
      ++accepted;
    }
    std::printf("%s: %zu input sets%s\n", path.c_str(), accepted,
                largest ? " (bucketed sizes)" : "");
    models.push_back(std::move(loaded));
  }

  std::atomic<uint64_t> failures{0};
  std::mutex errorMutex;
  std::string firstError;
  std::vector<std::vector<double>> latencies(options.threads);
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < options.threads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 local(options.seed * 7919u + t);
      std::vector<double> &lat = latencies[t];
      lat.reserve(options.requests);
      for (uint64_t r = 0; r < options.requests; ++r) {
        const Case &c = cases[local() % cases.size()];
        LoadedModel &m = models[c.model];
        Session &session = *m.sessions[local() % m.sessions.size()];
        auto begin = std::chrono::steady_clock::now();
        auto out = session.run(c.inputs);
        auto end = std::chrono::steady_clock::now();
        lat.push_back(
            std::chrono::duration<double, std::micro>(end - begin).count());
        std::string error;
        if (!out)
          error = m.path + ": " + out.status().message();
        else if (out->size() != c.expected.size())
          error = m.path + ": wrong number of outputs";
        else
          for (size_t i = 0; i < out->size(); ++i)
            if (!sameBytes((*out)[i], c.expected[i]))
              error = m.path + ": output " + std::to_string(i) +
                      " differs from the reference answer";
        if (!error.empty()) {
          failures.fetch_add(1);
          std::lock_guard<std::mutex> lock(errorMutex);
          if (firstError.empty())
            firstError = error;
        }
      }
    });
  }
  for (std::thread &th : threads)
    th.join();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  std::vector<double> all;
  for (auto &lat : latencies)
    all.insert(all.end(), lat.begin(), lat.end());
  std::sort(all.begin(), all.end());
  uint64_t total = all.size();
  std::printf("soak: %u threads x %llu requests = %llu requests on %zu "
              "models x %u shared sessions, %zu input sets\n",
              options.threads,
              static_cast<unsigned long long>(options.requests),
              static_cast<unsigned long long>(total), models.size(),
              options.sessions, cases.size());
  std::printf("latency us: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f\n",
              percentile(all, 0.50), percentile(all, 0.90),
              percentile(all, 0.99), all.back());
  std::printf("throughput: %.1f requests/s over %.2f s\n", total / seconds,
              seconds);
  std::printf("errors: %llu\n", static_cast<unsigned long long>(failures));
  if (failures) {
    std::fprintf(stderr, "nnaccel-soak: first error: %s\n", firstError.c_str());
    return 1;
  }
  return 0;
}
