//===- Package.h - Loading and inspecting .nnpkg packages ------*- C++ -*-===//
//
// The public API of the package library (umbrella header: it also brings in
// the builder, the plain-struct model, the file layout and the status
// types). A Package is a validated, read-only, memory-mapped .nnpkg file.
// open() checks everything before it returns -- header, layout against the
// real file size, both CRCs, the FlatBuffers structure, and every semantic
// rule of docs/package-format.md (ids, weight ranges, types, dataflow) -- so
// code holding a Package may index with the ids it contains without further
// checks. Weights are returned as views into the mapping (zero copy); the
// mapping lives as long as any Package copy or owner() handle.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_PACKAGE_PACKAGE_H
#define NNACCEL_PACKAGE_PACKAGE_H

#include "nnaccel/Package/Builder.h"
#include "nnaccel/Package/Format.h"
#include "nnaccel/Package/Model.h"
#include "nnaccel/Package/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace nnaccel::package {

namespace fb {
struct Model; // generated from Package.fbs: nnaccel/Package/Package_generated.h
} // namespace fb

/// A read-only view of one weight's bytes inside the package mapping.
struct WeightView {
  const void *data = nullptr;
  uint64_t size = 0;
  uint64_t hash = 0; ///< FNV-1a 64 content hash from the manifest

  const uint8_t *bytes() const { return static_cast<const uint8_t *>(data); }
};

struct OpenOptions {
  /// Check the CRC-32 of the weights section. Costs one pass over all
  /// weights (touching every page of the mapping); a runtime that loads a
  /// package it has verified before may switch it off. The manifest CRC is
  /// always checked.
  bool verifyWeightsChecksum = true;
};

class Package {
public:
  /// Maps and validates the file at `path`. Errors start with the path.
  static Expected<Package> open(const std::string &path,
                                const OpenOptions &options = {});
  /// Validates a package held in memory. The bytes are copied into a
  /// 64-byte-aligned buffer owned by the Package.
  static Expected<Package> fromBuffer(const void *data, size_t size,
                                      const OpenOptions &options = {});

  const FileHeader &header() const;
  /// The decoded manifest.
  const ModelDesc &model() const;
  /// The verified FlatBuffers root, for zero-copy access to the manifest
  /// (include nnaccel/Package/Package_generated.h to use it).
  const fb::Model *manifest() const;

  size_t numWeights() const;
  /// Placement of weight `index`; index < numWeights() (asserted).
  const WeightInfo &weightInfo(size_t index) const;
  /// The bytes of weight `index`, pointing into the mapping.
  Expected<WeightView> getWeight(int64_t index) const;

  /// The whole file as mapped.
  const uint8_t *data() const;
  uint64_t size() const;
  /// Keeps the mapping (and so every WeightView) alive independently of
  /// this Package object.
  std::shared_ptr<const void> owner() const;

private:
  struct State;
  explicit Package(std::shared_ptr<const State> state)
      : state_(std::move(state)) {}
  static Expected<Package> load(std::shared_ptr<State> state,
                                const OpenOptions &options);
  std::shared_ptr<const State> state_;
};

} // namespace nnaccel::package

#endif // NNACCEL_PACKAGE_PACKAGE_H
