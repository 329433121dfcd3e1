//===- Manifest.cpp - Plain structs <-> manifest FlatBuffer ---------------===//
//
// Encoding walks a ModelDesc bottom-up into a FlatBufferBuilder (FlatBuffers
// requires children to be finished before their parents). Decoding trusts
// nothing: the buffer goes through flatbuffers::Verifier first (every offset,
// vector length and string inside the buffer, required fields present), and
// the conversion then rejects what the verifier does not know about --
// enum values outside the schema and union members a newer writer might add.
//
// The encoder bounds the manifest size *before* building: FlatBufferBuilder
// asserts (or, with NDEBUG, silently misbehaves) past 2 GiB, so an oversized
// model -- in practice a huge IR text or program -- must be refused up front.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include "nnaccel/Package/Format.h"
#include "nnaccel/Package/Package_generated.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace nnaccel::package {

namespace fbs = flatbuffers;

//===----------------------------------------------------------------------===//
// Encoding
//===----------------------------------------------------------------------===//

namespace {

/// Generous upper bounds of the encoded size of each piece (payload, length
/// prefix, padding, vtable and table header).
constexpr uint64_t TableCost = 256;
uint64_t cost(const std::string &s) { return s.size() + 16; }
template <typename T> uint64_t cost(const std::vector<T> &v) {
  if constexpr (std::is_arithmetic_v<T>)
    return v.size() * sizeof(T) + 16;
  else
    return v.size() * 8 + 16; // offsets; elements are counted by the caller
}

uint64_t cost(const TensorType &t) {
  uint64_t c = TableCost + cost(t.shape);
  if (t.quant)
    c += TableCost + cost(t.quant->scales) + cost(t.quant->zeroPoints);
  return c;
}

uint64_t estimateSize(const ModelDesc &m, size_t numWeights) {
  uint64_t c = TableCost + cost(m.name) + cost(m.producer) +
               cost(m.producerVersion) + cost(m.target) + cost(m.ir) +
               numWeights * 24 + 16;
  for (const std::vector<Port> *ports : {&m.inputs, &m.outputs})
    for (const Port &p : *ports)
      c += TableCost + cost(p.name) + cost(p.type) + cost(p.bucketIndex);
  for (const std::string &n : m.bucketNames)
    c += cost(n) + 8;
  for (const VariantDesc &v : m.variants) {
    c += TableCost + cost(v.name) + cost(v.bucket) + cost(v.inputs) +
         cost(v.outputs) + cost(v.values) + cost(v.partitions);
    for (const ValueDesc &val : v.values)
      c += TableCost + cost(val.name) + cost(val.type);
    for (const PartitionDesc &p : v.partitions) {
      c += 2 * TableCost;
      if (const auto *host = std::get_if<HostPartitionDesc>(&p)) {
        c += cost(host->reason) + cost(host->ops);
        for (const HostOpDesc &op : host->ops) {
          c += TableCost + cost(op.kind) + cost(op.location) + cost(op.inputs) +
               cost(op.outputs) + cost(op.attrs);
          for (const auto &[name, value] : op.attrs) {
            c += 2 * TableCost + cost(name);
            if (const auto *s = std::get_if<std::string>(&value))
              c += cost(*s);
            else if (const auto *iv = std::get_if<std::vector<int64_t>>(&value))
              c += cost(*iv);
            else if (const auto *dv = std::get_if<std::vector<double>>(&value))
              c += cost(*dv);
          }
        }
      } else {
        const auto &card = std::get<CardPartitionDesc>(p);
        c += cost(card.programs) + cost(card.setupPrograms) +
             card.bindings.size() * 16 + 16;
        for (const auto *programs : {&card.programs, &card.setupPrograms})
          for (const CoreProgramDesc &prog : *programs)
            c += TableCost + cost(prog.code);
      }
    }
  }
  return c;
}

class Encoder {
public:
  explicit Encoder(fbs::FlatBufferBuilder &fbb) : fbb(fbb) {}

  fbs::Offset<fb::Model> model(const ModelDesc &m,
                               const std::vector<WeightInfo> &weights) {
    auto inputs = ports(m.inputs);
    auto outputs = ports(m.outputs);
    std::vector<fbs::Offset<fbs::String>> names;
    for (const std::string &n : m.bucketNames)
      names.push_back(fbb.CreateString(n));
    auto bucketNames = fbb.CreateVector(names);
    std::vector<fbs::Offset<fb::Variant>> vs;
    for (const VariantDesc &v : m.variants)
      vs.push_back(variant(v));
    auto variants = fbb.CreateVector(vs);
    std::vector<fb::Weight> ws;
    ws.reserve(weights.size());
    for (const WeightInfo &w : weights)
      ws.emplace_back(w.offset, w.size, w.hash);
    auto weightTable = fbb.CreateVectorOfStructs(ws);
    auto producer = fbb.CreateString(m.producer);
    auto producerVersion = fbb.CreateString(m.producerVersion);
    auto name = fbb.CreateString(m.name);
    auto target = fbb.CreateString(m.target);
    fbs::Offset<fbs::String> ir;
    if (!m.ir.empty())
      ir = fbb.CreateString(m.ir);
    return fb::CreateModel(fbb, FormatVersionMajor, FormatVersionMinor,
                           producer, producerVersion, name, target, inputs,
                           outputs, bucketNames, variants, weightTable, ir,
                           m.padValue, m.exactPadding);
  }

private:
  fbs::Offset<fb::TensorType> tensorType(const TensorType &t) {
    fbs::Offset<fb::QuantParams> quant;
    if (t.quant) {
      const QuantParams &q = *t.quant;
      auto scales = fbb.CreateVector(q.scales);
      auto zeroPoints = fbb.CreateVector(q.zeroPoints);
      fbs::Optional<int64_t> lo, hi;
      if (q.storageMin)
        lo = *q.storageMin;
      if (q.storageMax)
        hi = *q.storageMax;
      quant = fb::CreateQuantParams(fbb, scales, zeroPoints, q.axis,
                                    static_cast<fb::DType>(q.storage), lo, hi);
    }
    auto shape = fbb.CreateVector(t.shape);
    return fb::CreateTensorType(fbb, static_cast<fb::DType>(t.dtype), shape,
                                quant);
  }

  fbs::Offset<fbs::Vector<fbs::Offset<fb::Port>>>
  ports(const std::vector<Port> &ps) {
    std::vector<fbs::Offset<fb::Port>> out;
    for (const Port &p : ps) {
      auto name = fbb.CreateString(p.name);
      auto type = tensorType(p.type);
      fbs::Offset<fbs::Vector<int32_t>> bucketIndex;
      if (!p.bucketIndex.empty())
        bucketIndex = fbb.CreateVector(p.bucketIndex);
      out.push_back(fb::CreatePort(fbb, name, type, bucketIndex, p.lengthOf));
    }
    return fbb.CreateVector(out);
  }

  fbs::Offset<fb::Attribute> attribute(const std::string &n,
                                       const AttrValue &v) {
    auto name = fbb.CreateString(n);
    fb::AttrValue type = fb::AttrValue::NONE;
    fbs::Offset<void> value;
    if (const auto *i = std::get_if<int64_t>(&v)) {
      type = fb::AttrValue::IntAttr;
      value = fb::CreateIntAttr(fbb, *i).Union();
    } else if (const auto *d = std::get_if<double>(&v)) {
      type = fb::AttrValue::DoubleAttr;
      value = fb::CreateDoubleAttr(fbb, *d).Union();
    } else if (const auto *s = std::get_if<std::string>(&v)) {
      type = fb::AttrValue::StringAttr;
      value = fb::CreateStringAttr(fbb, fbb.CreateString(*s)).Union();
    } else if (const auto *iv = std::get_if<std::vector<int64_t>>(&v)) {
      type = fb::AttrValue::IntArrayAttr;
      value = fb::CreateIntArrayAttr(fbb, fbb.CreateVector(*iv)).Union();
    } else {
      type = fb::AttrValue::DoubleArrayAttr;
      value = fb::CreateDoubleArrayAttr(
                  fbb, fbb.CreateVector(std::get<std::vector<double>>(v)))
                  .Union();
    }
    return fb::CreateAttribute(fbb, name, type, value);
  }

  fbs::Offset<fbs::Vector<fbs::Offset<fb::CoreProgram>>>
  corePrograms(const std::vector<CoreProgramDesc> &descs) {
    std::vector<fbs::Offset<fb::CoreProgram>> programs;
    for (const CoreProgramDesc &prog : descs)
      programs.push_back(
          fb::CreateCoreProgram(fbb, prog.core, fbb.CreateVector(prog.code)));
    return fbb.CreateVector(programs);
  }

  fbs::Offset<fb::Partition> partition(const PartitionDesc &p) {
    if (const auto *host = std::get_if<HostPartitionDesc>(&p)) {
      std::vector<fbs::Offset<fb::HostOp>> ops;
      for (const HostOpDesc &op : host->ops) {
        std::vector<fbs::Offset<fb::Attribute>> attrs;
        for (const auto &[name, value] : op.attrs)
          attrs.push_back(attribute(name, value));
        auto kind = fbb.CreateString(op.kind);
        auto attrVec = fbb.CreateVector(attrs);
        auto inputs = fbb.CreateVector(op.inputs);
        auto outputs = fbb.CreateVector(op.outputs);
        fbs::Offset<fbs::String> location;
        if (!op.location.empty())
          location = fbb.CreateString(op.location);
        ops.push_back(
            fb::CreateHostOp(fbb, kind, attrVec, inputs, outputs, location));
      }
      auto opVec = fbb.CreateVector(ops);
      auto reason = fbb.CreateString(host->reason);
      auto body = fb::CreateHostPartition(fbb, opVec, reason);
      return fb::CreatePartition(fbb, fb::PartitionBody::HostPartition,
                                 body.Union());
    }
    const auto &card = std::get<CardPartitionDesc>(p);
    auto programVec = corePrograms(card.programs);
    // Absent rather than empty without setup programs, as before 2.2.
    fbs::Offset<fbs::Vector<fbs::Offset<fb::CoreProgram>>> setupVec;
    if (!card.setupPrograms.empty())
      setupVec = corePrograms(card.setupPrograms);
    std::vector<fb::DramBinding> bindings;
    for (const DramBindingDesc &b : card.bindings)
      bindings.emplace_back(b.address, b.value,
                            static_cast<fb::BindingRole>(b.role));
    auto bindingVec = fbb.CreateVectorOfStructs(bindings);
    auto body = fb::CreateCardPartition(fbb, card.card, programVec, bindingVec,
                                        card.modeledCycles, card.workBegin,
                                        card.workEnd, setupVec);
    return fb::CreatePartition(fbb, fb::PartitionBody::CardPartition,
                               body.Union());
  }

  fbs::Offset<fb::Variant> variant(const VariantDesc &v) {
    std::vector<fbs::Offset<fb::Value>> values;
    for (const ValueDesc &val : v.values) {
      fbs::Offset<fbs::String> name;
      if (!val.name.empty())
        name = fbb.CreateString(val.name);
      auto type = tensorType(val.type);
      values.push_back(fb::CreateValue(fbb, name, type, val.weight));
    }
    auto valueVec = fbb.CreateVector(values);
    std::vector<fbs::Offset<fb::Partition>> parts;
    for (const PartitionDesc &p : v.partitions)
      parts.push_back(partition(p));
    auto partVec = fbb.CreateVector(parts);
    auto name = fbb.CreateString(v.name);
    auto bucket = fbb.CreateVector(v.bucket);
    auto inputs = fbb.CreateVector(v.inputs);
    auto outputs = fbb.CreateVector(v.outputs);
    return fb::CreateVariant(fbb, name, bucket, valueVec, inputs, outputs,
                             partVec);
  }

  fbs::FlatBufferBuilder &fbb;
};

} // namespace

Expected<std::vector<uint8_t>>
encodeManifest(const ModelDesc &model, const std::vector<WeightInfo> &weights) {
  uint64_t estimate = estimateSize(model, weights.size());
  if (estimate > MaxManifestBytes)
    return Status::error(fmt::format(
        "manifest would need up to {} bytes, more than the FlatBuffers limit "
        "of {} (is the IR text or a program unexpectedly large?)",
        estimate, MaxManifestBytes));
  fbs::FlatBufferBuilder fbb(
      static_cast<size_t>(std::min<uint64_t>(estimate, uint64_t(64) << 20)));
  // Keep fields equal to their default in the buffer: the manifest is small
  // and explicit fields make hex dumps and other-language readers easier.
  fbb.ForceDefaults(true);
  Encoder encoder(fbb);
  fb::FinishModelBuffer(fbb, encoder.model(model, weights));
  return std::vector<uint8_t>(fbb.GetBufferPointer(),
                              fbb.GetBufferPointer() + fbb.GetSize());
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

namespace {

// FlatBuffers' verifier (2.0) checks only the 4-byte alignment of a
// vector's length field, and the writer's manifests do put vectors of 8-byte
// elements 4 bytes off (as can any crafted one); reading those through the
// generated accessors is a misaligned load. So vectors of 8-byte scalars
// and of structs are copied bytewise. The format is little-endian, like
// every host nnaccel supports.
static_assert(FLATBUFFERS_LITTLEENDIAN, "the manifest is little-endian");

template <typename T> std::vector<T> toVector(const fbs::Vector<T> *v) {
  std::vector<T> out(v ? v->size() : 0);
  if (!out.empty())
    std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

/// Element `i` of a vector of structs, copied out (see toVector).
template <typename T>
T getStruct(const fbs::Vector<const T *> *v, fbs::uoffset_t i) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value;
  std::memcpy(static_cast<void *>(&value), v->Data() + size_t(i) * sizeof(T),
              sizeof(T));
  return value;
}

std::string toString(const fbs::String *s) {
  return s ? s->str() : std::string();
}

Expected<DType> decodeDType(fb::DType t, const std::string &what) {
  unsigned raw = static_cast<unsigned>(t);
  if (!isValidDType(raw))
    return Status::error(fmt::format("{}: unknown element type {}", what, raw));
  return static_cast<DType>(raw);
}

Expected<TensorType> decodeType(const fb::TensorType *t,
                                const std::string &what) {
  if (!t)
    return Status::error(what + ": missing type");
  TensorType out;
  Expected<DType> dtype = decodeDType(t->dtype(), what);
  if (!dtype)
    return dtype.status();
  out.dtype = *dtype;
  out.shape = toVector(t->shape());
  if (const fb::QuantParams *q = t->quant()) {
    QuantParams qp;
    qp.scales = toVector(q->scales());
    qp.zeroPoints = toVector(q->zero_points());
    qp.axis = q->axis();
    Expected<DType> storage = decodeDType(q->storage(), what + ": quant");
    if (!storage)
      return storage.status();
    qp.storage = *storage;
    if (q->storage_min())
      qp.storageMin = *q->storage_min();
    if (q->storage_max())
      qp.storageMax = *q->storage_max();
    out.quant = std::move(qp);
  }
  return out;
}

Expected<std::vector<Port>>
decodePorts(const fbs::Vector<fbs::Offset<fb::Port>> *ports, const char *what) {
  std::vector<Port> out;
  if (!ports)
    return out;
  for (fbs::uoffset_t i = 0; i < ports->size(); ++i) {
    const fb::Port *p = ports->Get(i);
    Port port;
    port.name = toString(p->name());
    Expected<TensorType> type =
        decodeType(p->type(), fmt::format("{} {}", what, i));
    if (!type)
      return type.status();
    port.type = std::move(*type);
    port.bucketIndex = toVector(p->bucket_index());
    port.lengthOf = p->length_of();
    out.push_back(std::move(port));
  }
  return out;
}

Expected<AttrValue> decodeAttr(const fb::Attribute *a,
                               const std::string &what) {
  switch (a->value_type()) {
  case fb::AttrValue::IntAttr:
    if (const fb::IntAttr *v = a->value_as_IntAttr())
      return AttrValue(int64_t(v->value()));
    break;
  case fb::AttrValue::DoubleAttr:
    if (const fb::DoubleAttr *v = a->value_as_DoubleAttr())
      return AttrValue(v->value());
    break;
  case fb::AttrValue::StringAttr:
    if (const fb::StringAttr *v = a->value_as_StringAttr())
      return AttrValue(toString(v->value()));
    break;
  case fb::AttrValue::IntArrayAttr:
    if (const fb::IntArrayAttr *v = a->value_as_IntArrayAttr())
      return AttrValue(toVector(v->values()));
    break;
  case fb::AttrValue::DoubleArrayAttr:
    if (const fb::DoubleArrayAttr *v = a->value_as_DoubleArrayAttr())
      return AttrValue(toVector(v->values()));
    break;
  case fb::AttrValue::NONE:
    break;
  default:
    return Status::error(fmt::format("{}: unknown attribute value kind {}",
                                     what,
                                     static_cast<unsigned>(a->value_type())));
  }
  return Status::error(what + ": missing attribute value");
}

Expected<PartitionDesc> decodePartition(const fb::Partition *p,
                                        const std::string &what) {
  switch (p->body_type()) {
  case fb::PartitionBody::HostPartition: {
    const fb::HostPartition *hp = p->body_as_HostPartition();
    if (!hp)
      break;
    HostPartitionDesc host;
    host.reason = toString(hp->reason());
    if (const auto *ops = hp->ops()) {
      for (fbs::uoffset_t i = 0; i < ops->size(); ++i) {
        const fb::HostOp *o = ops->Get(i);
        HostOpDesc op;
        op.kind = toString(o->kind());
        op.inputs = toVector(o->inputs());
        op.outputs = toVector(o->outputs());
        op.location = toString(o->location());
        if (const auto *attrs = o->attrs()) {
          for (fbs::uoffset_t j = 0; j < attrs->size(); ++j) {
            const fb::Attribute *a = attrs->Get(j);
            Expected<AttrValue> value = decodeAttr(
                a, fmt::format("{}: op {} ({}): attribute '{}'", what, i,
                               op.kind, toString(a->name())));
            if (!value)
              return value.status();
            op.attrs.emplace_back(toString(a->name()), std::move(*value));
          }
        }
        host.ops.push_back(std::move(op));
      }
    }
    return PartitionDesc(std::move(host));
  }
  case fb::PartitionBody::CardPartition: {
    const fb::CardPartition *cp = p->body_as_CardPartition();
    if (!cp)
      break;
    CardPartitionDesc card;
    card.card = cp->card();
    card.modeledCycles = cp->modeled_cycles();
    card.workBegin = cp->work_begin();
    card.workEnd = cp->work_end();
    if (const auto *programs = cp->programs())
      for (const fb::CoreProgram *prog : *programs)
        card.programs.push_back({prog->core(), toVector(prog->code())});
    if (const auto *programs = cp->setup_programs())
      for (const fb::CoreProgram *prog : *programs)
        card.setupPrograms.push_back({prog->core(), toVector(prog->code())});
    if (const auto *bindings = cp->bindings()) {
      for (fbs::uoffset_t i = 0; i < bindings->size(); ++i) {
        const fb::DramBinding b = getStruct(bindings, i);
        unsigned role = static_cast<unsigned>(b.role());
        if (role > static_cast<unsigned>(BindingRole::Output))
          return Status::error(fmt::format(
              "{}: binding {}: unknown binding role {}", what, i, role));
        card.bindings.push_back(
            {b.value(), b.address(), static_cast<BindingRole>(role)});
      }
    }
    return PartitionDesc(std::move(card));
  }
  case fb::PartitionBody::NONE:
    break;
  default:
    return Status::error(fmt::format("{}: unknown partition kind {}", what,
                                     static_cast<unsigned>(p->body_type())));
  }
  return Status::error(what + ": missing partition body");
}

Expected<VariantDesc> decodeVariant(const fb::Variant *v, size_t index) {
  VariantDesc out;
  out.name = toString(v->name());
  std::string what = fmt::format("variant '{}' (#{})", out.name, index);
  out.bucket = toVector(v->bucket());
  out.inputs = toVector(v->inputs());
  out.outputs = toVector(v->outputs());
  if (const auto *values = v->values()) {
    out.values.reserve(values->size());
    for (fbs::uoffset_t i = 0; i < values->size(); ++i) {
      const fb::Value *val = values->Get(i);
      ValueDesc value;
      value.name = toString(val->name());
      value.weight = val->weight();
      Expected<TensorType> type =
          decodeType(val->type(), fmt::format("{}: value {}", what, i));
      if (!type)
        return type.status();
      value.type = std::move(*type);
      out.values.push_back(std::move(value));
    }
  }
  if (const auto *parts = v->partitions()) {
    for (fbs::uoffset_t i = 0; i < parts->size(); ++i) {
      Expected<PartitionDesc> p = decodePartition(
          parts->Get(i), fmt::format("{}: partition {}", what, i));
      if (!p)
        return p.status();
      out.partitions.push_back(std::move(*p));
    }
  }
  return out;
}

} // namespace

Expected<DecodedManifest> decodeManifest(const uint8_t *data, size_t size) {
  // Every table occupies at least 4 bytes, so size / 4 bounds the table
  // count of any well-formed buffer; the default limit (1M) could reject a
  // legitimately large model.
  auto maxTables = static_cast<fbs::uoffset_t>(
      std::min<uint64_t>(size / 4 + 16, MaxManifestBytes));
  fbs::Verifier verifier(data, size, /*max_depth=*/64, maxTables);
  if (!fb::ModelBufferHasIdentifier(data))
    return Status::error(
        "manifest: missing file identifier \"NNPM\" (not a package manifest)");
  if (!fb::VerifyModelBuffer(verifier))
    return Status::error("manifest: FlatBuffers verification failed (an "
                         "offset, length or required field is invalid)");
  DecodedManifest out;
  const fb::Model *m = fb::GetModel(data);
  out.root = m;
  out.formatMajor = m->format_major();
  out.formatMinor = m->format_minor();
  ModelDesc &model = out.model;
  model.name = toString(m->name());
  model.producer = toString(m->producer());
  model.producerVersion = toString(m->producer_version());
  model.target = toString(m->target());
  model.ir = toString(m->ir());
  model.padValue = m->pad_value();
  model.exactPadding = m->exact_padding();
  Expected<std::vector<Port>> inputs = decodePorts(m->inputs(), "input");
  if (!inputs)
    return inputs.status().withContext("manifest");
  model.inputs = std::move(*inputs);
  Expected<std::vector<Port>> outputs = decodePorts(m->outputs(), "output");
  if (!outputs)
    return outputs.status().withContext("manifest");
  model.outputs = std::move(*outputs);
  if (const auto *names = m->bucket_names())
    for (const fbs::String *n : *names)
      model.bucketNames.push_back(toString(n));
  if (const auto *variants = m->variants()) {
    for (fbs::uoffset_t i = 0; i < variants->size(); ++i) {
      Expected<VariantDesc> v = decodeVariant(variants->Get(i), i);
      if (!v)
        return v.status().withContext("manifest");
      model.variants.push_back(std::move(*v));
    }
  }
  if (const auto *weights = m->weights())
    for (fbs::uoffset_t i = 0; i < weights->size(); ++i) {
      const fb::Weight w = getStruct(weights, i);
      out.weights.push_back({w.offset(), w.size(), w.hash()});
    }
  return out;
}

} // namespace nnaccel::package
