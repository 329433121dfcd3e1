//===- HostParallel.cpp - The host kernels' worker threads ----------------===//
//
// See HostParallel.h. The workers are created on first use and sleep on a
// condition variable between jobs; a job hands out ranges from an atomic
// counter, and its caller takes ranges too.
//
//===----------------------------------------------------------------------===//

#include "HostParallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

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

class Workers {
public:
  explicit Workers(unsigned workers) {
    for (unsigned i = 0; i < workers; ++i)
      threads_.emplace_back([this] { loop(); });
  }
  ~Workers() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : threads_)
      t.join();
  }
  unsigned size() const { return unsigned(threads_.size()); }

  /// Runs body over `ranges` ranges of [0, count) (range r: the items from
  /// r * count / ranges on) on the workers and this thread.
  void run(int64_t count, int64_t ranges,
           const std::function<void(int64_t, int64_t)> &body) {
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = {&body, count, ranges};
      next_ = 0;
      pending_ = ranges;
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return pending_ == 0; });
    job_ = {};
    // A range's exception (an allocation failure) goes to the kernel's
    // caller, which turns it into an error status.
    if (std::exception_ptr e = std::exchange(error_, nullptr))
      std::rethrow_exception(e);
  }

private:
  struct Job {
    const std::function<void(int64_t, int64_t)> *body = nullptr;
    int64_t count = 0, ranges = 0;
  };

  void work() {
    for (;;) {
      Job job;
      int64_t r;
      {
        std::lock_guard<std::mutex> lock(m_);
        if (!job_.body || next_ >= job_.ranges)
          return;
        job = job_;
        r = next_++;
      }
      std::exception_ptr error;
      try {
        (*job.body)(r *job.count / job.ranges,
                    (r + 1) * job.count / job.ranges);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(m_);
      if (error && !error_)
        error_ = error;
      if (--pending_ == 0)
        done_.notify_all();
    }
  }
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(m_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_)
          return;
        seen = generation_;
      }
      work();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable wake_, done_;
  Job job_;
  std::exception_ptr error_;
  int64_t next_ = 0, pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

/// The workers (threadCount() - 1 of them), and whether a kernel uses them.
std::mutex workersMutex;
std::unique_ptr<Workers> workers;

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
  if (!workers || workers->size() != threads - 1)
    workers = std::make_unique<Workers>(threads - 1);
  // A few ranges per thread balance uneven rows.
  const int64_t ranges = std::min<int64_t>(count, int64_t(threads) * 4);
  workers->run(count, ranges, body);
}

} // namespace detail
} // namespace runtime
} // namespace nnaccel
