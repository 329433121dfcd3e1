//===- Manifest.h - Plain structs <-> manifest FlatBuffer -------*- C++ -*-===//
//
// Internal to lib/Package. The only code that knows the generated FlatBuffers
// API: encoding a ModelDesc plus weight table into a finished manifest buffer,
// and decoding a buffer (structurally verified here) back into the structs.
// Semantic rules live in Validate.h.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_LIB_PACKAGE_MANIFEST_H
#define NNACCEL_LIB_PACKAGE_MANIFEST_H

#include "nnaccel/Package/Model.h"
#include "nnaccel/Package/Status.h"

#include <cstdint>
#include <vector>

namespace nnaccel::package {

namespace fb {
struct Model;
} // namespace fb

/// Serialises the manifest (root table fb::Model with file identifier
/// "NNPM"). Fails if the result would exceed MaxManifestBytes.
Expected<std::vector<uint8_t>>
encodeManifest(const ModelDesc &model, const std::vector<WeightInfo> &weights);

struct DecodedManifest {
  const fb::Model *root = nullptr;
  ModelDesc model;
  std::vector<WeightInfo> weights;
  uint16_t formatMajor = 0, formatMinor = 0;
};

/// Runs the FlatBuffers verifier over `data[0, size)` (which must be 8-byte
/// aligned and outlive the result) and converts it, rejecting unknown enum
/// and union values.
Expected<DecodedManifest> decodeManifest(const uint8_t *data, size_t size);

} // namespace nnaccel::package

#endif // NNACCEL_LIB_PACKAGE_MANIFEST_H
