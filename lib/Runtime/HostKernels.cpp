//===- HostKernels.cpp - Dispatch of host ops to their kernels ------------===//
//
// The table from accel op names to kernels, and the checks every kernel
// relies on: operand and result counts, presence of required operands, and
// valid descriptors. Kernels then only check what is specific to their op.
// This is also the single place that turns stray exceptions (allocation
// failure inside std::vector) into an error Status, so nothing escapes.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/HostKernels.h"

#include "KernelSupport.h"

#include <algorithm>
#include <exception>
#include <limits>

namespace nnaccel {
namespace runtime {

using namespace detail;

namespace {
struct KernelInfo {
  const char *kind;
  Status (*run)(KernelContext &);
  /// Operands [0, minInputs) are required; up to maxInputs are accepted.
  size_t minInputs;
  size_t maxInputs;
  size_t numResults;
};

constexpr size_t kVariadic = std::numeric_limits<size_t>::max();

// Sorted by kind so that getSupportedHostOps() is sorted and lookups can
// binary search.
constexpr KernelInfo kKernels[] = {
    {"accel.abs", absKernel, 1, 1, 1},
    {"accel.acos", mathKernel, 1, 1, 1},
    {"accel.acosh", mathKernel, 1, 1, 1},
    {"accel.add", addKernel, 2, 2, 1},
    {"accel.arg_max", argMaxKernel, 1, 1, 1},
    {"accel.arg_min", argMinKernel, 1, 1, 1},
    {"accel.asin", mathKernel, 1, 1, 1},
    {"accel.asinh", mathKernel, 1, 1, 1},
    {"accel.atan", mathKernel, 1, 1, 1},
    {"accel.atanh", mathKernel, 1, 1, 1},
    {"accel.avg_pool", avgPoolKernel, 1, 1, 1},
    {"accel.batch_norm", batchNormKernel, 5, 5, 1},
    {"accel.cast", castKernel, 1, 1, 1},
    {"accel.ceil", mathKernel, 1, 1, 1},
    {"accel.clip", clipKernel, 1, 1, 1},
    {"accel.compare", compareKernel, 2, 2, 1},
    {"accel.concat", concatKernel, 1, kVariadic, 1},
    {"accel.conv", convKernel, 2, 3, 1},
    {"accel.conv_transpose", convTransposeKernel, 2, 3, 1},
    {"accel.convert", convertKernel, 1, 1, 1},
    {"accel.cos", mathKernel, 1, 1, 1},
    {"accel.cosh", mathKernel, 1, 1, 1},
    {"accel.cumsum", cumsumKernel, 1, 1, 1},
    {"accel.dequantize", dequantizeKernel, 1, 1, 1},
    {"accel.det", detKernel, 1, 1, 1},
    {"accel.div", divKernel, 2, 2, 1},
    {"accel.einsum", einsumKernel, 1, kVariadic, 1},
    {"accel.embedding_bag", embeddingBagKernel, 2, 5, 1},
    {"accel.erf", erfKernel, 1, 1, 1},
    {"accel.exp", expKernel, 1, 1, 1},
    {"accel.expand", expandKernel, 1, 1, 1},
    {"accel.floor", mathKernel, 1, 1, 1},
    {"accel.fully_connected", fullyConnectedKernel, 2, 3, 1},
    {"accel.gather", gatherKernel, 2, 2, 1},
    {"accel.gather_elements", gatherElementsKernel, 2, 2, 1},
    {"accel.gather_nd", gatherNDKernel, 2, 2, 1},
    {"accel.gelu", geluKernel, 1, 1, 1},
    {"accel.global_avg_pool", globalAvgPoolKernel, 1, 1, 1},
    {"accel.grid_sample", gridSampleKernel, 2, 2, 1},
    {"accel.gru", gruKernel, 3, 5, 2},
    {"accel.layer_norm", layerNormKernel, 2, 3, 1},
    {"accel.log", mathKernel, 1, 1, 1},
    {"accel.log_softmax", logSoftmaxKernel, 1, 1, 1},
    {"accel.lstm", lstmKernel, 3, 7, 3},
    {"accel.matmul", matmulKernel, 2, 2, 1},
    {"accel.max", maxKernel, 2, 2, 1},
    {"accel.max_pool", maxPoolKernel, 1, 1, 1},
    {"accel.max_unpool", maxUnpoolKernel, 2, 2, 1},
    {"accel.min", minKernel, 2, 2, 1},
    {"accel.mod", modKernel, 2, 2, 1},
    {"accel.mul", mulKernel, 2, 2, 1},
    {"accel.neg", negKernel, 1, 1, 1},
    {"accel.pad", padKernel, 1, 1, 1},
    {"accel.pow", powKernel, 2, 2, 1},
    {"accel.quantize", quantizeKernel, 1, 1, 1},
    {"accel.reduce_max", reduceMaxKernel, 1, 1, 1},
    {"accel.reduce_mean", reduceMeanKernel, 1, 1, 1},
    {"accel.reduce_prod", reduceProdKernel, 1, 1, 1},
    {"accel.reduce_sum", reduceSumKernel, 1, 1, 1},
    {"accel.relu", reluKernel, 1, 1, 1},
    {"accel.requantize", requantizeKernel, 1, 1, 1},
    {"accel.reshape", reshapeKernel, 1, 1, 1},
    {"accel.resize", resizeKernel, 1, 1, 1},
    {"accel.round", roundKernel, 1, 1, 1},
    {"accel.scatter_elements", scatterElementsKernel, 3, 3, 1},
    {"accel.scatter_nd", scatterNDKernel, 3, 3, 1},
    {"accel.sigmoid", sigmoidKernel, 1, 1, 1},
    {"accel.sin", mathKernel, 1, 1, 1},
    {"accel.sinh", mathKernel, 1, 1, 1},
    {"accel.slice", sliceKernel, 1, 1, 1},
    {"accel.softmax", softmaxKernel, 1, 1, 1},
    {"accel.sqrt", sqrtKernel, 1, 1, 1},
    {"accel.sub", subKernel, 2, 2, 1},
    {"accel.tan", mathKernel, 1, 1, 1},
    {"accel.tanh", tanhKernel, 1, 1, 1},
    {"accel.top_k", topKKernel, 1, 1, 2},
    {"accel.transfer", transferKernel, 1, 1, 1},
    {"accel.transpose", transposeKernel, 1, 1, 1},
    {"accel.where", whereKernel, 3, 3, 1},
};

const KernelInfo *findKernel(std::string_view kind) {
  auto it = std::lower_bound(
      std::begin(kKernels), std::end(kKernels), kind,
      [](const KernelInfo &k, std::string_view v) { return k.kind < v; });
  if (it == std::end(kKernels) || it->kind != kind)
    return nullptr;
  return it;
}

Status checkAndRun(const KernelInfo &info, const HostOp &op,
                   Span<const Tensor *const> inputs,
                   std::vector<Tensor> &outputs,
                   const std::vector<TensorDesc> &outputDescs) {
  // Trailing absent optional operands may be given as nullptr or left out.
  size_t given = inputs.size();
  while (given > info.minInputs && inputs[given - 1] == nullptr)
    --given;
  if (given < info.minInputs || given > info.maxInputs) {
    std::string expected = info.maxInputs == kVariadic
                               ? "at least " + std::to_string(info.minInputs)
                           : info.minInputs == info.maxInputs
                               ? std::to_string(info.minInputs)
                               : std::to_string(info.minInputs) + " to " +
                                     std::to_string(info.maxInputs);
    return op.error("expected " + expected + " operands, got " +
                    std::to_string(given));
  }
  for (size_t i = 0; i < given; ++i) {
    const Tensor *t = inputs[i];
    bool required = i < info.minInputs || info.maxInputs == kVariadic;
    if (!t || t->isNull()) {
      if (required)
        return op.error("operand " + std::to_string(i) + " is missing");
      continue;
    }
    if (Status s = t->getDesc().validate(); !s.ok())
      return op.error("operand " + std::to_string(i) + ": " + s.message());
    if (t->getByteSize() != 0 && !t->data())
      return op.error("operand " + std::to_string(i) + " has no data");
  }
  if (outputDescs.size() != info.numResults)
    return op.error("expected " + std::to_string(info.numResults) +
                    " result descriptors, got " +
                    std::to_string(outputDescs.size()));
  for (size_t i = 0; i < outputDescs.size(); ++i)
    if (Status s = outputDescs[i].validate(); !s.ok())
      return op.error("result " + std::to_string(i) + ": " + s.message());

  outputs.assign(info.numResults, Tensor());
  KernelContext ctx{op, Span<const Tensor *const>(inputs.data(), given),
                    outputDescs, outputs};
  if (Status s = info.run(ctx); !s.ok())
    return s;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].isNull())
      return op.error("internal error: result " + std::to_string(i) +
                      " was not produced");
  return Status::success();
}
} // namespace

Status runHostOp(const HostOp &op, Span<const Tensor *const> inputs,
                 std::vector<Tensor> &outputs,
                 const std::vector<TensorDesc> &outputDescs) {
  outputs.clear();
  const KernelInfo *info = findKernel(op.kind);
  if (!info) {
    if (op.kind == "accel.constant" || op.kind == "accel.host_partition" ||
        op.kind == "accel.yield")
      return op.error("is not a host kernel: constants are values and "
                      "partitions/yields are structure, handled by the "
                      "caller");
    return op.error("no host kernel for this op");
  }
  Status status = Status::success();
  try {
    status = checkAndRun(*info, op, inputs, outputs, outputDescs);
  } catch (const std::bad_alloc &) {
    status = op.error("out of memory");
  } catch (const std::exception &e) {
    status = op.error(std::string("internal error: ") + e.what());
  } catch (...) {
    status = op.error("internal error: unknown exception");
  }
  if (!status.ok())
    outputs.clear();
  return status;
}

Status runHostOp(const HostOp &op, std::initializer_list<const Tensor *> inputs,
                 std::vector<Tensor> &outputs,
                 const std::vector<TensorDesc> &outputDescs) {
  return runHostOp(op, Span<const Tensor *const>(inputs.begin(), inputs.size()),
                   outputs, outputDescs);
}

bool isHostOpSupported(std::string_view kind) {
  return findKernel(kind) != nullptr;
}

std::vector<std::string> getSupportedHostOps() {
  std::vector<std::string> kinds;
  for (const KernelInfo &k : kKernels)
    kinds.emplace_back(k.kind);
  return kinds;
}

} // namespace runtime
} // namespace nnaccel
