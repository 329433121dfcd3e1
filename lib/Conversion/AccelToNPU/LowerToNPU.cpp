//===- LowerToNPU.cpp - accel-lower-to-npu pass ---------------------------===//
//
// Turns each accel.card_partition into an npu.program for core 0 of its
// card with a dialect conversion: one pattern, for every op with a card
// kernel (CardKernelOpInterface), appends the op's instructions through the
// ProgramEmitter (which derives the dependency tokens) and replaces the op
// by `npu.dram_tensor`s naming where its results are left in DRAM. The
// conversion visits the ops in program order, which is the order their kernels
// run in. Addresses come from the partition's memory plan
// (accel-plan-card-memory; a partition without one is planned here first).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Conversion/Passes.h"

#include "CardKernels.h"
#include "CardMemoryPlan.h"
#include "ProgramEmitter.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"
#include "NPU/NPUOps.h"
#include "NPU/NPUTarget.h"
#include "NPU/NPUToISA.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "accel-lower-to-npu"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELLOWERTONPU
#include "nnaccel/Conversion/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using mlir::nnaccel::npu_lowering::ProgramEmitter;

namespace {
/// What the patterns of one partition share: the program being built, the
/// memory plan and the source location of every emitted instruction.
struct PartitionLowering {
  ProgramEmitter emitter;
  const ::nnaccel::isa::TargetDesc &target;
  llvm::DenseMap<Value, uint64_t> addresses;
  SmallVector<Location> locations;
};

/// Lowers every op with a card kernel through its kernel.
class KernelPattern
    : public OpInterfaceConversionPattern<CardKernelOpInterface> {
public:
  KernelPattern(PartitionLowering &lowering, MLIRContext *context)
      : OpInterfaceConversionPattern(context), lowering(lowering) {}

  LogicalResult
  matchAndRewrite(CardKernelOpInterface kernel, ArrayRef<Value> /*operands*/,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *op = kernel;
    // An in-place op's result already is where the plan put it. The pass
    // checked every op of the partition against its kernel before
    // converting (checkKernels).
    if (!op->hasAttr(AccelDialect::getInPlaceAttrName())) {
      size_t before = lowering.emitter.size();
      npu_lowering::KernelContext context{lowering.emitter, lowering.target,
                                          lowering.addresses};
      if (auto shared = op->getAttrOfType<IntegerAttr>(
              AccelDialect::getSharedAddressAttrName()))
        context.sharedScratch = uint64_t(shared.getInt());
      if (failed(kernel.emitCardKernel(context)))
        return failure();
      lowering.locations.append(lowering.emitter.size() - before, op->getLoc());
    }

    SmallVector<Value> results;
    for (Value result : op->getResults())
      results.push_back(rewriter.create<npu::DramTensorOp>(
          op->getLoc(), result.getType(),
          rewriter.getI64IntegerAttr(lowering.addresses.lookup(result))));
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  PartitionLowering &lowering;
};

struct AccelLowerToNPUPass
    : mlir::nnaccel::impl::AccelLowerToNPUBase<AccelLowerToNPUPass> {
  using Base::Base;

  void runOnOperation() override {
    const ::nnaccel::isa::TargetDesc *targetDesc =
        npu::lookupTarget(getOperation());
    if (!targetDesc)
      return signalPassFailure();
    SmallVector<CardPartitionOp> partitions;
    getOperation().walk(
        [&](CardPartitionOp partition) { partitions.push_back(partition); });
    for (CardPartitionOp partition : partitions) {
      if (failed(lowerPartition(partition, *targetDesc)))
        return signalPassFailure();
    }
  }

  /// Program symbol: <function>_p<partition index>_card<c>_core<k>, the
  /// index counting card partitions within the function.
  static std::string getProgramName(CardPartitionOp partition, uint32_t core) {
    auto func = partition->getParentOfType<func::FuncOp>();
    unsigned index = 0;
    func.walk([&](CardPartitionOp other) {
      if (other == partition)
        return WalkResult::interrupt();
      ++index;
      return WalkResult::advance();
    });
    return (func.getSymName() + "_p" + Twine(index) + "_card" +
            Twine(partition.getCard()) + "_core" + Twine(core))
        .str();
  }

  /// Every op of the body must have a kernel that accepts it, or be
  /// address arithmetic under the plan; the error names the op and why.
  static LogicalResult
  checkKernels(Block &body, const ::nnaccel::isa::TargetDesc &desc,
               const llvm::DenseMap<Value, uint64_t> &addresses) {
    for (Operation &op : body) {
      if (isa<ConstantOp, YieldOp>(op))
        continue;
      if (op.hasAttr(AccelDialect::getInPlaceAttrName())) {
        if (failed(npu_lowering::verifyInPlaceOp(&op, addresses)))
          return failure();
        continue;
      }
      auto kernel = dyn_cast<CardKernelOpInterface>(op);
      if (!kernel)
        return op.emitOpError("has no card kernel (it should have been "
                              "placed on the host)");
      std::string reason;
      if (failed(kernel.checkCardKernel(desc, reason)))
        return op.emitOpError() << "cannot run on the card: " << reason;
      if (kernel.getSharedScratchBytes(desc) &&
          !op.hasAttr(AccelDialect::getSharedAddressAttrName()))
        return op.emitOpError()
               << "needs SHARED scratch but the memory plan "
                  "gives it none ('"
               << AccelDialect::getSharedAddressAttrName() << "')";
    }
    return success();
  }

  LogicalResult lowerPartition(CardPartitionOp partition,
                               const ::nnaccel::isa::TargetDesc &desc) {
    if (partition.getPrograms())
      return success(); // already lowered
    Block &body = partition.getBody().front();
    if (!npu_lowering::hasCardMemoryPlan(partition) &&
        failed(npu_lowering::planCardMemory({partition}, desc)))
      return failure();
    FailureOr<llvm::DenseMap<Value, uint64_t>> plan =
        npu_lowering::readCardMemoryPlan(partition);
    if (failed(plan) || failed(checkKernels(body, desc, *plan)))
      return failure();

    MLIRContext *context = partition.getContext();
    std::vector<npu_lowering::MemRegion> dramTensors;
    for (auto [value, address] : *plan)
      dramTensors.push_back({::nnaccel::isa::Space::Dram, address,
                             address + getDenseByteSize(value.getType())});
    PartitionLowering lowering{
        ProgramEmitter(std::move(dramTensors), desc.tokenFifoDepth),
        desc,
        std::move(*plan),
        {}};
    RewritePatternSet patterns(context);
    patterns.add<KernelPattern>(lowering, context);
    ConversionTarget legality(*context);
    legality.addLegalDialect<npu::NPUDialect>();
    legality.addIllegalDialect<AccelDialect>();
    legality.addLegalOp<CardPartitionOp, ConstantOp, YieldOp>();
    if (failed(applyPartialConversion(partition.getOperation(), legality,
                                      std::move(patterns))))
      return failure();

    ::nnaccel::isa::Program program =
        lowering.emitter.finish(static_cast<uint32_t>(partition.getCard()), 0);
    lowering.locations.append(program.instructions.size() -
                                  lowering.locations.size(),
                              partition.getLoc());
    OpBuilder builder(context);
    builder.setInsertionPointToEnd(getOperation().getBody());
    std::string name = getProgramName(partition, 0);
    npu::ProgramOp programOp = npu::fromISAProgram(
        builder, partition.getLoc(), program, lowering.locations, name,
        npu::getTargetSpecFor(getOperation()));
    if (!programOp)
      return failure();
    partition.setProgramsAttr(
        builder.getArrayAttr({FlatSymbolRefAttr::get(context, name)}));
    numInstructions += program.instructions.size();
    if (auto bytes = partition->getAttrOfType<IntegerAttr>(
            AccelDialect::getDramBytesAttrName()))
      dramBytes += bytes.getInt();
    return success();
  }
};
} // namespace
