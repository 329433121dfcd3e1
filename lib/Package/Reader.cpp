//===- Reader.cpp - Package: loading and validating .nnpkg files ----------===//
//
// open() maps the file read-only (a package may be many gigabytes; only the
// pages actually touched are read) and load() validates it in the order that
// keeps every later check safe: header and layout against the real size, the
// manifest CRC before the FlatBuffers verifier sees the bytes, the verifier
// before any table is read, the weights CRC, and finally the semantic rules
// shared with the writer. Only then is a Package handed out, so weight views
// and ids taken from it need no further checking.
//
// The mapping is MAP_PRIVATE and PROT_READ. As with any mmap, truncating the
// file while it is mapped makes later accesses fault (SIGBUS); deployments
// replace packages by rename, which the writer does, and never in place.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Package/Package.h"

#include "Manifest.h"
#include "Validate.h"

#include "nnaccel/Package/Checksum.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nnaccel::package {

struct Package::State {
  /// Owns the bytes: an mmap'ed file or a 64-byte-aligned heap copy.
  std::shared_ptr<const void> storage;
  const uint8_t *data = nullptr;
  uint64_t size = 0;
  FileHeader header;
  ModelDesc model;
  std::vector<WeightInfo> weights;
  const fb::Model *root = nullptr;
};

namespace {

/// An mmap'ed file region, unmapped when the last owner goes away.
struct Mapping {
  void *addr = nullptr;
  size_t length = 0;
  ~Mapping() {
    if (addr)
      ::munmap(addr, length);
  }
};

/// Closes a file descriptor on scope exit.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

} // namespace

Expected<Package> Package::open(const std::string &path,
                                const OpenOptions &options) {
  try {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return Status::error(
          fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    FdCloser closer{fd};
    struct stat st;
    if (::fstat(fd, &st) != 0)
      return Status::error(
          fmt::format("{}: cannot stat: {}", path, std::strerror(errno)));
    if (!S_ISREG(st.st_mode))
      return Status::error(path + ": not a regular file");
    auto state = std::make_shared<State>();
    state->size = static_cast<uint64_t>(st.st_size);
    if (state->size == 0)
      return Status::error(path + ": empty file (0 bytes), not a package");
    auto mapping = std::make_shared<Mapping>();
    void *addr = ::mmap(nullptr, static_cast<size_t>(state->size), PROT_READ,
                        MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED)
      return Status::error(
          fmt::format("{}: cannot map: {}", path, std::strerror(errno)));
    mapping->addr = addr;
    mapping->length = static_cast<size_t>(state->size);
    state->data = static_cast<const uint8_t *>(addr);
    state->storage = std::move(mapping);
    Expected<Package> pkg = load(std::move(state), options);
    if (!pkg)
      return pkg.status().withContext(path);
    return pkg;
  } catch (const std::bad_alloc &) {
    return Status::error(path + ": out of memory loading the package");
  }
}

Expected<Package> Package::fromBuffer(const void *data, size_t size,
                                      const OpenOptions &options) {
  try {
    auto state = std::make_shared<State>();
    state->size = size;
    if (size == 0)
      return Status::error("empty buffer (0 bytes), not a package");
    // aligned_alloc needs a size that is a multiple of the alignment.
    size_t capacity = static_cast<size_t>(alignTo(size, WeightAlignment));
    void *copy = std::aligned_alloc(WeightAlignment, capacity);
    if (!copy)
      return Status::error(
          fmt::format("out of memory copying a {}-byte package", size));
    std::memcpy(copy, data, size);
    state->data = static_cast<const uint8_t *>(copy);
    state->storage = std::shared_ptr<const void>(
        copy, [](const void *p) { std::free(const_cast<void *>(p)); });
    return load(std::move(state), options);
  } catch (const std::bad_alloc &) {
    return Status::error("out of memory loading the package");
  }
}

Expected<Package> Package::load(std::shared_ptr<State> state,
                                const OpenOptions &options) {
  const uint8_t *data = state->data;
  uint64_t size = state->size;
  // Magic first (when there are enough bytes to tell) so that a random file
  // is reported as "not a package" rather than as a truncated one.
  if (size >= sizeof(FileHeader::Magic) &&
      std::memcmp(data, FileHeader::Magic, sizeof(FileHeader::Magic)) != 0)
    return Status::error("bad magic: not an nnaccel package (expected "
                         "\"NNPKG\\0\\0\\0\" at offset 0)");
  if (size < FileHeader::Size)
    return Status::error(fmt::format(
        "truncated package: {} bytes, smaller than the {}-byte header", size,
        FileHeader::Size));
  Expected<FileHeader> header = FileHeader::decode(data);
  if (!header)
    return header.status();
  const FileHeader &h = *header;
  if (Status s = h.checkLayout(size); !s.ok())
    return s;

  const uint8_t *manifest = data + h.manifestOffset;
  uint32_t manifestCrc = crc32(manifest, h.manifestSize);
  if (manifestCrc != h.manifestCrc)
    return Status::error(fmt::format(
        "manifest checksum mismatch (header 0x{:08x}, computed 0x{:08x}): "
        "the package is corrupt",
        h.manifestCrc, manifestCrc));
  // The padding between the manifest and the weights is covered by neither
  // CRC; requiring zeros keeps every byte of a valid file determined.
  for (uint64_t i = h.manifestOffset + h.manifestSize; i < h.weightsOffset; ++i)
    if (data[i] != 0)
      return Status::error(fmt::format(
          "non-zero padding byte at offset {} before the weights section", i));
  if (options.verifyWeightsChecksum) {
    uint32_t weightsCrc = crc32(data + h.weightsOffset, h.weightsSize);
    if (weightsCrc != h.weightsCrc)
      return Status::error(fmt::format(
          "weights checksum mismatch (header 0x{:08x}, computed 0x{:08x}): "
          "the package is corrupt",
          h.weightsCrc, weightsCrc));
  }

  Expected<DecodedManifest> decoded =
      decodeManifest(manifest, static_cast<size_t>(h.manifestSize));
  if (!decoded)
    return decoded.status();
  if (decoded->formatMajor != h.versionMajor ||
      decoded->formatMinor != h.versionMinor)
    return Status::error(fmt::format(
        "manifest: format version {}.{} disagrees with the header's {}.{}",
        decoded->formatMajor, decoded->formatMinor, h.versionMajor,
        h.versionMinor));
  if (Status s = validateModel(decoded->model, decoded->weights, h.weightsSize);
      !s.ok())
    return s.withContext("manifest");

  state->header = h;
  state->root = decoded->root;
  state->model = std::move(decoded->model);
  state->weights = std::move(decoded->weights);
  return Package(std::move(state));
}

const FileHeader &Package::header() const { return state_->header; }
const ModelDesc &Package::model() const { return state_->model; }
const fb::Model *Package::manifest() const { return state_->root; }
size_t Package::numWeights() const { return state_->weights.size(); }

const WeightInfo &Package::weightInfo(size_t index) const {
  assert(index < state_->weights.size() && "weight index out of range");
  return state_->weights[index];
}

Expected<WeightView> Package::getWeight(int64_t index) const {
  if (index < 0 || static_cast<uint64_t>(index) >= state_->weights.size())
    return Status::error(fmt::format(
        "weight index {} is out of range (the package has {} weights)", index,
        state_->weights.size()));
  const WeightInfo &w = state_->weights[index];
  WeightView view;
  view.data = state_->data + state_->header.weightsOffset + w.offset;
  view.size = w.size;
  view.hash = w.hash;
  return view;
}

const uint8_t *Package::data() const { return state_->data; }
uint64_t Package::size() const { return state_->size; }

std::shared_ptr<const void> Package::owner() const {
  // Aliasing constructor: shares ownership of the whole state (and so the
  // mapping) while pointing at the bytes.
  return std::shared_ptr<const void>(state_, state_->data);
}

} // namespace nnaccel::package
