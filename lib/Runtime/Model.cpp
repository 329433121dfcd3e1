//===- Model.cpp - Loading and preparing model packages -------------------===//
//
// Opens a package (lib/Package validates it completely) and derives the
// ModelState that sessions execute. Everything that can be wrong with a
// package but that the package library cannot know -- the target JSON, a
// card or core the target does not have, a DRAM binding past the end of
// card memory, a program binary whose words do not decode, a host op kind
// without a kernel -- is reported here, at load time, rather than on the
// first request.
//
//===----------------------------------------------------------------------===//

#include "ModelState.h"

#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/Runtime/HostKernels.h"

#include <fmt/format.h>

#include <exception>
#include <new>
#include <type_traits>
#include <variant>

namespace nnaccel {
namespace runtime {

namespace {

package::Status fail(std::string message) {
  return package::Status::error(std::move(message));
}

DType toRuntime(package::DType type) {
  // The numbering is shared by the package format and the runtime.
  return static_cast<DType>(static_cast<uint8_t>(type));
}

TensorDesc toDesc(const package::TensorType &type) {
  return TensorDesc(toRuntime(type.storageType()), type.shape);
}

std::string describeOp(const package::HostOpDesc &op) {
  return op.location.empty() ? op.kind : op.kind + " at " + op.location;
}

/// Ports: storage dtype, shape with -1 for bucketed dimensions, and the
/// bucket index of every dimension.
void preparePorts(const std::vector<package::Port> &ports,
                  std::vector<PortInfo> &infos,
                  std::vector<std::vector<int32_t>> &buckets) {
  for (const package::Port &port : ports) {
    PortInfo info;
    info.name = port.name;
    info.dtype = toRuntime(port.type.storageType());
    info.shape = port.type.shape;
    std::vector<int32_t> index(port.type.shape.size(), -1);
    for (size_t d = 0; d < port.bucketIndex.size() && d < index.size(); ++d)
      index[d] = port.bucketIndex[d];
    infos.push_back(std::move(info));
    buckets.push_back(std::move(index));
  }
}

package::Status prepareHostPartition(const package::HostPartitionDesc &desc,
                                     const PreparedVariant &variant,
                                     const std::string &where,
                                     PreparedPartition &out) {
  out.onCard = false;
  for (size_t i = 0; i < desc.ops.size(); ++i) {
    const package::HostOpDesc &opDesc = desc.ops[i];
    std::string at = fmt::format("{} op {} ({})", where, i, describeOp(opDesc));
    if (!isHostOpSupported(opDesc.kind))
      return fail(at + ": no host kernel for '" + opDesc.kind + "'");
    PreparedHostOp op;
    op.op = makeHostOp(opDesc);
    op.inputs = opDesc.inputs;
    op.outputs = opDesc.outputs;
    for (int32_t id : opDesc.outputs)
      op.outputDescs.push_back(variant.valueDescs[static_cast<size_t>(id)]);
    out.ops.push_back(std::move(op));
  }
  return package::Status::success();
}

package::Status
prepareCardPartition(const package::CardPartitionDesc &desc,
                     const PreparedVariant &variant,
                     const std::optional<isa::TargetDesc> &target,
                     const std::string &where, PreparedPartition &out) {
  out.onCard = true;
  out.card = desc.card;
  if (!target)
    return fail(where + ": the package has a card partition but no target "
                        "description");
  if (desc.card >= target->cards)
    return fail(fmt::format("{}: card {} does not exist in target '{}' ({} "
                            "card(s))",
                            where, desc.card, target->name, target->cards));
  // Setup programs (pinned weights) are checked and decoded like the body
  // programs; their messages say "setup program".
  auto decodePrograms = [&](const std::vector<package::CoreProgramDesc> &descs,
                            bool setup, std::vector<isa::Program> &programs) {
    for (const package::CoreProgramDesc &program : descs) {
      if (program.core >= target->coresPerCard)
        return fail(fmt::format("{}: {}core {} does not exist in target '{}' "
                                "({} core(s) per card)",
                                where, setup ? "setup program: " : "",
                                program.core, target->name,
                                target->coresPerCard));
      isa::Expected<isa::Program> decoded = isa::decodeProgram(program.code);
      if (!decoded)
        return fail(fmt::format("{}: {}program for card {} core {}: {}", where,
                                setup ? "setup " : "", desc.card, program.core,
                                decoded.message()));
      programs.push_back(std::move(decoded.value()));
    }
    return package::Status::success();
  };
  if (package::Status s = decodePrograms(desc.programs, false, out.programs);
      !s.ok())
    return s;
  if (package::Status s =
          decodePrograms(desc.setupPrograms, true, out.setupPrograms);
      !s.ok())
    return s;
  uint64_t dramBytes = target->memory(isa::Space::Dram).bytes;
  for (const package::DramBindingDesc &binding : desc.bindings) {
    auto id = static_cast<size_t>(binding.value);
    PreparedBinding b;
    b.value = binding.value;
    b.address = binding.address;
    b.bytes = variant.valueDescs[id].getByteSize();
    if (b.address > dramBytes || b.bytes > dramBytes - b.address)
      return fail(fmt::format("{}: {} binding of value '{}' at {:#x} ({} "
                              "bytes) exceeds the card's {} bytes of DRAM",
                              where, toString(binding.role),
                              variant.valueNames[id], b.address, b.bytes,
                              dramBytes));
    bool weight = binding.role == package::BindingRole::Input &&
                  !variant.constants[id].isNull();
    // Everything the launch writes must lie in its work range: weights of
    // other partitions outside it are trusted to survive.
    if (desc.hasWorkRange() && !weight &&
        (b.address < desc.workBegin || b.bytes > desc.workEnd - b.address))
      return fail(fmt::format("{}: {} binding of value '{}' at {:#x} ({} "
                              "bytes) lies outside the partition's work "
                              "range [{:#x}, {:#x})",
                              where, toString(binding.role),
                              variant.valueNames[id], b.address, b.bytes,
                              desc.workBegin, desc.workEnd));
    if (binding.role == package::BindingRole::Output)
      out.outputs.push_back(b);
    else if (weight)
      out.weights.push_back(b);
    else
      out.inputs.push_back(b);
  }
  if (desc.hasWorkRange() && desc.workEnd > dramBytes)
    return fail(fmt::format("{}: work range [{:#x}, {:#x}) exceeds the "
                            "card's {} bytes of DRAM",
                            where, desc.workBegin, desc.workEnd, dramBytes));
  out.workBegin = desc.workBegin;
  out.workEnd = desc.hasWorkRange() ? desc.workEnd : dramBytes;
  return package::Status::success();
}

/// Fills every releaseAfter list: a value is released after the step that
/// uses it last (or defines it, if nothing uses it), unless it is a variant
/// output. Steps are host ops and card launches, in execution order.
void computeReleasePoints(PreparedVariant &variant) {
  size_t n = variant.valueDescs.size();
  std::vector<std::vector<int32_t> *> last(n, nullptr);
  auto touch = [&](int32_t id, std::vector<int32_t> *step) {
    if (id >= 0 && static_cast<size_t>(id) < n)
      last[static_cast<size_t>(id)] = step;
  };
  for (PreparedPartition &p : variant.partitions) {
    if (!p.onCard) {
      for (PreparedHostOp &op : p.ops) {
        for (int32_t id : op.inputs)
          touch(id, &op.releaseAfter);
        for (int32_t id : op.outputs)
          touch(id, &op.releaseAfter);
      }
      continue;
    }
    for (const auto *list : {&p.weights, &p.inputs, &p.outputs})
      for (const PreparedBinding &b : *list)
        touch(b.value, &p.releaseAfter);
  }
  std::vector<bool> isOutput(n, false);
  for (int32_t id : variant.outputs)
    isOutput[static_cast<size_t>(id)] = true;
  for (size_t id = 0; id < n; ++id)
    if (last[id] && !isOutput[id])
      last[id]->push_back(static_cast<int32_t>(id));
}

Expected<std::unique_ptr<ModelState>> prepare(package::Package package,
                                              std::string sourceName) {
  auto state = std::make_unique<ModelState>(std::move(package));
  state->sourceName = std::move(sourceName);
  const package::ModelDesc &model = state->package.model();
  const std::string &src = state->sourceName;

  for (const package::VariantDesc &v : model.variants)
    for (const package::PartitionDesc &p : v.partitions)
      if (std::holds_alternative<package::CardPartitionDesc>(p))
        state->hasCardPartitions = true;

  // A host-only package runs without a target, so only a package that needs
  // one fails on a missing or malformed description.
  if (!model.target.empty()) {
    isa::Expected<isa::TargetDesc> target =
        isa::parseTarget(model.target, src + ": target");
    if (target)
      state->target = std::move(target.value());
    else if (state->hasCardPartitions)
      return fail(target.message());
  } else if (state->hasCardPartitions) {
    return fail(src + ": the package has card partitions but no target "
                      "description");
  }

  // Length inputs (padding buckets) are the session's to fill, not the
  // user's: they stay out of the user-facing signature.
  std::vector<package::Port> userInputs;
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    if (model.inputs[i].lengthOf >= 0) {
      state->lengthInputs.emplace_back(i, model.inputs[i].lengthOf);
      continue;
    }
    state->signatureIndex.push_back(i);
    userInputs.push_back(model.inputs[i]);
  }
  preparePorts(userInputs, state->inputs, state->inputBuckets);
  preparePorts(model.outputs, state->outputs, state->outputBuckets);

  std::shared_ptr<const void> owner = state->package.owner();
  for (const package::VariantDesc &v : model.variants) {
    PreparedVariant variant;
    variant.name = v.name;
    variant.inputs = v.inputs;
    variant.outputs = v.outputs;
    for (const package::ValueDesc &value : v.values) {
      TensorDesc desc = toDesc(value.type);
      Tensor constant;
      if (value.weight >= 0) {
        package::Expected<package::WeightView> w =
            state->package.getWeight(value.weight);
        if (!w)
          return fail(fmt::format("{}: variant '{}' value '{}': {}", src,
                                  v.name, value.name, w.message()));
        if (w->size != desc.getByteSize())
          return fail(fmt::format("{}: variant '{}' value '{}': weight has {} "
                                  "bytes, its type {} needs {}",
                                  src, v.name, value.name, w->size,
                                  desc.toString(), desc.getByteSize()));
        constant = Tensor::view(desc, w->data, owner);
      }
      variant.valueDescs.push_back(std::move(desc));
      variant.valueNames.push_back(value.name);
      variant.constants.push_back(std::move(constant));
    }
    for (size_t p = 0; p < v.partitions.size(); ++p) {
      std::string where =
          fmt::format("{}: variant '{}' partition {}", src, v.name, p);
      PreparedPartition prepared;
      package::Status s = std::visit(
          [&](const auto &desc) -> package::Status {
            using T = std::decay_t<decltype(desc)>;
            if constexpr (std::is_same_v<T, package::HostPartitionDesc>)
              return prepareHostPartition(desc, variant, where, prepared);
            else
              return prepareCardPartition(desc, variant, state->target, where,
                                          prepared);
          },
          v.partitions[p]);
      if (!s.ok())
        return s;
      variant.partitions.push_back(std::move(prepared));
    }
    computeReleasePoints(variant);
    state->variants.push_back(std::move(variant));
  }
  return state;
}

template <typename F>
Expected<std::shared_ptr<const Model>> guarded(const std::string &what, F f) {
  try {
    return f();
  } catch (const std::bad_alloc &) {
    return fail(what + ": out of memory while loading the model");
  } catch (const std::exception &e) {
    return fail(what + ": " + e.what());
  }
}

} // namespace

std::string PortInfo::toString() const {
  std::string dims;
  for (size_t d = 0; d < shape.size(); ++d)
    dims += (d ? "x" : "") +
            (shape[d] < 0 ? std::string("?") : std::to_string(shape[d]));
  return name + ": " + getDTypeName(dtype) + "[" + dims + "]";
}

Model::Model(std::unique_ptr<ModelState> state) : state(std::move(state)) {}
Model::~Model() = default;

Expected<std::shared_ptr<const Model>>
Model::fromPackage(package::Package package, std::string sourceName) {
  return guarded(sourceName, [&]() -> Expected<std::shared_ptr<const Model>> {
    Expected<std::unique_ptr<ModelState>> state =
        prepare(std::move(package), sourceName);
    if (!state)
      return state.status();
    return std::shared_ptr<const Model>(new Model(std::move(state.value())));
  });
}

Expected<std::shared_ptr<const Model>> Model::load(const std::string &path,
                                                   const LoadOptions &options) {
  return guarded(path, [&]() -> Expected<std::shared_ptr<const Model>> {
    package::OpenOptions open;
    open.verifyWeightsChecksum = options.verifyWeightsChecksum;
    package::Expected<package::Package> pkg =
        package::Package::open(path, open);
    if (!pkg)
      return pkg.status();
    return fromPackage(std::move(pkg.value()), path);
  });
}

Expected<std::shared_ptr<const Model>>
Model::fromBuffer(const void *data, size_t size, const LoadOptions &options) {
  return guarded("<buffer>", [&]() -> Expected<std::shared_ptr<const Model>> {
    package::OpenOptions open;
    open.verifyWeightsChecksum = options.verifyWeightsChecksum;
    package::Expected<package::Package> pkg =
        package::Package::fromBuffer(data, size, open);
    if (!pkg)
      return pkg.status().withContext("<buffer>");
    return fromPackage(std::move(pkg.value()), "<buffer>");
  });
}

const std::string &Model::getName() const {
  return state->package.model().name;
}
const std::vector<PortInfo> &Model::getInputs() const { return state->inputs; }
const std::vector<PortInfo> &Model::getOutputs() const {
  return state->outputs;
}

static int findPort(const std::vector<PortInfo> &ports,
                    const std::string &name) {
  for (size_t i = 0; i < ports.size(); ++i)
    if (ports[i].name == name)
      return static_cast<int>(i);
  return -1;
}

int Model::findInput(const std::string &name) const {
  return findPort(state->inputs, name);
}
int Model::findOutput(const std::string &name) const {
  return findPort(state->outputs, name);
}

bool Model::hasCardPartitions() const { return state->hasCardPartitions; }

const isa::TargetDesc *Model::getTarget() const {
  return state->target ? &*state->target : nullptr;
}

const package::Package &Model::getPackage() const { return state->package; }
const package::ModelDesc &Model::getDesc() const {
  return state->package.model();
}

} // namespace runtime
} // namespace nnaccel
