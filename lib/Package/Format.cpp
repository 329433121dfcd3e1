//===- Format.cpp - The .nnpkg file header --------------------------------===//
//
// Little-endian (de)serialisation of the 64-byte header and the placement
// rules for the two sections. Every size is a 64-bit value from an untrusted
// file, so each sum is checked for overflow before it is compared; a header
// that passes checkLayout() describes ranges that lie inside the file.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Package/Format.h"

#include <fmt/format.h>

#include <cstring>

namespace nnaccel::package {

namespace {

template <typename T> void store(uint8_t *out, size_t offset, T value) {
  for (size_t i = 0; i < sizeof(T); ++i)
    out[offset + i] = static_cast<uint8_t>(uint64_t(value) >> (8 * i));
}

template <typename T> T load(const uint8_t *in, size_t offset) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    v |= uint64_t(in[offset + i]) << (8 * i);
  return static_cast<T>(v);
}

} // namespace

void FileHeader::encode(uint8_t *out) const {
  std::memcpy(out, Magic, sizeof(Magic));
  store<uint16_t>(out, 8, versionMajor);
  store<uint16_t>(out, 10, versionMinor);
  store<uint32_t>(out, 12, flags);
  store<uint64_t>(out, 16, fileSize);
  store<uint64_t>(out, 24, manifestOffset);
  store<uint64_t>(out, 32, manifestSize);
  store<uint64_t>(out, 40, weightsOffset);
  store<uint64_t>(out, 48, weightsSize);
  store<uint32_t>(out, 56, manifestCrc);
  store<uint32_t>(out, 60, weightsCrc);
}

Expected<FileHeader> FileHeader::decode(const uint8_t *in) {
  if (std::memcmp(in, Magic, sizeof(Magic)) != 0)
    return Status::error("bad magic: not an nnaccel package (expected "
                         "\"NNPKG\\0\\0\\0\" at offset 0)");
  FileHeader h;
  h.versionMajor = load<uint16_t>(in, 8);
  h.versionMinor = load<uint16_t>(in, 10);
  h.flags = load<uint32_t>(in, 12);
  h.fileSize = load<uint64_t>(in, 16);
  h.manifestOffset = load<uint64_t>(in, 24);
  h.manifestSize = load<uint64_t>(in, 32);
  h.weightsOffset = load<uint64_t>(in, 40);
  h.weightsSize = load<uint64_t>(in, 48);
  h.manifestCrc = load<uint32_t>(in, 56);
  h.weightsCrc = load<uint32_t>(in, 60);
  if (h.versionMajor != FormatVersionMajor ||
      h.versionMinor > FormatVersionMinor)
    return Status::error(fmt::format(
        "unsupported format version {}.{} (this reader reads {}.0 to {}.{})",
        h.versionMajor, h.versionMinor, FormatVersionMajor, FormatVersionMajor,
        FormatVersionMinor));
  if (h.flags != 0)
    return Status::error(
        fmt::format("unknown header flags 0x{:08x} (no flags are defined in "
                    "format version {}.{})",
                    h.flags, FormatVersionMajor, FormatVersionMinor));
  return h;
}

Status FileHeader::checkLayout(uint64_t actualFileSize) const {
  if (fileSize != actualFileSize)
    return Status::error(
        fmt::format("{}: header records a file size of {} bytes, but the "
                    "file has {} bytes",
                    actualFileSize < fileSize ? "truncated package"
                                              : "trailing data in package",
                    fileSize, actualFileSize));
  if (manifestOffset != Size)
    return Status::error(
        fmt::format("manifest offset {} is not {} (it must follow the header)",
                    manifestOffset, Size));
  if (manifestSize == 0 || manifestSize > MaxManifestBytes)
    return Status::error(fmt::format("manifest size {} is outside [1, {}]",
                                     manifestSize, MaxManifestBytes));
  uint64_t manifestEnd = manifestOffset + manifestSize; // cannot overflow
  if (manifestEnd > fileSize)
    return Status::error(fmt::format(
        "manifest [{}, {}) extends past the end of the file ({} bytes)",
        manifestOffset, manifestEnd, fileSize));
  if (weightsOffset % WeightAlignment != 0)
    return Status::error(
        fmt::format("weights offset {} is not a multiple of {}", weightsOffset,
                    WeightAlignment));
  if (weightsOffset != alignTo(manifestEnd, WeightAlignment))
    return Status::error(fmt::format(
        "weights offset {} does not directly follow the manifest (expected "
        "{})",
        weightsOffset, alignTo(manifestEnd, WeightAlignment)));
  if (weightsOffset > fileSize || weightsSize > fileSize - weightsOffset)
    return Status::error(fmt::format(
        "weights section [{}, {} + {}) extends past the end of the file ({} "
        "bytes)",
        weightsOffset, weightsOffset, weightsSize, fileSize));
  if (weightsOffset + weightsSize != fileSize)
    return Status::error(
        fmt::format("weights section ends at {}, but the file has {} bytes",
                    weightsOffset + weightsSize, fileSize));
  return Status::success();
}

} // namespace nnaccel::package
