//===- Memory.h - Byte-addressed emulated memories -------------*- C++ -*-===//
//
// One emulated memory (a card's DRAM or shared SRAM, or a core's VRF, MRF or
// accumulator). Small memories are one dense allocation so that the
// execution units can hand the Numerics kernels direct pointers. Large ones
// (a card's DRAM is gigabytes) are sparse: 64 KiB pages are allocated on first
// write and unwritten bytes read as zero, so a multi-card target costs only
// what the program touches.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_EMULATOR_MEMORY_H
#define NNACCEL_EMULATOR_MEMORY_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace nnaccel::emulator {

class Memory {
public:
  /// Memories up to this size are dense; larger ones are paged.
  static constexpr uint64_t DenseLimit = uint64_t(256) << 20;
  static constexpr unsigned PageBits = 16;
  static constexpr uint64_t PageSize = uint64_t(1) << PageBits;

  Memory() = default;
  explicit Memory(uint64_t size);
  ~Memory();
  Memory(Memory &&other) noexcept;
  Memory &operator=(Memory &&other) noexcept;
  Memory(const Memory &) = delete;
  Memory &operator=(const Memory &) = delete;

  uint64_t size() const { return size_; }
  bool isDense() const { return !paged_; }
  /// True when [addr, addr + n) lies inside the memory.
  bool contains(uint64_t addr, uint64_t n) const {
    return addr <= size_ && n <= size_ - addr;
  }

  /// Copies bytes out / in. Preconditions: contains(addr, n). (Dense
  /// memories inline: the execution units call these per DMA row, and a
  /// transposing DMA moves one element per row.)
  void read(uint64_t addr, void *out, size_t n) const {
    if (!paged_)
      return copyBytes(out, dense_.data() + addr, n);
    readPaged(addr, out, n);
  }
  void write(uint64_t addr, const void *in, size_t n) {
    noteWrite(addr, n);
    if (!paged_)
      return copyBytes(dense_.data() + addr, in, n);
    writePaged(addr, in, n);
  }
  void fill(uint64_t addr, uint8_t value, size_t n);

  /// Direct pointer to [addr, addr + n) when it is contiguous in host memory
  /// (always for dense memories, within one page for paged ones, allocating
  /// the page); null otherwise. Counts as a write (the caller may write).
  uint8_t *span(uint64_t addr, size_t n) {
    noteWrite(addr, n);
    return paged_ ? spanPaged(addr, n) : dense_.data() + addr;
  }

  /// Write counting, for a memory one thread owns (a core's MRF): every
  /// write, fill, span and clear bumps the counters of the 4 KiB blocks it
  /// touches, so what was derived from [addr, addr + n) stays valid while
  /// writeCount(addr, n) is unchanged. Off by default (the card-wide
  /// memories are written by several cores' threads).
  void countWrites() { blockWrites_.assign((size_ >> kWriteBlockBits) + 1, 0); }
  uint64_t writeCount(uint64_t addr, uint64_t n) const {
    uint64_t sum = 0;
    if (!blockWrites_.empty() && n)
      for (uint64_t b = addr >> kWriteBlockBits,
                    e = (addr + n - 1) >> kWriteBlockBits;
           b <= e && b < blockWrites_.size(); ++b)
        sum += blockWrites_[b];
    return sum;
  }
  /// Read-only view: a direct pointer when contiguous, else the bytes are
  /// copied into `scratch` and its data is returned.
  const uint8_t *view(uint64_t addr, size_t n,
                      std::vector<uint8_t> &scratch) const {
    return paged_ ? viewPaged(addr, n, scratch) : dense_.data() + addr;
  }

  /// Zeroes the whole memory (releases the pages of a paged memory).
  void clear();

  /// memcpy that inlines the element-sized copies of narrow DMA rows, which
  /// a library call would dominate (the DMA unit copies rows with it too).
  static void copyBytes(void *dst, const void *src, size_t n) {
    switch (n) {
    case 1:
      std::memcpy(dst, src, 1);
      return;
    case 2:
      std::memcpy(dst, src, 2);
      return;
    case 4:
      std::memcpy(dst, src, 4);
      return;
    case 8:
      std::memcpy(dst, src, 8);
      return;
    default:
      if (n)
        std::memcpy(dst, src, n);
    }
  }

private:
  static constexpr unsigned kWriteBlockBits = 12;
  void noteWrite(uint64_t addr, uint64_t n) {
    if (blockWrites_.empty() || !n)
      return;
    for (uint64_t b = addr >> kWriteBlockBits,
                  e = (addr + n - 1) >> kWriteBlockBits;
         b <= e && b < blockWrites_.size(); ++b)
      ++blockWrites_[b];
  }
  void readPaged(uint64_t addr, void *out, size_t n) const;
  void writePaged(uint64_t addr, const void *in, size_t n);
  uint8_t *spanPaged(uint64_t addr, size_t n);
  const uint8_t *viewPaged(uint64_t addr, size_t n,
                           std::vector<uint8_t> &scratch) const;
  uint8_t *page(uint64_t index);
  void releasePages();

  /// The page's bytes, or null before its first write (reads as zeros).
  const uint8_t *existingPage(uint64_t index) const {
    return pages_[index].load(std::memory_order_acquire);
  }

  uint64_t size_ = 0;
  bool paged_ = false;
  std::vector<uint64_t> blockWrites_; ///< empty: not counting
  std::vector<uint8_t> dense_;
  /// Paged: allocated on first write. Cores of a card may run on threads
  /// (docs/emulator.md §9): pages are published atomically, and two cores
  /// writing different bytes of one new page get the same page.
  std::unique_ptr<std::atomic<uint8_t *>[]> pages_;
  uint64_t pageCount_ = 0;
  std::unique_ptr<std::mutex> allocate_;
};

} // namespace nnaccel::emulator

#endif // NNACCEL_EMULATOR_MEMORY_H
