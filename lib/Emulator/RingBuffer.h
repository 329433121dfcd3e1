//===- RingBuffer.h - A FIFO on reused storage ------------------*- C++ -*-===//
//
// The queues' instruction entries and token times: pushed at the back,
// popped at the front, indexed from the front. A std::deque allocates and
// frees a block every few pushes; this keeps its slots (growing by doubling
// to the largest depth seen), so a warm queue allocates nothing.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_EMULATOR_RINGBUFFER_H
#define NNACCEL_LIB_EMULATOR_RINGBUFFER_H

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

namespace nnaccel::emulator {

template <typename T> class RingBuffer {
public:
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  T &operator[](size_t i) {
    assert(i < count_);
    return slots_[(head_ + i) & (slots_.size() - 1)];
  }
  const T &operator[](size_t i) const {
    assert(i < count_);
    return slots_[(head_ + i) & (slots_.size() - 1)];
  }
  T &front() { return (*this)[0]; }
  const T &front() const { return (*this)[0]; }
  void push_back(T value) {
    if (count_ == slots_.size())
      grow();
    slots_[(head_ + count_) & (slots_.size() - 1)] = std::move(value);
    ++count_;
  }
  /// Drops the first `n` elements (their slots are reused as they are).
  void pop_front(size_t n = 1) {
    assert(n <= count_);
    if (!n)
      return;
    head_ = (head_ + n) & (slots_.size() - 1);
    count_ -= n;
  }
  void clear() { head_ = count_ = 0; }

private:
  void grow() {
    std::vector<T> bigger(std::max<size_t>(8, slots_.size() * 2));
    for (size_t i = 0; i < count_; ++i)
      bigger[i] = std::move((*this)[i]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_; ///< a power of two of them
  size_t head_ = 0, count_ = 0;
};

} // namespace nnaccel::emulator

#endif // NNACCEL_LIB_EMULATOR_RINGBUFFER_H
