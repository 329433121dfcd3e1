//===- LargeWeightTest.cpp - A 100 MiB weight through mmap ----------------===//
//
// Weights are served from the file mapping, not copied: a 100 MiB weight
// comes back as a pointer inside [data(), data() + size()) of the mapped
// file, 64-byte aligned, with the right contents. addWeightNoCopy keeps the
// builder from duplicating it in memory on the way out.
//
//===----------------------------------------------------------------------===//

#include "TestModel.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace nnaccel::package;
using namespace nnaccel::package::test;

TEST_CASE("a 100 MiB weight is written and mapped without copying",
          "[package][large]") {
  constexpr size_t Elements = 25 * 1024 * 1024; // 100 MiB of f32
  std::vector<float> big(Elements);
  for (size_t i = 0; i < Elements; ++i)
    big[i] = static_cast<float>(i % 1000003);

  PackageBuilder builder;
  ModelDesc &m = builder.model();
  m.name = "big";
  Port out;
  out.name = "w";
  out.type.dtype = DType::F32;
  out.type.shape = {int64_t(Elements)};
  m.outputs.push_back(out);
  // A small weight first so the big one does not sit at offset 0.
  std::vector<uint8_t> small(3, 1);
  REQUIRE(builder.addWeight(small.data(), small.size()).ok());
  Expected<int32_t> idx =
      builder.addWeightNoCopy(big.data(), big.size() * sizeof(float));
  REQUIRE(idx.ok());
  VariantDesc v;
  int32_t w = v.addValue({"w", out.type, *idx});
  v.outputs = {w};
  m.variants.push_back(v);

  TempDir dir;
  std::string path = dir.file("big.nnpkg");
  Status s = builder.write(path);
  INFO(s.message());
  REQUIRE(s.ok());

  Expected<Package> pkg = Package::open(path);
  INFO(pkg.message());
  REQUIRE(pkg.ok());
  CHECK(pkg->size() > Elements * sizeof(float));
  Expected<WeightView> view = pkg->getWeight(*idx);
  REQUIRE(view.ok());
  CHECK(view->size == Elements * sizeof(float));
  CHECK(pkg->weightInfo(*idx).offset == 64);
  // Zero copy: the view points into the file mapping itself.
  CHECK(view->bytes() == pkg->data() + pkg->header().weightsOffset + 64);
  CHECK(view->bytes() + view->size <= pkg->data() + pkg->size());
  CHECK(reinterpret_cast<uintptr_t>(view->data) % 64 == 0);
  CHECK(std::memcmp(view->data, big.data(), view->size) == 0);
}
