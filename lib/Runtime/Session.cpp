//===- Session.cpp - Executing a model package ----------------------------===//
//
// The request path: validate and order the inputs, select and pad to a
// variant, then run the partitions over a vector of value tensors indexed by
// value id. Host ops read and write that vector; card partitions copy their
// bindings between it and the emulator's card DRAM.
//
// Emulator state persists across runs, and the session exploits that:
//  * Programs: the emulator runs every loaded program, so the programs of
//    one partition must be the only ones loaded when it launches. The
//    session remembers which partition's programs are loaded and reloads
//    only when another partition launches.
//  * Weights: a card partition's weight bindings are uploaded only when its
//    card's DRAM does not already hold them. Each card keeps a list of the
//    weights resident in its DRAM (variant, value, address, size). A launch
//    writes only its work range (the package says where: the compiler puts
//    the weights of all partitions of a card side by side below the work
//    memory they share), so it forgets just the resident weights that
//    overlap that range; without a work range it may write anywhere but its
//    own weights. A fault forgets everything on the card. Partitions that
//    take turns on a card thus upload their weights once per session.
//  * Pinned weights: a partition with setup programs keeps weight tiles in
//    its cores' MRFs, and small constants in the card's SHARED, across
//    launches; the setup programs load them from the weights in DRAM. Each card
//    remembers the partition whose setup last ran on it, and the session runs a
//    partition's setup (after its weight uploads, before its inputs and launch)
//    unless that is this partition and nothing since can have changed the
//    tiles: another partition's launch on the card (its programs may use the
//    MRFs and SHARED), a fault, or an upload of one of this partition's weights
//    (the setup must load what DRAM now holds) forgets it. Setup cycles are
//    reported apart from the launch's, since like the uploads they are paid
//    once per session.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/Session.h"

#include "Bucketing.h"
#include "ModelState.h"
#include "TraceBuilder.h"

#include "nnaccel/Emulator/Emulator.h"
#include "nnaccel/Runtime/HostKernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <utility>

namespace nnaccel {
namespace runtime {

namespace {

using Clock = std::chrono::steady_clock;
using PartitionKey = std::pair<size_t, size_t>; // (variant, partition)

package::Status fail(std::string message) {
  return package::Status::error(std::move(message));
}

double microsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start)
      .count();
}

std::string formatPort(const PortInfo &port) {
  std::string dims;
  for (size_t d = 0; d < port.shape.size(); ++d)
    dims +=
        (d ? "x" : "") +
        (port.shape[d] < 0 ? std::string("?") : std::to_string(port.shape[d]));
  return std::string(getDTypeName(port.dtype)) + "[" + dims + "]";
}

/// Drops a kernel message's own "kind (location): " prefix, which the
/// session's "partition P op I (kind at location): " already states.
std::string stripOpPrefix(const HostOp &op, const std::string &message) {
  std::string prefix = op.kind;
  if (!op.location.empty())
    prefix += " (" + op.location + ")";
  prefix += ": ";
  if (message.compare(0, prefix.size(), prefix) == 0)
    return message.substr(prefix.size());
  return message;
}

/// The named inputs in signature order, or an error for an unknown or a
/// missing name.
Expected<std::vector<Tensor>>
orderInputs(const Model &model, const std::map<std::string, Tensor> &inputs) {
  const std::vector<PortInfo> &ports = model.getInputs();
  std::vector<Tensor> ordered(ports.size());
  std::vector<bool> given(ports.size(), false);
  for (const auto &[name, tensor] : inputs) {
    int index = model.findInput(name);
    if (index < 0) {
      std::string known;
      for (const PortInfo &port : ports)
        known += (known.empty() ? "'" : ", '") + port.name + "'";
      return fail("unknown input '" + name + "' (the model's inputs are " +
                  (known.empty() ? std::string("none") : known) + ")");
    }
    ordered[static_cast<size_t>(index)] = tensor;
    given[static_cast<size_t>(index)] = true;
  }
  for (size_t i = 0; i < ports.size(); ++i)
    if (!given[i])
      return fail(fmt::format("missing input '{}' (expected {})", ports[i].name,
                              formatPort(ports[i])));
  return ordered;
}

} // namespace

struct SessionImpl {
  std::shared_ptr<const Model> model;
  const ModelState *state = nullptr;
  SessionOptions options;
  std::unique_ptr<emulator::Emulator> emu;

  mutable std::mutex mutex;
  std::optional<PartitionKey> loadedPrograms;
  /// Per value id of the current request: the unpadded shape of a padded
  /// input (padding buckets), else empty.
  std::vector<std::vector<int64_t>> validShapes;
  /// Per card: the partition whose weights its DRAM holds.
  /// A weight known to be in a card's DRAM.
  struct ResidentWeight {
    size_t variant;
    int32_t value;
    uint64_t address, bytes;
    bool overlaps(uint64_t begin, uint64_t end) const {
      return address < end && begin < address + bytes;
    }
  };
  std::vector<std::vector<ResidentWeight>> residentWeights; ///< per card
  /// Per card: the partition whose setup programs last ran there and whose
  /// pinned tiles its MRFs still hold.
  std::vector<std::optional<PartitionKey>> pinnedBy;
  RunStats lastStats;
  std::string lastTrace;

  Expected<std::vector<Tensor>> runLocked(const std::vector<Tensor> &inputs);
  package::Status runHost(const PreparedPartition &part, size_t index,
                          std::vector<Tensor> &values, PartitionStats &stats,
                          TraceBuilder &trace);
  /// Runs card partitions `indices` (of distinct cards, whose inputs are
  /// all available) as one launch: the emulator runs their cards side by
  /// side. stats[i] belongs to indices[i].
  package::Status runCards(size_t variantIndex,
                           const std::vector<size_t> &indices,
                           std::vector<Tensor> &values,
                           std::vector<PartitionStats> &stats,
                           TraceBuilder &trace);
  package::Status runSetup(const PreparedPartition &part, PartitionKey key,
                           const std::string &where, PartitionStats &stats,
                           TraceBuilder &trace);
};

//===----------------------------------------------------------------------===//
// Partitions
//===----------------------------------------------------------------------===//

package::Status SessionImpl::runHost(const PreparedPartition &part,
                                     size_t index, std::vector<Tensor> &values,
                                     PartitionStats &stats,
                                     TraceBuilder &trace) {
  Clock::time_point partStart = Clock::now();
  std::vector<const Tensor *> operands;
  std::vector<Tensor> results;
  for (size_t i = 0; i < part.ops.size(); ++i) {
    const PreparedHostOp &op = part.ops[i];
    auto where = [&] {
      return fmt::format("partition {} op {} ({}{})", index, i, op.op.kind,
                         op.op.location.empty() ? std::string()
                                                : " at " + op.op.location);
    };
    operands.clear();
    for (int32_t id : op.inputs) {
      if (id < 0) {
        operands.push_back(nullptr);
        continue;
      }
      const Tensor &t = values[static_cast<size_t>(id)];
      // Package validation guarantees definition before use; a null here
      // means a runtime bug, reported rather than dereferenced.
      if (t.isNull())
        return fail(where() + ": operand value " + std::to_string(id) +
                    " has no tensor");
      operands.push_back(&t);
    }
    results.clear();
    Clock::time_point opStart = Clock::now();
    Status s = runHostOp(
        op.op, Span<const Tensor *const>(operands.data(), operands.size()),
        results, op.outputDescs);
    double opMicros = microsSince(opStart);
    if (!s.ok())
      return fail(where() + ": " + stripOpPrefix(op.op, s.message()));
    if (results.size() != op.outputs.size())
      return fail(fmt::format("{}: kernel returned {} results, expected {}",
                              where(), results.size(), op.outputs.size()));
    for (size_t r = 0; r < results.size(); ++r)
      values[static_cast<size_t>(op.outputs[r])] = std::move(results[r]);
    for (int32_t id : op.releaseAfter)
      values[static_cast<size_t>(id)] = Tensor();
    trace.addHostOp(
        op.op.kind, op.op.location,
        std::chrono::duration<double, std::micro>(opStart - partStart).count(),
        opMicros);
  }
  stats.hostOps = static_cast<unsigned>(part.ops.size());
  stats.wallMicros = microsSince(partStart);
  return package::Status::success();
}

package::Status SessionImpl::runCards(size_t variantIndex,
                                      const std::vector<size_t> &indices,
                                      std::vector<Tensor> &values,
                                      std::vector<PartitionStats> &stats,
                                      TraceBuilder &trace) {
  const PreparedVariant &variant = state->variants[variantIndex];
  const std::vector<TensorDesc> &descs = variant.valueDescs;
  const std::vector<std::string> &names = variant.valueNames;
  Clock::time_point start = Clock::now();
  if (!emu)
    return fail("partition " + std::to_string(indices.front()) +
                ": the session has no emulator");
  auto where = [&](size_t i) {
    return fmt::format("partition {} (card {})", indices[i],
                       variant.partitions[indices[i]].card);
  };
  auto partOf = [&](size_t i) -> const PreparedPartition & {
    return variant.partitions[indices[i]];
  };

  auto upload = [&](size_t i, const PreparedBinding &b) -> package::Status {
    const PreparedPartition &part = partOf(i);
    const Tensor &t = values[static_cast<size_t>(b.value)];
    if (t.isNull() || t.getByteSize() != b.bytes)
      return fail(fmt::format("{}: input value '{}' is not available", where(i),
                              names[static_cast<size_t>(b.value)]));
    if (b.bytes == 0)
      return package::Status::success();
    auto write = [&](size_t offset, size_t bytes) -> package::Status {
      if (isa::Error e = emu->writeMemory(
              part.card, isa::Space::Dram, b.address + offset,
              static_cast<const uint8_t *>(t.data()) + offset, bytes))
        return fail(fmt::format("{}: writing value '{}' to DRAM: {}", where(i),
                                names[static_cast<size_t>(b.value)],
                                e.message()));
      return package::Status::success();
    };
    // A padded input (padding buckets) crosses the host link with its
    // valid rows only; the card fills the padding itself (modelled as a
    // DRAM fill, which the emulator performs with the same write).
    const std::vector<int64_t> &valid =
        validShapes[static_cast<size_t>(b.value)];
    size_t elementSize = getDTypeSize(t.getDType());
    if (!valid.empty() && elementSize &&
        t.getByteSize() == t.getNumElements() * elementSize) {
      package::Status status = package::Status::success();
      forEachPaddedRange(
          t.getShape(), valid, elementSize,
          [&](size_t offset, size_t bytes) {
            if (status.ok())
              status = write(offset, bytes);
            stats[i].bytesToCard += bytes;
          },
          [&](size_t offset, size_t bytes) {
            if (status.ok())
              status = write(offset, bytes);
            stats[i].padBytesFilled += bytes;
          });
      return status;
    }
    if (package::Status s = write(0, b.bytes); !s.ok())
      return s;
    stats[i].bytesToCard += b.bytes;
    return package::Status::success();
  };

  auto forget = [&](std::vector<ResidentWeight> &resident, uint64_t begin,
                    uint64_t end, auto keep) {
    resident.erase(std::remove_if(resident.begin(), resident.end(),
                                  [&](const ResidentWeight &w) {
                                    return w.overlaps(begin, end) && !keep(w);
                                  }),
                   resident.end());
  };

  // Weights the cards' DRAM does not hold yet, then setup programs (each
  // runs alone, so all of them before the launch's programs are loaded).
  for (size_t i = 0; i < indices.size(); ++i) {
    const PreparedPartition &part = partOf(i);
    PartitionKey key(variantIndex, indices[i]);
    std::optional<PartitionKey> &pinned = pinnedBy[part.card];
    std::vector<ResidentWeight> &resident = residentWeights[part.card];
    stats[i].hasSetup = !part.setupPrograms.empty();
    for (const PreparedBinding &b : part.weights) {
      bool present = std::any_of(
          resident.begin(), resident.end(), [&](const ResidentWeight &w) {
            return w.variant == variantIndex && w.value == b.value &&
                   w.address == b.address && w.bytes == b.bytes;
          });
      if (present)
        continue;
      forget(resident, b.address, b.address + b.bytes,
             [](const ResidentWeight &) { return false; });
      // The pinned tiles came from what DRAM held before; the setup must
      // load the weight now in DRAM.
      pinned.reset();
      package::Status s = upload(i, b);
      if (!s.ok())
        return s;
      stats[i].weightBytesToCard += b.bytes;
      resident.push_back({variantIndex, b.value, b.address, b.bytes});
    }
    if (stats[i].hasSetup && pinned != key)
      if (package::Status s = runSetup(part, key, where(i), stats[i], trace);
          !s.ok())
        return s;
  }

  // One launch: every partition's programs (on different cards) loaded
  // together, so the emulator runs the cards side by side.
  std::optional<PartitionKey> launchKey;
  if (indices.size() == 1)
    launchKey = PartitionKey(variantIndex, indices.front());
  if (!launchKey || loadedPrograms != launchKey) {
    emu->clearPrograms();
    loadedPrograms.reset();
    for (size_t i = 0; i < indices.size(); ++i)
      for (const isa::Program &program : partOf(i).programs)
        if (isa::Error e = emu->loadProgram(program))
          return fail(where(i) + ": cannot load program: " + e.message());
    loadedPrograms = launchKey;
  }

  for (size_t i = 0; i < indices.size(); ++i) {
    const PreparedPartition &part = partOf(i);
    for (const PreparedBinding &b : part.inputs) {
      package::Status s = upload(i, b);
      if (!s.ok())
        return s;
    }
    // The launch writes its work range (never its own weights), and any
    // partition's programs but the pinning one's may use the MRFs.
    auto isOwnWeight = [&](const ResidentWeight &w) {
      return w.variant == variantIndex &&
             std::any_of(part.weights.begin(), part.weights.end(),
                         [&](const PreparedBinding &b) {
                           return b.value == w.value && b.address == w.address;
                         });
    };
    forget(residentWeights[part.card], part.workBegin, part.workEnd,
           isOwnWeight);
    std::optional<PartitionKey> &pinned = pinnedBy[part.card];
    if (pinned != PartitionKey(variantIndex, indices[i]))
      pinned.reset();
  }
  isa::Expected<emulator::Stats> run = emu->run();
  if (!run) {
    for (size_t i = 0; i < indices.size(); ++i) {
      residentWeights[partOf(i).card].clear(); // memory in an unknown state
      pinnedBy[partOf(i).card].reset();
    }
    std::string who = where(0);
    for (size_t i = 1; i < indices.size(); ++i)
      who += ", " + where(i);
    return fail(who + ": " + run.message());
  }

  // Uploads, setups and the emulator run: the first partition's time.
  const double launchMicros = microsSince(start);
  for (size_t i = 0; i < indices.size(); ++i) {
    const PreparedPartition &part = partOf(i);
    Clock::time_point readStart = Clock::now();
    for (const PreparedBinding &b : part.outputs) {
      Tensor t = Tensor::allocate(descs[static_cast<size_t>(b.value)]);
      if (t.isNull())
        return fail(fmt::format("{}: cannot allocate output '{}'", where(i),
                                names[static_cast<size_t>(b.value)]));
      auto read = [&](size_t offset, size_t bytes) -> package::Status {
        if (isa::Error e = emu->readMemory(
                part.card, isa::Space::Dram, b.address + offset,
                static_cast<uint8_t *>(t.mutableData()) + offset, bytes))
          return fail(fmt::format("{}: reading value '{}' from DRAM: {}",
                                  where(i), names[static_cast<size_t>(b.value)],
                                  e.message()));
        stats[i].bytesFromCard += bytes;
        return package::Status::success();
      };
      // An output the runtime crops comes back with its valid rows only
      // (the rest stays zero and is cropped away).
      const std::vector<int64_t> &valid =
          validShapes[static_cast<size_t>(b.value)];
      size_t elementSize = getDTypeSize(t.getDType());
      if (b.bytes && !valid.empty() && elementSize &&
          t.getByteSize() == t.getNumElements() * elementSize) {
        package::Status status = package::Status::success();
        forEachPaddedRange(
            t.getShape(), valid, elementSize,
            [&](size_t offset, size_t bytes) {
              if (status.ok())
                status = read(offset, bytes);
            },
            [](size_t, size_t) {});
        if (!status.ok())
          return status;
      } else if (b.bytes) {
        if (package::Status s = read(0, b.bytes); !s.ok())
          return s;
      }
      values[static_cast<size_t>(b.value)] = std::move(t);
    }
    // The card's own cycles: its cores' last finish.
    uint64_t cycles = 0;
    for (const emulator::CoreStats &core : run->cores)
      if (core.card == part.card)
        cycles = std::max(cycles, core.finishCycle);
    stats[i].cycles = indices.size() == 1 ? run->totalCycles : cycles;
    // The host link as nnaccel-compile's report models it: each transfer
    // pays the latency, then the bytes at the link's bandwidth.
    if (state->target && state->target->hostBytesPerCycle > 0) {
      auto cost = [&](uint64_t bytes) -> uint64_t {
        if (bytes == 0)
          return 0;
        return state->target->hostLatencyCycles +
               static_cast<uint64_t>(
                   std::ceil(static_cast<double>(bytes) /
                             state->target->hostBytesPerCycle));
      };
      stats[i].transferCycles =
          cost(stats[i].weightBytesToCard) +
          cost(stats[i].bytesToCard - stats[i].weightBytesToCard) +
          cost(stats[i].bytesFromCard);
    }
    // One emulator run: its summary and wall time go with the first
    // partition of the launch, each partition's read-back with its own.
    if (i == 0) {
      stats[i].emulatorSummary = run->summary();
      stats[i].wallMicros = launchMicros;
    }
    stats[i].wallMicros += microsSince(readStart);
  }
  for (size_t i = 0; i < indices.size(); ++i)
    for (int32_t id : partOf(i).releaseAfter)
      values[static_cast<size_t>(id)] = Tensor();
  if (options.trace)
    trace.addEmulatorTrace(emu->traceJson());
  return package::Status::success();
}

/// Runs the partition's setup programs alone (the emulator runs every
/// loaded program), pinning its weight tiles in the card's MRFs. The body
/// programs must be loaded again afterwards.
package::Status SessionImpl::runSetup(const PreparedPartition &part,
                                      PartitionKey key,
                                      const std::string &where,
                                      PartitionStats &stats,
                                      TraceBuilder &trace) {
  std::optional<PartitionKey> &pinned = pinnedBy[part.card];
  pinned.reset();
  emu->clearPrograms();
  loadedPrograms.reset();
  for (const isa::Program &program : part.setupPrograms)
    if (isa::Error e = emu->loadProgram(program))
      return fail(where + ": cannot load setup program: " + e.message());
  isa::Expected<emulator::Stats> setup = emu->run();
  if (!setup) {
    residentWeights[part.card].clear(); // as for a faulting launch
    return fail(where + ": setup: " + setup.message());
  }
  pinned = key;
  stats.setupCycles = setup->totalCycles;
  double clockMHz = state->target ? state->target->clockMHz : 0;
  trace.addSetup(
      options.trace ? emu->traceJson() : std::string(),
      fmt::format("setup: {} cycles", setup->totalCycles),
      clockMHz > 0 ? static_cast<double>(setup->totalCycles) / clockMHz : 0);
  return package::Status::success();
}

//===----------------------------------------------------------------------===//
// Requests
//===----------------------------------------------------------------------===//

Expected<std::vector<Tensor>>
SessionImpl::runLocked(const std::vector<Tensor> &inputs) {
  Clock::time_point start = Clock::now();
  const std::vector<PortInfo> &ports = state->inputs;
  if (inputs.size() != ports.size())
    return fail(fmt::format("expected {} input(s), got {}", ports.size(),
                            inputs.size()));

  // Dtype, rank and static dimensions, with messages naming the input.
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortInfo &port = ports[i];
    const Tensor &t = inputs[i];
    if (t.isNull())
      return fail("input '" + port.name + "' is a null tensor");
    if (t.getDType() != port.dtype)
      return fail(fmt::format("input '{}': expected dtype {}, got {}",
                              port.name, getDTypeName(port.dtype),
                              getDTypeName(t.getDType())));
    bool shapeOk = t.getShape().size() == port.shape.size();
    for (size_t d = 0; shapeOk && d < port.shape.size(); ++d)
      shapeOk = port.shape[d] < 0 ? t.getShape()[d] >= 0
                                  : t.getShape()[d] == port.shape[d];
    if (!shapeOk)
      return fail(fmt::format("input '{}': expected shape {}, got {}",
                              port.name, formatPort(port),
                              t.getDesc().toString()));
    shapes.push_back(t.getShape());
  }

  const package::ModelDesc &model = state->package.model();
  // Longer than the largest bucket: say which input and by how much.
  for (size_t i = 0; i < ports.size(); ++i)
    for (size_t d = 0; d < state->inputBuckets[i].size(); ++d) {
      int32_t b = state->inputBuckets[i][d];
      if (b < 0)
        continue;
      int64_t largest = 0;
      for (const package::VariantDesc &v : model.variants)
        largest = std::max(largest, v.bucket[static_cast<size_t>(b)]);
      if (shapes[i][d] > largest)
        return fail(fmt::format(
            "input '{}': dimension {} is {}, longer than the largest bucket "
            "of '{}' ({})",
            ports[i].name, d, shapes[i][d],
            model.bucketNames[static_cast<size_t>(b)], largest));
    }
  // The variant is chosen on the whole signature; length inputs have their
  // one static shape.
  std::vector<std::vector<int64_t>> signatureShapes(model.inputs.size());
  for (size_t i = 0; i < ports.size(); ++i)
    signatureShapes[state->signatureIndex[i]] = shapes[i];
  for (auto [index, bucket] : state->lengthInputs)
    signatureShapes[index] = model.inputs[index].type.shape;
  package::SelectResult selected =
      package::selectVariant(model, signatureShapes);
  if (selected.index < 0)
    return fail("no variant fits the inputs: " + selected.error);
  auto variantIndex = static_cast<size_t>(selected.index);
  const PreparedVariant &variant = state->variants[variantIndex];

  // Actual size of each bucket, for slicing the outputs; inputs that share
  // a bucket should agree, and the largest one wins if they do not.
  std::vector<int64_t> actual(model.bucketNames.size(), -1);
  std::vector<Tensor> values = variant.constants;
  validShapes.assign(values.size(), {});
  for (size_t i = 0; i < ports.size(); ++i) {
    auto id = static_cast<size_t>(variant.inputs[state->signatureIndex[i]]);
    const TensorDesc &want = variant.valueDescs[id];
    for (size_t d = 0; d < state->inputBuckets[i].size(); ++d) {
      int32_t b = state->inputBuckets[i][d];
      if (b >= 0 && static_cast<size_t>(b) < actual.size())
        actual[static_cast<size_t>(b)] =
            std::max(actual[static_cast<size_t>(b)], shapes[i][d]);
    }
    Tensor t = inputs[i];
    if (t.getShape() != want.shape) {
      validShapes[id] = t.getShape();
      t = resizeBox(t, want.shape, model.padValue);
      if (t.isNull())
        return fail(fmt::format("input '{}': cannot pad {} to variant '{}' "
                                "shape {}",
                                ports[i].name, inputs[i].getDesc().toString(),
                                variant.name, want.toString()));
    }
    values[id] = std::move(t);
  }
  // The true sizes of the buckets, for the masks that make padding exact.
  for (auto [index, bucket] : state->lengthInputs) {
    auto id = static_cast<size_t>(variant.inputs[index]);
    int64_t size = actual[static_cast<size_t>(bucket)];
    if (size < 0) // No input has this bucket: nothing is padded.
      size = model.variants[variantIndex].bucket[static_cast<size_t>(bucket)];
    Tensor t = makeFilled(variant.valueDescs[id], static_cast<double>(size));
    if (t.isNull())
      return fail("cannot make the length input '" + model.inputs[index].name +
                  "'");
    values[id] = std::move(t);
  }

  // Outputs the runtime crops come back from the card with their valid
  // rows only, unless a later partition reads them whole.
  for (size_t o = 0; o < variant.outputs.size(); ++o) {
    auto id = static_cast<size_t>(variant.outputs[o]);
    std::vector<int64_t> valid = variant.valueDescs[id].shape;
    bool cropped = false;
    for (size_t d = 0; d < state->outputBuckets[o].size() && d < valid.size();
         ++d) {
      int32_t b = state->outputBuckets[o][d];
      if (b >= 0 && actual[static_cast<size_t>(b)] >= 0 &&
          actual[static_cast<size_t>(b)] < valid[d]) {
        valid[d] = actual[static_cast<size_t>(b)];
        cropped = true;
      }
    }
    auto readsIt = [&](const PreparedPartition &p) {
      for (const PreparedBinding &b : p.inputs)
        if (static_cast<size_t>(b.value) == id)
          return true;
      for (const PreparedHostOp &op : p.ops)
        for (int32_t in : op.inputs)
          if (in >= 0 && static_cast<size_t>(in) == id)
            return true;
      return false;
    };
    if (cropped && std::none_of(variant.partitions.begin(),
                                variant.partitions.end(), readsIt))
      validShapes[id] = std::move(valid);
  }

  RunStats stats;
  stats.variant = variant.name;
  if (state->target) {
    stats.target = state->target->name;
    stats.clockMHz = state->target->clockMHz;
  }
  TraceBuilder trace;
  // Card partitions run in launches: a launch takes consecutive card
  // partitions of distinct cards whose inputs are all available before it
  // (accel-partition-cards puts independent partitions of different cards
  // next to each other), and the emulator runs their cards side by side.
  // A launch costs its slowest card and its slowest card's transfers (each
  // card has its own host link).
  auto inputsReady = [&](const PreparedPartition &part) {
    return std::all_of(part.inputs.begin(), part.inputs.end(),
                       [&](const PreparedBinding &b) {
                         return !values[static_cast<size_t>(b.value)].isNull();
                       });
  };
  for (size_t p = 0; p < variant.partitions.size();) {
    const PreparedPartition &part = variant.partitions[p];
    if (!part.onCard) {
      PartitionStats ps;
      ps.index = static_cast<unsigned>(p);
      trace.beginPartition(static_cast<unsigned>(p),
                           fmt::format("partition {}: host", p));
      if (package::Status s = runHost(part, p, values, ps, trace); !s.ok())
        return s;
      trace.endPartition(fmt::format("{} host op(s)", ps.hostOps),
                         ps.wallMicros);
      stats.hostMicros += ps.wallMicros;
      stats.bytesToCard += ps.bytesToCard;
      stats.partitions.push_back(std::move(ps));
      ++p;
      continue;
    }
    std::vector<size_t> launch{p};
    std::set<unsigned> cards{part.card};
    for (size_t q = p + 1; q < variant.partitions.size(); ++q) {
      const PreparedPartition &next = variant.partitions[q];
      if (!next.onCard || cards.count(next.card) || !inputsReady(next))
        break;
      launch.push_back(q);
      cards.insert(next.card);
    }
    std::vector<PartitionStats> launchStats(launch.size());
    std::string label;
    for (size_t i = 0; i < launch.size(); ++i) {
      launchStats[i].index = static_cast<unsigned>(launch[i]);
      launchStats[i].onCard = true;
      launchStats[i].card = variant.partitions[launch[i]].card;
      label += fmt::format("{}partition {}: card {}", i ? ", " : "", launch[i],
                           launchStats[i].card);
    }
    trace.beginPartition(static_cast<unsigned>(p), label);
    if (package::Status s =
            runCards(variantIndex, launch, values, launchStats, trace);
        !s.ok())
      return s;
    uint64_t cycles = 0, transfer = 0;
    for (PartitionStats &ps : launchStats) {
      cycles = std::max(cycles, ps.cycles);
      transfer = std::max(transfer, ps.transferCycles);
      stats.setupCycles += ps.setupCycles;
      stats.emulationMicros += ps.wallMicros;
      stats.bytesToCard += ps.bytesToCard;
      stats.weightBytesToCard += ps.weightBytesToCard;
      stats.bytesFromCard += ps.bytesFromCard;
      stats.padBytesFilled += ps.padBytesFilled;
      stats.partitions.push_back(std::move(ps));
    }
    double modelled =
        stats.clockMHz > 0 ? static_cast<double>(cycles) / stats.clockMHz : 0;
    trace.endPartition(fmt::format("launch: {} cycles", cycles), modelled);
    stats.deviceCycles += cycles;
    stats.transferCycles += transfer;
    if (launch.size() > 1)
      ++stats.concurrentLaunches;
    p += launch.size();
  }

  std::vector<Tensor> outputs;
  for (size_t o = 0; o < variant.outputs.size(); ++o) {
    Tensor t = values[static_cast<size_t>(variant.outputs[o])];
    if (t.isNull())
      return fail("output '" + state->outputs[o].name + "' was not computed");
    std::vector<int64_t> shape = t.getShape();
    bool sliced = false;
    for (size_t d = 0; d < state->outputBuckets[o].size() && d < shape.size();
         ++d) {
      int32_t b = state->outputBuckets[o][d];
      if (b >= 0 && static_cast<size_t>(b) < actual.size() &&
          actual[static_cast<size_t>(b)] >= 0 &&
          actual[static_cast<size_t>(b)] < shape[d]) {
        shape[d] = actual[static_cast<size_t>(b)];
        sliced = true;
      }
    }
    if (sliced) {
      t = resizeBox(t, shape);
      if (t.isNull())
        return fail("output '" + state->outputs[o].name +
                    "': cannot slice to the actual bucket sizes");
    }
    outputs.push_back(std::move(t));
  }

  stats.deviceMicros =
      stats.clockMHz > 0
          ? static_cast<double>(stats.deviceCycles) / stats.clockMHz
          : 0;
  stats.transferMicros =
      stats.clockMHz > 0
          ? static_cast<double>(stats.transferCycles) / stats.clockMHz
          : 0;
  stats.setupMicros =
      stats.clockMHz > 0
          ? static_cast<double>(stats.setupCycles) / stats.clockMHz
          : 0;
  stats.wallMicros = microsSince(start);
  lastTrace = trace.finish(stats.target, stats.clockMHz);
  lastStats = std::move(stats);
  return outputs;
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

Session::Session(std::unique_ptr<SessionImpl> impl) : impl(std::move(impl)) {}
Session::~Session() = default;

Expected<std::unique_ptr<Session>>
Session::create(std::shared_ptr<const Model> model, SessionOptions options) {
  if (!model)
    return fail("cannot create a session without a model");
  try {
    auto impl = std::make_unique<SessionImpl>();
    impl->state = model->state.get();
    impl->options = options;
    if (impl->state->hasCardPartitions && impl->state->target) {
      emulator::EmulatorOptions emuOptions;
      emuOptions.threads = options.emulatorThreads;
      emuOptions.trace = options.trace;
      emuOptions.checkRaces = options.checkRaces;
      emuOptions.replaySchedules = options.replaySchedules;
      impl->emu = std::make_unique<emulator::Emulator>(*impl->state->target,
                                                       emuOptions);
      impl->residentWeights.resize(impl->state->target->cards);
      impl->pinnedBy.resize(impl->state->target->cards);
    }
    impl->model = std::move(model);
    return std::unique_ptr<Session>(new Session(std::move(impl)));
  } catch (const std::bad_alloc &) {
    return fail("out of memory while creating the session's emulator");
  } catch (const std::exception &e) {
    return fail(std::string("cannot create session: ") + e.what());
  }
}

Expected<std::vector<Tensor>> Session::run(const std::vector<Tensor> &inputs) {
  std::lock_guard<std::mutex> lock(impl->mutex);
  try {
    return impl->runLocked(inputs);
  } catch (const std::bad_alloc &) {
    return fail("out of memory while running the model");
  } catch (const std::exception &e) {
    return fail(std::string("internal error while running the model: ") +
                e.what());
  }
}

Expected<std::vector<Tensor>>
Session::run(const std::map<std::string, Tensor> &inputs) {
  std::vector<Tensor> ordered;
  try {
    Expected<std::vector<Tensor>> o = orderInputs(getModel(), inputs);
    if (!o)
      return o;
    ordered = std::move(o.value());
  } catch (const std::bad_alloc &) {
    return fail("out of memory while running the model");
  }
  return run(ordered);
}

RunStats Session::getLastStats() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->lastStats;
}

std::string Session::getTraceJson() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->lastTrace;
}

const Model &Session::getModel() const { return *impl->model; }
const std::shared_ptr<const Model> &Session::getModelPtr() const {
  return impl->model;
}
const SessionOptions &Session::getOptions() const { return impl->options; }

} // namespace runtime
} // namespace nnaccel
