//===- Format.h - Byte layout of the .nnpkg container -----------*- C++ -*-===//
//
// The fixed 64-byte file header and the alignment rules that place the
// manifest and the weights section in a .nnpkg file. These constants are the
// byte-exact specification of docs/package-format.md ("File layout"); the
// writer and the reader both use them, and tests use them to forge damaged
// files. All multi-byte fields are little-endian.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_PACKAGE_FORMAT_H
#define NNACCEL_PACKAGE_FORMAT_H

#include "nnaccel/Package/Status.h"

#include <cstddef>
#include <cstdint>

namespace nnaccel::package {

/// Format version written by this library. A reader accepts the same major
/// and any minor up to its own (minors only append optional schema fields
/// and enum values). 2.1 added the rowwise table types RW8 and RW4, 2.2 the
/// card partitions' setup programs (pinned weights).
inline constexpr uint16_t FormatVersionMajor = 2;
inline constexpr uint16_t FormatVersionMinor = 4;

/// Alignment of the weights section and of every weight inside it: enough for
/// any element type, a cache line, and AVX-512 loads straight from the map.
inline constexpr uint64_t WeightAlignment = 64;

/// Largest manifest FlatBuffer: FlatBuffers' signed 32-bit offsets address
/// less than 2 GiB (its verifier requires size < 2^31 - 1); the margin keeps
/// us clear of that edge.
inline constexpr uint64_t MaxManifestBytes = (uint64_t(1) << 31) - 64;

/// Rounds `value` up to a multiple of `align` (a power of two).
constexpr uint64_t alignTo(uint64_t value, uint64_t align) {
  return (value + align - 1) & ~(align - 1);
}

/// The fixed header at offset 0.
///
///   offset size field
///        0    8 magic "NNPKG\0\0\0"
///        8    2 version major
///       10    2 version minor
///       12    4 flags (no flags are defined; must be 0)
///       16    8 file size
///       24    8 manifest offset (= 64)
///       32    8 manifest size
///       40    8 weights offset (multiple of 64, >= manifest end)
///       48    8 weights size (weights offset + size = file size)
///       56    4 manifest CRC-32
///       60    4 weights CRC-32
struct FileHeader {
  static constexpr uint8_t Magic[8] = {'N', 'N', 'P', 'K', 'G', 0, 0, 0};
  static constexpr size_t Size = 64;

  uint16_t versionMajor = FormatVersionMajor;
  uint16_t versionMinor = FormatVersionMinor;
  uint32_t flags = 0;
  uint64_t fileSize = 0;
  uint64_t manifestOffset = Size;
  uint64_t manifestSize = 0;
  uint64_t weightsOffset = 0;
  uint64_t weightsSize = 0;
  uint32_t manifestCrc = 0;
  uint32_t weightsCrc = 0;

  /// Serialises into exactly Size bytes at `out`.
  void encode(uint8_t *out) const;
  /// Parses the Size bytes at `in`. Checks only the magic and the version;
  /// the structural checks against the actual file size are
  /// checkLayout()'s.
  static Expected<FileHeader> decode(const uint8_t *in);
  /// Checks the section placement rules against the real file size (no
  /// overflow, manifest at 64, weights aligned and after the manifest,
  /// everything ending exactly at the end of the file).
  Status checkLayout(uint64_t actualFileSize) const;
};

} // namespace nnaccel::package

#endif // NNACCEL_PACKAGE_FORMAT_H
