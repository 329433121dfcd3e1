//===- PlacementFile.cpp - placement hints as JSON ------------------------===//
//
// See PlacementFile.h. The file is read into one #accel.hint per entry and
// the first entry whose patterns match an op gives it its hint; writing
// walks the placed ops and records each node's card, cores and pieces.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/PlacementFile.h"
#include "nnaccel/Transforms/Passes.h"

#include "Accel/AccelOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include <set>

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELLOADPLACEMENT
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

/// One entry of the file: what it matches and the hint it gives.
struct Entry {
  std::string nodePattern, opPattern;
  std::optional<llvm::Regex> node, op;
  HintAttr hint;
  unsigned matched = 0;
};

std::optional<StringRef> getNodeName(Operation *op) {
  return accel::getNodeName(op->getLoc());
}

/// Anchors `pattern` so it matches a whole name.
std::optional<llvm::Regex> compile(StringRef pattern, std::string &error) {
  llvm::Regex regex(("^(" + pattern + ")$").str());
  if (!regex.isValid(error))
    return std::nullopt;
  return regex;
}

class PlacementFileReader {
public:
  PlacementFileReader(MLIRContext *context, StringRef path)
      : context(context), path(path.str()) {}

  LogicalResult read(std::vector<Entry> &entries);

private:
  InFlightDiagnostic error(std::optional<size_t> entry = std::nullopt) {
    InFlightDiagnostic diag =
        emitError(FileLineColLoc::get(context, path, 0, 0));
    diag << "placement file";
    if (entry)
      diag << " entry #" << *entry;
    diag << ": ";
    return diag;
  }
  LogicalResult readEntry(const llvm::json::Object &object, size_t index,
                          Entry &entry);

  MLIRContext *context;
  std::string path;
};

LogicalResult PlacementFileReader::read(std::vector<Entry> &entries) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return error() << "cannot read '" << path
                   << "': " << buffer.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return error() << "invalid JSON: " << llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return error() << "expected an object with a \"placement\" array";
  for (const auto &[key, value] : *root)
    if (key != "version" && key != "placement")
      return error() << "unknown key \"" << key.str()
                     << "\" (expected \"version\" and \"placement\")";
  if (std::optional<int64_t> version = root->getInteger("version");
      version && *version != 1)
    return error() << "version " << *version << " is not supported (1 is)";
  const llvm::json::Array *list = root->getArray("placement");
  if (!list)
    return error() << "expected an object with a \"placement\" array";
  for (auto [index, value] : llvm::enumerate(*list)) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return error(index) << "expected an object";
    Entry entry;
    if (failed(readEntry(*object, index, entry)))
      return failure();
    entries.push_back(std::move(entry));
  }
  return success();
}

LogicalResult PlacementFileReader::readEntry(const llvm::json::Object &object,
                                             size_t index, Entry &entry) {
  std::optional<int64_t> card, chunks, order;
  SmallVector<int64_t> cores;
  ParallelKindAttr parallel;
  MemoryKindAttr memory;
  Type precision;
  auto getInt = [&](StringRef key, const llvm::json::Value &value,
                    std::optional<int64_t> &out) -> LogicalResult {
    out = value.getAsInteger();
    if (!out)
      return error(index) << "\"" << key << "\" must be an integer";
    return success();
  };
  auto getString = [&](StringRef key, const llvm::json::Value &value,
                       std::string &out) -> LogicalResult {
    std::optional<StringRef> text = value.getAsString();
    if (!text)
      return error(index) << "\"" << key << "\" must be a string";
    out = text->str();
    return success();
  };
  for (const auto &[key, value] : object) {
    StringRef name = key;
    std::string text;
    if (name == "node" || name == "op") {
      if (failed(getString(name, value, text)))
        return failure();
      std::string regexError;
      std::optional<llvm::Regex> regex = compile(text, regexError);
      if (!regex)
        return error(index) << "\"" << name << "\" is not a valid regular "
                            << "expression: " << regexError;
      (name == "node" ? entry.nodePattern : entry.opPattern) = text;
      (name == "node" ? entry.node : entry.op) = std::move(regex);
    } else if (name == "card") {
      if (failed(getInt(name, value, card)))
        return failure();
    } else if (name == "chunks") {
      if (failed(getInt(name, value, chunks)))
        return failure();
    } else if (name == "order") {
      if (failed(getInt(name, value, order)))
        return failure();
    } else if (name == "cores") {
      const llvm::json::Array *array = value.getAsArray();
      if (!array)
        return error(index) << "\"cores\" must be an array of integers";
      for (const llvm::json::Value &core : *array) {
        std::optional<int64_t> number = core.getAsInteger();
        if (!number)
          return error(index) << "\"cores\" must be an array of integers";
        cores.push_back(*number);
      }
    } else if (name == "parallel") {
      if (failed(getString(name, value, text)))
        return failure();
      std::optional<ParallelKind> kind = symbolizeParallelKind(text);
      if (!kind)
        return error(index) << "\"parallel\" must be \"data\" or \"model\", "
                            << "got \"" << text << "\"";
      parallel = ParallelKindAttr::get(context, *kind);
    } else if (name == "memory") {
      if (failed(getString(name, value, text)))
        return failure();
      std::optional<MemoryKind> kind = parseMemoryHint(text);
      if (!kind)
        return error(index) << "\"memory\" must be SRAM, SHARED or DRAM, got "
                            << "\"" << text << "\"";
      memory = MemoryKindAttr::get(context, *kind);
    } else if (name == "precision") {
      if (failed(getString(name, value, text)))
        return failure();
      precision = parseType(text, context);
      if (!precision)
        return error(index)
               << "\"precision\" is not a type: \"" << text << "\"";
    } else {
      return error(index) << "unknown key \"" << name
                          << "\" (expected node, op, card, cores, chunks, "
                             "parallel, memory, precision or order)";
    }
  }
  if (!entry.node && !entry.op)
    return error(index) << "needs \"node\" or \"op\" to say what it matches";
  auto emitHintError = [&]() { return error(index); };
  entry.hint = HintAttr::getChecked(
      llvm::function_ref<InFlightDiagnostic()>(emitHintError), context, card,
      ArrayRef<int64_t>(cores), chunks, parallel, memory, precision, order);
  return success(entry.hint != nullptr);
}

/// `base` with the fields `update` sets replaced.
HintAttr mergeHints(HintAttr base, HintAttr update) {
  if (!base)
    return update;
  return HintAttr::get(
      update.getContext(), update.getCard() ? update.getCard() : base.getCard(),
      update.getCores().empty() ? base.getCores() : update.getCores(),
      update.getChunks() ? update.getChunks() : base.getChunks(),
      update.getParallel() ? update.getParallel() : base.getParallel(),
      update.getMemory() ? update.getMemory() : base.getMemory(),
      update.getPrecision() ? update.getPrecision() : base.getPrecision(),
      update.getOrder() ? update.getOrder() : base.getOrder());
}

bool matches(Entry &entry, Operation *op) {
  if (entry.node) {
    std::optional<StringRef> name = getNodeName(op);
    if (!name || !entry.node->match(*name))
      return false;
  }
  if (entry.op) {
    StringRef full = op->getName().getStringRef();
    if (!entry.op->match(full) &&
        !entry.op->match(op->getName().stripDialect()))
      return false;
  }
  return true;
}
} // namespace

LogicalResult mlir::nnaccel::applyPlacementFile(ModuleOp module,
                                                StringRef path) {
  std::vector<Entry> entries;
  if (failed(PlacementFileReader(module.getContext(), path).read(entries)))
    return failure();
  StringRef hintName = AccelDialect::getHintAttrName();
  module.walk([&](Operation *op) {
    if (!isa<AccelDialect>(op->getDialect()) ||
        isa<ConstantOp, YieldOp, CardPartitionOp, HostPartitionOp>(op))
      return;
    for (Entry &entry : entries)
      if (matches(entry, op)) {
        ++entry.matched;
        op->setAttr(hintName, mergeHints(op->getAttrOfType<HintAttr>(hintName),
                                         entry.hint));
        return;
      }
  });
  for (auto [index, entry] : llvm::enumerate(entries))
    if (!entry.matched) {
      InFlightDiagnostic diag =
          emitWarning(FileLineColLoc::get(module.getContext(), path, 0, 0))
          << "placement file entry #" << index << " (";
      if (entry.node)
        diag << "node \"" << entry.nodePattern << "\"";
      if (entry.node && entry.op)
        diag << ", ";
      if (entry.op)
        diag << "op \"" << entry.opPattern << "\"";
      diag << ") matches no op";
    }
  return success();
}

void mlir::nnaccel::writePlacementFile(ModuleOp module, llvm::raw_ostream &os) {
  // Per node and op kind: the card, the cores of its pieces, how many.
  struct Choice {
    std::string node, op;
    int64_t card = 0;
    std::set<int64_t> cores;
    int64_t pieces = 1;
  };
  llvm::MapVector<std::pair<StringRef, StringRef>, Choice> choices;
  module.walk([&](Operation *op) {
    auto placement =
        op->getAttrOfType<PlacementAttr>(AccelDialect::getPlacementAttrName());
    std::optional<StringRef> name = getNodeName(op);
    if (!placement || !name || isa<CardPartitionOp, HostPartitionOp>(op))
      return;
    StringRef kind = op->getName().getStringRef();
    Choice &choice = choices[{*name, kind}];
    choice.node = name->str();
    choice.op = kind.str();
    choice.card = placement.getCard();
    // A split op's cores are its pieces' (not those of the slices and the
    // re-join that carry its name).
    auto split =
        op->getAttrOfType<DenseI64ArrayAttr>(AccelDialect::getSplitAttrName());
    if (split && choice.pieces == 1)
      choice.cores.clear();
    if (split || choice.pieces == 1)
      choice.cores.insert(placement.getCores().begin(),
                          placement.getCores().end());
    if (split)
      choice.pieces = split[2];
  });
  // The slices and re-joins accel-split-ops made carry their op's node
  // name; they are not the user's ops, so they are left out.
  llvm::StringSet<> splitNodes;
  for (auto &[key, choice] : choices)
    if (choice.pieces > 1)
      splitNodes.insert(choice.node);
  llvm::json::Array list;
  for (auto &[key, choice] : choices) {
    if ((choice.op == ConcatOp::getOperationName() ||
         choice.op == SliceOp::getOperationName()) &&
        choice.pieces == 1 && splitNodes.contains(choice.node))
      continue;
    llvm::json::Object entry{{"node", llvm::Regex::escape(choice.node)},
                             {"op", llvm::Regex::escape(choice.op)},
                             {"card", choice.card}};
    if (choice.card >= 0) {
      entry["cores"] = llvm::json::Array(
          std::vector<int64_t>(choice.cores.begin(), choice.cores.end()));
      if (choice.pieces > 1)
        entry["chunks"] = choice.pieces;
    }
    list.push_back(std::move(entry));
  }
  llvm::json::Object root{{"version", 1}, {"placement", std::move(list)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

namespace {
struct AccelLoadPlacementPass
    : mlir::nnaccel::impl::AccelLoadPlacementBase<AccelLoadPlacementPass> {
  using Base::Base;
  void runOnOperation() override {
    if (file.empty()) {
      getOperation().emitError() << "accel-load-placement needs file=<path>";
      return signalPassFailure();
    }
    if (failed(applyPlacementFile(getOperation(), file)))
      signalPassFailure();
  }
};
} // namespace
