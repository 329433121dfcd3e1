//===- Model.cpp - Plain-struct model helpers -----------------------------===//
//
// Element type names and sizes, tensor size arithmetic (overflow-checked,
// because shapes come from untrusted files), structural equality used by the
// round-trip tests, and variant selection for a runtime that has concrete
// input shapes and must pick the smallest padding bucket they fit.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Package/Model.h"

#include <limits>

namespace nnaccel::package {

std::string_view toString(DType type) {
  std::string_view name = dtypeName(type);
  return name.empty() ? "?" : name;
}

std::string_view toString(BindingRole role) {
  switch (role) {
  case BindingRole::Input:
    return "input";
  case BindingRole::Output:
    return "output";
  }
  return "?";
}

bool TensorType::isStatic() const {
  for (int64_t d : shape)
    if (d < 0)
      return false;
  return true;
}

std::optional<uint64_t> TensorType::numElements() const {
  constexpr uint64_t Limit = uint64_t(1) << 63;
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    uint64_t u = static_cast<uint64_t>(d);
    if (u != 0 && n > Limit / u)
      return std::nullopt;
    n *= u;
  }
  return n;
}

std::optional<uint64_t> TensorType::byteSize() const {
  if (!numElements())
    return std::nullopt;
  return denseBytes(storageType(), shape);
}

bool QuantParams::operator==(const QuantParams &o) const {
  return scales == o.scales && zeroPoints == o.zeroPoints && axis == o.axis &&
         storage == o.storage && storageMin == o.storageMin &&
         storageMax == o.storageMax;
}

bool TensorType::operator==(const TensorType &o) const {
  return dtype == o.dtype && shape == o.shape && quant == o.quant;
}

bool Port::operator==(const Port &o) const {
  return name == o.name && type == o.type && bucketIndex == o.bucketIndex &&
         lengthOf == o.lengthOf;
}

bool ValueDesc::operator==(const ValueDesc &o) const {
  return name == o.name && type == o.type && weight == o.weight;
}

const AttrValue *HostOpDesc::getAttr(std::string_view name) const {
  for (const auto &[attrName, value] : attrs)
    if (attrName == name)
      return &value;
  return nullptr;
}

bool HostOpDesc::operator==(const HostOpDesc &o) const {
  return kind == o.kind && attrs == o.attrs && inputs == o.inputs &&
         outputs == o.outputs && location == o.location;
}

bool HostPartitionDesc::operator==(const HostPartitionDesc &o) const {
  return ops == o.ops && reason == o.reason;
}

bool CoreProgramDesc::operator==(const CoreProgramDesc &o) const {
  return core == o.core && code == o.code;
}

bool DramBindingDesc::operator==(const DramBindingDesc &o) const {
  return value == o.value && address == o.address && role == o.role;
}

bool CardPartitionDesc::operator==(const CardPartitionDesc &o) const {
  return card == o.card && programs == o.programs &&
         setupPrograms == o.setupPrograms && bindings == o.bindings &&
         modeledCycles == o.modeledCycles && workBegin == o.workBegin &&
         workEnd == o.workEnd;
}

bool VariantDesc::operator==(const VariantDesc &o) const {
  return name == o.name && bucket == o.bucket && values == o.values &&
         inputs == o.inputs && outputs == o.outputs &&
         partitions == o.partitions;
}

const VariantDesc *ModelDesc::findVariant(std::string_view variantName) const {
  for (const VariantDesc &v : variants)
    if (v.name == variantName)
      return &v;
  return nullptr;
}

bool ModelDesc::operator==(const ModelDesc &o) const {
  return name == o.name && producer == o.producer &&
         producerVersion == o.producerVersion && target == o.target &&
         inputs == o.inputs && outputs == o.outputs &&
         bucketNames == o.bucketNames && variants == o.variants && ir == o.ir &&
         padValue == o.padValue && exactPadding == o.exactPadding;
}

SelectResult selectVariant(const ModelDesc &model,
                           const std::vector<std::vector<int64_t>> &shapes) {
  SelectResult result;
  if (shapes.size() != model.inputs.size()) {
    result.error = "expected " + std::to_string(model.inputs.size()) +
                   " input shapes, got " + std::to_string(shapes.size());
    return result;
  }
  // Check the static dimensions first: a mismatch there fits no variant and
  // deserves a message naming the input rather than "no bucket".
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Port &port = model.inputs[i];
    if (shapes[i].size() != port.type.shape.size()) {
      result.error = "input '" + port.name + "' has rank " +
                     std::to_string(shapes[i].size()) + ", expected " +
                     std::to_string(port.type.shape.size());
      return result;
    }
    for (size_t d = 0; d < shapes[i].size(); ++d) {
      bool bucketed = d < port.bucketIndex.size() && port.bucketIndex[d] >= 0;
      if (!bucketed && shapes[i][d] != port.type.shape[d]) {
        result.error = "input '" + port.name + "' dimension " +
                       std::to_string(d) + " is " +
                       std::to_string(shapes[i][d]) + ", expected " +
                       std::to_string(port.type.shape[d]);
        return result;
      }
    }
  }
  // Smallest padded volume wins; long double avoids overflow in the product.
  long double best = std::numeric_limits<long double>::infinity();
  for (size_t v = 0; v < model.variants.size(); ++v) {
    const VariantDesc &variant = model.variants[v];
    bool fits = true;
    for (size_t i = 0; i < shapes.size() && fits; ++i) {
      const Port &port = model.inputs[i];
      for (size_t d = 0; d < port.bucketIndex.size() && fits; ++d) {
        int32_t b = port.bucketIndex[d];
        if (b < 0)
          continue;
        if (static_cast<size_t>(b) >= variant.bucket.size() ||
            shapes[i][d] < 0 || shapes[i][d] > variant.bucket[b])
          fits = false;
      }
    }
    if (!fits)
      continue;
    long double volume = 1;
    for (int64_t size : variant.bucket)
      volume *= static_cast<long double>(size);
    if (volume < best) {
      best = volume;
      result.index = static_cast<int>(v);
    }
  }
  if (result.index < 0)
    result.error = "the input shapes exceed every variant's bucket";
  return result;
}

} // namespace nnaccel::package
