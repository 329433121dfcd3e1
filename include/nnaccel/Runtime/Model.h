//===- Model.h - A loaded, immutable model package ---------------*- C++
//-*-===//
//
// Model is the runtime's view of a .nnpkg package: the validated, memory-
// mapped Package plus everything the runtime derives from it once at load
// time so that running a request does no parsing -- the target description,
// host ops converted to runtime::HostOp with their result types, card
// programs decoded to isa::Program and checked against the target, weights
// wrapped as zero-copy Tensor views, and the release points of intermediate
// values. A Model never changes after load(), so one shared_ptr<const Model>
// may be used by any number of Sessions on any number of threads.
//
// Plain C++17; no LLVM/MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_RUNTIME_MODEL_H
#define NNACCEL_RUNTIME_MODEL_H

#include "nnaccel/ISA/Target.h"
#include "nnaccel/Package/Package.h"
#include "nnaccel/Runtime/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nnaccel {
namespace runtime {

/// Fallible results of the session API: a value or a failed
/// package::Status (ok(), message()). Nothing in the API throws.
template <typename T> using Expected = package::Expected<T>;

/// One entry of the model signature as a caller sees it.
struct PortInfo {
  std::string name;
  /// The element type of the tensor the caller passes or receives. For a
  /// quantised port this is the storage type (i8, u8, ...): quantised
  /// tensors travel as their stored integers, like host-kernel operands.
  DType dtype = DType::F32;
  /// -1 marks a bucketed (dynamic) dimension; any size up to the largest
  /// variant's bucket is accepted there.
  std::vector<int64_t> shape;

  /// "x: f32[1x?]" for diagnostics and tools.
  std::string toString() const;
};

struct LoadOptions {
  /// Verify the CRC of the weights section when opening (reads every weight
  /// page once). Switch off for a package already verified at deployment.
  bool verifyWeightsChecksum = true;
};

class Session;
struct ModelState;

class Model {
public:
  /// Opens, validates and prepares the package at `path`. Errors start with
  /// the path.
  static Expected<std::shared_ptr<const Model>>
  load(const std::string &path, const LoadOptions &options = {});
  /// As load(), from package bytes in memory (copied).
  static Expected<std::shared_ptr<const Model>>
  fromBuffer(const void *data, size_t size, const LoadOptions &options = {});
  /// Prepares an already opened package.
  static Expected<std::shared_ptr<const Model>>
  fromPackage(package::Package package, std::string sourceName = "<package>");

  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  const std::string &getName() const;
  const std::vector<PortInfo> &getInputs() const;
  const std::vector<PortInfo> &getOutputs() const;
  /// Index of the input/output called `name`, or -1.
  int findInput(const std::string &name) const;
  int findOutput(const std::string &name) const;

  /// True if some variant has a card partition (and so needs an emulator).
  bool hasCardPartitions() const;
  /// The package's target description, or null when the package has none
  /// (allowed only for host-only packages).
  const isa::TargetDesc *getTarget() const;

  const package::Package &getPackage() const;
  const package::ModelDesc &getDesc() const;

private:
  friend class Session;
  explicit Model(std::unique_ptr<ModelState> state);
  std::unique_ptr<ModelState> state;
};

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_RUNTIME_MODEL_H
