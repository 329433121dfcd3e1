//===- Validate.cpp - Semantic rules of a package manifest ----------------===//
//
// Everything the FlatBuffers verifier cannot know: that ids index existing
// values, weights lie inside the weights section and match their values'
// sizes, variants agree with the model signature, every value is defined
// (by a variant input, a weight, or an earlier partition) before it is used
// and defined only once, and card programs (body and setup) carry the ISA
// header for the card and core they are filed under. After this a runtime can
// index with any id in the model without a bounds check. Messages name the
// object by path so a compiler bug can be traced to the offending op.
//
//===----------------------------------------------------------------------===//

#include "Validate.h"

#include "nnaccel/Package/Format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string_view>

namespace nnaccel::package {

namespace {

/// The representable range of an integer storage type.
std::pair<int64_t, int64_t> storageRange(DType t) {
  switch (t) {
  case DType::I1:
    return {0, 1};
  case DType::I4:
    return {-8, 7};
  case DType::U4:
    return {0, 15};
  case DType::I8:
    return {-128, 127};
  case DType::I16:
    return {-32768, 32767};
  case DType::I32:
    return {std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max()};
  case DType::U8:
    return {0, 255};
  case DType::U16:
    return {0, 65535};
  case DType::U32:
    return {0, std::numeric_limits<uint32_t>::max()};
  default:
    return {std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max()};
  }
}

Status checkQuant(const TensorType &t, const std::string &what) {
  if (!t.quant)
    return Status::success();
  const QuantParams &q = *t.quant;
  if (!isInteger(q.storage) || q.storage == DType::I1)
    return Status::error(fmt::format(
        "{}: quantisation storage type {} is not an integer type of 4 bits or "
        "more",
        what, toString(q.storage)));
  if (q.axis < -1 || q.axis >= static_cast<int64_t>(t.shape.size()))
    return Status::error(
        fmt::format("{}: quantisation axis {} is out of range for rank {}",
                    what, q.axis, t.shape.size()));
  if (q.axis == -1 && q.scales.size() != 1)
    return Status::error(
        fmt::format("{}: per-tensor quantisation needs 1 scale, got {}", what,
                    q.scales.size()));
  if (q.axis >= 0 && t.shape[q.axis] >= 0 &&
      q.scales.size() != static_cast<uint64_t>(t.shape[q.axis]))
    return Status::error(fmt::format(
        "{}: per-channel quantisation along axis {} needs {} scales, got {}",
        what, q.axis, t.shape[q.axis], q.scales.size()));
  if (!q.zeroPoints.empty() && q.zeroPoints.size() != q.scales.size())
    return Status::error(fmt::format(
        "{}: {} zero points for {} scales (give none or one per scale)", what,
        q.zeroPoints.size(), q.scales.size()));
  for (size_t i = 0; i < q.scales.size(); ++i)
    if (!(std::isfinite(q.scales[i]) && q.scales[i] > 0))
      return Status::error(fmt::format(
          "{}: quantisation scale {} is {}, not a finite positive number", what,
          i, q.scales[i]));
  auto [lo, hi] = storageRange(q.storage);
  int64_t qmin = q.storageMin.value_or(lo), qmax = q.storageMax.value_or(hi);
  if (qmin < lo || qmax > hi || qmin > qmax)
    return Status::error(fmt::format(
        "{}: storage range [{}, {}] is not a non-empty subrange of {} [{}, {}]",
        what, qmin, qmax, toString(q.storage), lo, hi));
  for (size_t i = 0; i < q.zeroPoints.size(); ++i)
    if (q.zeroPoints[i] < qmin || q.zeroPoints[i] > qmax)
      return Status::error(fmt::format(
          "{}: zero point {} is {}, outside the storage range [{}, {}]", what,
          i, q.zeroPoints[i], qmin, qmax));
  return Status::success();
}

Status checkPorts(const std::vector<Port> &ports, const char *what,
                  size_t numBuckets) {
  std::set<std::string> names;
  for (size_t i = 0; i < ports.size(); ++i) {
    const Port &p = ports[i];
    std::string where = fmt::format("{} {} ('{}')", what, i, p.name);
    if (p.name.empty())
      return Status::error(fmt::format("{} {}: empty name", what, i));
    if (!names.insert(p.name).second)
      return Status::error(where + ": duplicate name");
    if (!p.bucketIndex.empty() && p.bucketIndex.size() != p.type.shape.size())
      return Status::error(fmt::format("{}: {} bucket indices for rank {}",
                                       where, p.bucketIndex.size(),
                                       p.type.shape.size()));
    for (size_t d = 0; d < p.type.shape.size(); ++d) {
      int64_t dim = p.type.shape[d];
      int32_t b = d < p.bucketIndex.size() ? p.bucketIndex[d] : -1;
      if (b < -1 || b >= static_cast<int64_t>(numBuckets))
        return Status::error(fmt::format(
            "{}: dimension {}: bucket index {} is out of range ({} bucket "
            "dimensions)",
            where, d, b, numBuckets));
      if (dim < -1)
        return Status::error(
            fmt::format("{}: dimension {} has invalid size {}", where, d, dim));
      if (dim == -1 && b < 0)
        return Status::error(fmt::format(
            "{}: dynamic dimension {} has no bucket (every dynamic dimension "
            "must be padded to a bucket)",
            where, d));
      if (dim != -1 && b >= 0)
        return Status::error(fmt::format(
            "{}: bucketed dimension {} must be dynamic (-1) in the signature, "
            "not {}",
            where, d, dim));
    }
    if (Status s = checkQuant(p.type, where); !s.ok())
      return s;
    if (p.lengthOf != -1) {
      std::optional<uint64_t> elements = p.type.numElements();
      bool bucketed = false;
      for (int32_t b : p.bucketIndex)
        bucketed = bucketed || b >= 0;
      if (std::string_view(what) != "input" || p.lengthOf < 0 ||
          p.lengthOf >= static_cast<int64_t>(numBuckets))
        return Status::error(fmt::format(
            "{}: length_of {} is not a bucket index of an input port ({} "
            "bucket dimensions)",
            where, p.lengthOf, numBuckets));
      if (!elements || *elements != 1 || bucketed || p.type.quant ||
          (p.type.dtype != DType::F32 && p.type.dtype != DType::I32 &&
           p.type.dtype != DType::I64))
        return Status::error(fmt::format(
            "{}: a length input must hold one static f32, i32 or i64 element",
            where));
    }
  }
  return Status::success();
}

/// Checks a variant's input or output value against its signature port.
Status checkAgainstPort(const VariantDesc &v, const ValueDesc &val,
                        const Port &port, const std::string &where) {
  const TensorType &t = val.type;
  if (t.dtype != port.type.dtype || t.storageType() != port.type.storageType())
    return Status::error(fmt::format(
        "{}: element type {} (stored as {}) differs from the signature's {} "
        "(stored as {})",
        where, toString(t.dtype), toString(t.storageType()),
        toString(port.type.dtype), toString(port.type.storageType())));
  if (t.shape.size() != port.type.shape.size())
    return Status::error(fmt::format("{}: rank {} differs from the signature's "
                                     "{}",
                                     where, t.shape.size(),
                                     port.type.shape.size()));
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int32_t b = d < port.bucketIndex.size() ? port.bucketIndex[d] : -1;
    int64_t expected = b >= 0 ? v.bucket[b] : port.type.shape[d];
    if (t.shape[d] != expected)
      return Status::error(fmt::format(
          "{}: dimension {} is {}, expected {}{}", where, d, t.shape[d],
          expected, b >= 0 ? " (the variant's bucket size)" : ""));
  }
  return Status::success();
}

/// Checks an ISA program binary's header (docs/isa.md section 9) against the
/// card and core it is filed under. Decoding the instruction words is the
/// runtime's job (lib/ISA decodeProgram), which it does anyway.
Status checkProgram(const CoreProgramDesc &prog, uint32_t card,
                    const std::string &where) {
  constexpr size_t HeaderBytes = 32, WordBytes = 32;
  const std::vector<uint8_t> &c = prog.code;
  if (c.size() < HeaderBytes)
    return Status::error(fmt::format(
        "{}: program is {} bytes, shorter than the 32-byte ISA header", where,
        c.size()));
  if (!(c[0] == 'N' && c[1] == 'N' && c[2] == 'P' && c[3] == 'U'))
    return Status::error(where + ": program does not start with the ISA "
                                 "magic \"NNPU\"");
  auto le = [&](size_t off, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v |= uint64_t(c[off + i]) << (8 * i);
    return v;
  };
  uint64_t count = le(8, 4), wordBytes = le(12, 2);
  if (wordBytes != WordBytes || c.size() != HeaderBytes + count * WordBytes)
    return Status::error(fmt::format(
        "{}: program is {} bytes, but its header announces {} words of {} "
        "bytes",
        where, c.size(), count, wordBytes));
  uint64_t headerCard = le(16, 2), headerCore = le(18, 2);
  if (headerCard != card || headerCore != prog.core)
    return Status::error(fmt::format(
        "{}: program header is for card {} core {}, but it is filed under "
        "card {} core {}",
        where, headerCard, headerCore, card, prog.core));
  return Status::success();
}

class VariantChecker {
public:
  VariantChecker(const ModelDesc &m, const VariantDesc &v, size_t index,
                 const std::vector<WeightInfo> &weights)
      : model(m), variant(v), weights(weights),
        where(fmt::format("variant '{}' (#{})", v.name, index)),
        defined(v.values.size(), false) {}

  Status run() {
    if (Status s = checkBucket(); !s.ok())
      return s;
    if (Status s = checkValues(); !s.ok())
      return s;
    if (Status s = checkSignature(); !s.ok())
      return s;
    for (size_t i = 0; i < variant.partitions.size(); ++i) {
      const PartitionDesc &p = variant.partitions[i];
      Status s =
          std::holds_alternative<HostPartitionDesc>(p)
              ? checkHost(std::get<HostPartitionDesc>(p),
                          fmt::format("{}: partition {} (host)", where, i))
              : checkCard(std::get<CardPartitionDesc>(p),
                          fmt::format("{}: partition {} (card {})", where, i,
                                      std::get<CardPartitionDesc>(p).card));
      if (!s.ok())
        return s;
    }
    for (size_t i = 0; i < variant.outputs.size(); ++i)
      if (!defined[variant.outputs[i]])
        return Status::error(
            fmt::format("{}: output {} (value {}) is never computed", where, i,
                        variant.outputs[i]));
    return Status::success();
  }

private:
  bool validId(int64_t id) const {
    return id >= 0 && static_cast<uint64_t>(id) < variant.values.size();
  }
  std::string badId(int64_t id) const {
    return fmt::format("value id {} is out of range (the variant has {} "
                       "values)",
                       id, variant.values.size());
  }

  Status checkBucket() {
    if (variant.bucket.size() != model.bucketNames.size())
      return Status::error(fmt::format(
          "{}: bucket has {} sizes, the model has {} bucket dimensions", where,
          variant.bucket.size(), model.bucketNames.size()));
    for (size_t i = 0; i < variant.bucket.size(); ++i)
      if (variant.bucket[i] < 1)
        return Status::error(fmt::format("{}: bucket size {} ('{}') is {}",
                                         where, i, model.bucketNames[i],
                                         variant.bucket[i]));
    return Status::success();
  }

  Status checkValues() {
    for (size_t i = 0; i < variant.values.size(); ++i) {
      const ValueDesc &val = variant.values[i];
      std::string at =
          fmt::format("{}: value {}{}", where, i,
                      val.name.empty() ? "" : " ('" + val.name + "')");
      if (!val.type.isStatic())
        return Status::error(at + ": shape is not static");
      std::optional<uint64_t> bytes = val.type.byteSize();
      if (!bytes)
        return Status::error(at + ": byte size overflows 64 bits");
      if (Status s = checkQuant(val.type, at); !s.ok())
        return s;
      if (val.weight == -1)
        continue;
      if (val.weight < 0 || static_cast<size_t>(val.weight) >= weights.size())
        return Status::error(fmt::format(
            "{}: weight index {} is out of range (the package has {} "
            "weights)",
            at, val.weight, weights.size()));
      if (weights[val.weight].size != *bytes)
        return Status::error(fmt::format(
            "{}: weight {} has {} bytes, but the value's type needs {}", at,
            val.weight, weights[val.weight].size, *bytes));
      defined[i] = true;
    }
    return Status::success();
  }

  Status checkSignature() {
    for (int pass = 0; pass < 2; ++pass) {
      bool isInput = pass == 0;
      const std::vector<int32_t> &ids =
          isInput ? variant.inputs : variant.outputs;
      const std::vector<Port> &ports = isInput ? model.inputs : model.outputs;
      const char *kind = isInput ? "input" : "output";
      if (ids.size() != ports.size())
        return Status::error(fmt::format("{}: {} {}s, the model signature has "
                                         "{}",
                                         where, ids.size(), kind,
                                         ports.size()));
      std::set<int32_t> seen;
      for (size_t i = 0; i < ids.size(); ++i) {
        std::string at =
            fmt::format("{}: {} {} ('{}')", where, kind, i, ports[i].name);
        if (!validId(ids[i]))
          return Status::error(at + ": " + badId(ids[i]));
        if (isInput && variant.values[ids[i]].weight >= 0)
          return Status::error(
              fmt::format("{}: value {} is a weight", at, ids[i]));
        if (isInput && !seen.insert(ids[i]).second)
          return Status::error(
              fmt::format("{}: value {} is already another input", at, ids[i]));
        if (Status s =
                checkAgainstPort(variant, variant.values[ids[i]], ports[i], at);
            !s.ok())
          return s;
        if (isInput)
          defined[ids[i]] = true;
      }
    }
    return Status::success();
  }

  Status define(int32_t id, const std::string &at) {
    if (!validId(id))
      return Status::error(at + ": " + badId(id));
    if (defined[id])
      return Status::error(fmt::format(
          "{}: value {} is already defined (by a variant input, a weight or "
          "an earlier op)",
          at, id));
    defined[id] = true;
    return Status::success();
  }

  Status use(int32_t id, const std::string &at) const {
    if (!validId(id))
      return Status::error(at + ": " + badId(id));
    if (!defined[id])
      return Status::error(
          fmt::format("{}: value {} is used before it is defined", at, id));
    return Status::success();
  }

  Status checkHost(const HostPartitionDesc &host, const std::string &at) {
    for (size_t i = 0; i < host.ops.size(); ++i) {
      const HostOpDesc &op = host.ops[i];
      std::string opAt = fmt::format("{}: op {} ({})", at, i, op.kind);
      if (op.kind.empty())
        return Status::error(opAt + ": empty kind");
      std::set<std::string_view> names;
      for (const auto &[name, value] : op.attrs) {
        if (name.empty())
          return Status::error(opAt + ": attribute with an empty name");
        if (!names.insert(name).second)
          return Status::error(
              fmt::format("{}: duplicate attribute '{}'", opAt, name));
      }
      for (size_t j = 0; j < op.inputs.size(); ++j)
        if (op.inputs[j] != -1)
          if (Status s =
                  use(op.inputs[j], fmt::format("{}: input {}", opAt, j));
              !s.ok())
            return s;
      for (size_t j = 0; j < op.outputs.size(); ++j)
        if (Status s =
                define(op.outputs[j], fmt::format("{}: output {}", opAt, j));
            !s.ok())
          return s;
    }
    return Status::success();
  }

  Status checkCard(const CardPartitionDesc &card, const std::string &at) {
    if (card.programs.empty())
      return Status::error(at + ": no core programs");
    std::set<uint32_t> cores;
    for (size_t i = 0; i < card.programs.size(); ++i) {
      const CoreProgramDesc &prog = card.programs[i];
      std::string progAt =
          fmt::format("{}: program {} (core {})", at, i, prog.core);
      if (!cores.insert(prog.core).second)
        return Status::error(progAt + ": a second program for the same core");
      if (Status s = checkProgram(prog, card.card, progAt); !s.ok())
        return s;
    }
    // Setup programs (pinned weights) obey the same rules, independently:
    // a core may have both a setup and a body program.
    std::set<uint32_t> setupCores;
    for (size_t i = 0; i < card.setupPrograms.size(); ++i) {
      const CoreProgramDesc &prog = card.setupPrograms[i];
      std::string progAt =
          fmt::format("{}: setup program {} (core {})", at, i, prog.core);
      if (!setupCores.insert(prog.core).second)
        return Status::error(progAt +
                             ": a second setup program for the same core");
      if (Status s = checkProgram(prog, card.card, progAt); !s.ok())
        return s;
    }
    if (card.workBegin > card.workEnd)
      return Status::error(
          fmt::format("{}: work range [0x{:x}, 0x{:x}) ends before it begins",
                      at, card.workBegin, card.workEnd));
    // Inputs are checked against the state before the launch and outputs
    // become defined after it, whatever the order of the binding list.
    std::set<std::pair<int32_t, BindingRole>> seen;
    std::set<int32_t> inputs;
    for (int pass = 0; pass < 2; ++pass) {
      BindingRole role = pass == 0 ? BindingRole::Input : BindingRole::Output;
      for (size_t i = 0; i < card.bindings.size(); ++i) {
        const DramBindingDesc &b = card.bindings[i];
        if (b.role != role)
          continue;
        std::string bAt = fmt::format("{}: binding {} ({} value {})", at, i,
                                      toString(b.role), b.value);
        if (!validId(b.value))
          return Status::error(bAt + ": " + badId(b.value));
        if (!seen.insert({b.value, b.role}).second)
          return Status::error(bAt + ": value is bound twice");
        uint64_t bytes = *variant.values[b.value].type.byteSize();
        if (b.address > std::numeric_limits<uint64_t>::max() - bytes)
          return Status::error(
              fmt::format("{}: address 0x{:x} + {} bytes overflows", bAt,
                          b.address, bytes));
        if (role == BindingRole::Input) {
          if (Status s = use(b.value, bAt); !s.ok())
            return s;
          inputs.insert(b.value);
        } else {
          if (inputs.count(b.value))
            return Status::error(bAt + ": value is both an input and an "
                                       "output of the partition");
          if (Status s = define(b.value, bAt); !s.ok())
            return s;
        }
      }
    }
    return Status::success();
  }

  const ModelDesc &model;
  const VariantDesc &variant;
  const std::vector<WeightInfo> &weights;
  std::string where;
  std::vector<bool> defined;
};

Status checkWeights(const std::vector<WeightInfo> &weights,
                    uint64_t sectionSize) {
  if (weights.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    return Status::error("too many weights");
  std::vector<size_t> order(weights.size());
  for (size_t i = 0; i < weights.size(); ++i) {
    const WeightInfo &w = weights[i];
    if (w.offset % WeightAlignment != 0)
      return Status::error(
          fmt::format("weight {}: offset {} is not a multiple of {}", i,
                      w.offset, WeightAlignment));
    if (w.offset > sectionSize || w.size > sectionSize - w.offset)
      return Status::error(fmt::format(
          "weight {}: range [{}, {} + {}) lies outside the weights section "
          "({} bytes)",
          i, w.offset, w.offset, w.size, sectionSize));
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return weights[a].offset < weights[b].offset;
  });
  for (size_t k = 1; k < order.size(); ++k) {
    const WeightInfo &prev = weights[order[k - 1]], &cur = weights[order[k]];
    if (prev.size != 0 && cur.offset < prev.offset + prev.size)
      return Status::error(
          fmt::format("weights {} and {} overlap", order[k - 1], order[k]));
  }
  return Status::success();
}

} // namespace

Status validateModel(const ModelDesc &model,
                     const std::vector<WeightInfo> &weights,
                     uint64_t weightsSectionSize) {
  if (Status s = checkWeights(weights, weightsSectionSize); !s.ok())
    return s;
  std::set<std::string> bucketNames;
  for (size_t i = 0; i < model.bucketNames.size(); ++i) {
    if (model.bucketNames[i].empty())
      return Status::error(fmt::format("bucket dimension {}: empty name", i));
    if (!bucketNames.insert(model.bucketNames[i]).second)
      return Status::error(fmt::format("bucket dimension {}: duplicate name "
                                       "'{}'",
                                       i, model.bucketNames[i]));
  }
  if (!std::isfinite(model.padValue))
    return Status::error(
        fmt::format("pad_value {} is not finite", model.padValue));
  if (Status s = checkPorts(model.inputs, "input", model.bucketNames.size());
      !s.ok())
    return s;
  if (Status s = checkPorts(model.outputs, "output", model.bucketNames.size());
      !s.ok())
    return s;
  if (model.variants.empty())
    return Status::error("the model has no variants");
  std::set<std::string> names;
  std::set<std::vector<int64_t>> buckets;
  for (size_t i = 0; i < model.variants.size(); ++i) {
    const VariantDesc &v = model.variants[i];
    if (!names.insert(v.name).second)
      return Status::error(
          fmt::format("variant '{}' (#{}): duplicate name", v.name, i));
    if (Status s = VariantChecker(model, v, i, weights).run(); !s.ok())
      return s;
    if (!buckets.insert(v.bucket).second)
      return Status::error(
          fmt::format("variant '{}' (#{}): another variant has the same bucket",
                      v.name, i));
  }
  return Status::success();
}

} // namespace nnaccel::package
