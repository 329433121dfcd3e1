//===- Builder.h - Writing .nnpkg packages ---------------------*- C++ -*-===//
//
// PackageBuilder is the compiler's side of the package format. The compiler
// describes the model with the plain structs of Model.h, registers constant
// tensors with addWeight() (which deduplicates identical bytes across all
// variants, so per-bucket variants cost no extra weight storage), and calls
// write(). Before a byte is written the builder runs the same validation the
// reader runs, so a package it produces is one every reader of this format
// version accepts; a model that breaks a rule is reported, not written.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_PACKAGE_BUILDER_H
#define NNACCEL_PACKAGE_BUILDER_H

#include "nnaccel/Package/Model.h"
#include "nnaccel/Package/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace nnaccel::package {

class PackageBuilder {
public:
  PackageBuilder();
  ~PackageBuilder();
  PackageBuilder(PackageBuilder &&) noexcept;
  PackageBuilder &operator=(PackageBuilder &&) noexcept;
  PackageBuilder(const PackageBuilder &) = delete;
  PackageBuilder &operator=(const PackageBuilder &) = delete;

  /// The manifest under construction (everything except weights).
  ModelDesc &model() { return model_; }
  const ModelDesc &model() const { return model_; }

  /// Registers a weight and returns its index for ValueDesc::weight. The bytes
  /// are copied. Adding bytes equal to an earlier weight returns the earlier
  /// index and stores nothing new. Fails only if memory runs out or the
  /// weight table is full.
  Expected<int32_t> addWeight(const void *data, size_t size);
  /// As addWeight, but keeps only the pointer: the caller keeps the bytes
  /// alive and unchanged until the builder is destroyed. Avoids a second copy
  /// of multi-gigabyte weights the compiler already holds.
  Expected<int32_t> addWeightNoCopy(const void *data, size_t size);

  size_t numWeights() const { return weights_.size(); }
  /// Placement of weight `index` (index < numWeights()).
  const WeightInfo &weightInfo(size_t index) const {
    return weights_[index].info;
  }
  /// Size of the weights section: the end of the last weight.
  uint64_t weightsSectionSize() const { return weightsEnd_; }

  /// Validates the model and writes the package to `path`: to a temporary
  /// file in the same directory, flushed to disk, then renamed over `path`,
  /// so readers never observe a half-written package.
  Status write(const std::string &path) const;
  /// Validates the model and returns the whole package file in memory
  /// (for tests and small models; the result must fit in memory).
  Expected<std::vector<uint8_t>> toBuffer() const;

private:
  struct Entry {
    WeightInfo info;
    const uint8_t *data = nullptr;
  };
  Expected<int32_t> add(const void *data, size_t size, bool copy);
  /// Validates the model and encodes the manifest FlatBuffer.
  Expected<std::vector<uint8_t>> buildManifest() const;

  ModelDesc model_;
  std::vector<Entry> weights_;
  std::vector<std::unique_ptr<uint8_t[]>> owned_;
  std::unordered_multimap<uint64_t, int32_t> byHash_;
  uint64_t weightsEnd_ = 0;
};

} // namespace nnaccel::package

#endif // NNACCEL_PACKAGE_BUILDER_H
