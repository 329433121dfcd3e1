//===- ModelState.h - The prepared form of a package (internal) --*- C++
//-*-===//
//
// What Model::load derives from a package so that Session::run only moves
// tensors: per variant, the runtime TensorDesc of every value, the weight
// values as zero-copy views into the package mapping, and per partition
// either the host ops as runtime::HostOps with their declared result types,
// or the decoded core programs (body and setup) and the DRAM bindings split
// into weights, per-run inputs and outputs. `releaseAfter` lists the values
// whose last use is a step, so a long model does not keep every intermediate
// alive. Private to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_RUNTIME_MODELSTATE_H
#define NNACCEL_LIB_RUNTIME_MODELSTATE_H

#include "nnaccel/ISA/Program.h"
#include "nnaccel/ISA/Target.h"
#include "nnaccel/Package/Package.h"
#include "nnaccel/Runtime/HostOp.h"
#include "nnaccel/Runtime/Model.h"
#include "nnaccel/Runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel {
namespace runtime {

struct PreparedHostOp {
  HostOp op;
  std::vector<int32_t> inputs; ///< value ids, -1 = absent operand
  std::vector<int32_t> outputs;
  std::vector<TensorDesc> outputDescs;
  std::vector<int32_t> releaseAfter; ///< values dead after this op
};

struct PreparedBinding {
  int32_t value = -1;
  uint64_t address = 0;
  uint64_t bytes = 0;
};

struct PreparedPartition {
  bool onCard = false;
  // Host partition.
  std::vector<PreparedHostOp> ops;
  // Card partition.
  unsigned card = 0;
  std::vector<isa::Program> programs;
  /// Load the tiles `programs` keep pinned in the MRFs; run before a launch
  /// when the card's MRFs may not hold them (Session.cpp).
  std::vector<isa::Program> setupPrograms;
  std::vector<PreparedBinding> weights; ///< Input bindings of weight values
  std::vector<PreparedBinding> inputs;  ///< other Input bindings
  std::vector<PreparedBinding> outputs; ///< Output bindings
  /// DRAM the launch writes; all of it when the package does not say.
  uint64_t workBegin = 0, workEnd = 0;
  std::vector<int32_t> releaseAfter; ///< values dead after the launch
};

struct PreparedVariant {
  std::string name;
  std::vector<TensorDesc> valueDescs; ///< per value id (storage dtype)
  std::vector<std::string> valueNames;
  std::vector<Tensor> constants; ///< weight views; null for others
  std::vector<int32_t> inputs, outputs;
  std::vector<PreparedPartition> partitions;
};

struct ModelState {
  explicit ModelState(package::Package package) : package(std::move(package)) {}

  std::string sourceName;
  package::Package package;
  /// The ports users supply (the signature's inputs without the length
  /// inputs) and the outputs.
  std::vector<PortInfo> inputs, outputs;
  /// Per port: bucket index per dimension (-1 = static), padded to rank.
  std::vector<std::vector<int32_t>> inputBuckets, outputBuckets;
  /// Per user input: its index in the signature.
  std::vector<size_t> signatureIndex;
  /// Length inputs the session fills: (signature index, bucket index).
  std::vector<std::pair<size_t, int32_t>> lengthInputs;
  std::optional<isa::TargetDesc> target;
  bool hasCardPartitions = false;
  std::vector<PreparedVariant> variants;
};

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_LIB_RUNTIME_MODELSTATE_H
