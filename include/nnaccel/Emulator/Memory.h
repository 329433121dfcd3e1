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

#include <cstddef>
#include <cstdint>
#include <memory>
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

  uint64_t size() const { return size_; }
  bool isDense() const { return !paged_; }
  /// True when [addr, addr + n) lies inside the memory.
  bool contains(uint64_t addr, uint64_t n) const {
    return addr <= size_ && n <= size_ - addr;
  }

  /// Copies bytes out / in. Preconditions: contains(addr, n).
  void read(uint64_t addr, void *out, size_t n) const;
  void write(uint64_t addr, const void *in, size_t n);
  void fill(uint64_t addr, uint8_t value, size_t n);

  /// Direct pointer to [addr, addr + n) when it is contiguous in host memory
  /// (always for dense memories, within one page for paged ones, allocating
  /// the page); null otherwise.
  uint8_t *span(uint64_t addr, size_t n);
  /// Read-only view: a direct pointer when contiguous, else the bytes are
  /// copied into `scratch` and its data is returned.
  const uint8_t *view(uint64_t addr, size_t n,
                      std::vector<uint8_t> &scratch) const;

  /// Zeroes the whole memory (releases the pages of a paged memory).
  void clear();

private:
  uint8_t *page(uint64_t index);

  uint64_t size_ = 0;
  bool paged_ = false;
  std::vector<uint8_t> dense_;
  std::vector<std::unique_ptr<uint8_t[]>> pages_;
};

} // namespace nnaccel::emulator

#endif // NNACCEL_EMULATOR_MEMORY_H
