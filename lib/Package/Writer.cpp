//===- Writer.cpp - PackageBuilder: writing .nnpkg files ------------------===//
//
// Weights are deduplicated by content (FNV-1a 64 hash, confirmed by comparing
// the bytes, so a hash collision can never merge different tensors) and laid
// out at 64-byte-aligned offsets as they are added. write() streams the file
// -- header placeholder, manifest, zero padding, weights -- computing the
// weights CRC on the way, then fills in the header, flushes, and renames the
// temporary file into place: an interrupted compile never leaves a truncated
// package under the final name. Errors carry the path and strerror(errno).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Package/Builder.h"

#include "Manifest.h"
#include "Validate.h"

#include "nnaccel/Package/Checksum.h"
#include "nnaccel/Package/Format.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nnaccel::package {

PackageBuilder::PackageBuilder() = default;
PackageBuilder::~PackageBuilder() = default;
PackageBuilder::PackageBuilder(PackageBuilder &&) noexcept = default;
PackageBuilder &PackageBuilder::operator=(PackageBuilder &&) noexcept = default;

Expected<int32_t> PackageBuilder::addWeight(const void *data, size_t size) {
  return add(data, size, /*copy=*/true);
}

Expected<int32_t> PackageBuilder::addWeightNoCopy(const void *data,
                                                  size_t size) {
  return add(data, size, /*copy=*/false);
}

Expected<int32_t> PackageBuilder::add(const void *data, size_t size,
                                      bool copy) {
  try {
    if (size != 0 && !data)
      return Status::error("addWeight: null data for a non-empty weight");
    const auto *bytes = static_cast<const uint8_t *>(data);
    uint64_t hash = fnv1a64(bytes, size);
    auto range = byHash_.equal_range(hash);
    for (auto it = range.first; it != range.second; ++it) {
      const Entry &e = weights_[it->second];
      if (e.info.size == size &&
          (size == 0 || std::memcmp(e.data, bytes, size) == 0))
        return it->second;
    }
    if (weights_.size() >=
        static_cast<size_t>(std::numeric_limits<int32_t>::max()))
      return Status::error("addWeight: the weight table is full");
    uint64_t offset = alignTo(weightsEnd_, WeightAlignment);
    if (offset < weightsEnd_ ||
        size > std::numeric_limits<uint64_t>::max() - offset)
      return Status::error("addWeight: weights section size overflows");
    Entry entry;
    entry.info = {offset, size, hash};
    entry.data = bytes;
    if (copy && size != 0) {
      owned_.emplace_back(new uint8_t[size]);
      std::memcpy(owned_.back().get(), bytes, size);
      entry.data = owned_.back().get();
    }
    auto index = static_cast<int32_t>(weights_.size());
    weights_.push_back(entry);
    byHash_.emplace(hash, index);
    weightsEnd_ = offset + size;
    return index;
  } catch (const std::bad_alloc &) {
    return Status::error(
        fmt::format("addWeight: out of memory copying {} bytes", size));
  }
}

Expected<std::vector<uint8_t>> PackageBuilder::buildManifest() const {
  std::vector<WeightInfo> table;
  table.reserve(weights_.size());
  for (const Entry &e : weights_)
    table.push_back(e.info);
  if (Status s = validateModel(model_, table, weightsEnd_); !s.ok())
    return s.withContext("invalid model");
  return encodeManifest(model_, table);
}

namespace {

/// The header for a manifest of `manifestSize` bytes and the weights.
FileHeader makeHeader(uint64_t manifestSize, uint64_t weightsSize) {
  FileHeader h;
  h.manifestOffset = FileHeader::Size;
  h.manifestSize = manifestSize;
  h.weightsOffset = alignTo(h.manifestOffset + manifestSize, WeightAlignment);
  h.weightsSize = weightsSize;
  h.fileSize = h.weightsOffset + weightsSize;
  return h;
}

/// Writes all of `size` bytes, retrying short writes and EINTR.
bool writeAll(int fd, const void *data, size_t size) {
  const auto *p = static_cast<const uint8_t *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, std::min<size_t>(size, size_t(1) << 30));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool pwriteAll(int fd, const void *data, size_t size, off_t offset) {
  const auto *p = static_cast<const uint8_t *>(data);
  while (size > 0) {
    ssize_t n = ::pwrite(fd, p, size, offset);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    p += n;
    offset += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

} // namespace

Expected<std::vector<uint8_t>> PackageBuilder::toBuffer() const {
  try {
    Expected<std::vector<uint8_t>> manifest = buildManifest();
    if (!manifest)
      return manifest.status();
    FileHeader h = makeHeader(manifest->size(), weightsEnd_);
    if (h.fileSize > std::numeric_limits<size_t>::max())
      return Status::error("package does not fit in memory");
    std::vector<uint8_t> out(static_cast<size_t>(h.fileSize), 0);
    std::memcpy(out.data() + h.manifestOffset, manifest->data(),
                manifest->size());
    uint8_t *weights = out.data() + h.weightsOffset;
    for (const Entry &e : weights_)
      if (e.info.size != 0)
        std::memcpy(weights + e.info.offset, e.data, e.info.size);
    h.manifestCrc = crc32(manifest->data(), manifest->size());
    h.weightsCrc = crc32(weights, weightsEnd_);
    h.encode(out.data());
    return out;
  } catch (const std::bad_alloc &) {
    return Status::error("out of memory building the package");
  }
}

namespace {
/// Copies the file `from` through the existing path `to` (a device, FIFO or
/// symbolic link), truncating what it names.
Status copyInto(const std::string &from, const std::string &to) {
  int in = ::open(from.c_str(), O_RDONLY);
  if (in < 0)
    return Status::error(
        fmt::format("{}: cannot reopen: {}", from, std::strerror(errno)));
  int out = ::open(to.c_str(), O_WRONLY | O_TRUNC);
  if (out < 0) {
    int err = errno;
    ::close(in);
    return Status::error(
        fmt::format("{}: cannot open for writing: {}", to, std::strerror(err)));
  }
  std::vector<uint8_t> buffer(1 << 16);
  bool ok = true;
  while (ok) {
    ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    ok = writeAll(out, buffer.data(), size_t(n));
  }
  int err = errno;
  ::close(in);
  if (::close(out) != 0 || !ok)
    return Status::error(fmt::format("{}: write failed: {}", to,
                                     std::strerror(ok ? errno : err)));
  return Status::success();
}
} // namespace

Status PackageBuilder::write(const std::string &path) const {
  try {
    Expected<std::vector<uint8_t>> manifest = buildManifest();
    if (!manifest)
      return manifest.status().withContext(path);
    FileHeader h = makeHeader(manifest->size(), weightsEnd_);
    h.manifestCrc = crc32(manifest->data(), manifest->size());

    // mkstemp in the target directory, so that the final rename stays on one
    // file system and is atomic. A target that exists and is not a regular
    // file -- a device (/dev/null), a FIFO, or a symbolic link (/dev/stdout,
    // or a link the user keeps to a package) -- must not be renamed over (as
    // root that would replace /dev/null with a file): the package is then
    // built in the temporary directory and copied through the path.
    struct stat target;
    const bool special =
        ::lstat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode);
    std::string tmp = path + ".tmp.XXXXXX";
    if (special) {
      const char *dir = std::getenv("TMPDIR");
      tmp = std::string(dir && *dir ? dir : "/tmp") + "/nnaccel-pkg.XXXXXX";
    }
    int fd = ::mkstemp(tmp.data());
    if (fd < 0)
      return Status::error(fmt::format("{}: cannot create a temporary file: {}",
                                       path, std::strerror(errno)));
    auto fail = [&](const char *what) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::error(
          fmt::format("{}: {}: {}", tmp, what, std::strerror(err)));
    };
    // mkstemp creates 0600; a package is an ordinary deliverable.
    mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd, 0666 & ~mask) != 0)
      return fail("cannot set permissions");

    static const uint8_t zeros[WeightAlignment] = {};
    uint8_t header[FileHeader::Size] = {};
    if (!writeAll(fd, header, sizeof(header)) ||
        !writeAll(fd, manifest->data(), manifest->size()) ||
        !writeAll(fd, zeros,
                  h.weightsOffset - h.manifestOffset - h.manifestSize))
      return fail("write failed");
    uint64_t pos = 0;
    uint32_t crc = 0;
    for (const Entry &e : weights_) {
      uint64_t pad = e.info.offset - pos;
      crc = crc32(zeros, pad, crc);
      if (!writeAll(fd, zeros, pad))
        return fail("write failed");
      crc = crc32(e.data, e.info.size, crc);
      if (!writeAll(fd, e.data, e.info.size))
        return fail("write failed");
      pos = e.info.offset + e.info.size;
    }
    h.weightsCrc = crc;
    h.encode(header);
    if (!pwriteAll(fd, header, sizeof(header), 0))
      return fail("write failed");
    if (::fsync(fd) != 0)
      return fail("fsync failed");
    if (::close(fd) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return Status::error(
          fmt::format("{}: close failed: {}", tmp, std::strerror(err)));
    }
    if (special) {
      Status copied = copyInto(tmp, path);
      ::unlink(tmp.c_str());
      return copied;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return Status::error(fmt::format("{}: cannot rename {} into place: {}",
                                       path, tmp, std::strerror(err)));
    }
    return Status::success();
  } catch (const std::bad_alloc &) {
    return Status::error(path + ": out of memory writing the package");
  }
}

} // namespace nnaccel::package
