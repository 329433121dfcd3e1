//===- WorkerPool.h - Worker threads for parallelFor jobs -------*- C++ -*-===//
//
// A fixed set of worker threads running parallelFor jobs: the emulator's
// cards and cores, and the runtime's host kernels (lib/Runtime
// HostParallel). Between jobs a worker spins briefly (spinFor), then parks
// on a condition variable, so back-to-back jobs hand over in well under a
// microsecond and an idle pool costs nothing. Plain C++17.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_EMULATOR_WORKERPOOL_H
#define NNACCEL_EMULATOR_WORKERPOOL_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace nnaccel::emulator {

/// One step of a spin-wait: a pause (x86) or a yield.
inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

/// Waits up to 100 us for `ready()` with the CPU kept (cpuRelax per
/// check): the emulator's windows between barriers are often a few
/// microseconds, far shorter than a futex sleep and wake-up. Returns
/// ready().
template <typename Ready> bool spinFor(Ready ready) {
  constexpr auto kSpinFor = std::chrono::microseconds(100);
  const auto deadline = std::chrono::steady_clock::now() + kSpinFor;
  for (unsigned i = 1;; ++i) {
    if (ready())
      return true;
    cpuRelax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() > deadline)
      return ready();
  }
}

class WorkerPool {
public:
  explicit WorkerPool(unsigned workers);
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  unsigned workers() const { return unsigned(threads_.size()); }
  /// Runs fn(0..n-1) on the workers and the calling thread; `fn` must not
  /// throw.
  void parallelFor(size_t n, const std::function<void(size_t)> &fn);

private:
  /// One parallelFor call. A worker holds the batch it woke for, so one
  /// that finishes late never takes indices (or reads the function) of the
  /// next call.
  struct Batch {
    Batch(const std::function<void(size_t)> &fn, size_t n) : fn(fn), n(n) {}
    const std::function<void(size_t)> &fn;
    const size_t n;
    std::atomic<size_t> next{0}, done{0};
  };

  void work(Batch &batch);
  void loop();

  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable cv_, doneCv_;
  std::shared_ptr<Batch> batch_;
  /// Written under m_; read without it by spinning workers.
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
};

} // namespace nnaccel::emulator

#endif // NNACCEL_EMULATOR_WORKERPOOL_H
