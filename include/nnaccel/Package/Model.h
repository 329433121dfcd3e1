//===- Model.h - Plain-struct view of a package manifest --------*- C++ -*-===//
//
// The in-memory form of everything a package's manifest says, as ordinary
// value types. The compiler fills a ModelDesc and hands it to
// PackageBuilder; the reader decodes a verified manifest back into the same
// structs, so the two halves share one vocabulary and never touch FlatBuffers
// builders or tables unless they want to (Package::manifest() exposes the
// generated tables for zero-copy access). Field meanings are those of
// Package.fbs; docs/package-format.md states the rules a valid model obeys.
//
//===----------------------------------------------------------------------===//
#ifndef NNACCEL_PACKAGE_MODEL_H
#define NNACCEL_PACKAGE_MODEL_H

#include "nnaccel/Numerics/DType.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace nnaccel::package {

/// Element types: the toolchain-wide enumeration; the schema's fb::DType has
/// the same numbering.
using ::nnaccel::DType;

/// Lower-case name ("f32", "bf16", "i1", ...); "?" for an invalid value.
std::string_view toString(DType type);
using ::nnaccel::parseDType;

/// Uniform affine quantisation parameters (see QuantParams in Package.fbs).
struct QuantParams {
  std::vector<double> scales;
  std::vector<int64_t> zeroPoints;
  int32_t axis = -1; ///< -1 = per tensor, else the per-channel dimension
  DType storage = DType::I8;
  std::optional<int64_t> storageMin, storageMax;

  bool operator==(const QuantParams &o) const;
  bool operator!=(const QuantParams &o) const { return !(*this == o); }
};

struct TensorType {
  /// The expressed element type; for quantised tensors the stored type is
  /// quant->storage.
  DType dtype = DType::F32;
  std::vector<int64_t> shape; ///< -1 = dynamic (signature only)
  std::optional<QuantParams> quant;

  /// The type of the bytes in memory: quant->storage if quantised, else dtype.
  DType storageType() const { return quant ? quant->storage : dtype; }
  bool isStatic() const;
  /// Product of the dimensions, or nullopt if a dimension is dynamic or
  /// negative or the product overflows 2^63.
  std::optional<uint64_t> numElements() const;
  /// Bytes of the dense storage (Numerics denseBytes: sub-byte rows round up
  /// to whole bytes, block types pad rows to whole blocks); nullopt if a
  /// dimension is dynamic or on overflow.
  std::optional<uint64_t> byteSize() const;

  bool operator==(const TensorType &o) const;
  bool operator!=(const TensorType &o) const { return !(*this == o); }
};

/// An entry of the model signature.
struct Port {
  std::string name;
  TensorType type;
  /// Empty (all static) or parallel to type.shape: -1, or an index into the
  /// variants' bucket key for a padded dimension.
  std::vector<int32_t> bucketIndex;
  /// Inputs only (format 2.3): -1, or the bucket whose true size the
  /// runtime feeds through this one-element input; users do not supply it.
  int32_t lengthOf = -1;

  bool operator==(const Port &o) const;
  bool operator!=(const Port &o) const { return !(*this == o); }
};

struct ValueDesc {
  std::string name;
  TensorType type;
  int32_t weight = -1; ///< index into the package's weight table, or -1

  bool operator==(const ValueDesc &o) const;
  bool operator!=(const ValueDesc &o) const { return !(*this == o); }
};

/// Host-op attribute value. Contract with the compiler: IntegerAttr/BoolAttr
/// -> int64_t, FloatAttr -> double, StringAttr and enums (keyword) ->
/// std::string, DenseI64ArrayAttr -> vector<int64_t>, DenseF64ArrayAttr ->
/// vector<double>.
using AttrValue = std::variant<int64_t, double, std::string,
                               std::vector<int64_t>, std::vector<double>>;

struct HostOpDesc {
  std::string kind; ///< e.g. "accel.conv"
  std::vector<std::pair<std::string, AttrValue>> attrs;
  std::vector<int32_t> inputs; ///< value ids, -1 = absent optional operand
  std::vector<int32_t> outputs;
  std::string location;

  /// The attribute called `name`, or null.
  const AttrValue *getAttr(std::string_view name) const;
  bool operator==(const HostOpDesc &o) const;
  bool operator!=(const HostOpDesc &o) const { return !(*this == o); }
};

struct HostPartitionDesc {
  std::vector<HostOpDesc> ops;
  std::string reason;

  bool operator==(const HostPartitionDesc &o) const;
  bool operator!=(const HostPartitionDesc &o) const { return !(*this == o); }
};

/// One core's lib/ISA program binary (header + instruction words).
struct CoreProgramDesc {
  uint32_t core = 0;
  std::vector<uint8_t> code;

  bool operator==(const CoreProgramDesc &o) const;
  bool operator!=(const CoreProgramDesc &o) const { return !(*this == o); }
};

enum class BindingRole : uint8_t { Input = 0, Output = 1 };
std::string_view toString(BindingRole role);

/// `value` lives at `address` of the card's DRAM. Inputs (including weights)
/// are written by the runtime before the launch, outputs read after it.
struct DramBindingDesc {
  int32_t value = -1;
  uint64_t address = 0;
  BindingRole role = BindingRole::Input;

  bool operator==(const DramBindingDesc &o) const;
  bool operator!=(const DramBindingDesc &o) const { return !(*this == o); }
};

struct CardPartitionDesc {
  uint32_t card = 0;
  std::vector<CoreProgramDesc> programs; ///< at most one per core
  /// Load the weight tiles `programs` keep in the cores' MRFs across
  /// launches (pinned weights); at most one per core, usually empty. Run
  /// before a launch whenever the MRFs may not hold the tiles (format 2.2).
  std::vector<CoreProgramDesc> setupPrograms;
  std::vector<DramBindingDesc> bindings;
  uint64_t modeledCycles = 0; ///< 0 = unknown
  /// DRAM range [workBegin, workEnd) the launch writes (inputs, results,
  /// scratch); weights outside it survive. Both 0: unknown, all of DRAM.
  uint64_t workBegin = 0, workEnd = 0;

  bool hasWorkRange() const { return workBegin != 0 || workEnd != 0; }

  bool operator==(const CardPartitionDesc &o) const;
  bool operator!=(const CardPartitionDesc &o) const { return !(*this == o); }
};

using PartitionDesc = std::variant<HostPartitionDesc, CardPartitionDesc>;

struct VariantDesc {
  std::string name;
  std::vector<int64_t> bucket; ///< one size per ModelDesc::bucketNames entry
  std::vector<ValueDesc> values;
  std::vector<int32_t> inputs;  ///< parallel to ModelDesc::inputs
  std::vector<int32_t> outputs; ///< parallel to ModelDesc::outputs
  std::vector<PartitionDesc> partitions;

  /// Appends a value and returns its id.
  int32_t addValue(ValueDesc value) {
    values.push_back(std::move(value));
    return static_cast<int32_t>(values.size() - 1);
  }
  bool operator==(const VariantDesc &o) const;
  bool operator!=(const VariantDesc &o) const { return !(*this == o); }
};

/// One entry of the weight table: a range of the weights section.
struct WeightInfo {
  uint64_t offset = 0; ///< from the start of the weights section, 64-aligned
  uint64_t size = 0;
  uint64_t hash = 0; ///< FNV-1a 64 of the bytes

  bool operator==(const WeightInfo &o) const {
    return offset == o.offset && size == o.size && hash == o.hash;
  }
};

/// Everything in a manifest except the weight table, which the builder
/// computes and the reader exposes through Package::weightInfo().
struct ModelDesc {
  std::string name;
  std::string producer;
  std::string producerVersion;
  std::string target; ///< target description JSON text
  std::vector<Port> inputs, outputs;
  std::vector<std::string> bucketNames;
  std::vector<VariantDesc> variants;
  std::string ir; ///< final IR text, may be empty
  /// Padding buckets (format 2.3): what bucketed input dimensions are
  /// padded with, and whether the compiler made padding exact.
  double padValue = 0.0;
  bool exactPadding = false;

  /// The variant called `name`, or null.
  const VariantDesc *findVariant(std::string_view name) const;
  bool operator==(const ModelDesc &o) const;
  bool operator!=(const ModelDesc &o) const { return !(*this == o); }
};

/// Picks the variant to run for concrete input shapes (parallel to
/// model.inputs): among the variants whose padded input shapes are at least
/// the given ones in every bucketed dimension and equal elsewhere, the one
/// with the smallest product of bucket sizes (first on ties). Returns its
/// index, or an error naming the input that fits no variant.
struct SelectResult {
  int index = -1;
  std::string error;
};
SelectResult selectVariant(const ModelDesc &model,
                           const std::vector<std::vector<int64_t>> &shapes);

} // namespace nnaccel::package

#endif // NNACCEL_PACKAGE_MODEL_H
