//===- WorkerPool.cpp - Worker threads for parallelFor jobs ---------------===//
//
// See WorkerPool.h.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Emulator/WorkerPool.h"

namespace nnaccel::emulator {

WorkerPool::WorkerPool(unsigned workers) {
  for (unsigned i = 0; i < workers; ++i)
    threads_.emplace_back([this] { loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> l(m_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto &t : threads_)
    t.join();
}

void WorkerPool::parallelFor(size_t n, const std::function<void(size_t)> &fn) {
  auto batch = std::make_shared<Batch>(fn, n);
  {
    std::lock_guard<std::mutex> l(m_);
    batch_ = batch;
    generation_.fetch_add(1, std::memory_order_release);
  }
  cv_.notify_all();
  work(*batch);
  auto finished = [&] {
    return batch->done.load(std::memory_order_acquire) == n;
  };
  if (!spinFor(finished)) {
    std::unique_lock<std::mutex> l(m_);
    doneCv_.wait(l, finished);
  }
  std::lock_guard<std::mutex> l(m_);
  batch_.reset();
}

void WorkerPool::work(Batch &batch) {
  for (;;) {
    size_t i = batch.next.fetch_add(1);
    if (i >= batch.n)
      return;
    batch.fn(i);
    // The last one wakes a caller that stopped spinning; taking the lock
    // orders the wake-up after the caller's check of `done`.
    if (batch.done.fetch_add(1, std::memory_order_acq_rel) + 1 == batch.n) {
      std::lock_guard<std::mutex> l(m_);
      doneCv_.notify_all();
    }
  }
}

void WorkerPool::loop() {
  uint64_t seen = 0;
  for (;;) {
    spinFor([&] {
      return generation_.load(std::memory_order_acquire) != seen ||
             stop_.load(std::memory_order_relaxed);
    });
    std::shared_ptr<Batch> batch;
    {
      std::unique_lock<std::mutex> l(m_);
      cv_.wait(l, [&] { return stop_ || generation_ != seen; });
      if (stop_)
        return;
      seen = generation_;
      batch = batch_;
    }
    if (batch)
      work(*batch);
  }
}

} // namespace nnaccel::emulator
