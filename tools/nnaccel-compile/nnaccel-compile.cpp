//===- nnaccel-compile.cpp - ONNX model to deployable package -------------===//
//
// The whole pipeline in one command: import the ONNX model, calibrate it
// (--calibration / --load-profile: accel.range for post-training
// quantisation), place every op on the card or the host, outline
// partitions, lower card partitions to npu programs, and write a model
// package (or stop early with --emit).
// --report prints where every op went (and why, for host ops) and what each
// card partition costs; --report-json writes the same as JSON.
//
//===----------------------------------------------------------------------===//

#include "AutoPrecision.h"
#include "nnaccel/Calibration/Calibrate.h"
#include "nnaccel/Conversion/NPUKernels.h"
#include "nnaccel/Conversion/Passes.h"
#include "nnaccel/Import/ONNX/ImportONNX.h"
#include "nnaccel/Pipelines/Pipelines.h"
#include "nnaccel/Target/PackageWriter.h"
#include "nnaccel/Transforms/Passes.h"
#include "nnaccel/Transforms/PlacementFile.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUOps.h"
#include "NPU/NPUTarget.h"
#include "NPU/NPUToISA.h"

#include "nnaccel/Emulator/Emulator.h"
#include "nnaccel/ISA/Asm.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>
#include <set>

#include <array>
#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::nnaccel;
namespace cl = llvm::cl;

static cl::OptionCategory category("nnaccel-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<model.onnx>"),
                                      cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::opt<std::string>
    targetSpec("target",
               cl::desc("Target: a name in targets/ (default) or a JSON path"),
               cl::init("default"), cl::cat(category));
static cl::opt<std::string>
    inputShapes("input-shape",
                cl::desc("Static shapes of graph inputs: name:1x37,..."),
                cl::cat(category));
static cl::opt<std::string> boundInputs(
    "bind-input",
    cl::desc("Bind graph inputs to constant tensors (ONNX .pb files): "
             "name=file.pb,...; the package is specialised to them"),
    cl::cat(category));
enum class Emit { MLIR, Asm, Package };
static cl::opt<Emit> emit(
    "emit", cl::desc("What to write"), cl::init(Emit::Package),
    cl::values(clEnumValN(Emit::MLIR, "mlir", "the compiled IR"),
               clEnumValN(Emit::Asm, "asm", "the npu programs as assembly"),
               clEnumValN(Emit::Package, "package", "a model package")),
    cl::cat(category));
static cl::opt<unsigned>
    cards("cards",
          cl::desc("Cards to spread a model over when it does not fit one "
                   "card's DRAM (0: all of the target's)"),
          cl::init(0), cl::cat(category));
static cl::opt<bool>
    p2p("p2p",
        cl::desc("Pass values between card partitions that run side by side "
                 "card to card (send/recv) instead of through the host "
                 "(default on)"),
        cl::init(true), cl::cat(category));
static cl::opt<unsigned>
    cores("cores",
          cl::desc("Cores per card to divide ops across (0: all of the "
                   "target's, 1: no splitting)"),
          cl::init(0), cl::cat(category));
static cl::opt<bool> pinWeights(
    "pin-weights",
    cl::desc("Keep constant weights in the cores' matrix register files "
             "across runs where they fit (default on; the package then has "
             "setup programs that load them once per session)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> sharedConstants(
    "shared-constants",
    cl::desc("With --pin-weights, keep small constants (biases, scales, "
             "depthwise taps: transfers the DRAM latency dominates) in the "
             "card's SHARED memory across runs (default on; the setup "
             "programs copy them there once per session)"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> sharedIntermediates(
    "shared-intermediates",
    cl::desc("Keep intermediate tensors in the card's SHARED memory where "
             "they fit, DRAM otherwise (default on)"),
    cl::init(true), cl::cat(category));
static cl::list<std::string>
    forceHost("force-host", cl::CommaSeparated,
              cl::desc("Op names to keep on the host (e.g. accel.softmax)"),
              cl::cat(category));
static cl::opt<std::string>
    placementFile("placement",
                  cl::desc("Placement hints (JSON): card, cores, chunks, "
                           "parallel kind, memory, precision, order per node "
                           "name / op type regex"),
                  cl::value_desc("file"), cl::cat(category));
enum class Quantize {
  None,
  Int8,
  FP16,
  BF16,
  Int4Emb,
  Int8Emb,
  Int4FC,
  Msfp8,
  Msfp9,
  MxInt8,
  MxFp8E4M3,
  MxFp8E5M2,
  Auto
};
static cl::list<Quantize> quantize(
    "quantize",
    cl::desc("Quantize the model: one mode or several, comma-separated "
             "(e.g. int8,int4-emb: int8 products with 4-bit tables)"),
    cl::CommaSeparated,
    cl::values(clEnumValN(Quantize::None, "none", "keep the model's types"),
               clEnumValN(Quantize::Int8, "int8",
                          "int8 matrix products (accel-quantize), the "
                          "last one kept in f32, and 8-bit rowwise "
                          "embedding tables"),
               clEnumValN(Quantize::Int4FC, "int4-fc",
                          "with int8: the fully_connected / matmul "
                          "products' weights 4-bit (i4 per output column, "
                          "accel-quantize{weight-bits=4})"),
               clEnumValN(Quantize::Int4Emb, "int4-emb",
                          "4-bit rowwise embedding tables only "
                          "(accel-quantize-embeddings, no calibration)"),
               clEnumValN(Quantize::Int8Emb, "int8-emb",
                          "8-bit rowwise embedding tables only "
                          "(no calibration)"),
               clEnumValN(Quantize::FP16, "fp16",
                          "every card op that can in f16 (no calibration)"),
               clEnumValN(Quantize::BF16, "bf16",
                          "every card op that can in bf16 (no calibration)"),
               clEnumValN(Quantize::Msfp8, "msfp8",
                          "fully_connected weights in ms-fp8 blocks of 16, "
                          "f32 activations (accel-quantize-block-float, no "
                          "calibration)"),
               clEnumValN(Quantize::Msfp9, "msfp9",
                          "fully_connected weights in ms-fp9 blocks of 16"),
               clEnumValN(Quantize::MxInt8, "mxint8",
                          "fully_connected weights in OCP MX-INT8 blocks of "
                          "32"),
               clEnumValN(Quantize::MxFp8E4M3, "mxfp8",
                          "fully_connected weights in OCP MXFP8 blocks of "
                          "32 with E4M3 elements (= mxfp8e4m3)"),
               clEnumValN(Quantize::MxFp8E4M3, "mxfp8e4m3",
                          "OCP MXFP8 with E4M3 elements"),
               clEnumValN(Quantize::MxFp8E5M2, "mxfp8e5m2",
                          "OCP MXFP8 with E5M2 elements (more range, less "
                          "precision; mm's wvar bit, ISA 1.1)"),
               clEnumValN(Quantize::Auto, "auto",
                          "a precision per product, the cheapest that keeps "
                          "--accuracy-budget on the calibration samples "
                          "(needs --calibration)")),
    cl::cat(category));

static cl::opt<std::string> quantizeScheme(
    "quantize-scheme",
    cl::desc("int8 activations: symmetric (i8, or u8 for non-negative "
             "ranges; the default) or asymmetric (u8 with a zero point)"),
    cl::init("symmetric"), cl::cat(category));

/// The --quantize modes as the pipeline's comma-separated list; an error
/// message for modes that exclude each other.
static std::optional<std::string> getQuantizeModes(std::string &error) {
  auto has = [](Quantize mode) { return llvm::is_contained(quantize, mode); };
  if (has(Quantize::Int4Emb) && has(Quantize::Int8Emb)) {
    error = "--quantize: int4-emb and int8-emb exclude each other";
    return std::nullopt;
  }
  if (has(Quantize::FP16) && has(Quantize::BF16)) {
    error = "--quantize: fp16 and bf16 exclude each other";
    return std::nullopt;
  }
  if (has(Quantize::None) && quantize.size() > 1) {
    error = "--quantize: none excludes every other mode";
    return std::nullopt;
  }
  if (has(Quantize::Auto) && quantize.size() > 1) {
    error = "--quantize: auto chooses every product's precision and "
            "excludes every other mode";
    return std::nullopt;
  }
  if (has(Quantize::Int4FC) && !has(Quantize::Int8)) {
    error = "--quantize: int4-fc gives the int8 products 4-bit weights and "
            "needs int8 (--quantize=int8,int4-fc, with --calibration)";
    return std::nullopt;
  }
  // The block formats are whole modes: one of them, and nothing that
  // quantizes the products otherwise.
  int blockModes = has(Quantize::Msfp8) + has(Quantize::Msfp9) +
                   has(Quantize::MxInt8) + has(Quantize::MxFp8E4M3) +
                   has(Quantize::MxFp8E5M2);
  if (blockModes > 1) {
    error = "--quantize: msfp8, msfp9, mxint8, mxfp8 (mxfp8e4m3) and "
            "mxfp8e5m2 exclude each other";
    return std::nullopt;
  }
  if (blockModes &&
      (has(Quantize::Int8) || has(Quantize::FP16) || has(Quantize::BF16))) {
    error = "--quantize: the block formats (msfp8, msfp9, mxint8, mxfp8, "
            "mxfp8e5m2) exclude int8, fp16 and bf16";
    return std::nullopt;
  }
  std::vector<std::string> names;
  for (Quantize mode : quantize)
    if (mode != Quantize::None)
      names.push_back(mode == Quantize::Int8        ? "int8"
                      : mode == Quantize::FP16      ? "fp16"
                      : mode == Quantize::Int4Emb   ? "int4-emb"
                      : mode == Quantize::Int8Emb   ? "int8-emb"
                      : mode == Quantize::Int4FC    ? "int4-fc"
                      : mode == Quantize::Msfp8     ? "msfp8"
                      : mode == Quantize::Msfp9     ? "msfp9"
                      : mode == Quantize::MxInt8    ? "mxint8"
                      : mode == Quantize::MxFp8E4M3 ? "mxfp8e4m3"
                      : mode == Quantize::MxFp8E5M2 ? "mxfp8e5m2"
                      : mode == Quantize::Auto      ? "auto"
                                                    : "bf16");
  return llvm::join(names, ",");
}
static cl::opt<std::string> accuracyBudget(
    "accuracy-budget",
    cl::desc("--quantize=auto: what the quantized model must keep against "
             "the f32 model on the calibration samples, worst output and "
             "sample: cosine=X (min cosine similarity), top1=P (min top-1 "
             "agreement, percent), ne=P (max normalised-entropy delta, "
             "percent), max-abs=X (max absolute error)"),
    cl::init("cosine=0.999"), cl::cat(category));
static cl::opt<unsigned> autoMaxEvals(
    "auto-max-evals",
    cl::desc("--quantize=auto: at most this many candidate evaluations "
             "(each runs every calibration sample)"),
    cl::init(400), cl::cat(category));
static cl::opt<std::string> savePrecision(
    "save-precision",
    cl::desc("--quantize=auto: write the chosen precision per node as a "
             "--placement file"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> savePlacement(
    "save-placement",
    cl::desc("Write the compiler's placement (card, cores, pieces per node) "
             "in the --placement format"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<bool> report("report",
                            cl::desc("Print where every op runs and why"),
                            cl::cat(category));
static cl::opt<std::string> reportJson("report-json",
                                       cl::desc("Write the report as JSON"),
                                       cl::value_desc("file"),
                                       cl::cat(category));
static cl::opt<std::string> calibrationDir(
    "calibration",
    cl::desc("Calibrate on the samples in DIR (test_data_set_*/input_<i>.pb "
             "or .npy, or .npy files for a one-input model) and annotate "
             "accel.range for quantisation"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<calibration::CalibratorKind> calibrator(
    "calibrator", cl::desc("How a calibrated range is chosen"),
    cl::init(calibration::CalibratorKind::Percentile),
    cl::values(clEnumValN(calibration::CalibratorKind::MinMax, "minmax",
                          "[min, max]: nothing clipped"),
               clEnumValN(calibration::CalibratorKind::Percentile, "percentile",
                          "--percentile of the values inside on either side "
                          "(default)"),
               clEnumValN(calibration::CalibratorKind::Entropy, "entropy",
                          "TensorRT's KL-divergence threshold for int8")),
    cl::cat(category));
static cl::opt<double>
    percentile("percentile",
               cl::desc("Percent of the values inside the percentile "
                        "calibrator's range on either side (50 to 100)"),
               cl::init(99.99), cl::cat(category));
static cl::opt<std::string>
    saveProfile("save-profile",
                cl::desc("Write the calibration statistics (JSON) to a file"),
                cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> loadProfile(
    "load-profile",
    cl::desc("Calibrate from statistics saved with --save-profile instead of "
             "samples"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> bucketsOption(
    "buckets",
    cl::desc("Padding buckets: INPUT:AXIS[,INPUT:AXIS...]=SIZE,SIZE,... (e.g. "
             "ids:1=32,64,128): one variant per size in one package, the "
             "axis of every listed input padded to it; the runtime picks the "
             "smallest that fits, pads and crops"),
    cl::value_desc("spec"), cl::cat(category));
static cl::opt<std::string> padMode(
    "pad-mode",
    cl::desc("With --buckets: exact (default: masks make the padding "
             "harmless, or the model is refused) or value:<v> (pad with v, "
             "no guarantee)"),
    cl::init("exact"), cl::cat(category));
static cl::opt<bool> noIR("no-ir",
                          cl::desc("Do not store the IR in the package"),
                          cl::cat(category));

namespace {
/// Prints stage progress when stderr is a terminal (long compiles).
struct Progress {
  bool enabled = llvm::sys::Process::StandardErrIsDisplayed();
  void stage(StringRef name) {
    if (enabled)
      llvm::errs() << "[nnaccel-compile] " << name << "\n";
  }
};

/// One op's placement for the report.
struct PlacedOp {
  std::string name, kind, precision, reason;
  int64_t card; // -1: host
  int partition;
  Location loc;
  std::vector<int64_t> cores = {}; // card ops: the cores its pieces run on
  int64_t cycles = 0;     // card ops: modelled span, first start to last end
  int64_t coreCycles = 0; // card ops: modelled cycles of all its pieces
};

std::string getOpName(Operation *op) {
  if (std::optional<StringRef> name = accel::getNodeName(op->getLoc()))
    return name->str();
  return op->getName().getStringRef().str();
}

/// The modelled cycles of a card partition's run, and of its setup (pinned
/// weight loads, once per session).
struct ModelledLatency {
  uint64_t run = 0, setup = 0;
};

/// Runs a card partition's setup programs, then its programs, on the
/// emulator (zeroed memory) for the modelled latency; 0 when emulation
/// fails (reported as unknown).
/// The modelled cycles of every lowered card partition. The partitions of
/// one launch (accel.launch) run together, as the runtime runs them: their
/// cards side by side, values passed card to card; a partition's cycles
/// are its card's. Setup programs (pinned weights) run alone.
llvm::DenseMap<Operation *, ModelledLatency>
modelLatencies(MutableArrayRef<accel::CardPartitionOp> cards,
               const ::nnaccel::isa::TargetDesc &target) {
  ::nnaccel::emulator::Emulator emulator(target);
  llvm::DenseMap<Operation *, ModelledLatency> latencies;
  auto load = [&](accel::CardPartitionOp card, ArrayAttr programs) {
    for (Attribute symbol : programs) {
      auto program = SymbolTable::lookupNearestSymbolFrom<npu::ProgramOp>(
          card, cast<FlatSymbolRefAttr>(symbol));
      if (!program)
        return false;
      FailureOr<::nnaccel::isa::Program> isaProgram =
          npu::toISAProgram(program);
      if (failed(isaProgram) || emulator.loadProgram(*isaProgram))
        return false;
    }
    return true;
  };
  auto launchOf = [](accel::CardPartitionOp card) -> int64_t {
    auto launch = card->getAttrOfType<IntegerAttr>(
        accel::AccelDialect::getLaunchAttrName());
    return launch ? launch.getInt() : -1;
  };
  for (size_t i = 0; i < cards.size();) {
    // The launch: consecutive partitions with the same accel.launch.
    size_t end = i + 1;
    while (end < cards.size() && launchOf(cards[i]) >= 0 &&
           launchOf(cards[end]) == launchOf(cards[i]))
      ++end;
    for (size_t j = i; j < end; ++j)
      if (ArrayAttr setup = cards[j].getSetupProgramsAttr()) {
        emulator.clearPrograms();
        if (load(cards[j], setup))
          if (auto stats = emulator.run(); stats.ok())
            latencies[cards[j]].setup = stats->totalCycles;
      }
    emulator.clearPrograms();
    bool loaded = true;
    for (size_t j = i; j < end; ++j)
      if (ArrayAttr programs = cards[j].getProgramsAttr())
        loaded = loaded && load(cards[j], programs);
    if (loaded)
      if (auto stats = emulator.run(); stats.ok())
        for (size_t j = i; j < end; ++j) {
          uint64_t cycles = 0;
          for (const auto &core : stats->cores)
            if (int64_t(core.card) == cards[j].getCard())
              cycles = std::max(cycles, core.finishCycle);
          latencies[cards[j]].run = cycles;
        }
    i = end;
  }
  return latencies;
}

/// What moving a card partition's data over the host link costs in the
/// target's cycle model: inputs in and results out on every run, weights
/// once per session (the runtime keeps them resident in card DRAM).
struct TransferCost {
  uint64_t perRun = 0, weightsOnce = 0;
  /// Bytes per run: over the host link in and out, received from another
  /// card, and read back to the host no more because they go card to card.
  uint64_t hostBytesIn = 0, hostBytesOut = 0, cardToCardBytes = 0,
           avoidedReadBack = 0;
};

TransferCost modelTransfers(accel::CardPartitionOp card,
                            const ::nnaccel::isa::TargetDesc &target) {
  // Bytes over the host link each run: inputs not received from another
  // card, results some host-side reader needs (results only card-to-card
  // accel.transfer ops read stay on the cards).
  llvm::SmallDenseSet<int64_t, 4> received = accel::getReceivedOperands(card);
  TransferCost transfer;
  for (auto [index, input] : llvm::enumerate(card.getInputs())) {
    uint64_t bytes = accel::getDenseByteSize(input.getType());
    (received.contains(int64_t(index)) ? transfer.cardToCardBytes
                                       : transfer.hostBytesIn) += bytes;
  }
  for (OpResult result : card->getResults()) {
    bool onlyCards = accel::isPassedOnlyCardToCard(result);
    uint64_t bytes = accel::getDenseByteSize(result.getType());
    if (!onlyCards)
      transfer.hostBytesOut += bytes;
    else
      transfer.avoidedReadBack += bytes;
  }
  if (target.hostBytesPerCycle <= 0)
    return transfer;
  auto cost = [&](uint64_t bytes) -> uint64_t {
    if (bytes == 0)
      return 0;
    return target.hostLatencyCycles +
           uint64_t(std::ceil(double(bytes) / target.hostBytesPerCycle));
  };
  uint64_t weights = 0;
  for (auto constant : card.getBody().front().getOps<accel::ConstantOp>())
    weights += accel::getDenseByteSize(constant.getType());
  transfer.perRun = cost(transfer.hostBytesIn) + cost(transfer.hostBytesOut);
  transfer.weightsOnce = cost(weights);
  return transfer;
}

/// The element type name of `type`: a quantized type by its storage
/// (i8, u8, i32), other types as MLIR prints them (f32, bf16, i64).
std::string getElementName(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    return (quantized.isSigned() ? "i" : "u") +
           std::to_string(quantized.getStorageTypeIntegralWidth());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << element;
  return text;
}

/// What an op computes in: "int8" for a product of quantized operands
/// ("int8 x i4" with 4-bit weights), "f32 -> u8" for a quantize,
/// "rw4"/"rw8" for a lookup in a rowwise table, else its result's element
/// type.
std::string getOpPrecision(Operation *op) {
  auto isQuantized = [](Type type) {
    return isa<quant::QuantizedType>(getElementTypeOrSelf(type));
  };
  for (Type type : op->getOperandTypes())
    if (accel::isRowwiseTable(type))
      return std::string(::nnaccel::dtypeName(*accel::getElementDType(type)));
  if (isa<accel::QuantizeOp, accel::DequantizeOp, accel::RequantizeOp>(op))
    return getElementName(op->getOperand(0).getType()) + " -> " +
           getElementName(op->getResult(0).getType());
  // A product (or recurrence) by a block-float weight: the weight's format.
  if (isa<accel::FullyConnectedOp, accel::MatMulOp, accel::LSTMOp, accel::GRUOp,
          accel::ConvOp>(op))
    if (auto block = dyn_cast<accel::BlockFloatType>(
            getElementTypeOrSelf(op->getOperand(1).getType())))
      return accel::stringifyBlockFormat(block.getFormat()).str();
  if (llvm::any_of(op->getOperandTypes(), isQuantized)) {
    if (isa<accel::FullyConnectedOp, accel::ConvOp>(op) &&
        getElementName(op->getOperand(1).getType()) == "i4")
      return "int8 x i4";
    return "int8";
  }
  if (!op->getNumResults())
    return "";
  return getElementName(op->getResult(0).getType());
}

/// What the ops of a partition compute in, e.g. "f32" or "int8,f32".
std::string getPrecisions(Block &body) {
  llvm::SetVector<StringRef> names;
  std::vector<std::string> storage;
  for (Operation &op : body.without_terminator())
    if (!isa<accel::ConstantOp>(op))
      for (Type type : op.getResultTypes())
        storage.push_back(getElementName(type));
  for (const std::string &name : storage)
    names.insert(name);
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(names, os, ",");
  return text;
}

/// What a partition holds, taken before lowering replaces its ops.
struct PartitionSummary {
  Operation *partition;
  std::vector<PlacedOp> ops;
  std::map<std::string, int> kinds;
  std::string precision;
};

/// Summarises every partition of `func` after placement and outlining.
std::vector<PartitionSummary> summarizePartitions(func::FuncOp func) {
  std::vector<PartitionSummary> summaries;
  for (Operation &op : func.getBody().front()) {
    auto host = dyn_cast<accel::HostPartitionOp>(op);
    auto card = dyn_cast<accel::CardPartitionOp>(op);
    if (!host && !card)
      continue;
    Block &body = host ? host.getBody().front() : card.getBody().front();
    PartitionSummary summary{&op, {}, {}, getPrecisions(body)};
    for (Operation &inner : body.without_terminator()) {
      if (isa<accel::ConstantOp>(inner))
        continue;
      std::string reason;
      if (auto r = inner.getAttrOfType<StringAttr>(
              accel::AccelDialect::getHostReasonAttrName()))
        reason = r.str();
      PlacedOp placed{getOpName(&inner),
                      inner.getName().getStringRef().str(),
                      getOpPrecision(&inner),
                      reason,
                      host ? -1 : int64_t(card.getCard()),
                      int(summaries.size()),
                      inner.getLoc()};
      ++summary.kinds[placed.kind];
      summary.ops.push_back(std::move(placed));
    }
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

/// Records the cores each card op runs on and its modelled cycles after
/// accel-split-ops and accel-place: its pieces' (they keep its location and
/// kind; ops the passes added under its name, such as converts to a hinted
/// precision, are reported apart).
void recordSchedule(MutableArrayRef<PartitionSummary> summaries) {
  using Key = std::pair<const void *, std::string>;
  for (PartitionSummary &summary : summaries) {
    auto card = dyn_cast<accel::CardPartitionOp>(summary.partition);
    if (!card)
      continue;
    std::map<Key, std::set<int64_t>> cores;
    // Per op: first start, last end, cycles summed over its pieces.
    std::map<Key, std::array<int64_t, 3>> spans;
    card.getBody().walk([&](Operation *op) {
      Key key{op->getLoc().getAsOpaquePointer(),
              op->getName().getStringRef().str()};
      auto placement = op->getAttrOfType<accel::PlacementAttr>(
          accel::AccelDialect::getPlacementAttrName());
      if (placement && !placement.getCores().empty())
        cores[key].insert(placement.getCores().begin(),
                          placement.getCores().end());
      if (auto schedule = op->getAttrOfType<DenseI64ArrayAttr>(
              accel::AccelDialect::getScheduleAttrName())) {
        auto [it, inserted] =
            spans.try_emplace(key, std::array<int64_t, 3>{schedule[0], 0, 0});
        auto &span = it->second;
        span[0] = std::min(span[0], schedule[0]);
        span[1] = std::max(span[1], schedule[0] + schedule[1]);
        span[2] += schedule[1];
      }
    });
    for (PlacedOp &placed : summary.ops) {
      Key key{placed.loc.getAsOpaquePointer(), placed.kind};
      auto it = cores.find(key);
      placed.cores =
          it == cores.end()
              ? std::vector<int64_t>{0}
              : std::vector<int64_t>(it->second.begin(), it->second.end());
      if (auto span = spans.find(key); span != spans.end()) {
        placed.cycles = span->second[1] - span->second[0];
        placed.coreCycles = span->second[2];
      }
    }
  }
}

/// Prints / writes the report: the partitions summarised before lowering
/// with what their lowered programs cost. With padding buckets the JSON
/// report of each variant goes into `variants` (written once all are
/// compiled) instead of the file.
LogicalResult emitReport(ModuleOp module, ArrayRef<PartitionSummary> summaries,
                         const ::nnaccel::isa::TargetDesc &target,
                         llvm::json::Array *variants = nullptr,
                         int64_t bucketSize = -1) {
  std::vector<PlacedOp> ops;
  llvm::json::Array partitions;
  int index = 0;
  uint64_t totalCycles = 0, totalTransfer = 0, hostBytes = 0,
           cardToCardBytes = 0, avoidedReadBack = 0;
  SmallVector<accel::CardPartitionOp> cards;
  for (const PartitionSummary &summary : summaries)
    if (auto card = dyn_cast<accel::CardPartitionOp>(summary.partition))
      cards.push_back(card);
  llvm::DenseMap<Operation *, ModelledLatency> latencies =
      modelLatencies(cards, target);
  // A launch's cards run side by side: it costs its slowest card.
  std::map<int64_t, uint64_t> launchCycles, launchTransfer;
  for (const PartitionSummary &summary : summaries) {
    auto host = dyn_cast<accel::HostPartitionOp>(summary.partition);
    auto card = dyn_cast<accel::CardPartitionOp>(summary.partition);
    const std::map<std::string, int> &kinds = summary.kinds;
    llvm::json::Array opList;
    for (const PlacedOp &placed : summary.ops) {
      llvm::json::Object entry{{"name", placed.name},
                               {"op", placed.kind},
                               {"precision", placed.precision},
                               {"card", placed.card}};
      if (host)
        entry["reason"] = placed.reason;
      else {
        entry["cores"] = llvm::json::Array(placed.cores);
        entry["modeled_cycles"] = placed.cycles;
        entry["modeled_core_cycles"] = placed.coreCycles;
      }
      opList.push_back(std::move(entry));
      ops.push_back(placed);
    }
    llvm::json::Object part{{"index", index},
                            {"kind", host ? "host" : "card"},
                            {"ops", std::move(opList)}};
    uint64_t instructions = 0, cycles = 0, dramBytes = 0, sharedBytes = 0,
             numCores = 0, setupCycles = 0;
    TransferCost transfer;
    const std::string &precision = summary.precision;
    part["precision"] = precision;
    if (card) {
      part["card"] = card.getCard();
      if (auto bytes = card->getAttrOfType<IntegerAttr>(
              accel::AccelDialect::getDramBytesAttrName()))
        dramBytes = bytes.getInt();
      // SHARED: kernels' staging and the intermediates kept on chip.
      if (auto bytes = card->getAttrOfType<IntegerAttr>(
              accel::AccelDialect::getSharedBytesAttrName()))
        sharedBytes = bytes.getInt();
      ModelledLatency latency = latencies.lookup(card);
      cycles = latency.run;
      setupCycles = latency.setup;
      part["dram_bytes"] = int64_t(dramBytes);
      part["shared_bytes"] = int64_t(sharedBytes);
      part["modeled_cycles"] = int64_t(cycles);
      part["setup_cycles"] = int64_t(setupCycles);
      part["modeled_us"] =
          target.clockMHz > 0 ? double(cycles) / target.clockMHz : 0.0;
      if (auto launch = card->getAttrOfType<IntegerAttr>(
              accel::AccelDialect::getLaunchAttrName())) {
        part["launch"] = launch.getInt();
        uint64_t &slowest = launchCycles[launch.getInt()];
        slowest = std::max(slowest, cycles);
      } else {
        totalCycles += cycles;
      }
      transfer = modelTransfers(card, target);
      hostBytes += transfer.hostBytesIn + transfer.hostBytesOut;
      cardToCardBytes += transfer.cardToCardBytes;
      avoidedReadBack += transfer.avoidedReadBack;
      part["host_bytes"] =
          int64_t(transfer.hostBytesIn + transfer.hostBytesOut);
      part["card_to_card_bytes"] = int64_t(transfer.cardToCardBytes);
      part["transfer_cycles"] = int64_t(transfer.perRun);
      part["weight_upload_cycles"] = int64_t(transfer.weightsOnce);
      // Each card has its own host link: a launch's transfers cost its
      // slowest card's, as the runtime counts them.
      if (auto launch = card->getAttrOfType<IntegerAttr>(
              accel::AccelDialect::getLaunchAttrName())) {
        uint64_t &slowest = launchTransfer[launch.getInt()];
        slowest = std::max(slowest, transfer.perRun);
      } else {
        totalTransfer += transfer.perRun;
      }
      if (ArrayAttr programs = card.getProgramsAttr())
        for (Attribute symbol : programs)
          if (auto program =
                  SymbolTable::lookupNearestSymbolFrom<npu::ProgramOp>(
                      card, cast<FlatSymbolRefAttr>(symbol))) {
            instructions += program.getBody().front().getOperations().size();
            ++numCores;
          }
      part["instructions"] = int64_t(instructions);
      part["cores"] = int64_t(numCores);
    }
    partitions.push_back(std::move(part));
    if (report) {
      int64_t numOps = 0;
      for (auto &[kind, count] : kinds)
        numOps += count;
      llvm::outs() << "partition " << index << ": "
                   << (host ? "host" : "card " + std::to_string(card.getCard()))
                   << ", " << numOps << " ops";
      llvm::outs() << ", " << precision;
      if (card) {
        llvm::outs() << ", " << numCores << (numCores == 1 ? " core" : " cores")
                     << ", " << instructions << " instructions, "
                     << llvm::format("%.1f", dramBytes / 1024.0)
                     << " KiB DRAM, ";
        if (sharedBytes)
          llvm::outs() << llvm::format("%.1f", sharedBytes / 1024.0)
                       << " KiB SHARED, ";
        if (cycles)
          llvm::outs() << cycles << " cycles ("
                       << llvm::format("%.1f", cycles / target.clockMHz)
                       << " us modelled)";
        else
          llvm::outs() << "latency unknown";
        if (transfer.perRun)
          llvm::outs() << " + " << transfer.perRun
                       << " transfer cycles per run";
        if (transfer.weightsOnce)
          llvm::outs() << " (weights " << transfer.weightsOnce << " once)";
        if (setupCycles)
          llvm::outs() << ", pinned weights loaded in " << setupCycles
                       << " setup cycles once";
      }
      llvm::outs() << "\n   ";
      for (auto &[kind, count] : kinds)
        llvm::outs() << " " << kind << " x" << count;
      llvm::outs() << "\n";
      if (host && host.getReason())
        llvm::outs() << "    reason: " << *host.getReason() << "\n";
      if (card)
        for (const PlacedOp &placed : summary.ops) {
          llvm::outs() << "    " << placed.name << " (" << placed.kind << ", "
                       << placed.precision << "): core"
                       << (placed.cores.size() == 1 ? " " : "s ");
          llvm::interleave(placed.cores, llvm::outs(), ",");
          llvm::outs() << ", " << placed.cycles << " cycles";
          if (placed.coreCycles != placed.cycles)
            llvm::outs() << " (" << placed.coreCycles << " on all its cores)";
          llvm::outs() << "\n";
        }
    }
    ++index;
  }
  for (auto &[launch, cycles] : launchCycles)
    totalCycles += cycles;
  for (auto &[launch, cycles] : launchTransfer)
    totalTransfer += cycles;
  int64_t onCard = llvm::count_if(ops, [](auto &o) { return o.card >= 0; });
  // Without card-to-card transfers every such value would be read back and
  // written again over the host link.
  const uint64_t hostBytesWithoutP2P =
      hostBytes + cardToCardBytes + avoidedReadBack;
  if (report) {
    llvm::outs() << "summary: " << ops.size() << " ops, " << onCard
                 << " on cards, " << ops.size() - onCard
                 << " on the host; card partitions " << totalCycles
                 << " cycles modelled + " << totalTransfer
                 << " transfer cycles per run (host time not included)\n";
    if (cardToCardBytes)
      llvm::outs() << "host link per run: " << hostBytes << " bytes ("
                   << hostBytesWithoutP2P
                   << " without card-to-card transfers); card to card: "
                   << cardToCardBytes << " bytes\n";
  }
  if (!reportJson.empty()) {
    llvm::json::Object root{
        {"model", inputFile.getValue()},
        {"target", targetSpec.getValue()},
        {"ops", int64_t(ops.size())},
        {"card_ops", onCard},
        {"host_ops", int64_t(ops.size()) - onCard},
        {"modeled_card_cycles", int64_t(totalCycles)},
        {"transfer_cycles", int64_t(totalTransfer)},
        {"host_bytes_per_run", int64_t(hostBytes)},
        {"host_bytes_per_run_without_p2p", int64_t(hostBytesWithoutP2P)},
        {"card_to_card_bytes", int64_t(cardToCardBytes)},
        {"partitions", std::move(partitions)}};
    if (variants) {
      root["bucket_size"] = bucketSize;
      variants->push_back(std::move(root));
      return success();
    }
    std::string error;
    auto file = openOutputFile(reportJson, &error);
    if (!file)
      return emitError(UnknownLoc::get(module.getContext()))
             << "cannot write report: " << error;
    file->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
               << "\n";
    file->keep();
  }
  return success();
}
} // namespace

namespace {
/// A parsed --buckets: the inputs sharing the bucketed dimension (name,
/// axis) and the sizes, increasing.
struct BucketSpec {
  SmallVector<std::pair<std::string, int64_t>> inputs;
  SmallVector<int64_t> sizes;
};
} // namespace

/// Parses `ids:1[,mask:1]=32,64,128`; the error says what is wrong.
static LogicalResult parseBuckets(StringRef text, BucketSpec &spec,
                                  std::string &error) {
  auto [dims, list] = text.split('=');
  if (list.empty() || dims.empty()) {
    error = "expected INPUT:AXIS[,INPUT:AXIS...]=SIZE,SIZE,..., got '" +
            text.str() + "'";
    return failure();
  }
  SmallVector<StringRef> parts;
  dims.split(parts, ',');
  for (StringRef part : parts) {
    auto [name, axisText] = part.trim().rsplit(':');
    int64_t axis;
    if (name.empty() || axisText.getAsInteger(10, axis) || axis < 0) {
      error = "'" + part.str() +
              "' is not INPUT:AXIS with a non-negative integer axis";
      return failure();
    }
    if (llvm::any_of(spec.inputs, [&](auto &e) { return e.first == name; })) {
      error = "input '" + name.str() + "' is listed twice";
      return failure();
    }
    spec.inputs.push_back({name.str(), axis});
  }
  parts.clear();
  list.split(parts, ',');
  for (StringRef part : parts) {
    int64_t size;
    if (part.trim().getAsInteger(10, size) || size < 1) {
      error = "bucket size '" + part.str() + "' is not a positive integer";
      return failure();
    }
    if (!spec.sizes.empty() && size <= spec.sizes.back()) {
      error = llvm::formatv("bucket sizes must increase: {0} follows {1}", size,
                            spec.sizes.back())
                  .str();
      return failure();
    }
    spec.sizes.push_back(size);
  }
  return success();
}

/// Parses --pad-mode: nullopt for exact, else the pad value.
static LogicalResult parsePadMode(StringRef text, std::optional<double> &value,
                                  std::string &error) {
  if (text == "exact") {
    value.reset();
    return success();
  }
  double v;
  if (!text.consume_front("value:") || text.getAsDouble(v) ||
      !std::isfinite(v)) {
    error = "expected exact or value:<finite number>";
    return failure();
  }
  value = v;
  return success();
}

/// Checks the calibration options; fails, with a message, on a combination
/// that makes no sense.
static LogicalResult checkCalibrationOptions() {
  bool calibrating = !calibrationDir.empty() || !loadProfile.empty();
  auto fail = [](StringRef message) {
    llvm::errs() << "error: " << message << "\n";
    return failure();
  };
  if (!calibrationDir.empty() && !loadProfile.empty())
    return fail("--calibration and --load-profile exclude each other: the "
                "profile replaces the samples");
  if (!calibrating && (calibrator.getNumOccurrences() ||
                       percentile.getNumOccurrences() || !saveProfile.empty()))
    return fail("--calibrator, --percentile and --save-profile need "
                "--calibration=DIR or --load-profile=FILE");
  if (!(percentile >= 50 && percentile <= 100))
    return fail(llvm::formatv("--percentile must lie in [50, 100], got {0}",
                              percentile.getValue())
                    .str());
  return success();
}

/// Calibrates the imported module when asked to: accel.range on its values.
static LogicalResult runCalibration(ModuleOp module,
                                    const ONNXImportOptions &importOptions,
                                    MLIRContext &context, Progress &progress) {
  if (calibrationDir.empty() && loadProfile.empty())
    return success();
  auto func = module.lookupSymbol<func::FuncOp>(importOptions.functionName);
  if (!func) {
    llvm::errs() << "error: the imported module has no @"
                 << importOptions.functionName << "\n";
    return failure();
  }
  calibration::CalibrationOptions options;
  options.sampleDir = calibrationDir;
  options.loadProfile = loadProfile;
  options.saveProfile = saveProfile;
  options.calibrator.kind = calibrator;
  options.calibrator.percentile = percentile;
  // Samples at other input shapes run on the model imported at theirs.
  options.reimport = [&](const llvm::StringMap<SmallVector<int64_t>> &shapes) {
    ONNXImportOptions reimport = importOptions;
    reimport.inputShapes = shapes;
    return importONNXFile(inputFile, &context, reimport);
  };
  options.progress = [&](StringRef message) { progress.stage(message); };
  return calibration::calibrate(func, options);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv, "nnaccel-compile: ONNX model -> nnaccel model package\n");

  DialectRegistry registry;
  registerONNXImportDialects(registry);
  registry.insert<npu::NPUDialect>();
  registerNPUKernelModels(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the model and node; dumping whole functions helps nobody.
  context.printOpOnDiagnostic(getenv("NNACCEL_DEBUG_OP") != nullptr);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  Progress progress;

  // Resolve the target first: a bad --target should fail fast.
  std::string targetError;
  if (!npu::loadTarget(targetSpec, targetError)) {
    llvm::errs() << "error: cannot load target '" << targetSpec
                 << "': " << targetError << "\n";
    return 1;
  }
  auto targetText =
      llvm::MemoryBuffer::getFile(npu::resolveTargetPath(targetSpec));
  if (!targetText) {
    llvm::errs() << "error: cannot read target '" << targetSpec << "'\n";
    return 1;
  }

  if (failed(checkCalibrationOptions()))
    return 1;
  // Modes that exclude each other fail before the import and calibration.
  std::string quantizeError;
  std::optional<std::string> modes = getQuantizeModes(quantizeError);
  if (!modes) {
    llvm::errs() << "error: " << quantizeError << "\n";
    return 1;
  }
  bool autoPrecision = llvm::is_contained(quantize, Quantize::Auto);
  std::optional<AccuracyBudget> budget;
  if (autoPrecision || accuracyBudget.getNumOccurrences()) {
    std::string budgetError;
    budget = parseAccuracyBudget(accuracyBudget, budgetError);
    if (!budget) {
      llvm::errs() << "error: --accuracy-budget: " << budgetError << "\n";
      return 1;
    }
  }
  if (!autoPrecision &&
      (accuracyBudget.getNumOccurrences() || autoMaxEvals.getNumOccurrences() ||
       !savePrecision.empty())) {
    llvm::errs() << "error: --accuracy-budget, --auto-max-evals and "
                    "--save-precision need --quantize=auto\n";
    return 1;
  }
  if (autoPrecision && calibrationDir.empty()) {
    llvm::errs() << "error: --quantize=auto measures the accuracy on "
                    "calibration samples and needs --calibration=DIR"
                 << (loadProfile.empty() ? ""
                                         : " (a --load-profile has no samples)")
                 << "\n";
    return 1;
  }

  BucketSpec bucketSpec;
  std::optional<double> padValue;
  std::string bucketName;
  if (!bucketsOption.empty()) {
    std::string bucketError;
    if (failed(parseBuckets(bucketsOption, bucketSpec, bucketError))) {
      llvm::errs() << "error: --buckets: " << bucketError << "\n";
      return 1;
    }
    if (failed(parsePadMode(padMode, padValue, bucketError))) {
      llvm::errs() << "error: --pad-mode: " << bucketError << "\n";
      return 1;
    }
    // The bucket is named after its first input's axis, e.g. "ids:1".
    bucketName = llvm::formatv("{0}:{1}", bucketSpec.inputs.front().first,
                               bucketSpec.inputs.front().second)
                     .str();
    if (!calibrationDir.empty() || !loadProfile.empty() || autoPrecision) {
      llvm::errs() << "error: --buckets does not combine with calibration "
                      "(--calibration, --load-profile, --quantize=auto) yet\n";
      return 1;
    }
  } else if (padMode.getNumOccurrences()) {
    llvm::errs() << "error: --pad-mode needs --buckets\n";
    return 1;
  }

  // With buckets, --report-json holds one report per variant.
  llvm::json::Array variantReports;
  // One compile per bucket size (or one without buckets): import at that
  // size, mask, place, lower. The modules stay alive until the package is
  // written, which takes their weights without copying them.
  auto compileOne =
      [&](std::optional<int64_t> bucketSize) -> OwningOpRef<ModuleOp> {
    progress.stage("importing " + inputFile);
    ONNXImportOptions importOptions;
    std::string shapeError;
    if (failed(parseInputShapes(inputShapes, importOptions.inputShapes,
                                shapeError))) {
      llvm::errs() << "error: --input-shape: " << shapeError << "\n";
      return OwningOpRef<ModuleOp>();
    }
    if (failed(parseBoundInputs(boundInputs, importOptions.boundInputs,
                                shapeError))) {
      llvm::errs() << "error: --bind-input: " << shapeError << "\n";
      return OwningOpRef<ModuleOp>();
    }
    if (bucketSize)
      for (const auto &[name, axis] : bucketSpec.inputs)
        importOptions.paddedDims[name] = {axis, *bucketSize};
    OwningOpRef<ModuleOp> module =
        importONNXFile(inputFile, &context, importOptions);
    if (!module)
      return OwningOpRef<ModuleOp>();

    if (failed(runCalibration(*module, importOptions, context, progress)))
      return OwningOpRef<ModuleOp>();

    std::optional<AutoPrecisionResult> autoResult;
    if (autoPrecision) {
      progress.stage("searching the precisions (--quantize=auto)");
      LowerPipelineOptions searchPipeline;
      searchPipeline.target = targetSpec.getValue();
      searchPipeline.placement = placementFile.getValue();
      searchPipeline.quantize = "auto";
      searchPipeline.quantizeScheme = quantizeScheme.getValue();
      AutoPrecisionOptions options;
      options.budget = *budget;
      options.sampleDir = calibrationDir;
      options.functionName = importOptions.functionName;
      options.maxEvaluations = autoMaxEvals;
      options.target = npu::loadTarget(targetSpec, targetError);
      options.pipeline = &searchPipeline;
      options.progress = [&](StringRef message) { progress.stage(message); };
      FailureOr<AutoPrecisionResult> result =
          searchPrecisions(*module, options);
      if (failed(result))
        return OwningOpRef<ModuleOp>();
      autoResult = std::move(*result);
      applyPrecisions(*module, *autoResult, importOptions.functionName);
      printPrecisionSummary(*autoResult, *budget, report,
                            report ? llvm::outs() : llvm::errs());
      if (!savePrecision.empty()) {
        std::string error;
        auto file = openOutputFile(savePrecision, &error);
        if (!file) {
          llvm::errs() << "error: cannot write precisions: " << error << "\n";
          return OwningOpRef<ModuleOp>();
        }
        writePrecisionFile(*autoResult, file->os());
        file->keep();
      }
    }

    if (bucketSize) {
      // Exact mode masks what padding could change, or refuses the model;
      // value mode only records which output dimensions to crop.
      PassManager maskPM(&context);
      AccelMaskPaddingOptions mask;
      mask.exact = !padValue;
      mask.lengthName = bucketName + ".length";
      maskPM.addNestedPass<func::FuncOp>(createAccelMaskPadding(mask));
      if (failed(maskPM.run(*module)))
        return OwningOpRef<ModuleOp>();
    }

    progress.stage("placing, partitioning and lowering");
    LowerPipelineOptions pipeline;
    pipeline.target = targetSpec.getValue();
    pipeline.forceHost = ArrayRef<std::string>(forceHost);
    pipeline.cards = cards.getValue();
    pipeline.p2p = p2p.getValue();
    pipeline.cores = cores.getValue();
    pipeline.placement = placementFile.getValue();
    pipeline.pinWeights = pinWeights.getValue();
    pipeline.sharedConstants = sharedConstants.getValue();
    pipeline.sharedIntermediates = sharedIntermediates.getValue();
    pipeline.quantize = *modes;
    if (quantizeScheme != "symmetric" && quantizeScheme != "asymmetric") {
      llvm::errs() << "error: --quantize-scheme must be symmetric or "
                      "asymmetric, got '"
                   << quantizeScheme << "'\n";
      return OwningOpRef<ModuleOp>();
    }
    if (quantizeScheme.getNumOccurrences() &&
        !llvm::is_contained(quantize, Quantize::Int8))
      llvm::errs() << "warning: --quantize-scheme has no effect without "
                      "--quantize=int8\n";
    pipeline.quantizeScheme = quantizeScheme.getValue();
    PassManager partitionPM(&context);
    buildPartitionPipeline(partitionPM, pipeline);
    if (failed(partitionPM.run(*module)))
      return OwningOpRef<ModuleOp>();
    auto func = module->lookupSymbol<func::FuncOp>("main");
    if (!func) {
      llvm::errs() << "error: the imported module has no @main\n";
      return OwningOpRef<ModuleOp>();
    }
    // The report needs each partition's ops, which lowering replaces.
    std::vector<PartitionSummary> summaries = summarizePartitions(func);
    // Split and schedule on cores first, on their own, so the report can say
    // where each op went.
    PassManager schedulePM(&context);
    buildCoreSchedulePipeline(schedulePM, pipeline);
    if (failed(schedulePM.run(*module)))
      return OwningOpRef<ModuleOp>();
    recordSchedule(summaries);
    if (!savePlacement.empty()) {
      std::string error;
      auto file = openOutputFile(savePlacement, &error);
      if (!file) {
        llvm::errs() << "error: cannot write placement: " << error << "\n";
        return OwningOpRef<ModuleOp>();
      }
      writePlacementFile(*module, file->os());
      file->keep();
    }
    PassManager codegenPM(&context);
    buildCardCodegenPipeline(codegenPM, pipeline);
    if (failed(codegenPM.run(*module)))
      return OwningOpRef<ModuleOp>();
    if (bucketSize && report)
      llvm::outs() << "bucket " << bucketName << " = " << *bucketSize << ":\n";
    if ((report || !reportJson.empty()) &&
        failed(emitReport(
            *module, summaries, *npu::loadTarget(targetSpec, targetError),
            bucketSize ? &variantReports : nullptr, bucketSize.value_or(-1))))
      return OwningOpRef<ModuleOp>();

    return module;
  };

  std::vector<OwningOpRef<ModuleOp>> modules;
  std::vector<std::optional<int64_t>> sizes;
  if (bucketSpec.sizes.empty())
    sizes.push_back(std::nullopt);
  for (int64_t size : bucketSpec.sizes)
    sizes.push_back(size);
  for (std::optional<int64_t> size : sizes) {
    if (size)
      progress.stage(
          llvm::formatv("bucket {0} = {1}", bucketName, *size).str());
    OwningOpRef<ModuleOp> compiled = compileOne(size);
    if (!compiled)
      return 1;
    modules.push_back(std::move(compiled));
  }
  if (!bucketSpec.sizes.empty() && !reportJson.empty()) {
    llvm::json::Object root{{"model", inputFile.getValue()},
                            {"target", targetSpec.getValue()},
                            {"bucket", bucketName},
                            {"variants", std::move(variantReports)}};
    std::string error;
    auto file = openOutputFile(reportJson, &error);
    if (!file) {
      llvm::errs() << "error: cannot write report: " << error << "\n";
      return 1;
    }
    file->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(root)))
               << "\n";
    file->keep();
  }
  OwningOpRef<ModuleOp> &module = modules.front();
  auto func = module->lookupSymbol<func::FuncOp>("main");

  std::string error;
  switch (emit) {
  case Emit::MLIR: {
    auto file = openOutputFile(outputFile, &error);
    if (!file) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    // With buckets, every variant's module in bucket order.
    for (auto [index, compiled] : llvm::enumerate(modules)) {
      if (sizes[index])
        file->os() << "// bucket " << bucketName << " = " << *sizes[index]
                   << "\n";
      compiled->print(file->os());
    }
    file->keep();
    return 0;
  }
  case Emit::Asm: {
    auto file = openOutputFile(outputFile, &error);
    if (!file) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    for (auto [index, compiled] : llvm::enumerate(modules)) {
      if (sizes[index])
        file->os() << "# bucket " << bucketName << " = " << *sizes[index]
                   << "\n";
      for (auto program : compiled->getOps<npu::ProgramOp>()) {
        FailureOr<::nnaccel::isa::Program> isaProgram =
            npu::toISAProgram(program);
        if (failed(isaProgram))
          return 1;
        file->os() << "# " << program.getSymName() << "\n"
                   << ::nnaccel::isa::printAsm(*isaProgram) << "\n";
      }
    }
    file->keep();
    return 0;
  }
  case Emit::Package: {
    if (outputFile == "-") {
      llvm::errs() << "error: a package needs an output file (-o)\n";
      return 1;
    }
    progress.stage("writing " + outputFile);
    PackageWriterOptions options;
    options.modelName = llvm::sys::path::stem(inputFile).str();
    if (options.modelName == "model") {
      // Named after its directory (examples/models/<name>/model.onnx). The
      // directory comes from the absolute path, so that `model.onnx` run
      // from inside it names the package as the full path does.
      SmallString<256> path(inputFile.getValue());
      if (!llvm::sys::fs::make_absolute(path))
        llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
      options.modelName =
          llvm::sys::path::filename(llvm::sys::path::parent_path(path)).str();
    }
    options.targetJson = (*targetText)->getBuffer().str();
    if (!noIR) {
      llvm::raw_string_ostream os(options.irText);
      OpPrintingFlags flags;
      flags.elideLargeResourceString(64);
      module->print(os, flags);
    }
    if (bucketSpec.sizes.empty()) {
      if (failed(writePackage(*module, func, options, outputFile)))
        return 1;
      return 0;
    }
    // One variant per bucket; the stored IR is the smallest bucket's.
    options.bucketName = bucketName;
    options.padValue = padValue.value_or(0.0);
    options.exactPadding = !padValue;
    std::vector<PackageVariant> variants;
    for (auto [index, compiled] : llvm::enumerate(modules))
      variants.push_back(
          {*compiled, compiled->lookupSymbol<func::FuncOp>("main"),
           llvm::formatv("{0}={1}", bucketName, *sizes[index]).str(),
           *sizes[index]});
    if (failed(writePackage(variants, options, outputFile)))
      return 1;
    return 0;
  }
  }
  return 0;
}
