//===- CorruptionTest.cpp - Damaged and malicious packages ----------------===//
//
// Every damaged input must produce an error with a precise message and never
// a crash: truncation at many offsets, wrong magic, version and flags, bit
// flips caught by the CRCs, header offsets pointing outside the file, and
// manifests forged with the FlatBuffers builder (valid CRCs, valid
// FlatBuffers, invalid contents) that only the semantic checks can catch.
// Run under ASan/UBSan as well as normally.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include "nnaccel/Package/Checksum.h"
#include "nnaccel/Package/Package_generated.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace nnaccel::package;
using namespace nnaccel::package::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::vector<uint8_t> goodPackage() {
  PackageBuilder builder;
  buildTestModel(builder);
  Expected<std::vector<uint8_t>> file = builder.toBuffer();
  REQUIRE(file.ok());
  return std::move(*file);
}

std::string loadError(const std::vector<uint8_t> &file) {
  Expected<Package> pkg = Package::fromBuffer(file.data(), file.size());
  REQUIRE_FALSE(pkg.ok());
  return pkg.message();
}

void putLE(std::vector<uint8_t> &file, size_t offset, uint64_t value,
           size_t bytes) {
  for (size_t i = 0; i < bytes; ++i)
    file[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

/// Frames a manifest (and weights) into a complete package with correct
/// header and CRCs, the way the writer does.
std::vector<uint8_t> frame(const uint8_t *manifest, size_t size,
                           const std::vector<uint8_t> &weights = {},
                           uint16_t minor = FormatVersionMinor) {
  FileHeader h;
  h.versionMinor = minor;
  h.manifestSize = size;
  h.weightsOffset = alignTo(64 + size, 64);
  h.weightsSize = weights.size();
  h.fileSize = h.weightsOffset + weights.size();
  h.manifestCrc = crc32(manifest, size);
  h.weightsCrc = crc32(weights.data(), weights.size());
  std::vector<uint8_t> file(h.fileSize, 0);
  h.encode(file.data());
  std::memcpy(file.data() + 64, manifest, size);
  if (!weights.empty())
    std::memcpy(file.data() + h.weightsOffset, weights.data(), weights.size());
  return file;
}

/// Builds a minimal manifest by hand: one f32[4] input "x" passed through,
/// plus whatever `tweak` adds, so tests can forge what PackageBuilder would
/// refuse to write.
struct Forge {
  flatbuffers::FlatBufferBuilder fbb;
  int32_t weightIndex = -1;
  std::vector<fb::Weight> weights;
  uint16_t major = FormatVersionMajor;
  uint16_t minor = FormatVersionMinor; ///< of both the manifest and header
  fb::PartitionBody partitionType = fb::PartitionBody::NONE;
  bool emptyPartition = false; ///< add a Partition without a body
  int8_t dtype = 0;

  std::vector<uint8_t> build() {
    auto shape = fbb.CreateVector(std::vector<int64_t>{4});
    auto type = fb::CreateTensorType(fbb, static_cast<fb::DType>(dtype), shape);
    auto port = fb::CreatePort(fbb, fbb.CreateString("x"), type);
    auto ports =
        fbb.CreateVector(std::vector<flatbuffers::Offset<fb::Port>>{port});
    auto vtype =
        fb::CreateTensorType(fbb, static_cast<fb::DType>(dtype),
                             fbb.CreateVector(std::vector<int64_t>{4}));
    auto value = fb::CreateValue(fbb, fbb.CreateString("x"), vtype, -1);
    auto cvalue =
        fb::CreateValue(fbb, fbb.CreateString("c"), vtype, weightIndex);
    auto values = fbb.CreateVector(
        std::vector<flatbuffers::Offset<fb::Value>>{value, cvalue});
    std::vector<flatbuffers::Offset<fb::Partition>> parts;
    if (partitionType != fb::PartitionBody::NONE) {
      auto body = fb::CreateHostPartition(fbb);
      parts.push_back(fb::CreatePartition(fbb, partitionType, body.Union()));
    }
    if (emptyPartition)
      parts.push_back(fb::CreatePartition(fbb));
    auto partVec = fbb.CreateVector(parts);
    auto io = fbb.CreateVector(std::vector<int32_t>{0});
    auto variant = fb::CreateVariant(fbb, fbb.CreateString("v"), 0, values, io,
                                     io, partVec);
    auto variants = fbb.CreateVector(
        std::vector<flatbuffers::Offset<fb::Variant>>{variant});
    auto weightVec = fbb.CreateVectorOfStructs(weights);
    auto model =
        fb::CreateModel(fbb, major, minor, 0, 0, fbb.CreateString("forged"), 0,
                        ports, ports, 0, variants, weightVec);
    fb::FinishModelBuffer(fbb, model);
    return frame(fbb.GetBufferPointer(), fbb.GetSize(),
                 std::vector<uint8_t>(64, 0), minor);
  }
};

} // namespace

TEST_CASE("the forged baseline manifest is valid", "[package][corrupt]") {
  Forge forge;
  forge.weights.emplace_back(0, 16, 0);
  forge.weightIndex = 0;
  std::vector<uint8_t> file = forge.build();
  Expected<Package> pkg = Package::fromBuffer(file.data(), file.size());
  INFO(pkg.message());
  CHECK(pkg.ok());
}

TEST_CASE("packages of older minor versions still read", "[package]") {
  // 2.0 and 2.1 manifests have no setup programs (added in 2.2), 2.2 ones
  // no length inputs or pad value (2.3); the fields a minor version appends
  // are absent from older files.
  for (uint16_t minor : {0, 1, 2}) {
    Forge forge;
    forge.minor = minor;
    std::vector<uint8_t> file = forge.build();
    Expected<Package> pkg = Package::fromBuffer(file.data(), file.size());
    INFO("minor " << minor << ": " << pkg.message());
    REQUIRE(pkg.ok());
    CHECK(pkg->header().versionMinor == minor);
  }
}

TEST_CASE("truncation at any offset is an error", "[package][corrupt]") {
  std::vector<uint8_t> file = goodPackage();
  for (size_t len = 0; len < file.size(); len += 37) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + len);
    Expected<Package> pkg = Package::fromBuffer(cut.data(), cut.size());
    INFO("length " << len);
    REQUIRE_FALSE(pkg.ok());
    if (len == 0)
      CHECK(pkg.message() == "empty buffer (0 bytes), not a package");
    else if (len < 64)
      CHECK_THAT(pkg.message(), StartsWith("truncated package: "));
    else
      CHECK(pkg.message() ==
            "truncated package: header records a file size of " +
                std::to_string(file.size()) + " bytes, but the file has " +
                std::to_string(len) + " bytes");
  }
  // Trailing garbage is an error too.
  file.push_back(0);
  CHECK_THAT(loadError(file), StartsWith("trailing data in package"));
}

TEST_CASE("bad magic, version and flags", "[package][corrupt]") {
  std::vector<uint8_t> file = goodPackage();
  SECTION("magic") {
    file[3] = 'X';
    CHECK(loadError(file) == "bad magic: not an nnaccel package (expected "
                             "\"NNPKG\\0\\0\\0\" at offset 0)");
  }
  SECTION("short file with bad magic") {
    std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r'};
    CHECK_THAT(loadError(text), StartsWith("bad magic"));
  }
  SECTION("newer major") {
    putLE(file, 8, 3, 2);
    CHECK(loadError(file) ==
          "unsupported format version 3.4 (this reader reads 2.0 to 2.4)");
  }
  SECTION("older major (format 1 numbered element types differently)") {
    putLE(file, 8, 1, 2);
    CHECK(loadError(file) ==
          "unsupported format version 1.4 (this reader reads 2.0 to 2.4)");
  }
  SECTION("newer minor") {
    putLE(file, 10, 5, 2);
    CHECK(loadError(file) ==
          "unsupported format version 2.5 (this reader reads 2.0 to 2.4)");
  }
  SECTION("unknown flags") {
    putLE(file, 12, 4, 4);
    CHECK_THAT(loadError(file), StartsWith("unknown header flags 0x00000004"));
  }
}

TEST_CASE("every single-byte change of the header is detected",
          "[package][corrupt]") {
  std::vector<uint8_t> file = goodPackage();
  for (size_t off = 0; off < FileHeader::Size; ++off) {
    for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80)}) {
      std::vector<uint8_t> bad = file;
      bad[off] ^= mask;
      INFO("offset " << off << " mask " << int(mask));
      Expected<Package> pkg = Package::fromBuffer(bad.data(), bad.size());
      CHECK_FALSE(pkg.ok());
    }
  }
}

TEST_CASE("flipped bits are caught by the checksums", "[package][corrupt]") {
  std::vector<uint8_t> file = goodPackage();
  Expected<FileHeader> h = FileHeader::decode(file.data());
  REQUIRE(h.ok());
  SECTION("every 53rd manifest byte") {
    for (uint64_t off = h->manifestOffset;
         off < h->manifestOffset + h->manifestSize; off += 53) {
      std::vector<uint8_t> bad = file;
      bad[off] ^= 0x10;
      INFO("offset " << off);
      CHECK_THAT(loadError(bad), StartsWith("manifest checksum mismatch"));
    }
  }
  SECTION("a weights byte") {
    file[h->weightsOffset + h->weightsSize / 2] ^= 0x01;
    CHECK_THAT(loadError(file), StartsWith("weights checksum mismatch"));
    // Without the weights CRC check the same file loads (by design).
    OpenOptions fast;
    fast.verifyWeightsChecksum = false;
    CHECK(Package::fromBuffer(file.data(), file.size(), fast).ok());
  }
  SECTION("the stored CRC itself") {
    file[57] ^= 0x80;
    CHECK_THAT(loadError(file), StartsWith("manifest checksum mismatch"));
  }
  SECTION("padding before the weights") {
    if (h->weightsOffset > h->manifestOffset + h->manifestSize) {
      file[h->weightsOffset - 1] = 1;
      CHECK_THAT(loadError(file), StartsWith("non-zero padding byte"));
    }
  }
}

TEST_CASE("header offsets pointing outside the file", "[package][corrupt]") {
  std::vector<uint8_t> file = goodPackage();
  Expected<FileHeader> h = FileHeader::decode(file.data());
  REQUIRE(h.ok());
  SECTION("manifest size past the end") {
    putLE(file, 32, file.size(), 8);
    CHECK_THAT(loadError(file),
               StartsWith("manifest [64, " + std::to_string(64 + file.size()) +
                          ") extends past the end of the file"));
  }
  SECTION("huge manifest size") {
    putLE(file, 32, ~uint64_t(0) - 10, 8);
    CHECK_THAT(loadError(file), StartsWith("manifest size "));
  }
  SECTION("manifest offset") {
    putLE(file, 24, 128, 8);
    CHECK(loadError(file) ==
          "manifest offset 128 is not 64 (it must follow the header)");
  }
  SECTION("weights offset past the end") {
    putLE(file, 40, alignTo(file.size() + 64, 64), 8);
    CHECK_THAT(loadError(file), StartsWith("weights offset"));
  }
  SECTION("unaligned weights offset") {
    putLE(file, 40, h->weightsOffset + 8, 8);
    CHECK_THAT(loadError(file), Contains("is not a multiple of 64"));
  }
  SECTION("weights size overflowing") {
    putLE(file, 48, ~uint64_t(0), 8);
    CHECK_THAT(loadError(file), StartsWith("weights section ["));
  }
  SECTION("weights shorter than the file") {
    putLE(file, 48, h->weightsSize - 64, 8);
    CHECK_THAT(loadError(file), StartsWith("weights section ends at"));
  }
}

TEST_CASE("forged manifests are rejected by the semantic checks",
          "[package][corrupt]") {
  Forge forge;
  SECTION("value referencing a non-existent weight") {
    forge.weightIndex = 5;
    CHECK(loadError(forge.build()) ==
          "manifest: variant 'v' (#0): value 1 ('c'): weight index 5 is out "
          "of range (the package has 0 weights)");
  }
  SECTION("weight outside the weights section") {
    forge.weights.emplace_back(64, 16, 0);
    forge.weightIndex = 0;
    CHECK(loadError(forge.build()) ==
          "manifest: weight 0: range [64, 64 + 16) lies outside the weights "
          "section (64 bytes)");
  }
  SECTION("unaligned weight") {
    forge.weights.emplace_back(8, 16, 0);
    forge.weightIndex = 0;
    CHECK(loadError(forge.build()) ==
          "manifest: weight 0: offset 8 is not a multiple of 64");
  }
  SECTION("weight size disagreeing with the value type") {
    forge.weights.emplace_back(0, 12, 0);
    forge.weightIndex = 0;
    CHECK(loadError(forge.build()) ==
          "manifest: variant 'v' (#0): value 1 ('c'): weight 0 has 12 bytes, "
          "but the value's type needs 16");
  }
  SECTION("unknown element type") {
    forge.dtype = 42;
    CHECK(loadError(forge.build()) ==
          "manifest: input 0: unknown element type 42");
  }
  SECTION("unknown partition kind") {
    forge.partitionType = static_cast<fb::PartitionBody>(7);
    CHECK(loadError(forge.build()) ==
          "manifest: variant 'v' (#0): partition 0: unknown partition kind 7");
  }
  SECTION("partition without a body") {
    forge.emptyPartition = true;
    CHECK(loadError(forge.build()) ==
          "manifest: variant 'v' (#0): partition 0: missing partition body");
  }
  SECTION("manifest version disagreeing with the header") {
    forge.major = 3;
    CHECK(loadError(forge.build()) ==
          "manifest: format version 3.4 disagrees with the header's 2.4");
  }
}

TEST_CASE("structurally broken manifests fail the verifier",
          "[package][corrupt]") {
  std::vector<uint8_t> file = goodPackage();
  Expected<FileHeader> h = FileHeader::decode(file.data());
  REQUIRE(h.ok());
  SECTION("root offset pointing past the manifest") {
    putLE(file, 64, h->manifestSize + 1000, 4);
    refreshChecksums(file);
    CHECK(loadError(file) == "manifest: FlatBuffers verification failed (an "
                             "offset, length or required field is invalid)");
  }
  SECTION("file identifier") {
    file[64 + 4] = 'X';
    refreshChecksums(file);
    CHECK(loadError(file) == "manifest: missing file identifier \"NNPM\" (not "
                             "a package manifest)");
  }
  SECTION("random garbage with valid CRCs never crashes") {
    uint32_t state = 12345;
    for (int round = 0; round < 300; ++round) {
      std::vector<uint8_t> bad = file;
      for (int k = 0; k < 4; ++k) {
        state = state * 1664525u + 1013904223u;
        uint64_t off =
            h->manifestOffset + 8 + (state >> 8) % (h->manifestSize - 8);
        bad[off] = static_cast<uint8_t>(state >> 3);
      }
      refreshChecksums(bad);
      // May or may not be valid; it must simply not crash or hang.
      Expected<Package> pkg = Package::fromBuffer(bad.data(), bad.size());
      if (!pkg.ok())
        CHECK_FALSE(pkg.message().empty());
    }
  }
}

TEST_CASE("missing, empty and non-regular files", "[package][corrupt]") {
  TempDir dir;
  std::string missing = dir.file("missing.nnpkg");
  Expected<Package> pkg = Package::open(missing);
  REQUIRE_FALSE(pkg.ok());
  CHECK(pkg.message() == missing + ": cannot open: No such file or directory");

  std::string empty = dir.file("empty.nnpkg");
  writeFile(empty, {});
  pkg = Package::open(empty);
  REQUIRE_FALSE(pkg.ok());
  CHECK(pkg.message() == empty + ": empty file (0 bytes), not a package");

  pkg = Package::open(dir.file(""));
  REQUIRE_FALSE(pkg.ok());
  CHECK_THAT(pkg.message(), Contains("not a regular file"));

  std::string truncated = dir.file("truncated.nnpkg");
  std::vector<uint8_t> file = goodPackage();
  file.resize(file.size() - 1);
  writeFile(truncated, file);
  pkg = Package::open(truncated);
  REQUIRE_FALSE(pkg.ok());
  CHECK_THAT(pkg.message(), StartsWith(truncated + ": truncated package: "));
}
