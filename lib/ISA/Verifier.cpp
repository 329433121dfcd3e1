//===- Verifier.cpp - Static checks of soft-NPU programs ------------------===//
//
// Three phases, each reporting precise per-instruction diagnostics:
//  1. per-instruction rules (verifyInstruction): ranges, spaces, types, shapes,
//     flag legality;
//  2. structure: loop nesting, halt placement, chains, scalar def-before-use;
//  3. dispatch simulation: the scalar/loop unit is executed exactly, each
//     queue instruction's effective operands are bounds/alignment/definedness
//     checked, and the load/compute/store queues are run against token FIFOs
//     of the target's depth to find deadlocks and unbalanced tokens.
// Phase 3 runs only when 1 and 2 found no errors, since it needs a
// well-formed program to interpret.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/ISA/Verifier.h"

#include "nnaccel/ISA/Encoding.h"
#include "nnaccel/ISA/Operands.h"

#include <fmt/format.h>

#include <deque>
#include <set>

namespace nnaccel::isa {

namespace {

Space spaceOf(const Instruction &inst, const char *op) {
  return *operandSpace(inst, op);
}

/// Checks that operand `op` lives in one of `allowed`.
Error checkSpace(const Instruction &inst, const char *op,
                 std::initializer_list<Space> allowed) {
  Space s = spaceOf(inst, op);
  std::string names;
  for (Space a : allowed) {
    if (a == s)
      return Error::success();
    names += (names.empty() ? "" : ", ") + std::string(spaceName(a));
  }
  return Error::make(fmt::format("operand '{}' may not be in {} (allowed: {})",
                                 op, spaceName(s), names));
}

bool isFloatDomain(DType t) { return isFloat(t) || isBlock(t); }

Error checkRowShape(const Instruction &inst, const char *what, uint64_t rows,
                    uint64_t pitch, DType t, uint64_t cols) {
  if (rows > 1 && pitch < rowBytes(t, cols))
    return Error::make(fmt::format(
        "'{}' pitch {} is smaller than one row ({} x {} = {} bytes)", what,
        pitch, cols, dtypeName(t), rowBytes(t, cols)));
  if (pitch % elementAlign(t))
    return Error::make(fmt::format("'{}' pitch {} is not a multiple of the {} "
                                   "element size",
                                   what, pitch, dtypeName(t)));
  return Error::success();
}

Error checkCols(DType t, uint64_t cols, const char *what) {
  if (isBlock(t) && cols % blockElements(t))
    return Error::make(fmt::format("{} {} is not a multiple of the {} block "
                                   "size {}",
                                   what, cols, dtypeName(t), blockElements(t)));
  if (isSubByte(t) && cols % 2)
    return Error::make(fmt::format("{} {} must be even for packed {}", what,
                                   cols, dtypeName(t)));
  return Error::success();
}

Error checkMatmulTypes(DType dt, DType at, DType wt, const TargetDesc &t) {
  auto in = [](DType x, std::initializer_list<DType> s) {
    for (DType y : s)
      if (x == y)
        return true;
    return false;
  };
  bool ok = false;
  if (wt == DType::F32)
    ok = at == DType::F32 && dt == DType::F32;
  else if (wt == DType::F16 || wt == DType::BF16)
    ok = at == wt && in(dt, {DType::F32, wt});
  else if (wt == DType::FP8E4M3 || wt == DType::FP8E5M2)
    ok = in(at, {DType::FP8E4M3, DType::FP8E5M2}) &&
         in(dt, {DType::F32, DType::F16, DType::BF16});
  else if (wt == DType::I8 || wt == DType::I4)
    ok = in(at, {DType::I8, DType::U8}) && dt == DType::I32;
  else if (isBlock(wt))
    ok = in(at, {DType::F16, DType::BF16, DType::F32}) &&
         in(dt, {DType::F32, DType::F16, DType::BF16});
  if (!ok)
    return Error::make(fmt::format("unsupported matrix type combination "
                                   "{} x {} -> {}",
                                   dtypeName(at), dtypeName(wt),
                                   dtypeName(dt)));
  if (!t.macsPerCycle.count(wt))
    return Error::make(fmt::format("target '{}' has no matrix support for {} "
                                   "weights (core.macs_per_cycle)",
                                   t.name, dtypeName(wt)));
  return Error::success();
}

Error checkFlags(const Instruction &inst) {
  Queue q = inst.queue();
  uint8_t f = inst.flags;
  uint8_t tokens =
      f & (FlagPopPrev | FlagPopNext | FlagPushPrev | FlagPushNext);
  if (inst.opcode == Opcode::Sync && q == Queue::Ctl)
    return Error::make("sync must name the ld, ex or st queue");
  if (q == Queue::Ctl && tokens)
    return Error::make("control instructions cannot pop or push tokens");
  if (q == Queue::Ld && (f & (FlagPopPrev | FlagPushPrev)))
    return Error::make("the ld queue has no previous queue (@pop_prev/"
                       "@push_prev)");
  if (q == Queue::St && (f & (FlagPopNext | FlagPushNext)))
    return Error::make("the st queue has no next queue (@pop_next/"
                       "@push_next)");
  if ((f & FlagChain) && (q != Queue::Ex || inst.opcode == Opcode::Sync))
    return Error::make("@chain is only valid on compute instructions");
  return Error::success();
}

Error checkVector(const Instruction &inst) {
  const InstrDesc &d = inst.desc();
  uint64_t rows = inst.get("rows"), cols = inst.get("cols");
  if (rows == 0 || cols == 0)
    return Error::make("rows and cols must be at least 1");
  DType dt = static_cast<DType>(inst.get("dt"));
  if (Error e = checkSpace(inst, "dst", {Space::Vrf, Space::Acc, Space::Chain}))
    return e;
  auto [orows, ocols] = resultShape(inst);
  if (Error e = checkCols(dt, ocols, "result cols"))
    return e;
  // Chain operands have no memory layout, so pitches do not apply.
  bool dstChain = spaceOf(inst, "dst") == Space::Chain;
  if (!dstChain)
    if (Error e =
            checkRowShape(inst, "dpitch", orows, inst.get("dpitch"), dt, ocols))
      return e;
  if (inst.opcode == Opcode::VFill) {
    if (isBlock(dt) || isSubByte(dt))
      return Error::make(fmt::format("v.fill cannot write {}", dtypeName(dt)));
    return Error::success();
  }
  DType at = static_cast<DType>(inst.get("at"));
  if (Error e = checkSpace(inst, "a", {Space::Vrf, Space::Acc, Space::Chain}))
    return e;
  if (Error e = checkCols(at, cols, "cols"))
    return e;
  if (spaceOf(inst, "a") != Space::Chain)
    if (Error e =
            checkRowShape(inst, "apitch", rows, inst.get("apitch"), at, cols))
      return e;
  if (d.fieldIndex("b.space")) {
    DType bt = static_cast<DType>(inst.get("bt"));
    if (Error e = checkSpace(inst, "b", {Space::Vrf, Space::Acc}))
      return e;
    // v.sel's a is a mask tested against zero in its own domain; only the
    // selected value b and dst must agree.
    if (inst.opcode != Opcode::VSel && isFloatDomain(at) != isFloatDomain(bt))
      return Error::make(fmt::format("operands mix integer and floating "
                                     "types ({} and {})",
                                     dtypeName(at), dtypeName(bt)));
    auto bc = static_cast<Bcast>(inst.get("bcast"));
    uint64_t bcols = (bc == Bcast::None || bc == Bcast::Row) ? cols : 1;
    uint64_t brows = (bc == Bcast::None || bc == Bcast::Col) ? rows : 1;
    if (Error e = checkCols(bt, bcols, "b cols"))
      return e;
    if (Error e =
            checkRowShape(inst, "bpitch", brows, inst.get("bpitch"), bt, bcols))
      return e;
  }
  if (d.fieldIndex("s.space")) {
    if (Error e = checkSpace(inst, "s", {Space::Vrf, Space::Acc}))
      return e;
  }
  switch (inst.opcode) {
  case Opcode::VMov:
    if (dt != at)
      return Error::make(fmt::format("v.mov copies bits: dt {} must equal at "
                                     "{} (use v.cvt to convert)",
                                     dtypeName(dt), dtypeName(at)));
    break;
  case Opcode::VSigm:
  case Opcode::VTanh:
  case Opcode::VExp:
  case Opcode::VGelu:
  case Opcode::VGeluT:
  case Opcode::VRecip:
  case Opcode::VRsqrt:
    if (!isFloatDomain(at))
      return Error::make(fmt::format("{} needs a floating-point input, got {}",
                                     d.mnemonic, dtypeName(at)));
    break;
  case Opcode::VCeq:
  case Opcode::VCne:
  case Opcode::VClt:
  case Opcode::VCle:
  case Opcode::VCgt:
  case Opcode::VCge:
    if (isBlock(dt) || isSubByte(dt))
      return Error::make(fmt::format("{} cannot write its 0/1 mask as {}",
                                     d.mnemonic, dtypeName(dt)));
    break;
  case Opcode::VSel: {
    // The select keeps dst where the mask is zero: dst is read, so it cannot
    // be the chain, and it is kept bit for bit only if b has its type.
    DType bt = static_cast<DType>(inst.get("bt"));
    if (dstChain)
      return Error::make("v.sel reads its destination and cannot write the "
                         "chain");
    if (dt != bt)
      return Error::make(fmt::format("v.sel selects bits: dt {} must equal bt "
                                     "{}",
                                     dtypeName(dt), dtypeName(bt)));
    if (isBlock(dt) || isSubByte(dt) || isBlock(at) || isSubByte(at))
      return Error::make("v.sel works on whole-byte element types only");
    break;
  }
  case Opcode::VRqnt:
    if (!isInteger(dt) || dt == DType::I64)
      return Error::make(fmt::format("v.rqnt produces i32/i16/i8/u8/i4/u4, not "
                                     "{}",
                                     dtypeName(dt)));
    if (at != DType::I32 && !isFloat(at))
      return Error::make(fmt::format("v.rqnt input must be i32 or a float "
                                     "type, got {}",
                                     dtypeName(at)));
    break;
  case Opcode::VDqnt:
    if (!isInteger(at) || at == DType::I64)
      return Error::make(fmt::format("v.dqnt input must be an integer type, "
                                     "got {}",
                                     dtypeName(at)));
    if (dt != DType::F32 && dt != DType::F16 && dt != DType::BF16)
      return Error::make(fmt::format("v.dqnt produces f32, f16 or bf16, not {}",
                                     dtypeName(dt)));
    break;
  default:
    break;
  }
  return Error::success();
}

Error checkInstruction(const Instruction &inst, const TargetDesc &t,
                       unsigned card, unsigned core) {
  if (Error e = checkFieldRanges(inst))
    return e;
  if (Error e = checkFlags(inst))
    return e;
  switch (inst.opcode) {
  case Opcode::Barrier: {
    uint64_t mask = inst.get("mask");
    if (core < 32 && !(mask >> core & 1))
      return Error::make(fmt::format("barrier mask 0x{:x} does not include "
                                     "this core ({})",
                                     mask, core));
    if (t.coresPerCard < 32 && (mask >> t.coresPerCard))
      return Error::make(fmt::format("barrier mask 0x{:x} names cores beyond "
                                     "the {} of the target",
                                     mask, t.coresPerCard));
    return Error::success();
  }
  case Opcode::DmaLd: {
    if (Error e = checkSpace(inst, "src", {Space::Dram, Space::Shared}))
      return e;
    if (Error e = checkSpace(
            inst, "dst", {Space::Shared, Space::Vrf, Space::Mrf, Space::Acc}))
      return e;
    if (spaceOf(inst, "src") == Space::Shared &&
        spaceOf(inst, "dst") == Space::Shared)
      return Error::make("dma.ld from shared to shared is not supported");
    DType dt = static_cast<DType>(inst.get("dt"));
    uint64_t x = inst.get("x"), y = inst.get("y"), z = inst.get("z");
    if (!x || !y || !z)
      return Error::make("x, y and z must be at least 1");
    uint64_t pl = inst.get("pl"), pr = inst.get("pr");
    if (Error e = checkCols(dt, x, "x"))
      return e;
    if (isBlock(dt) && (pl || pr))
      return Error::make("block types cannot be padded along x");
    if (isSubByte(dt) && (pl % 2 || pr % 2))
      return Error::make("packed 4-bit padding along x must be even");
    if (Error e = checkRowShape(inst, "dpitch",
                                z * (inst.get("pt") + y + inst.get("pb")),
                                inst.get("dpitch"), dt, pl + x + pr))
      return e;
    if (y > 1 && inst.get("sy") < static_cast<int64_t>(rowBytes(dt, x)))
      return Error::make(fmt::format("source row stride sy {} is smaller than "
                                     "a row ({} bytes)",
                                     inst.get("sy"), rowBytes(dt, x)));
    return Error::success();
  }
  case Opcode::DmaSt: {
    if (Error e =
            checkSpace(inst, "src", {Space::Shared, Space::Vrf, Space::Acc}))
      return e;
    if (Error e = checkSpace(inst, "dst", {Space::Dram, Space::Shared}))
      return e;
    if (spaceOf(inst, "src") == Space::Shared &&
        spaceOf(inst, "dst") == Space::Shared)
      return Error::make("dma.st from shared to shared is not supported");
    DType dt = static_cast<DType>(inst.get("dt"));
    uint64_t x = inst.get("x"), y = inst.get("y"), z = inst.get("z");
    if (!x || !y || !z)
      return Error::make("x, y and z must be at least 1");
    if (Error e = checkCols(dt, x, "x"))
      return e;
    if (y > 1 && inst.get("dy") < static_cast<int64_t>(rowBytes(dt, x)))
      return Error::make(fmt::format("destination row stride dy {} is smaller "
                                     "than a row ({} bytes)",
                                     inst.get("dy"), rowBytes(dt, x)));
    return checkRowShape(inst, "spitch", y * z, inst.get("spitch"), dt, x);
  }
  case Opcode::EmbGather: {
    if (Error e = checkSpace(inst, "table", {Space::Dram, Space::Shared}))
      return e;
    if (Error e =
            checkSpace(inst, "dst", {Space::Shared, Space::Vrf, Space::Acc}))
      return e;
    for (const char *op : {"idx", "len", "wts"})
      if (spaceOf(inst, op) == Space::Chain)
        return Error::make(fmt::format("operand '{}' cannot be the chain", op));
    DType dt = static_cast<DType>(inst.get("dt"));
    if (dt != DType::F32 && dt != DType::F16 && dt != DType::BF16)
      return Error::make(fmt::format("emb.gather produces f32, f16 or bf16, "
                                     "not {}",
                                     dtypeName(dt)));
    uint64_t dim = inst.get("dim");
    if (!dim || !inst.get("nseg") || !inst.get("nrows"))
      return Error::make("dim, nseg and nrows must be at least 1");
    uint64_t need = 0;
    switch (static_cast<EmbFmt>(inst.get("fmt"))) {
    case EmbFmt::F32:
      need = 4 * dim;
      break;
    case EmbFmt::F16:
    case EmbFmt::BF16:
      need = 2 * dim;
      break;
    case EmbFmt::RW8:
      need = dim + 8;
      break;
    case EmbFmt::RW4:
      need = (dim + 1) / 2 + 4;
      break;
    }
    if (static_cast<uint64_t>(inst.get("rowbytes")) < need)
      return Error::make(
          fmt::format("rowbytes {} is smaller than one {} row "
                      "of {} elements ({} bytes)",
                      inst.get("rowbytes"),
                      enumName(EnumKind::EmbFmt, inst.get("fmt")), dim, need));
    if (static_cast<Pool>(inst.get("pool")) == Pool::None && inst.get("offs"))
      return Error::make("offs requires pooling (pool=sum or pool=mean)");
    return checkRowShape(inst, "dpitch", inst.get("nseg"), inst.get("dpitch"),
                         dt, dim);
  }
  case Opcode::Recv:
  case Opcode::Send: {
    const char *op = inst.opcode == Opcode::Recv ? "dst" : "src";
    if (Error e = checkSpace(
            inst, op, {Space::Dram, Space::Shared, Space::Vrf, Space::Acc}))
      return e;
    if (!inst.get("bytes"))
      return Error::make("bytes must be at least 1");
    uint64_t peer = inst.get("peer");
    if (peer != 255 && (peer >= t.cards || peer == card))
      return Error::make(fmt::format("peer {} is not another card of the "
                                     "target (cards 0..{}, this card {}, 255 "
                                     "= host)",
                                     peer, t.cards - 1, card));
    return Error::success();
  }
  case Opcode::Mm: {
    if (Error e = checkSpace(inst, "a", {Space::Vrf, Space::Acc}))
      return e;
    if (Error e = checkSpace(inst, "w", {Space::Mrf}))
      return e;
    if (Error e =
            checkSpace(inst, "dst", {Space::Vrf, Space::Acc, Space::Chain}))
      return e;
    uint64_t m = inst.get("m"), k = inst.get("k"), n = inst.get("n");
    if (!m || !k || !n)
      return Error::make("m, k and n must be at least 1");
    if (k > t.nativeDim || n > t.nativeDim)
      return Error::make(fmt::format("tile {}x{} (k x n) exceeds the native "
                                     "dimension {}",
                                     k, n, t.nativeDim));
    DType dt = static_cast<DType>(inst.get("dt"));
    DType at = static_cast<DType>(inst.get("at"));
    DType wtField = static_cast<DType>(inst.get("wt"));
    // wvar selects the E5M2 element variant of MXFP8 and means nothing for
    // any other weight code: rejecting it keeps the bit free for other
    // types' variants in later minor versions.
    if (inst.get("wvar") && wtField != DType::MXFP8E4M3)
      return Error::make(fmt::format(
          "wvar=1 (E5M2 weight elements) is only defined with wt=mxfp8e4m3 "
          "(code 15; assembly wt=mxfp8e5m2), not wt={}",
          dtypeName(wtField)));
    DType wt = mmWeightType(wtField, inst.get("wvar"));
    if (Error e = checkMatmulTypes(dt, at, wt, t))
      return e;
    if (Error e = checkCols(wt, k, "k"))
      return e;
    if (Error e = checkCols(at, k, "k"))
      return e;
    if (Error e = checkCols(dt, n, "n"))
      return e;
    if (inst.get("acc") && (spaceOf(inst, "dst") != Space::Acc ||
                            (dt != DType::F32 && dt != DType::I32)))
      return Error::make("acc=1 needs an f32 or i32 destination in acc");
    if (inst.get("azp") && !isInteger(at))
      return Error::make("azp (activation zero point) needs integer "
                         "activations");
    if (Error e = checkRowShape(inst, "apitch", m, inst.get("apitch"), at, k))
      return e;
    if (spaceOf(inst, "dst") == Space::Chain)
      return Error::success();
    return checkRowShape(inst, "dpitch", m, inst.get("dpitch"), dt, n);
  }
  default:
    if (inst.desc().queue == Queue::Ex)
      return checkVector(inst);
    return Error::success();
  }
}

/// Registers an instruction reads / writes (scalar unit view).
void scalarUses(const Instruction &inst, std::vector<unsigned> &reads,
                std::vector<unsigned> &writes) {
  const InstrDesc &d = inst.desc();
  for (unsigned i = 0; i < d.numFields; ++i) {
    const FieldDesc &f = d.fields[i];
    auto r = static_cast<unsigned>(inst.fields[i]) & 31u;
    if (f.kind == FieldKind::MemReg) {
      reads.push_back(r);
    } else if (f.kind == FieldKind::SReg) {
      std::string_view name = f.name;
      if (name == "rd" || (name == "idx" && r != 0))
        writes.push_back(r);
      else if (name != "idx")
        reads.push_back(r);
    }
  }
}

class ProgramVerifier {
public:
  ProgramVerifier(const Program &p, const TargetDesc &t, const VerifyOptions &o)
      : p_(p), t_(t), o_(o) {}

  std::vector<Diagnostic> run();

private:
  void error(size_t i, std::string msg) {
    diags_.push_back({i, Diagnostic::Severity::Error, std::move(msg)});
  }
  void structure();
  void chains();
  void simulate();
  void checkAccesses(size_t i, const Instruction &inst, const ScalarRegs &s);

  const Program &p_;
  const TargetDesc &t_;
  const VerifyOptions &o_;
  std::vector<Diagnostic> diags_;
  std::vector<size_t> matchingEnd_; ///< loop index -> endloop index
  std::set<size_t> reported_;       ///< dynamic errors: once per instruction
  // Definedness of on-chip memories, per granule.
  std::vector<std::vector<bool>> defined_;
  std::array<uint64_t, NumMemSpaces> granule_{};
};

void ProgramVerifier::structure() {
  const auto &insts = p_.instructions;
  matchingEnd_.assign(insts.size(), 0);
  std::vector<size_t> stack;
  std::array<bool, 32> defined{};
  defined[0] = true;
  for (size_t i = 0; i < insts.size(); ++i) {
    const Instruction &inst = insts[i];
    if (inst.opcode == Opcode::Loop || inst.opcode == Opcode::LoopR) {
      stack.push_back(i);
      if (stack.size() > t_.loopDepth)
        error(i, fmt::format("loop nesting depth {} exceeds the target's "
                             "loop_depth {}",
                             stack.size(), t_.loopDepth));
    } else if (inst.opcode == Opcode::EndLoop) {
      if (stack.empty())
        error(i, "endloop without a matching loop");
      else {
        matchingEnd_[stack.back()] = i;
        stack.pop_back();
      }
    } else if (inst.opcode == Opcode::Halt) {
      if (i + 1 != insts.size())
        error(i, "halt must be the last instruction");
      else if (!stack.empty())
        error(i, "halt inside a loop");
    }
    std::vector<unsigned> reads, writes;
    scalarUses(inst, reads, writes);
    for (unsigned r : reads)
      if (!defined[r]) {
        error(i, fmt::format("reads scalar register s{} before any "
                             "instruction writes it",
                             r));
        defined[r] = true; // report each register once
      }
    for (unsigned r : writes) {
      if (r == 0)
        error(i, "writes s0, which is hardwired to zero");
      defined[r] = true;
    }
  }
  for (size_t open : stack)
    error(open, "loop is never closed by endloop");
  if (insts.empty() || insts.back().opcode != Opcode::Halt)
    error(insts.empty() ? Diagnostic::NoIndex : insts.size() - 1,
          "program does not end with halt");
}

void ProgramVerifier::chains() {
  const auto &insts = p_.instructions;
  size_t start = 0;
  for (size_t i = 0; i < insts.size(); ++i) {
    const Instruction &inst = insts[i];
    bool fed = i > 0 && (insts[i - 1].flags & FlagChain);
    bool readsChain = inst.desc().queue == Queue::Ex &&
                      operandSpace(inst, "a") == Space::Chain;
    if (!fed)
      start = i;
    if (readsChain && !fed)
      error(i, "reads the chain but the previous instruction does not "
               "forward its result (@chain)");
    if (fed) {
      const Instruction &prev = insts[i - 1];
      if (!readsChain) {
        error(i - 1, fmt::format("@chain forwards to '{}', which does not "
                                 "read the chain as operand 'a'",
                                 inst.desc().mnemonic));
        continue;
      }
      if (std::pair<uint64_t, uint64_t>(inst.get("rows"), inst.get("cols")) !=
          resultShape(prev))
        error(i, fmt::format("chain shape mismatch: producer yields {}x{}, "
                             "this instruction reads {}x{}",
                             resultShape(prev).first, resultShape(prev).second,
                             inst.get("rows"), inst.get("cols")));
      if (inst.get("at") != prev.get("dt"))
        error(i, fmt::format("chain type mismatch: producer writes {}, this "
                             "instruction reads {}",
                             enumName(EnumKind::DType, prev.get("dt")),
                             enumName(EnumKind::DType, inst.get("at"))));
      if (inst.flags & (FlagPopPrev | FlagPopNext))
        error(i, "only the first instruction of a chain may pop tokens");
    }
    if ((inst.flags & FlagChain) &&
        (inst.flags & (FlagPushPrev | FlagPushNext)))
      error(i, "only the last instruction of a chain may push tokens");
    if (inst.desc().queue == Queue::Ex && !(inst.flags & FlagChain) &&
        operandSpace(inst, "dst") == Space::Chain)
      error(i, "writes to the chain without @chain: the result is lost");
    if ((inst.flags & FlagChain) && i + 1 == insts.size())
      error(i, "@chain on the last instruction");
    // End of a chain: check its length and MFU use.
    bool ends = !(inst.flags & FlagChain) || i + 1 == insts.size();
    if (ends && i > start) {
      size_t len = i - start + 1, mfu = 0;
      for (size_t j = start; j <= i; ++j)
        if (insts[j].opcode != Opcode::Mm && insts[j].opcode != Opcode::VMov)
          ++mfu;
      if (len > t_.maxChainLength)
        error(start, fmt::format("chain of {} instructions exceeds the "
                                 "target's max_chain_length {}",
                                 len, t_.maxChainLength));
      if (mfu > t_.mfuCount)
        error(start, fmt::format("chain uses {} MFU operations but the "
                                 "target has {} MFUs",
                                 mfu, t_.mfuCount));
    }
  }
}

void ProgramVerifier::checkAccesses(size_t i, const Instruction &inst,
                                    const ScalarRegs &s) {
  for (const MemAccess &a : memoryAccesses(inst, s)) {
    if (reported_.count(i))
      return;
    auto fail = [&](std::string msg) {
      if (a.reg)
        msg += fmt::format(" (s{} = {})", a.reg, s[a.reg]);
      error(i, std::move(msg));
      reported_.insert(i);
    };
    const MemoryDesc &m = t_.memory(a.space);
    std::string_view sp = spaceName(a.space);
    if (a.start < 0 || static_cast<uint64_t>(a.end) > m.bytes) {
      fail(fmt::format("operand '{}' accesses {}[0x{:x}, 0x{:x}) outside the "
                       "{}-byte {}",
                       a.operand, sp, a.start, a.end, m.bytes, sp));
      return;
    }
    unsigned align = std::max<unsigned>(a.align, m.align);
    if (a.start % align) {
      fail(fmt::format("operand '{}' address 0x{:x} in {} is not {}-byte "
                       "aligned",
                       a.operand, a.start, sp, align));
      return;
    }
    if (a.space == Space::Dram || a.space == Space::Shared || a.end == a.start)
      continue;
    auto &def = defined_[static_cast<size_t>(a.space)];
    uint64_t g = granule_[static_cast<size_t>(a.space)];
    uint64_t first = static_cast<uint64_t>(a.start) / g;
    uint64_t last = (static_cast<uint64_t>(a.end) - 1) / g;
    if (a.read) {
      for (uint64_t k = first; k <= last; ++k)
        if (!def[k]) {
          std::string what = a.space == Space::Vrf
                                 ? fmt::format("vector register v{}", k)
                                 : fmt::format("{} bytes [0x{:x}, 0x{:x})", sp,
                                               k * g, (k + 1) * g);
          fail(fmt::format("operand '{}' reads {}, which no earlier "
                           "instruction writes",
                           a.operand, what));
          return;
        }
    }
    if (a.write)
      for (uint64_t k = first; k <= last; ++k)
        def[k] = true;
  }
}

void ProgramVerifier::simulate() {
  const auto &insts = p_.instructions;
  for (unsigned s = 0; s < NumMemSpaces; ++s) {
    auto sp = static_cast<Space>(s);
    granule_[s] = sp == Space::Vrf ? t_.vrfRegisterBytes : 64;
    if (sp == Space::Vrf || sp == Space::Mrf || sp == Space::Acc)
      defined_.emplace_back((t_.memory(sp).bytes + granule_[s] - 1) /
                            granule_[s]);
    else
      defined_.emplace_back();
  }
  for (const VerifyOptions::Range &range : o_.preloaded) {
    auto &def = defined_[static_cast<size_t>(range.space)];
    uint64_t g = granule_[static_cast<size_t>(range.space)];
    for (uint64_t k = range.begin / g; k < def.size() && k * g < range.end; ++k)
      def[k] = true;
  }

  // Token channels: 0 ld->ex, 1 ex->ld, 2 ex->st, 3 st->ex.
  static constexpr const char *ChanName[5] = {"ld to ex", "ex to ld",
                                              "ex to st", "st to ex", "none"};
  // Slot 4 is a sink for the (flag-checked, never used) "no channel" case,
  // which keeps every index in bounds.
  std::array<uint64_t, 5> tokens{};
  std::array<size_t, 5> lastPush{};
  // For queue q: channel popped by pop_prev/pop_next, pushed by push_*.
  auto popChan = [](Queue q, bool prev) -> size_t {
    if (q == Queue::Ld)
      return prev ? 4 : 1;
    if (q == Queue::Ex)
      return prev ? 0 : 3;
    return prev ? 2 : 4;
  };
  auto pushChan = [](Queue q, bool prev) -> size_t {
    if (q == Queue::Ld)
      return prev ? 4 : 0;
    if (q == Queue::Ex)
      return prev ? 1 : 2;
    return prev ? 3 : 4;
  };
  std::array<std::deque<size_t>, 3> queues;
  auto runnable = [&](size_t i, std::string *why) {
    const Instruction &inst = insts[i];
    Queue q = inst.queue();
    for (bool prev : {true, false}) {
      uint8_t pop = prev ? FlagPopPrev : FlagPopNext;
      uint8_t push = prev ? FlagPushPrev : FlagPushNext;
      if ((inst.flags & pop) && tokens[popChan(q, prev)] == 0) {
        if (why)
          *why = fmt::format("waits for a token from {} that is never pushed",
                             ChanName[popChan(q, prev)]);
        return false;
      }
      if ((inst.flags & push) &&
          tokens[pushChan(q, prev)] >= t_.tokenFifoDepth) {
        if (why)
          *why = fmt::format("cannot push: the {} token FIFO is full ({} "
                             "tokens never popped)",
                             ChanName[pushChan(q, prev)], t_.tokenFifoDepth);
        return false;
      }
    }
    return true;
  };

  ScalarRegs s{};
  struct LoopState {
    size_t begin;
    uint64_t count, iter;
    unsigned idx;
    int64_t step;
  };
  std::vector<LoopState> loops;
  size_t pc = 0;
  uint64_t dispatched = 0;
  bool halted = insts.empty();
  while (true) {
    bool progress = false;
    std::string dispatchWait;
    while (!halted) {
      if (++dispatched > o_.maxDispatched) {
        diags_.push_back({Diagnostic::NoIndex, Diagnostic::Severity::Warning,
                          fmt::format("dynamic checks stopped after {} "
                                      "dispatched instructions (bounds, "
                                      "definedness and tokens beyond this "
                                      "point are unchecked)",
                                      o_.maxDispatched)});
        return;
      }
      const Instruction &inst = insts[pc];
      Queue q = inst.queue();
      if (q != Queue::Ctl) {
        auto &queue = queues[static_cast<size_t>(q)];
        if (queue.size() >= t_.instrQueueDepth) {
          --dispatched;
          dispatchWait = fmt::format("dispatch of instruction {} blocks on a "
                                     "full {} queue",
                                     pc, queueName(q));
          break;
        }
        checkAccesses(pc, inst, s);
        queue.push_back(pc++);
        progress = true;
        continue;
      }
      auto reg = [&](const char *f) {
        return static_cast<unsigned>(inst.get(f)) & 31u;
      };
      auto setReg = [&](int64_t v) {
        unsigned rd = reg("rd");
        if (rd)
          s[rd] = v;
      };
      auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
      auto ua = [&](const char *f) { return static_cast<uint64_t>(s[reg(f)]); };
      switch (inst.opcode) {
      case Opcode::Halt:
        halted = true;
        break;
      case Opcode::Barrier:
        if (!queues[0].empty() || !queues[1].empty() || !queues[2].empty()) {
          --dispatched;
          dispatchWait = fmt::format("barrier {} waits for the queues to "
                                     "drain",
                                     pc);
          goto runQueues;
        }
        break;
      case Opcode::Loop:
      case Opcode::LoopR: {
        int64_t count =
            inst.opcode == Opcode::Loop ? inst.get("count") : s[reg("cnt")];
        if (count < 0) {
          error(pc, fmt::format("loop count register s{} holds {}", reg("cnt"),
                                count));
          return;
        }
        if (count == 0) {
          pc = matchingEnd_[pc];
          break;
        }
        unsigned idx = reg("idx");
        if (idx)
          s[idx] = 0;
        loops.push_back(
            {pc, static_cast<uint64_t>(count), 0, idx, inst.get("step")});
        break;
      }
      case Opcode::EndLoop: {
        LoopState &l = loops.back();
        if (++l.iter < l.count) {
          if (l.idx)
            s[l.idx] = wrap(l.iter * static_cast<uint64_t>(l.step));
          pc = l.begin;
        } else {
          loops.pop_back();
        }
        break;
      }
      case Opcode::SLi:
        setReg(inst.get("imm"));
        break;
      case Opcode::SAddi:
        setReg(wrap(ua("ra") + static_cast<uint64_t>(inst.get("imm"))));
        break;
      case Opcode::SMuli:
        setReg(wrap(ua("ra") * static_cast<uint64_t>(inst.get("imm"))));
        break;
      case Opcode::SAdd:
        setReg(wrap(ua("ra") + ua("rb")));
        break;
      case Opcode::SSub:
        setReg(wrap(ua("ra") - ua("rb")));
        break;
      case Opcode::SMul:
        setReg(wrap(ua("ra") * ua("rb")));
        break;
      case Opcode::SShli:
        setReg(wrap(ua("ra") << inst.get("sh")));
        break;
      case Opcode::SShri:
        setReg(wrap(ua("ra") >> inst.get("sh")));
        break;
      default:
        break;
      }
      ++pc;
      progress = true;
    }
  runQueues:
    for (auto &queue : queues)
      while (!queue.empty() && runnable(queue.front(), nullptr)) {
        const Instruction &inst = insts[queue.front()];
        Queue q = inst.queue();
        for (bool prev : {true, false}) {
          if (inst.flags & (prev ? FlagPopPrev : FlagPopNext))
            --tokens[popChan(q, prev)];
          if (inst.flags & (prev ? FlagPushPrev : FlagPushNext)) {
            ++tokens[pushChan(q, prev)];
            lastPush[pushChan(q, prev)] = queue.front();
          }
        }
        queue.pop_front();
        progress = true;
      }
    bool empty = queues[0].empty() && queues[1].empty() && queues[2].empty();
    if (halted && empty)
      break;
    if (!progress) {
      for (auto &queue : queues) {
        std::string why;
        if (!queue.empty() && !runnable(queue.front(), &why)) {
          error(queue.front(),
                fmt::format("deadlock: this {} instruction {}{}",
                            queueName(insts[queue.front()].queue()), why,
                            dispatchWait.empty() ? "" : "; " + dispatchWait));
          return;
        }
      }
      error(pc, "deadlock: " + dispatchWait);
      return;
    }
  }
  for (unsigned c = 0; c < 4; ++c)
    if (tokens[c])
      error(lastPush[c], fmt::format("unbalanced dependency tokens: {} "
                                     "token(s) pushed from {} are never "
                                     "popped",
                                     tokens[c], ChanName[c]));
}

std::vector<Diagnostic> ProgramVerifier::run() {
  if (p_.card >= t_.cards)
    error(Diagnostic::NoIndex, fmt::format("program is for card {} but the "
                                           "target has {} card(s)",
                                           p_.card, t_.cards));
  if (p_.core >= t_.coresPerCard)
    error(Diagnostic::NoIndex, fmt::format("program is for core {} but the "
                                           "target has {} core(s) per card",
                                           p_.core, t_.coresPerCard));
  for (size_t i = 0; i < p_.instructions.size(); ++i)
    if (Error e = checkInstruction(p_.instructions[i], t_, p_.card, p_.core))
      error(i, e.message());
  if (!diags_.empty())
    return diags_; // later phases interpret fields and need valid ones
  structure();
  chains();
  if (diags_.empty())
    simulate();
  return diags_;
}

} // namespace

std::string Diagnostic::str(const Program *program) const {
  std::string sev = severity == Severity::Error ? "error" : "warning";
  if (index == NoIndex)
    return fmt::format("{}: program: {}", sev, message);
  if (program && index < program->instructions.size())
    return fmt::format("{}: instruction {} ({}): {}", sev, index,
                       program->instructions[index].desc().mnemonic, message);
  return fmt::format("{}: instruction {}: {}", sev, index, message);
}

Error verifyInstruction(const Instruction &inst, const TargetDesc &target,
                        unsigned card, unsigned core) {
  return checkInstruction(inst, target, card, core);
}

std::vector<Diagnostic> verifyProgram(const Program &program,
                                      const TargetDesc &target,
                                      const VerifyOptions &options) {
  return ProgramVerifier(program, target, options).run();
}

bool succeeded(const std::vector<Diagnostic> &diags) {
  for (const Diagnostic &d : diags)
    if (d.severity == Diagnostic::Severity::Error)
      return false;
  return true;
}

} // namespace nnaccel::isa
