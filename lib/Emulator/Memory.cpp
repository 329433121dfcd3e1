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
  if (paged_) {
    pageCount_ = (size + PageSize - 1) >> PageBits;
    pages_.reset(new std::atomic<uint8_t *>[pageCount_]);
    for (uint64_t i = 0; i < pageCount_; ++i)
      pages_[i].store(nullptr, std::memory_order_relaxed);
    allocate_ = std::make_unique<std::mutex>();
  } else {
    dense_.assign(size, 0);
  }
}

Memory::~Memory() { releasePages(); }

void Memory::releasePages() {
  for (uint64_t i = 0; i < pageCount_; ++i)
    delete[] pages_[i].exchange(nullptr, std::memory_order_relaxed);
}

Memory::Memory(Memory &&other) noexcept { *this = std::move(other); }

Memory &Memory::operator=(Memory &&other) noexcept {
  if (this != &other) {
    releasePages();
    size_ = other.size_;
    paged_ = other.paged_;
    blockWrites_ = std::move(other.blockWrites_);
    dense_ = std::move(other.dense_);
    pages_ = std::move(other.pages_);
    pageCount_ = other.pageCount_;
    allocate_ = std::move(other.allocate_);
    other.pageCount_ = 0;
  }
  return *this;
}

uint8_t *Memory::page(uint64_t index) {
  uint8_t *p = pages_[index].load(std::memory_order_acquire);
  if (p)
    return p;
  std::lock_guard<std::mutex> lock(*allocate_);
  p = pages_[index].load(std::memory_order_relaxed);
  if (!p) {
    p = new uint8_t[PageSize](); // Value-initialised: zeros.
    pages_[index].store(p, std::memory_order_release);
  }
  return p;
}

void Memory::readPaged(uint64_t addr, void *out, size_t n) const {
  auto *dst = static_cast<uint8_t *>(out);
  while (n) {
    uint64_t idx = addr >> PageBits, off = addr & (PageSize - 1);
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, PageSize - off));
    if (const uint8_t *p = existingPage(idx))
      copyBytes(dst, p + off, chunk);
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
  noteWrite(addr, n);
  if (!paged_) {
    if (n)
      std::memset(dense_.data() + addr, value, n);
    return;
  }
  while (n) {
    uint64_t idx = addr >> PageBits, off = addr & (PageSize - 1);
    size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, PageSize - off));
    // Zero-filling an unallocated page is a no-op: it already reads as zero.
    if (value != 0 || existingPage(idx))
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
    if (const uint8_t *p = existingPage(addr >> PageBits))
      return p + off;
  scratch.resize(n);
  readPaged(addr, scratch.data(), n);
  return scratch.data();
}

void Memory::clear() {
  noteWrite(0, size_);
  if (paged_) {
    releasePages();
  } else {
    std::fill(dense_.begin(), dense_.end(), uint8_t(0));
  }
}

} // namespace nnaccel::emulator
