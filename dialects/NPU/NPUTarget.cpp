//===- NPUTarget.cpp - Target descriptions for npu verification -----------===//
//
// Resolves target specs to targets/*.json files and caches the parsed
// descriptions. The cache is keyed by resolved path and never evicts: a
// compiler process sees a handful of targets, and instruction verifiers look
// the target up once per op, so loading must be cheap after the first time.
//
//===----------------------------------------------------------------------===//

#include "NPU/NPUTarget.h"
#include "NPU/NPUOps.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

using namespace mlir;
using namespace mlir::nnaccel::npu;

namespace isa = ::nnaccel::isa;

#ifndef NNACCEL_TARGETS_DIR
#define NNACCEL_TARGETS_DIR "targets"
#endif

namespace {
struct TargetCLOptions {
  llvm::cl::opt<std::string> target{
      "npu-target",
      llvm::cl::desc("Target of npu programs that name none: a name in "
                     "targets/ (e.g. 'default') or a path to a target JSON "
                     "file"),
      llvm::cl::value_desc("target")};
};

struct CacheEntry {
  std::optional<isa::TargetDesc> target;
  std::string error;
};

struct TargetCache {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<CacheEntry>> entries;
};
} // namespace

static llvm::ManagedStatic<TargetCLOptions> clOptions;

void mlir::nnaccel::npu::registerNPUTargetCLOptions() { *clOptions; }

std::string mlir::nnaccel::npu::getDefaultTargetSpec() {
  if (!clOptions.isConstructed())
    return {};
  return clOptions->target;
}

std::string mlir::nnaccel::npu::resolveTargetPath(llvm::StringRef spec) {
  if (spec.contains('/') || spec.ends_with(".json"))
    return spec.str();
  const char *dir = std::getenv("NNACCEL_TARGETS_DIR");
  llvm::SmallString<256> path(dir && *dir ? dir : NNACCEL_TARGETS_DIR);
  llvm::sys::path::append(path, spec + ".json");
  return std::string(path);
}

const isa::TargetDesc *mlir::nnaccel::npu::loadTarget(llvm::StringRef spec,
                                                      std::string &error) {
  static TargetCache cache;
  std::string path = resolveTargetPath(spec);
  std::lock_guard<std::mutex> lock(cache.mutex);
  std::unique_ptr<CacheEntry> &entry = cache.entries[path];
  if (!entry) {
    entry = std::make_unique<CacheEntry>();
    isa::Expected<isa::TargetDesc> loaded = isa::loadTarget(path);
    if (loaded)
      entry->target = std::move(*loaded);
    else
      entry->error = loaded.message();
  }
  if (!entry->target) {
    error = entry->error;
    return nullptr;
  }
  return &*entry->target;
}

std::string mlir::nnaccel::npu::getTargetSpec(ProgramOp program) {
  if (std::optional<StringRef> own = program.getTarget())
    return own->str();
  for (Operation *op = program->getParentOp(); op; op = op->getParentOp())
    if (auto spec =
            op->getAttrOfType<StringAttr>(NPUDialect::getTargetAttrName()))
      return spec.str();
  return getDefaultTargetSpec();
}

std::string mlir::nnaccel::npu::getTargetSpecFor(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto spec =
            op->getAttrOfType<StringAttr>(NPUDialect::getTargetAttrName()))
      return spec.str();
  std::string spec = getDefaultTargetSpec();
  return spec.empty() ? "default" : spec;
}

const isa::TargetDesc *mlir::nnaccel::npu::lookupTarget(Operation *op) {
  std::string spec = getTargetSpecFor(op), error;
  const isa::TargetDesc *target = loadTarget(spec, error);
  if (!target)
    op->emitError() << "cannot load target '" << spec << "': " << error;
  return target;
}

const isa::TargetDesc &mlir::nnaccel::npu::getPermissiveTarget() {
  static const isa::TargetDesc target = [] {
    isa::TargetDesc t;
    t.name = "<no target>";
    t.cards = 254; // peers 0..253 and 255 (the host) are all legal
    t.coresPerCard = 32;
    t.nativeDim = 4095; // the largest k and n an `mm` can encode
    for (unsigned d = 0; d < isa::NumDTypes; ++d)
      t.macsPerCycle[static_cast<isa::DType>(d)] = 1;
    // Every mm weight type, including mxfp8e5m2 (code 15 + wvar).
    t.macsPerCycle[isa::DType::MXFP8E5M2] = 1;
    return t;
  }();
  return target;
}
