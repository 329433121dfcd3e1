//===- RoundTripTest.cpp - Writing and reading packages back --------------===//
//
// A package written by PackageBuilder reads back into an identical ModelDesc,
// through a file and through a memory buffer; weights are deduplicated,
// 64-byte aligned and returned as zero-copy views; the file layout matches
// docs/package-format.md; variant selection picks the smallest fitting
// bucket.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include "nnaccel/Package/Checksum.h"
#include "nnaccel/Package/Package_generated.h"

#include <catch2/catch.hpp>

#include <cctype>
#include <cstring>

using namespace nnaccel::package;
using namespace nnaccel::package::test;

TEST_CASE("round trip through a file preserves the whole model", "[package]") {
  TempDir dir;
  PackageBuilder builder;
  size_t distinct = buildTestModel(builder);
  REQUIRE(builder.numWeights() == distinct);
  std::string path = dir.file("model.nnpkg");
  Status s = builder.write(path);
  REQUIRE(s.ok());

  Expected<Package> pkg = Package::open(path);
  INFO(pkg.message());
  REQUIRE(pkg.ok());
  CHECK(pkg->model() == builder.model());
  CHECK(pkg->model().ir == builder.model().ir);
  CHECK(pkg->header().versionMajor == FormatVersionMajor);
  CHECK(pkg->header().versionMinor == FormatVersionMinor);

  // Attributes of every kind survive with their types.
  const auto &host =
      std::get<HostPartitionDesc>(pkg->model().variants[1].partitions[0]);
  const HostOpDesc &gather = host.ops[0];
  REQUIRE(gather.getAttr("axis"));
  CHECK(std::get<int64_t>(*gather.getAttr("axis")) == 0);
  CHECK(std::get<std::string>(*gather.getAttr("mode")) == "clip");
  CHECK(std::get<double>(*gather.getAttr("scale")) == 1.5);
  CHECK(std::get<std::vector<int64_t>>(*gather.getAttr("perm")) ==
        std::vector<int64_t>{0, 2, 1});
  CHECK(std::get<std::vector<double>>(*gather.getAttr("coeffs")) ==
        std::vector<double>{0.5, -0.25});
  CHECK(gather.getAttr("missing") == nullptr);
  CHECK(gather.inputs[2] == -1);

  // Quantisation parameters, including the optional storage range.
  const ValueDesc &w = pkg->model().variants[0].values[2];
  REQUIRE(w.type.quant);
  CHECK(w.type.quant->axis == 0);
  CHECK(w.type.quant->scales.size() == 16);
  CHECK(w.type.quant->storageMin == -127);
  CHECK(w.type.storageType() == DType::I8);
  const Port &logits = pkg->model().outputs[0];
  REQUIRE(logits.type.quant);
  CHECK(logits.type.quant->zeroPoints == std::vector<int64_t>{3});
}

TEST_CASE("padding fields (2.3) round trip", "[package]") {
  PackageBuilder builder;
  buildTestModel(builder);
  ModelDesc &m = builder.model();
  // A length input of the sequence bucket, fed by the runtime.
  Port length{"tokens.length", {DType::F32, {1}, std::nullopt}, {}};
  length.lengthOf = 0;
  m.inputs.push_back(length);
  for (VariantDesc &v : m.variants)
    v.inputs.push_back(v.addValue({"len", length.type, -1}));
  m.padValue = -2.5;
  m.exactPadding = true;
  Expected<std::vector<uint8_t>> bytes = builder.toBuffer();
  INFO(bytes.message());
  REQUIRE(bytes.ok());
  Expected<Package> pkg = Package::fromBuffer(bytes->data(), bytes->size());
  INFO(pkg.message());
  REQUIRE(pkg.ok());
  CHECK(pkg->model() == m);
  CHECK(pkg->model().inputs.back().lengthOf == 0);
  CHECK(pkg->model().inputs.front().lengthOf == -1);
  CHECK(pkg->model().padValue == -2.5);
  CHECK(pkg->model().exactPadding);
}

TEST_CASE("identical weights are stored once and shared by variants",
          "[package]") {
  PackageBuilder builder;
  buildTestModel(builder);
  Expected<std::vector<uint8_t>> bytes = builder.toBuffer();
  REQUIRE(bytes.ok());
  Expected<Package> pkg = Package::fromBuffer(bytes->data(), bytes->size());
  INFO(pkg.message());
  REQUIRE(pkg.ok());
  REQUIRE(pkg->numWeights() == 2);
  const ModelDesc &m = pkg->model();
  CHECK(m.variants[0].values[1].weight == m.variants[1].values[1].weight);
  CHECK(m.variants[0].values[2].weight == m.variants[1].values[2].weight);

  // Same bytes again: same index. Same size, different bytes: new entry.
  std::vector<float> table(100 * 16);
  for (size_t i = 0; i < table.size(); ++i)
    table[i] = static_cast<float>(i) * 0.25f;
  CHECK(*builder.addWeight(table.data(), table.size() * 4) == 0);
  table[7] = -1.0f;
  CHECK(*builder.addWeight(table.data(), table.size() * 4) == 2);
  CHECK(builder.numWeights() == 3);
  // The empty weight is a valid, deduplicated entry too.
  Expected<int32_t> empty = builder.addWeight(nullptr, 0);
  REQUIRE(empty.ok());
  CHECK(*builder.addWeight(nullptr, 0) == *empty);
}

TEST_CASE("weights are 64-byte aligned zero-copy views with correct bytes",
          "[package]") {
  TempDir dir;
  PackageBuilder builder;
  buildTestModel(builder);
  // Odd sizes so the next weight needs padding.
  std::vector<uint8_t> odd(37, 0xAB), odd2(5, 0xCD);
  int32_t a = *builder.addWeight(odd.data(), odd.size());
  int32_t b = *builder.addWeight(odd2.data(), odd2.size());
  std::string path = dir.file("aligned.nnpkg");
  REQUIRE(builder.write(path).ok());
  Expected<Package> pkg = Package::open(path);
  REQUIRE(pkg.ok());
  const uint8_t *begin = pkg->data(), *end = pkg->data() + pkg->size();
  CHECK(reinterpret_cast<uintptr_t>(begin) % 4096 == 0); // a real mapping
  CHECK(pkg->header().weightsOffset % 64 == 0);
  for (size_t i = 0; i < pkg->numWeights(); ++i) {
    Expected<WeightView> view = pkg->getWeight(static_cast<int64_t>(i));
    REQUIRE(view.ok());
    CHECK(pkg->weightInfo(i).offset % 64 == 0);
    CHECK(reinterpret_cast<uintptr_t>(view->data) % 64 == 0);
    CHECK(view->bytes() >= begin);
    CHECK(view->bytes() + view->size <= end);
    CHECK(view->hash == fnv1a64(view->data, view->size));
  }
  Expected<WeightView> va = pkg->getWeight(a), vb = pkg->getWeight(b);
  REQUIRE(va.ok());
  REQUIRE(vb.ok());
  CHECK(std::memcmp(va->data, odd.data(), odd.size()) == 0);
  CHECK(std::memcmp(vb->data, odd2.data(), odd2.size()) == 0);
  const auto *table = static_cast<const float *>(pkg->getWeight(0)->data);
  CHECK(table[5] == 1.25f);

  CHECK_FALSE(pkg->getWeight(-1).ok());
  CHECK(pkg->getWeight(99).message() ==
        "weight index 99 is out of range (the package has 4 weights)");
}

TEST_CASE("the mapping outlives the Package through owner()", "[package]") {
  TempDir dir;
  PackageBuilder builder;
  buildTestModel(builder);
  std::string path = dir.file("owner.nnpkg");
  REQUIRE(builder.write(path).ok());
  std::shared_ptr<const void> owner;
  const float *table = nullptr;
  {
    Expected<Package> pkg = Package::open(path);
    REQUIRE(pkg.ok());
    owner = pkg->owner();
    table = static_cast<const float *>(pkg->getWeight(0)->data);
  }
  CHECK(owner.get() != nullptr);
  CHECK(table[4] == 1.0f);
}

TEST_CASE("file layout follows docs/package-format.md", "[package]") {
  PackageBuilder builder;
  buildTestModel(builder);
  std::vector<uint8_t> file = *builder.toBuffer();
  REQUIRE(file.size() > 64);
  CHECK(std::memcmp(file.data(), "NNPKG\0\0\0", 8) == 0);
  auto le = [&](size_t off, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= uint64_t(file[off + i]) << (8 * i);
    return v;
  };
  CHECK(le(8, 2) == 2);  // major
  CHECK(le(10, 2) == 4); // minor (2.4: u16 / u32)
  CHECK(le(12, 4) == 0); // flags
  CHECK(le(16, 8) == file.size());
  uint64_t mOff = le(24, 8), mSize = le(32, 8), wOff = le(40, 8),
           wSize = le(48, 8);
  CHECK(mOff == 64);
  CHECK(wOff == alignTo(mOff + mSize, 64));
  CHECK(wOff + wSize == file.size());
  CHECK(le(56, 4) == crc32(file.data() + mOff, mSize));
  CHECK(le(60, 4) == crc32(file.data() + wOff, wSize));
  // The manifest carries the "NNPM" file identifier at offset 4.
  CHECK(std::memcmp(file.data() + mOff + 4, "NNPM", 4) == 0);
}

TEST_CASE("the generated FlatBuffers tables are reachable", "[package]") {
  PackageBuilder builder;
  buildTestModel(builder);
  std::vector<uint8_t> file = *builder.toBuffer();
  Expected<Package> pkg = Package::fromBuffer(file.data(), file.size());
  REQUIRE(pkg.ok());
  const fb::Model *m = pkg->manifest();
  REQUIRE(m);
  CHECK(m->name()->str() == "tiny-classifier");
  REQUIRE(m->variants()->size() == 2);
  const fb::Variant *v = m->variants()->Get(1);
  CHECK(v->bucket()->Get(0) == 128);
  const fb::Partition *p = v->partitions()->Get(1);
  REQUIRE(p->body_type() == fb::PartitionBody::CardPartition);
  CHECK(p->body_as_CardPartition()->programs()->size() == 2);
  CHECK(m->weights()->size() == 2);
}

TEST_CASE("setup programs (pinned weights) round trip", "[package]") {
  PackageBuilder builder;
  buildTestModel(builder);
  auto &card =
      std::get<CardPartitionDesc>(builder.model().variants[1].partitions[1]);
  card.setupPrograms.push_back({1, makeProgram(0, 1, 2)});
  card.setupPrograms.push_back({0, makeProgram(0, 0, 5)});
  std::vector<uint8_t> file = *builder.toBuffer();
  Expected<Package> pkg = Package::fromBuffer(file.data(), file.size());
  INFO(pkg.message());
  REQUIRE(pkg.ok());
  CHECK(pkg->model() == builder.model());
  const auto &read =
      std::get<CardPartitionDesc>(pkg->model().variants[1].partitions[1]);
  REQUIRE(read.setupPrograms.size() == 2);
  CHECK(read.setupPrograms[0].core == 1);
  CHECK(read.setupPrograms[1].code == makeProgram(0, 0, 5));
  CHECK(read.programs == card.programs);
  // Setup programs take part in equality.
  CardPartitionDesc other = read;
  other.setupPrograms.pop_back();
  CHECK(other != read);
  // A partition without them writes no vector at all, as 2.1 did.
  const fb::Model *m = pkg->manifest();
  CHECK(m->variants()
            ->Get(0)
            ->partitions()
            ->Get(1)
            ->body_as_CardPartition()
            ->setup_programs() == nullptr);
  CHECK(m->variants()
            ->Get(1)
            ->partitions()
            ->Get(1)
            ->body_as_CardPartition()
            ->setup_programs()
            ->size() == 2);
  CHECK(std::get<CardPartitionDesc>(pkg->model().variants[0].partitions[1])
            .setupPrograms.empty());
}

TEST_CASE("packages without weights, buckets or IR", "[package]") {
  PackageBuilder builder;
  ModelDesc &m = builder.model();
  m.name = "identity";
  Port p;
  p.name = "x";
  p.type.dtype = DType::BF16;
  p.type.shape = {4};
  m.inputs.push_back(p);
  m.outputs.push_back(p);
  VariantDesc v;
  int32_t x = v.addValue({"x", p.type, -1});
  v.inputs = {x};
  v.outputs = {x};
  m.variants.push_back(v);
  Expected<std::vector<uint8_t>> file = builder.toBuffer();
  INFO(file.message());
  REQUIRE(file.ok());
  Expected<Package> pkg = Package::fromBuffer(file->data(), file->size());
  INFO(pkg.message());
  REQUIRE(pkg.ok());
  CHECK(pkg->numWeights() == 0);
  CHECK(pkg->header().weightsSize == 0);
  CHECK(pkg->model() == m);
  CHECK(pkg->model().ir.empty());
}

TEST_CASE("selectVariant picks the smallest fitting bucket", "[package]") {
  PackageBuilder builder;
  buildTestModel(builder);
  const ModelDesc &m = builder.model();
  CHECK(selectVariant(m, {{1, 10}}).index == 0);
  CHECK(selectVariant(m, {{1, 64}}).index == 0);
  CHECK(selectVariant(m, {{1, 65}}).index == 1);
  CHECK(selectVariant(m, {{1, 128}}).index == 1);
  SelectResult tooLong = selectVariant(m, {{1, 129}});
  CHECK(tooLong.index == -1);
  CHECK(tooLong.error == "the input shapes exceed every variant's bucket");
  CHECK(selectVariant(m, {{2, 10}}).error ==
        "input 'tokens' dimension 0 is 2, expected 1");
  CHECK(selectVariant(m, {{10}}).error ==
        "input 'tokens' has rank 1, expected 2");
  CHECK(selectVariant(m, {}).error == "expected 1 input shapes, got 0");
}

TEST_CASE("dtype names and sizes", "[package]") {
  CHECK(toString(DType::BF16) == "bf16");
  CHECK(parseDType("u8") == DType::U8);
  CHECK_FALSE(parseDType("f8").has_value());
  CHECK(toString(static_cast<DType>(15)) == "mxfp8e4m3");
  CHECK(toString(static_cast<DType>(20)) == "mxfp8e5m2");
  CHECK(toString(static_cast<DType>(21)) == "u16");
  CHECK(toString(static_cast<DType>(23)) == "?");
  // The schema's enum is the toolchain-wide numbering, element for element.
  for (DType t : ::nnaccel::AllDTypes) {
    INFO(dtypeName(t));
    CHECK(std::string(fb::EnumNameDType(static_cast<fb::DType>(t))) == [&] {
      std::string upper(dtypeName(t));
      for (char &c : upper)
        c = static_cast<char>(std::toupper(c));
      return upper;
    }());
  }
  TensorType t;
  t.dtype = DType::F16;
  t.shape = {3, 5};
  CHECK(t.byteSize() == 30u);
  t.dtype = DType::I4; // rows of 5 nibbles take 3 bytes
  CHECK(t.byteSize() == 9u);
  t.dtype = DType::MSFP8; // rows of 5 pad to one block of 16: 9 bytes
  CHECK(t.byteSize() == 27u);
  t.dtype = DType::RW4; // fused rows: 3 code bytes + f16 scale and bias
  CHECK(t.byteSize() == 21u);
  t.dtype = DType::RW8; // 5 codes + f32 scale and bias
  CHECK(t.byteSize() == 39u);
  t.dtype = DType::F16;
  t.shape = {int64_t(1) << 40, int64_t(1) << 40};
  CHECK_FALSE(t.byteSize().has_value());
}

TEST_CASE("write reports I/O errors with the path", "[package]") {
  PackageBuilder builder;
  buildTestModel(builder);
  Status s = builder.write("/nonexistent-dir/x/model.nnpkg");
  REQUIRE_FALSE(s.ok());
  CHECK(s.message().find("/nonexistent-dir/x/model.nnpkg") !=
        std::string::npos);
  CHECK(s.message().find("No such file or directory") != std::string::npos);
}

TEST_CASE("packed element types round trip with their packed sizes",
          "[package]") {
  // An int4 table of 3 rows of 5 (3 bytes a row, first element in the low
  // nibble), an msfp8 weight of 2 rows of 20 (two 9-byte blocks a row) and
  // an int4-quantised weight: the package stores and checks their packed
  // byte sizes.
  std::vector<uint8_t> table(9, 0x21), block(36, 0x5A), quant(8, 0x7F);
  auto build = [&](PackageBuilder &builder, std::vector<int64_t> tableShape) {
    ModelDesc &m = builder.model();
    m.name = "packed";
    Port p;
    p.name = "x";
    p.type.dtype = DType::F32;
    p.type.shape = {4};
    m.inputs.push_back(p);
    m.outputs.push_back(p);
    VariantDesc v;
    int32_t x = v.addValue({"x", p.type, -1});
    auto weight = [&](const std::vector<uint8_t> &bytes) {
      Expected<int32_t> w = builder.addWeight(bytes.data(), bytes.size());
      REQUIRE(w.ok());
      return *w;
    };
    TensorType tableType;
    tableType.dtype = DType::I4;
    tableType.shape = tableShape;
    TensorType blockType;
    blockType.dtype = DType::MSFP8;
    blockType.shape = {2, 20};
    TensorType quantType;
    quantType.dtype = DType::F32;
    quantType.shape = {4, 4};
    QuantParams q;
    q.scales = {0.5};
    q.zeroPoints = {0};
    q.storage = DType::I4;
    quantType.quant = q;
    v.addValue({"table", tableType, weight(table)});
    v.addValue({"block", blockType, weight(block)});
    v.addValue({"quant", quantType, weight(quant)});
    v.inputs = {x};
    v.outputs = {x};
    m.variants.push_back(v);
    return builder.toBuffer();
  };
  PackageBuilder builder;
  Expected<std::vector<uint8_t>> file = build(builder, {3, 5});
  INFO(file.message());
  REQUIRE(file.ok());
  Expected<Package> pkg = Package::fromBuffer(file->data(), file->size());
  INFO(pkg.message());
  REQUIRE(pkg.ok());
  CHECK(pkg->model() == builder.model());
  const VariantDesc &v = pkg->model().variants[0];
  CHECK(v.values[1].type.byteSize() == 9u);
  CHECK(v.values[2].type.byteSize() == 36u);
  CHECK(v.values[3].type.byteSize() == 8u);
  CHECK(v.values[3].type.storageType() == DType::I4);

  // Rows of 7 nibbles take 4 bytes: the 9-byte weight no longer fits.
  PackageBuilder wrong;
  Expected<std::vector<uint8_t>> bad = build(wrong, {3, 7});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.message().find("12") != std::string::npos);
}
