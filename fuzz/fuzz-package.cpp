//===- fuzz-package.cpp - Fuzz package loading and verification -----------===//
//
// Input: a .nnpkg file. Random bytes would almost never get past the two
// CRCs, so when the header is readable and its layout fits the input the
// target recomputes both checksums first; the mutations then reach the
// FlatBuffers verifier, the manifest decoder and the semantic validation.
// A package that loads is then turned into a runtime Model, which decodes
// and verifies its card programs against its target and checks its host ops.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Package/Checksum.h"
#include "nnaccel/Package/Format.h"
#include "nnaccel/Package/Package.h"
#include "nnaccel/Runtime/Model.h"

#include <cstring>
#include <vector>

using namespace nnaccel;
using namespace nnaccel::package;

/// Rewrites the header CRCs of `bytes` to match its sections, when the
/// header can be read and its layout is consistent with the size.
static void fixChecksums(std::vector<uint8_t> &bytes) {
  if (bytes.size() < FileHeader::Size)
    return;
  auto header = FileHeader::decode(bytes.data());
  if (!header || !header->checkLayout(bytes.size()).ok())
    return;
  FileHeader h = *header;
  h.manifestCrc = crc32(bytes.data() + h.manifestOffset, h.manifestSize);
  h.weightsCrc = crc32(bytes.data() + h.weightsOffset, h.weightsSize);
  h.encode(bytes.data());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  fixChecksums(bytes);
  auto pkg = Package::fromBuffer(bytes.data(), bytes.size());
  if (!pkg)
    return 0;
  for (size_t i = 0; i < pkg->numWeights(); ++i) {
    auto weight = pkg->getWeight(static_cast<int64_t>(i));
    if (weight && weight->size)
      (void)weight->bytes()[weight->size - 1];
  }
  auto model = runtime::Model::fromPackage(std::move(*pkg), "fuzz.nnpkg");
  (void)model;
  return 0;
}
