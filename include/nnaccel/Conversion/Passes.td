//===- Passes.td - nnaccel conversion passes ---------------*- tablegen -*-===//
//
// Passes that lower accel IR towards the NPU ISA.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_CONVERSION_PASSES_TD
#define NNACCEL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def AccelPlanCardMemory : Pass<"accel-plan-card-memory", "ModuleOp"> {
  let summary = "Plan where every tensor of a card partition lives in DRAM";
  let description = [{
    For every `accel.card_partition`, on the module's target
    (`npu.target`): first lays weights out for the matrix
    unit (a constant K x N `fully_connected` weight is replaced by its
    N x K transpose, computed at compile time), then assigns each tensor a
    DRAM address with first-fit allocation in program order. Inputs,
    weights and results live for the whole program; every other value is
    freed after its last reader, so later values reuse its space.

    Data movement that is only address arithmetic gets no memory of its own
    and is marked `accel.in_place` (lowering emits nothing for it): a
    reshape is a view of its operand; a slice of one contiguous run at a
    DRAM-aligned offset is a view into its operand; a concat along its
    outermost non-unit axis whose parts are single-use results of ops in the
    partition has those ops write straight into its buffer. Values sharing
    memory share one buffer, freed when all of them are dead.

    Partitions of one function that share a card get their weights side by
    side at the bottom of DRAM, below the work memory they share, so a
    runtime can keep them resident while the partitions take turns.

    Intermediates (single results of card kernels that the partition does
    not return, that share no buffer, and that only kernels addressing
    tensors by DMA immediates touch) go to the card's SHARED memory instead
    while it has room (`shared-intermediates`, default on), recorded as
    `accel.result_shared_address`; the lowering moves their DMA operands
    there.

    The plan is recorded in the IR: `input_addresses` / `output_addresses`,
    `accel.dram_bytes` (the peak), `accel.dram_work_begin` and
    `accel.shared_bytes` on the partition, `accel.dram_address` (or
    `accel.result_shared_address`) on every constant and every op of the
    body (an array for ops with several results). A tensor that does not
    fit the target's DRAM is an error at the op that produces it.
  }];
  let options = [
    Option<"sharedIntermediates", "shared-intermediates", "bool",
           /*default=*/"true",
           "Keep intermediates in the card's SHARED memory while it has room">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect"];
  let statistics = [
    Statistic<"dramBytes", "dram-bytes", "Card DRAM bytes planned">
  ];
}

def AccelPlanCardTransfers
    : Pass<"accel-plan-card-transfers", "func::FuncOp"> {
  let summary = "Group card partitions into launches and pass values card to card";
  let description = [{
    Numbers the launches the runtime runs: a launch is a run of consecutive
    card partitions of distinct cards (a host partition or a second
    partition of a card starts the next), each partition's inputs coming
    from before the launch or, with `p2p` (default), from a partition of
    the same launch. Such a value goes card to card: the producer `send`s
    it at its end (after a barrier of its cores) and the consumer `recv`s
    it before its first op that depends on it (then a barrier of its
    cores), on a channel of its
    own, instead of the host reading it back and writing it again; the
    package then binds it to neither (unless the host needs it too).
    Records `accel.launch` on every card partition and inserts an
    `accel.transfer` (source and destination card, `channel`, `pieces`)
    between the partitions for each value passed card to card;
    accel-lower-to-npu emits the instructions.
    A value a forward lstm/gru makes (its Y, through reshapes) and another
    card's lstm/gru alone reads as its input sequence goes in `pieces` = one
    message per time step: the producing kernel sends each h_t as it makes
    it and the consuming kernel receives each chunk of steps right before
    it multiplies it, so stacked recurrent layers on several cards run as a
    pipeline. Without
    `p2p`, a partition that reads a value of the current launch starts the
    next one.
  }];
  let options = [
    Option<"p2p", "p2p", "bool", /*default=*/"true",
           "Pass values between card partitions of one launch card to card">
  ];
  let statistics = [
    Statistic<"numLaunches", "launches", "Launches of card partitions">,
    Statistic<"numTransfers", "transfers", "Values passed card to card">,
    Statistic<"numStreamed", "streamed",
              "Values passed card to card a time step at a time">
  ];
}

def AccelPinWeights : Pass<"accel-pin-weights", "ModuleOp"> {
  let summary = "Keep constant weights in the cores' matrix register files "
                "across runs";
  let description = [{
    Brainwave pins a model's weights in the matrix register files (MRF) of
    its cores: each run then multiplies from on-chip memory instead of
    streaming every weight tile from DRAM. This pass decides which weights
    a card partition pins, for partitions that are their card's only card
    partition in the function (another partition's kernels would overwrite
    the MRFs between runs).

    Candidates are `fully_connected` and `matmul` ops and int8 1x1 `conv`s
    (pixels as the matrix unit's rows) on one core whose weight (right
    operand) is a constant of the partition and whose kernel can multiply
    from pinned tiles (one MRF slot per N x N tile; a conv's F x C filter
    matrix as its kernel lays it out), and `lstm` / `gru` ops whose W and
    R are constants (f32, f16, bf16 or block float; every direction's W
    and R tiles), on one core or shared among several by the multi-core
    recurrent kernel, whose cores each pin their slices of W and R (a core
    with fewer columns needs fewer bytes). The MRF
    the other kernels need is measured, not guessed: every kernel of the
    partition is emitted into a scratch program and its highest MRF byte
    taken (streaming candidates count too, since a candidate may stay
    unpinned). Candidates are then pinned first-fit in program order into
    the rest of their cores' MRFs, from the top down, each weighed against
    the MRF the kernels that still stream need (not counting its own
    streaming need, which pinning it removes); when that leaves every
    streaming candidate pinned, the room they needed is offered again. A
    candidate on several cores starts at one address on all of them: the
    highest at which its slice on each core ends below what is already
    pinned there.

    The decision is recorded in the IR: `accel.mrf_address` on each pinned
    op (where its tiles start in its cores' MRFs) and `accel.mrf_work_bytes`
    on the partition (the MRF below the lowest pinned tile, which
    accel-lower-to-npu gives the partition's kernels). accel-lower-to-npu
    emits the tile loads into a setup program per core
    (`setup_programs`; every core of a multi-core op loads its own slices),
    which a runtime runs once per session.

    The same partitions also keep their small constants in the card's
    SHARED memory (`accel.pinned_shared_address` on the constant): a
    kernel that loads a bias, per-channel scales or depthwise taps from
    DRAM at the start of every run of its op waits the DRAM latency for a
    few bytes, from SHARED only SHARED's. Small means a transfer the DRAM
    latency dominates: at most the target's DRAM latency times its DRAM
    bytes per cycle (`shared-constant-bytes` sets another bound). They go
    smallest first above the SHARED the kernels use (`accel.shared_bytes`,
    which grows to cover them) while there is room, when every reader is a
    card kernel that reaches its operands by DMA immediates without SHARED
    scratch, and none multiplies it from pinned MRF tiles. The setup
    program of the partition's first core copies them from DRAM; kernels
    read them in SHARED.
  }];
  let options = [
    Option<"enabled", "enabled", "bool", /*default=*/"true",
           "Pin weights (false: leave every partition streaming)">,
    Option<"sharedConstantBytes", "shared-constant-bytes", "int64_t",
           /*default=*/"-1",
           "Largest constant kept in SHARED (-1: the target's DRAM latency "
           "times its DRAM bytes per cycle; 0: none)">
  ];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect"];
  let statistics = [
    Statistic<"numPinned", "pinned-weights", "Weights pinned in an MRF">,
    Statistic<"pinnedBytes", "pinned-bytes", "MRF bytes of pinned weights">,
    Statistic<"numSharedConstants", "shared-constants",
              "Constants kept in SHARED">,
    Statistic<"sharedConstantBytesTotal", "shared-constant-bytes",
              "SHARED bytes of constants kept there">
  ];
}

def AccelLowerToNPU : Pass<"accel-lower-to-npu", "ModuleOp"> {
  let summary = "Lower card partitions to per-core npu programs";
  let description = [{
    A dialect conversion of every `accel.card_partition` body: each op is
    lowered by its card kernel (CardKernelOpInterface) for the module's
    target (`npu.target`) (tiling to the native dimension,
    double-buffered on-chip memories, dependency tokens between the
    ld/ex/st queues) into one `npu.program` per core, added at module level
    and listed in the partition's `programs`, and is replaced by
    `npu.dram_tensor`s that name where the program leaves its results. The
    lowered body is thus the partition's memory contract: block arguments,
    constants with `accel.dram_address`, and the tensors it yields.

    Addresses come from the memory plan of `accel-plan-card-memory`; a
    partition without one is planned first. Every op in a card partition
    must be lowerable (accel-assign-placement guarantees it); anything else
    is an error naming the op and the reason. Partitions that already list
    programs are left alone.

    Each op runs on the core its placement names (`cores`, set by
    accel-split-ops; core 0 when absent). Cores share the card's DRAM and
    SHARED memory: when an op reads bytes another core wrote, or writes
    bytes another core accessed, since the last barrier, a `barrier` of all
    the partition's cores goes in front of it in every core's program.

    Pinned weights (accel-pin-weights): the kernels of a partition with
    `accel.mrf_work_bytes` see only that much of each core's MRF; an op with
    `accel.mrf_address` multiplies from its pinned tiles, whose loads go
    into the setup program of each core it runs on (`<program>_setup`,
    listed in the partition's `setup_programs`); each core's program
    records the MRF ranges pinned on it (`pinned_mrf`). A pinned op whose
    kernel cannot multiply from pinned tiles on its cores, or whose tiles
    would lie inside the MRF the kernels use or past the end of a core's
    MRF, is an error at the op.
  }];
  let dependentDialects = ["::mlir::nnaccel::accel::AccelDialect",
                           "::mlir::nnaccel::npu::NPUDialect"];
  let statistics = [
    Statistic<"numInstructions", "instructions", "NPU instructions emitted">,
    Statistic<"dramBytes", "dram-bytes", "Card DRAM bytes of the partitions">,
    Statistic<"numBarriers", "barriers", "Barriers between cores">
  ];
}

#endif // NNACCEL_CONVERSION_PASSES_TD
