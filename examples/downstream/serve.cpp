//===- serve.cpp - A small server over the nnaccel runtime ------*- C++ -*-===//
//
// Loads a .nnpkg, starts a RequestQueue (one Session per worker over the
// shared Model) and answers N requests issued by C concurrent clients, each
// waiting for its answer before sending the next (a closed loop, so the
// latencies are those of a loaded server rather than of a queue backlog).
// The inputs come from an ONNX test_data_set directory (input_<i>.pb); with
// --expect the answers are checked against its output_<i>.pb.
//
// Prints p50/p99 latency and throughput; exits non-zero if any request
// failed or gave a wrong answer.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/Model.h"
#include "nnaccel/Runtime/RequestQueue.h"
#include "nnaccel/TensorIO/Compare.h"
#include "nnaccel/TensorIO/TensorIO.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rt = nnaccel::runtime;
namespace tio = nnaccel::tensorio;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string package;
  std::string dataDir;
  unsigned requests = 64;
  unsigned clients = 4;
  unsigned workers = 2;
  bool expect = false;
  tio::Tolerance tolerance;
};

void usage() {
  std::fprintf(stderr,
               "usage: nnaccel-serve PACKAGE TEST_DATA_DIR [--requests N] "
               "[--clients C] [--workers W] [--expect] [--atol A] "
               "[--rtol R]\n");
}

bool parseArgs(int argc, char **argv, Options &options) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&](const char *what) -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "error: %s needs a value\n", what);
        return nullptr;
      }
      return argv[++i];
    };
    if (arg == "--expect") {
      options.expect = true;
    } else if (arg == "--requests" || arg == "--clients" ||
               arg == "--workers" || arg == "--atol" || arg == "--rtol") {
      const char *value = next(arg.c_str());
      if (!value)
        return false;
      if (arg == "--atol")
        options.tolerance.atol = std::atof(value);
      else if (arg == "--rtol")
        options.tolerance.rtol = std::atof(value);
      else {
        long n = std::atol(value);
        if (n <= 0) {
          std::fprintf(stderr, "error: %s must be positive\n", arg.c_str());
          return false;
        }
        (arg == "--requests"  ? options.requests
         : arg == "--clients" ? options.clients
                              : options.workers) = static_cast<unsigned>(n);
      }
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "error: unknown option %s\n", arg.c_str());
      return false;
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 2)
    return false;
  options.package = positional[0];
  options.dataDir = positional[1];
  return true;
}

/// Reads `<dir>/<prefix><i>.pb` for i = 0, 1, ... until one is missing, and
/// names each tensor after the model port it feeds: the file's own
/// TensorProto name when the model has such a port, else the i-th port.
bool readPorts(const std::string &dir, const char *prefix,
               const std::vector<rt::PortInfo> &ports,
               std::map<std::string, rt::Tensor> &named,
               std::vector<rt::Tensor> &ordered) {
  for (size_t i = 0;; ++i) {
    fs::path path = fs::path(dir) / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(path))
      break;
    rt::Expected<tio::NamedTensor> tensor = tio::readTensorFile(path.string());
    if (!tensor) {
      std::fprintf(stderr, "error: %s\n", tensor.message().c_str());
      return false;
    }
    auto port =
        std::find_if(ports.begin(), ports.end(), [&](const rt::PortInfo &p) {
          return p.name == tensor->name;
        });
    if (port == ports.end()) {
      if (i >= ports.size()) {
        std::fprintf(stderr, "error: %s: the model has only %zu %sports\n",
                     path.string().c_str(), ports.size(), prefix);
        return false;
      }
      port = ports.begin() + static_cast<std::ptrdiff_t>(i);
    }
    ordered.push_back(tensor->tensor);
    named[port->name] = std::move(tensor->tensor);
  }
  if (ordered.size() != ports.size()) {
    std::fprintf(stderr, "error: %s: %zu %s*.pb files for %zu ports\n",
                 dir.c_str(), ordered.size(), prefix, ports.size());
    return false;
  }
  return true;
}

double percentile(std::vector<double> sorted, double p) {
  if (sorted.empty())
    return 0;
  std::sort(sorted.begin(), sorted.end());
  // Nearest rank: the smallest value with at least p% of the samples at or
  // below it.
  size_t rank =
      static_cast<size_t>(p / 100.0 * double(sorted.size()) + 0.999999);
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseArgs(argc, argv, options)) {
    usage();
    return 2;
  }

  rt::Expected<std::shared_ptr<const rt::Model>> model =
      rt::Model::load(options.package);
  if (!model) {
    std::fprintf(stderr, "error: %s\n", model.message().c_str());
    return 1;
  }
  std::map<std::string, rt::Tensor> inputs, unusedNamed;
  std::vector<rt::Tensor> orderedInputs, expected;
  if (!readPorts(options.dataDir, "input_", (*model)->getInputs(), inputs,
                 orderedInputs))
    return 1;
  if (options.expect &&
      !readPorts(options.dataDir, "output_", (*model)->getOutputs(),
                 unusedNamed, expected))
    return 1;

  rt::RequestQueueOptions queueOptions;
  queueOptions.workers = options.workers;
  rt::Expected<std::unique_ptr<rt::RequestQueue>> queue =
      rt::RequestQueue::create(*model, queueOptions);
  if (!queue) {
    std::fprintf(stderr, "error: %s\n", queue.message().c_str());
    return 1;
  }

  std::atomic<unsigned> nextRequest{0};
  std::atomic<unsigned> failures{0};
  std::mutex mutex; // guards latencies and the error output
  std::vector<double> latencies;
  latencies.reserve(options.requests);

  auto client = [&] {
    while (nextRequest.fetch_add(1) < options.requests) {
      Clock::time_point start = Clock::now();
      rt::Expected<rt::RunResult> result = (*queue)->submit(inputs).get();
      double ms =
          std::chrono::duration<double, std::milli>(Clock::now() - start)
              .count();
      std::string error;
      if (!result) {
        error = result.message();
      } else if (options.expect) {
        for (size_t i = 0; i < expected.size() && error.empty(); ++i) {
          const std::string &name = (*model)->getOutputs()[i].name;
          if (i >= result->outputs.size()) {
            error = "missing output " + name;
            break;
          }
          tio::Comparison cmp = tio::compareTensors(
              result->outputs[i], expected[i], options.tolerance);
          if (!cmp.pass)
            error = "output " + name + ": " +
                    (cmp.error.empty()
                         ? std::to_string(cmp.mismatches) + " of " +
                               std::to_string(cmp.elements) +
                               " elements outside the tolerance (max abs "
                               "error " +
                               std::to_string(cmp.maxAbsError) + ")"
                         : cmp.error);
        }
      }
      std::lock_guard<std::mutex> lock(mutex);
      latencies.push_back(ms);
      if (!error.empty()) {
        // One message per failure would flood the log: the first suffices.
        if (failures.fetch_add(1) == 0)
          std::fprintf(stderr, "error: request failed: %s\n", error.c_str());
      }
    }
  };

  Clock::time_point start = Clock::now();
  std::vector<std::thread> clients;
  for (unsigned i = 0; i < options.clients; ++i)
    clients.emplace_back(client);
  for (std::thread &thread : clients)
    thread.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  (*queue)->shutdown();

  std::printf("%s: %u requests, %u clients, %u workers\n",
              (*model)->getName().c_str(), options.requests, options.clients,
              (*queue)->getNumWorkers());
  std::printf("latency p50 %.3f ms, p99 %.3f ms; throughput %.1f "
              "requests/s\n",
              percentile(latencies, 50), percentile(latencies, 99),
              double(options.requests) / seconds);
  if (failures) {
    std::printf("%u of %u requests failed\n", failures.load(),
                options.requests);
    return 1;
  }
  std::printf("all %u requests succeeded%s\n", options.requests,
              options.expect ? " and matched the expected outputs" : "");
  return 0;
}
