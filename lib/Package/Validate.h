//===- Validate.h - Semantic rules of a package manifest -------*- C++ -*-===//
//
// Internal to lib/Package. The rules of docs/package-format.md ("Validation")
// that go beyond FlatBuffers' structural verification. The writer applies
// them before writing and the reader after decoding, so the two can never
// disagree about what a valid package is.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_LIB_PACKAGE_VALIDATE_H
#define NNACCEL_LIB_PACKAGE_VALIDATE_H

#include "nnaccel/Package/Model.h"
#include "nnaccel/Package/Status.h"

#include <cstdint>
#include <vector>

namespace nnaccel::package {

/// Checks `model` against its weight table and the weights section size.
/// The message names the offending object by path, e.g.
/// "variant 'seq128' (#1): partition 2: op 0 (accel.conv): input 3: ...".
Status validateModel(const ModelDesc &model,
                     const std::vector<WeightInfo> &weights,
                     uint64_t weightsSectionSize);

} // namespace nnaccel::package

#endif // NNACCEL_LIB_PACKAGE_VALIDATE_H
