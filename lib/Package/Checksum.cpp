//===- Checksum.cpp - CRC-32 and FNV-1a 64 --------------------------------===//
//
// CRC-32 is zlib's (hardware-friendly "braided" implementation, several
// GB/s), fed in chunks because zlib's length parameter is 32 bits wide and a
// weights section may be larger than 4 GiB. FNV-1a 64 is simple enough to
// specify in one line of docs/package-format.md, which matters more for a
// format's content hash than speed: it runs only in the writer.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Package/Checksum.h"

#include <zlib.h>

#include <algorithm>

namespace nnaccel::package {

uint32_t crc32(const void *data, size_t size, uint32_t crc) {
  // 1 GiB chunks: well inside uInt, large enough to be free.
  constexpr size_t Chunk = size_t(1) << 30;
  const auto *p = static_cast<const Bytef *>(data);
  uLong value = crc;
  while (size > 0) {
    size_t n = std::min(size, Chunk);
    value = ::crc32(value, p, static_cast<uInt>(n));
    p += n;
    size -= n;
  }
  return static_cast<uint32_t>(value);
}

uint64_t fnv1a64(const void *data, size_t size, uint64_t hash) {
  constexpr uint64_t Prime = 0x100000001b3ull;
  const auto *p = static_cast<const uint8_t *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= p[i];
    hash *= Prime;
  }
  return hash;
}

} // namespace nnaccel::package
