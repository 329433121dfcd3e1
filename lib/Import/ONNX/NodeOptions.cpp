//===- NodeOptions.cpp - NodeOpt_NNACCEL_* node attributes ----------------===//
//
// Placement hints written into an ONNX model, Glow-style: node attributes
// named NodeOpt_NNACCEL_<key>, as strings ("0,1", "Model") or ints:
//
//   coreAssignments       cores of the card that run the node  -> cores
//   numParallelChunks     pieces to split it into              -> chunks
//   parallelTransformKind Data | Model                         -> parallel
//   tensorMemory          SRAM | SHARED | DRAM (its weights)    -> memory
//   card                  the card (-1: the host)              -> card
//   order                 scheduling priority (lower first)    -> order
//
// They become an #accel.hint on every accel op the node imports to.
// Options of other backends (NodeOpt_<OTHER>_*) are not ours to read.
//
//===----------------------------------------------------------------------===//

#include "ImporterContext.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::onnx_import;

namespace {
constexpr StringLiteral kPrefix = "NodeOpt_NNACCEL_";

/// The attribute's values as strings: one per element of a list ("0,1" or
/// "0;1" count as lists too).
SmallVector<std::string> getValues(const onnx::AttributeProto &attr) {
  SmallVector<std::string> values;
  auto addText = [&](StringRef text) {
    std::string commas = text.str();
    std::replace(commas.begin(), commas.end(), ';', ',');
    SmallVector<StringRef> parts;
    StringRef(commas).split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (StringRef part : parts)
      if (!part.trim().empty())
        values.push_back(part.trim().str());
  };
  if (attr.has_s())
    addText(attr.s());
  for (const std::string &text : attr.strings())
    addText(text);
  if (attr.has_i())
    values.push_back(std::to_string(attr.i()));
  for (int64_t value : attr.ints())
    values.push_back(std::to_string(value));
  return values;
}
} // namespace

FailureOr<HintAttr>
mlir::nnaccel::onnx_import::readNodeHints(const onnx::NodeProto &node,
                                          StringRef name, Location loc) {
  MLIRContext *context = loc.getContext();
  std::optional<int64_t> card, chunks, order;
  SmallVector<int64_t> cores;
  ParallelKindAttr parallel;
  MemoryKindAttr memory;
  bool any = false;
  for (const onnx::AttributeProto &attr : node.attribute()) {
    StringRef attrName = attr.name();
    if (!attrName.starts_with(kPrefix))
      continue;
    any = true;
    StringRef key = attrName.drop_front(kPrefix.size());
    SmallVector<std::string> values = getValues(attr);
    auto fail = [&]() {
      return emitError(loc) << "node '" << name << "' (" << node.op_type()
                            << "): " << attrName << ": ";
    };
    auto getInt = [&](StringRef text, int64_t &out) {
      return !StringRef(text).getAsInteger(10, out);
    };
    auto single = [&](std::optional<int64_t> &out) -> LogicalResult {
      int64_t value;
      if (values.size() != 1 || !getInt(values.front(), value))
        return fail() << "expected one integer";
      out = value;
      return success();
    };
    if (key == "coreAssignments") {
      for (const std::string &text : values) {
        int64_t core;
        if (!getInt(text, core) || core < 0)
          return fail() << "expected core indices, got '" << text << "'";
        cores.push_back(core);
      }
      if (cores.empty())
        return fail() << "expected core indices";
    } else if (key == "numParallelChunks") {
      if (failed(single(chunks)))
        return failure();
    } else if (key == "card") {
      if (failed(single(card)))
        return failure();
    } else if (key == "order") {
      if (failed(single(order)))
        return failure();
    } else if (key == "parallelTransformKind") {
      std::string kind =
          values.size() == 1 ? StringRef(values.front()).lower() : "";
      if (kind != "data" && kind != "model")
        return fail() << "expected Data or Model";
      parallel = ParallelKindAttr::get(
          context, kind == "data" ? ParallelKind::data : ParallelKind::model);
    } else if (key == "tensorMemory") {
      std::optional<MemoryKind> parsed =
          values.size() == 1 ? parseMemoryHint(values.front()) : std::nullopt;
      if (!parsed)
        return fail() << "expected SRAM, SHARED or DRAM";
      memory = MemoryKindAttr::get(context, *parsed);
    } else {
      emitWarning(loc) << "node '" << name << "': unknown node option "
                       << attrName
                       << " (nnaccel reads coreAssignments, "
                          "numParallelChunks, parallelTransformKind, "
                          "tensorMemory, card and order); it is ignored";
    }
  }
  if (!any ||
      (!card && cores.empty() && !chunks && !parallel && !memory && !order))
    return HintAttr();
  auto emitHintError = [&]() { return emitError(loc); };
  HintAttr hint = HintAttr::getChecked(
      llvm::function_ref<InFlightDiagnostic()>(emitHintError), context, card,
      ArrayRef<int64_t>(cores), chunks, parallel, memory, Type(), order);
  if (!hint)
    return failure();
  return hint;
}
