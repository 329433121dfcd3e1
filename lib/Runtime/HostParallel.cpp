//===- HostParallel.cpp - The host kernels' worker threads ----------------===//
//
// See HostParallel.h. The workers are an emulator::WorkerPool (the pool the
// emulator's cores run on), created on first use; each range is one of its
// parallelFor indices.
//
//===----------------------------------------------------------------------===//

#include "HostParallel.h"

#include "nnaccel/Emulator/WorkerPool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace nnaccel {
namespace runtime {
namespace detail {

namespace {

/// Multiply-adds below which a kernel stays on its thread: waking a worker
/// costs tens of microseconds.
constexpr int64_t kMinParallelWork = int64_t(1) << 20;

std::atomic<unsigned> requestedThreads{0};

unsigned threadCount() {
  unsigned n = requestedThreads.load(std::memory_order_relaxed);
  if (!n)
    n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

/// The workers (threadCount() - 1 of them), and whether a kernel uses them.
std::mutex workersMutex;
std::unique_ptr<emulator::WorkerPool> workers;

} // namespace

void setHostKernelThreads(unsigned threads) {
  requestedThreads.store(threads, std::memory_order_relaxed);
}

void parallelRanges(int64_t count, int64_t workPerItem,
                    const std::function<void(int64_t, int64_t)> &body) {
  const unsigned threads = threadCount();
  if (count <= 1 || threads <= 1 ||
      count * std::max<int64_t>(workPerItem, 1) < kMinParallelWork)
    return body(0, count);
  // Another kernel (another session's thread) has the workers: this one
  // runs alone rather than wait.
  std::unique_lock<std::mutex> lock(workersMutex, std::try_to_lock);
  if (!lock.owns_lock())
    return body(0, count);
  if (!workers || workers->workers() != threads - 1)
    workers = std::make_unique<emulator::WorkerPool>(threads - 1);
  // A few ranges per thread balance uneven rows. A range's exception (an
  // allocation failure) goes to the kernel's caller, which turns it into
  // an error status; the pool's jobs must not throw.
  const int64_t ranges = std::min<int64_t>(count, int64_t(threads) * 4);
  std::mutex errorMutex;
  std::exception_ptr error;
  workers->parallelFor(size_t(ranges), [&](size_t r) {
    const int64_t range = int64_t(r);
    try {
      body(range * count / ranges, (range + 1) * count / ranges);
    } catch (...) {
      std::lock_guard<std::mutex> errorLock(errorMutex);
      if (!error)
        error = std::current_exception();
    }
  });
  if (error)
    std::rethrow_exception(error);
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
