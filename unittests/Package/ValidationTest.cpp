//===- ValidationTest.cpp - Semantic rules enforced by the writer ---------===//
//
// The writer runs the reader's semantic validation before writing, so each
// rule of docs/package-format.md can be exercised by breaking the reference
// model in one place and checking the exact message. (The reader applies the
// same code to forged manifests, see CorruptionTest.cpp.)
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace nnaccel::package;
using namespace nnaccel::package::test;

namespace {

std::string writeError(PackageBuilder &builder) {
  TempDir dir;
  std::string path = dir.file("bad.nnpkg");
  Status s = builder.write(path);
  REQUIRE_FALSE(s.ok());
  // Nothing is left behind, not even the temporary file.
  CHECK(std::filesystem::is_empty(std::filesystem::path(path).parent_path()));
  Expected<std::vector<uint8_t>> buf = builder.toBuffer();
  REQUIRE_FALSE(buf.ok());
  std::string prefix = path + ": invalid model: ";
  REQUIRE(s.message().rfind(prefix, 0) == 0);
  CHECK(buf.message() == "invalid model: " + s.message().substr(prefix.size()));
  return s.message().substr(prefix.size());
}

HostPartitionDesc &host(PackageBuilder &b, size_t variant, size_t part) {
  return std::get<HostPartitionDesc>(
      b.model().variants[variant].partitions[part]);
}
CardPartitionDesc &card(PackageBuilder &b, size_t variant) {
  return std::get<CardPartitionDesc>(b.model().variants[variant].partitions[1]);
}

} // namespace

TEST_CASE("dataflow rules", "[package][validate]") {
  PackageBuilder b;
  buildTestModel(b);
  SECTION("use before definition") {
    host(b, 0, 0).ops[0].inputs[1] = 5; // "logits", computed last
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): partition 0 (host): op 0 (accel.gather): "
          "input 1: value 5 is used before it is defined");
  }
  SECTION("value id out of range") {
    host(b, 1, 2).ops[0].inputs[0] = 77;
    CHECK(writeError(b) ==
          "variant 'seq128' (#1): partition 2 (host): op 0 (accel.quantize): "
          "input 0: value id 77 is out of range (the variant has 6 values)");
  }
  SECTION("second definition") {
    host(b, 0, 2).ops[0].outputs[0] = 3; // x, defined by the gather
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): partition 2 (host): op 0 (accel.quantize): "
          "output 0: value 3 is already defined (by a variant input, a weight "
          "or an earlier op)");
  }
  SECTION("output never computed") {
    host(b, 0, 2).ops.clear();
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): output 0 (value 5) is never computed");
  }
  SECTION("card output overwriting a weight") {
    card(b, 0).bindings[2].value = 1; // the embedding table
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): partition 1 (card 0): binding 2 (output "
          "value 1): value 1 is already defined (by a variant input, a weight "
          "or an earlier op)");
  }
  SECTION("card value both read and written") {
    card(b, 0).bindings[2].value = 2;
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): partition 1 (card 0): binding 2 (output "
          "value 2): value is both an input and an output of the partition");
  }
  SECTION("card input not yet computed") {
    card(b, 0).bindings[0].value = 5;
    CHECK(writeError(b) == "variant 'seq64' (#0): partition 1 (card 0): "
                           "binding 0 (input value 5): value 5 is used before "
                           "it is defined");
  }
  SECTION("duplicate attribute") {
    host(b, 0, 0).ops[0].attrs.push_back({"axis", int64_t(1)});
    CHECK(writeError(b) == "variant 'seq64' (#0): partition 0 (host): op 0 "
                           "(accel.gather): duplicate attribute 'axis'");
  }
}

TEST_CASE("card program rules", "[package][validate]") {
  PackageBuilder b;
  buildTestModel(b);
  SECTION("program for another core") {
    card(b, 1).programs[1].code = makeProgram(0, 0, 3);
    CHECK(writeError(b) ==
          "variant 'seq128' (#1): partition 1 (card 0): program 1 (core 1): "
          "program header is for card 0 core 0, but it is filed under card 0 "
          "core 1");
  }
  SECTION("duplicate core") {
    card(b, 0).programs[1].core = 0;
    card(b, 0).programs[1].code = makeProgram(0, 0, 3);
    CHECK(writeError(b) == "variant 'seq64' (#0): partition 1 (card 0): "
                           "program 1 (core 0): a second program for the same "
                           "core");
  }
  SECTION("truncated program") {
    card(b, 0).programs[0].code.pop_back();
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): partition 1 (card 0): program 0 (core 0): "
          "program is 159 bytes, but its header announces 4 words of 32 bytes");
  }
  SECTION("not an ISA program") {
    card(b, 0).programs[0].code[0] = 'X';
    CHECK(writeError(b) == "variant 'seq64' (#0): partition 1 (card 0): "
                           "program 0 (core 0): program does not start with "
                           "the ISA magic \"NNPU\"");
  }
  SECTION("no programs") {
    card(b, 0).programs.clear();
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): partition 1 (card 0): no core programs");
  }
  SECTION("setup programs for different cores, also cores with a body") {
    card(b, 0).setupPrograms.push_back({2, makeProgram(0, 2, 3)});
    card(b, 0).setupPrograms.push_back({0, makeProgram(0, 0, 2)});
    TempDir dir;
    Status s = b.write(dir.file("ok.nnpkg"));
    INFO(s.message());
    CHECK(s.ok());
  }
  SECTION("two setup programs for one core") {
    card(b, 0).setupPrograms.push_back({1, makeProgram(0, 1, 3)});
    card(b, 0).setupPrograms.push_back({1, makeProgram(0, 1, 2)});
    CHECK(writeError(b) == "variant 'seq64' (#0): partition 1 (card 0): "
                           "setup program 1 (core 1): a second setup program "
                           "for the same core");
  }
  SECTION("setup program for another core") {
    card(b, 1).setupPrograms.push_back({3, makeProgram(0, 2, 3)});
    CHECK(writeError(b) ==
          "variant 'seq128' (#1): partition 1 (card 0): setup program 0 (core "
          "3): program header is for card 0 core 2, but it is filed under "
          "card 0 core 3");
  }
  SECTION("setup program for another card") {
    card(b, 0).setupPrograms.push_back({0, makeProgram(1, 0, 3)});
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): partition 1 (card 0): setup program 0 (core "
          "0): program header is for card 1 core 0, but it is filed under "
          "card 0 core 0");
  }
  SECTION("truncated setup program") {
    card(b, 0).setupPrograms.push_back({0, makeProgram(0, 0, 2)});
    card(b, 0).setupPrograms[0].code.resize(16);
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): partition 1 (card 0): setup program 0 (core "
          "0): program is 16 bytes, shorter than the 32-byte ISA header");
  }
  SECTION("work range that ends before it begins") {
    card(b, 0).workBegin = 0x2000;
    card(b, 0).workEnd = 0x1000;
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): partition 1 (card 0): work range [0x2000, "
          "0x1000) ends before it begins");
  }
}

TEST_CASE("signature and bucket rules", "[package][validate]") {
  PackageBuilder b;
  buildTestModel(b);
  SECTION("variant input shape differs from its bucket") {
    b.model().variants[0].values[0].type.shape = {1, 65};
    CHECK(writeError(b) == "variant 'seq64' (#0): input 0 ('tokens'): "
                           "dimension 1 is 65, expected 64 (the variant's "
                           "bucket size)");
  }
  SECTION("variant input element type differs") {
    b.model().variants[0].values[0].type.dtype = DType::I64;
    CHECK(writeError(b) == "variant 'seq64' (#0): input 0 ('tokens'): element "
                           "type i64 (stored as i64) differs from the "
                           "signature's i32 (stored as i32)");
  }
  SECTION("duplicate bucket") {
    b.model().variants[1].bucket = {64};
    for (ValueDesc &v : b.model().variants[1].values)
      for (int64_t &d : v.type.shape)
        if (d == 128)
          d = 64;
    CHECK(writeError(b) ==
          "variant 'seq128' (#1): another variant has the same bucket");
  }
  SECTION("bucket arity") {
    b.model().variants[0].bucket = {64, 2};
    CHECK(writeError(b) == "variant 'seq64' (#0): bucket has 2 sizes, the "
                           "model has 1 bucket dimensions");
  }
  SECTION("dynamic dimension without a bucket") {
    b.model().inputs[0].bucketIndex.clear();
    CHECK(writeError(b) ==
          "input 0 ('tokens'): dynamic dimension 1 has no bucket (every "
          "dynamic dimension must be padded to a bucket)");
  }
  SECTION("duplicate variant name") {
    b.model().variants[1].name = "seq64";
    CHECK(writeError(b) == "variant 'seq64' (#1): duplicate name");
  }
  SECTION("no variants") {
    b.model().variants.clear();
    CHECK(writeError(b) == "the model has no variants");
  }
  SECTION("length input of a bucket that does not exist") {
    b.model().inputs[0].lengthOf = 3;
    CHECK(writeError(b) == "input 0 ('tokens'): length_of 3 is not a bucket "
                           "index of an input port (1 bucket dimensions)");
  }
  SECTION("length input with more than one element") {
    b.model().inputs[0].lengthOf = 0;
    CHECK(writeError(b) == "input 0 ('tokens'): a length input must hold one "
                           "static f32, i32 or i64 element");
  }
  SECTION("length of an output") {
    b.model().outputs[0].lengthOf = 0;
    CHECK(writeError(b) == "output 0 ('logits'): length_of 0 is not a bucket "
                           "index of an input port (1 bucket dimensions)");
  }
  SECTION("pad value not finite") {
    b.model().padValue = std::numeric_limits<double>::infinity();
    CHECK(writeError(b) == "pad_value inf is not finite");
  }
  SECTION("weight used as a variant input") {
    b.model().variants[0].inputs = {1};
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): input 0 ('tokens'): value 1 is a weight");
  }
}

TEST_CASE("value and quantisation rules", "[package][validate]") {
  PackageBuilder b;
  buildTestModel(b);
  ValueDesc &w = b.model().variants[0].values[2];
  SECTION("dynamic value shape") {
    b.model().variants[0].values[3].type.shape = {1, -1, 16};
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): value 3 ('x'): shape is not static");
  }
  SECTION("weight of the wrong size") {
    w.type.shape = {16, 8};
    w.type.quant->scales.resize(16);
    CHECK(writeError(b) == "variant 'seq64' (#0): value 2 ('w'): weight 1 has "
                           "256 bytes, but the value's type needs 128");
  }
  SECTION("per-channel scale count") {
    w.type.quant->scales.pop_back();
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): value 2 ('w'): per-channel quantisation "
          "along axis 0 needs 16 scales, got 15");
  }
  SECTION("non-positive scale") {
    w.type.quant->scales[3] = 0;
    CHECK(writeError(b) == "variant 'seq64' (#0): value 2 ('w'): "
                           "quantisation scale 3 is 0, not a finite positive "
                           "number");
  }
  SECTION("zero point outside the storage range") {
    b.model().outputs[0].type.quant->zeroPoints = {200};
    CHECK(writeError(b) == "output 0 ('logits'): zero point 0 is 200, outside "
                           "the storage range [-127, 127]");
  }
  SECTION("float storage type") {
    w.type.quant->storage = DType::F16;
    CHECK(writeError(b) ==
          "variant 'seq64' (#0): value 2 ('w'): quantisation storage type f16 "
          "is not an integer type of 4 bits or more");
  }
}
