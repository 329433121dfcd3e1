//===- Memory.cpp - Byte-addressed emulated memories -------------------===//
//
// Dense memories are a single vector; paged memories keep a table of 64 KiB
// pages allocated on first write. Reads of pages never written return zeros
// without allocating, so reading a large untouched output buffer is cheap.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Emulator/Memory.h"

#include <algorithm>
#include <cstring>

namespace nnaccel::emulator {

Memory::Memory(uint64_t size) : size_(size), paged_(size > DenseLimit) {
  if (paged_)
    pages_.resize((size + PageSize - 1) >> PageBits);
  else
    dense_.assign(size, 0);
}

uint8_t *Memory::page(uint64_t index) {
  auto &p = pages_[index];
  if (!p)
    p.reset(new uint8_t[PageSize]()); // Value-initialised: zeros.
  return p.get();
}

void Memory::readPaged(uint64_t addr, void *out, size_t n) const {
  auto *dst = static_cast<uint8_t *>(out);
  while (n) {
    uint64_t idx = addr >> PageBits, off = addr & (PageSize - 1);
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, PageSize - off));
    if (const auto &p = pages_[idx])
      copyBytes(dst, p.get() + off, chunk);
    else
      std::memset(dst, 0, chunk);
    dst += chunk;
    addr += chunk;
    n -= chunk;
  }
}

void Memory::writePaged(uint64_t addr, const void *in, size_t n) {
  const auto *src = static_cast<const uint8_t *>(in);
  while (n) {
    uint64_t idx = addr >> PageBits, off = addr & (PageSize - 1);
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, PageSize - off));
    copyBytes(page(idx) + off, src, chunk);
    src += chunk;
    addr += chunk;
    n -= chunk;
  }
}

void Memory::fill(uint64_t addr, uint8_t value, size_t n) {
  if (!paged_) {
    if (n)
      std::memset(dense_.data() + addr, value, n);
    return;
  }
  while (n) {
    uint64_t idx = addr >> PageBits, off = addr & (PageSize - 1);
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, PageSize - off));
    // Zero-filling an unallocated page is a no-op: it already reads as zero.
    if (value != 0 || pages_[idx])
      std::memset(page(idx) + off, value, chunk);
    addr += chunk;
    n -= chunk;
  }
}

uint8_t *Memory::spanPaged(uint64_t addr, size_t n) {
  uint64_t off = addr & (PageSize - 1);
  if (off + n > PageSize)
    return nullptr;
  return page(addr >> PageBits) + off;
}

const uint8_t *Memory::viewPaged(uint64_t addr, size_t n,
                                 std::vector<uint8_t> &scratch) const {
  uint64_t off = addr & (PageSize - 1);
  if (off + n <= PageSize)
    if (const auto &p = pages_[addr >> PageBits])
      return p.get() + off;
  scratch.resize(n);
  readPaged(addr, scratch.data(), n);
  return scratch.data();
}

void Memory::clear() {
  if (paged_) {
    for (auto &p : pages_)
      p.reset();
  } else {
    std::fill(dense_.begin(), dense_.end(), uint8_t(0));
  }
}

} // namespace nnaccel::emulator
