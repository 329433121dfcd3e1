//===- Checksum.h - Integrity and content hashes of packages ----*- C++ -*-===//
//
// Two different jobs, two functions. CRC-32 (the zlib / IEEE 802.3
// polynomial, as in gzip and PNG) protects the manifest and the weights
// section against corruption in storage or transit; it is what the header
// records and the reader checks. FNV-1a 64 is the *content* hash of one
// weight, the key the writer deduplicates on and that a runtime may use to
// recognise weights it has already uploaded to a card. Both are incremental
// so multi-gigabyte sections can be processed in chunks.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_PACKAGE_CHECKSUM_H
#define NNACCEL_PACKAGE_CHECKSUM_H

#include <cstddef>
#include <cstdint>

namespace nnaccel::package {

/// CRC-32 of `size` bytes, continuing from `crc` (0 to start).
uint32_t crc32(const void *data, size_t size, uint32_t crc = 0);

inline constexpr uint64_t Fnv1a64Seed = 0xcbf29ce484222325ull;
/// FNV-1a 64 of `size` bytes, continuing from `hash` (Fnv1a64Seed to start).
uint64_t fnv1a64(const void *data, size_t size, uint64_t hash = Fnv1a64Seed);

} // namespace nnaccel::package

#endif // NNACCEL_PACKAGE_CHECKSUM_H
