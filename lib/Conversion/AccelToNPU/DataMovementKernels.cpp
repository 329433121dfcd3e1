//===- DataMovementKernels.cpp - reshape/expand/transpose/concat/slice/pad ===//
//
// NPU kernels for the accel ops that move data without arithmetic. Every one
// of them is a set of *strided box copies* from a source tensor to a
// destination tensor, both dense row-major in card DRAM:
//
//   for every index i of a box of sizes d[0..n):
//     dst[dstOffset + sum i_k * dstStride_k] = src[srcOffset + sum i_k *
//     srcStride_k]
//
// reshape is one contiguous copy; transpose permutes the source strides;
// slice scales them by the steps and offsets the start; expand gives
// broadcast dimensions a source stride of 0; concat is one box per input at
// an offset of the output; pad is a fill of the output plus one box for the
// interior (or, when only the last two dimensions are padded by at most 7,
// a single pass using the DMA engine's padding fields).
//
// A box is normalised (unit dimensions dropped, dimensions that are
// contiguous on both sides merged) and then cut into *leaves*: one `dma.ld`
// from DRAM into a VRF slot and one `dma.st` from that slot back to DRAM.
// When the innermost source stride is 1 the leaf moves x-element rows
// (x contiguous, up to two more strided dimensions y and z); otherwise it
// uses the element-gather trick (`x=1`: every DMA "row" is one element, so
// `y` elements with source stride `sy` land as one dense VRF row, and `z`
// such rows), which is how transposes and strided slices are done. Leaves
// rotate through VRF staging slots (two halves of the VRF, or eight smaller
// ones for small leaves) and each store is emitted only when its slot is
// about to be reused, so as many loads as slots are in flight; the
// ProgramEmitter derives the tokens from the instructions.
//
// The ISA requires every DRAM operand base to be 64-byte aligned (tensor
// bases are). A leaf whose source offset is not aligned loads from the
// aligned address below instead, `delta` elements early: contiguous rows
// grow by delta and the store skips the first delta elements of each row;
// gathered elements become (1 + delta)-element rows and the store picks the
// last of each (x = 1). Stores cannot start early without clobbering their
// neighbours, so a leaf whose destination offset is unaligned cannot be
// expressed; `check` plans every leaf and refuses such copies (they then
// run on the host), except for concat, whose output rows are then
// assembled in the VRF and stored whole (StagedConcat).
//
// The copies are bit copies, so f32, f16 and bf16 tensors only differ in
// the element size and the DMA's dtype (strides and offsets count whole
// elements, so sub-byte and block types stay on the host). A shifted 2-byte
// load whose data would start 2 bytes off the VRF's 4-byte alignment gets one
// element of DMA left padding per staged row, so the store reads from an
// aligned base.
//
//===----------------------------------------------------------------------===//

#include "CardKernels.h"
#include "KernelOperands.h"

#include "Accel/AccelOps.h"
#include "Accel/ElementTypes.h"

#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <numeric>

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;
using namespace mlir::nnaccel::npu_lowering;
using ::nnaccel::isa::Space;
using ::nnaccel::isa::TargetDesc;

namespace {

/// Upper bound on the DMA transfers one op may expand to; beyond it the
/// program would be dominated by instruction overhead (and grow without
/// bound), so the op stays on the host.
constexpr int64_t kMaxLeaves = 4096;

/// One dimension of a strided box copy; strides in elements.
struct Dim {
  int64_t size, src, dst;
};

/// A strided box copy between two DRAM tensors (offsets in elements).
struct BoxCopy {
  SmallVector<Dim> dims; // outermost first
  int64_t srcOffset = 0, dstOffset = 0;
  uint64_t srcBase = 0, dstBase = 0; // DRAM addresses
  int64_t dstElements = 0;           // destination tensor size
  ElementFormat format = kF32Format; // of both tensors
};

/// One DMA in + DMA out pair (offsets and strides in bytes).
struct Leaf {
  int64_t srcOffset, dstOffset;
  // dma.ld
  int64_t ldX, ldY, ldZ, sy, sz, dpitch;
  // dma.st
  int64_t stX, stY, stZ, dy, dz, spitch;
  int64_t pl = 0; // dma.ld left padding (elements) realigning a shift
  int64_t shift;  // bytes: where the wanted data starts in the VRF rows
};

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Drops unit dimensions and merges neighbours that are contiguous in both
/// source and destination, so e.g. a reshape becomes one dimension.
SmallVector<Dim> normalize(ArrayRef<Dim> dims) {
  SmallVector<Dim> result;
  for (const Dim &dim : dims) {
    if (dim.size == 1)
      continue;
    if (!result.empty()) {
      Dim &outer = result.back();
      // `outer` is followed by `dim`: merge when stepping outer once equals
      // stepping dim over its whole extent, on both sides.
      if (outer.src == dim.src * dim.size && outer.dst == dim.dst * dim.size) {
        outer = {outer.size * dim.size, dim.src, dim.dst};
        continue;
      }
    }
    result.push_back(dim);
  }
  if (result.empty())
    result.push_back({1, 1, 1});
  return result;
}

int64_t gcd64(int64_t a, int64_t b) { return std::gcd(a, b); }

/// Largest count <= `limit` of a chunked dimension whose chunk starts stay
/// aligned (a chunk starts at c * count * stride elements); the full size
/// when it fits.
int64_t alignedChunk(int64_t size, int64_t limit, ArrayRef<int64_t> strides,
                     int64_t alignElems) {
  if (size <= limit)
    return size;
  int64_t multiple = 1;
  for (int64_t stride : strides) {
    int64_t g = gcd64(alignElems, std::max<int64_t>(stride, 0));
    if (g == 0)
      continue; // stride 0: every chunk starts at the same place
    int64_t need = alignElems / g;
    multiple = multiple / gcd64(multiple, need) * need;
  }
  int64_t count = limit / multiple * multiple;
  return count > 0 ? count : limit;
}

/// Cuts `copy` into leaves of at most `slotElems` elements, calling `visit`
/// on each in program order. Returns false with `reason` when the copy
/// cannot be expressed (negative or broadcast innermost strides, unaligned
/// offsets, too many transfers).
bool planLeaves(const BoxCopy &copy, int64_t slotBytes, int64_t alignBytes,
                int64_t vrfAlign, bool shifted, std::string &reason,
                const std::function<void(const Leaf &)> &visit) {
  SmallVector<Dim> dims = normalize(copy.dims);
  for (const Dim &dim : dims)
    if (dim.src < 0 || dim.dst < 0) {
      reason = "negative strides (reversed slices) are not lowered to the card";
      return false;
    }
  const Dim inner = dims.back();
  if (inner.dst != 1) {
    reason = "the destination is not contiguous along its innermost dimension";
    return false;
  }
  const ElementFormat fmt = copy.format;
  const int64_t e = fmt.elementBytes();
  const int64_t slotElems = slotBytes / e;
  const int64_t alignElems = std::max<int64_t>(alignBytes / e, 1);
  // Shifted loads start up to alignElems - 1 elements early, plus the left
  // padding that realigns narrow elements: rows grow by that much
  // (contiguous rows) or to alignElems elements (gathers).
  const int64_t maxPad = vrfAlign > e ? vrfAlign / e - 1 : 0;
  const int64_t margin = shifted ? alignElems - 1 + maxPad : 0;
  // Roles: which normalised dimension each DMA field walks (-1: none).
  int n = static_cast<int>(dims.size());
  int xDim = -1, yDim = -1, zDim = -1;
  int64_t xChunk = 1, yChunk = 1, zChunk = 1;
  bool gather = inner.src != 1;
  if (!gather) {
    xDim = n - 1;
    xChunk = alignedChunk(inner.size, std::min(kMaxCount, slotElems) - margin,
                          {1}, alignElems);
    if (xChunk < 1) {
      reason = "the VRF is too small for the copy";
      return false;
    }
    if (n >= 2) {
      const Dim &d = dims[n - 2];
      // y needs row strides of at least one row on both sides; z has no
      // such rule (a zero source stride repeats the same rows: expand).
      if (d.src >= xChunk + margin && d.dst >= xChunk) {
        yDim = n - 2;
        if (n >= 3)
          zDim = n - 3;
      } else {
        zDim = n - 2;
      }
    }
  } else {
    if (inner.src == 0) {
      reason = "broadcasting along the innermost dimension is not lowered to "
               "the card";
      return false;
    }
    // Gather: x = 1, the innermost dimension is the DMA's y (becoming one
    // dense VRF row), the next one its z (dense rows, stored with pitch dy).
    yDim = n - 1;
    if (n >= 2 && dims[n - 2].dst >= std::min(inner.size, kMaxDmaYZ))
      zDim = n - 2;
  }
  auto chunkOf = [&](int dim, int64_t limit) {
    const Dim &d = dims[dim];
    return alignedChunk(d.size, std::max<int64_t>(limit, 1), {d.src, d.dst},
                        alignElems);
  };
  if (yDim >= 0)
    yChunk = chunkOf(
        yDim, std::min(kMaxDmaYZ,
                       slotElems / (gather ? 1 + margin : xChunk + margin)));
  if (zDim >= 0)
    zChunk = chunkOf(
        zDim, std::min(kMaxDmaYZ,
                       slotElems /
                           ((gather ? 1 + margin : xChunk + margin) * yChunk)));
  if (gather && zDim >= 0 && dims[zDim].dst < yChunk) {
    reason = "the destination rows overlap";
    return false;
  }

  // Iteration space: every dimension, stepping by its chunk in leaf roles.
  SmallVector<int64_t> step(n, 1);
  if (xDim >= 0)
    step[xDim] = xChunk;
  if (yDim >= 0)
    step[yDim] = yChunk;
  if (zDim >= 0)
    step[zDim] = zChunk;
  int64_t leaves = 1;
  for (int i = 0; i < n; ++i) {
    leaves *= (dims[i].size + step[i] - 1) / step[i];
    if (leaves > kMaxLeaves) {
      reason = "the copy would need more than " + std::to_string(kMaxLeaves) +
               " DMA transfers";
      return false;
    }
  }
  SmallVector<int64_t> index(n, 0);
  while (true) {
    int64_t srcOff = copy.srcOffset, dstOff = copy.dstOffset;
    for (int i = 0; i < n; ++i) {
      srcOff += index[i] * dims[i].src;
      dstOff += index[i] * dims[i].dst;
    }
    auto count = [&](int dim) {
      return dim < 0 ? int64_t{1}
                     : std::min(step[dim], dims[dim].size - index[dim]);
    };
    int64_t cx = count(xDim), cy = count(yDim), cz = count(zDim);
    // A shifted load starts at the aligned address below the data; the
    // store then reads from `delta` elements into each staged row.
    int64_t delta = shifted ? srcOff % alignElems : 0;
    srcOff -= delta;
    if (fmt.rowBytes(srcOff) % alignBytes ||
        fmt.rowBytes(dstOff) % alignBytes) {
      reason = "a transfer would start at a DRAM offset that is not a "
               "multiple of " +
               std::to_string(alignBytes) + " bytes";
      return false;
    }
    Leaf leaf;
    leaf.srcOffset = fmt.rowBytes(srcOff);
    leaf.dstOffset = fmt.rowBytes(dstOff);
    if (!gather) {
      leaf.ldX = cx;
      leaf.ldY = cy;
      leaf.ldZ = cz;
      leaf.sy = yDim >= 0 ? fmt.rowBytes(dims[yDim].src) : 0;
      leaf.sz = zDim >= 0 ? fmt.rowBytes(dims[zDim].src) : 0;
      leaf.dpitch = fmt.rowBytes(cx);
      leaf.stX = cx;
      leaf.stY = cy;
      leaf.stZ = cz;
      leaf.dy = yDim >= 0 ? fmt.rowBytes(dims[yDim].dst) : 0;
      leaf.dz = zDim >= 0 ? fmt.rowBytes(dims[zDim].dst) : 0;
      leaf.spitch = fmt.rowBytes(cx);
    } else {
      leaf.ldX = 1;
      leaf.ldY = cy;
      leaf.ldZ = cz;
      leaf.sy = fmt.rowBytes(dims[yDim].src);
      leaf.sz = zDim >= 0 ? fmt.rowBytes(dims[zDim].src) : 0;
      leaf.dpitch = fmt.rowBytes(1);
      leaf.stX = cy;
      leaf.stY = cz;
      leaf.stZ = 1;
      leaf.dy = zDim >= 0 ? fmt.rowBytes(dims[zDim].dst) : 0;
      leaf.dz = 0;
      leaf.spitch = fmt.rowBytes(cy);
    }
    // Left padding so that the data, delta elements into each staged row,
    // starts VRF-aligned.
    while (fmt.rowBytes(leaf.pl + delta) % vrfAlign)
      ++leaf.pl;
    leaf.shift = fmt.rowBytes(leaf.pl + delta);
    if (delta && !gather) {
      leaf.ldX = cx + delta;
      leaf.dpitch = leaf.spitch = fmt.rowBytes(leaf.pl + leaf.ldX);
    } else if (delta) {
      if (cy > 1 && dims[yDim].src < 1 + delta) {
        reason = "a gather would start at a DRAM offset that is not a "
                 "multiple of " +
                 std::to_string(alignBytes) + " bytes";
        return false;
      }
      // Gather of (1 + delta)-element rows; the store picks the last element
      // of each (x = 1), so it does the element gather itself.
      leaf.ldX = 1 + delta;
      leaf.dpitch = leaf.spitch = fmt.rowBytes(leaf.pl + leaf.ldX);
      leaf.stX = 1;
      leaf.stY = cy;
      leaf.stZ = cz;
      leaf.dz = leaf.dy;
      leaf.dy = fmt.rowBytes(1);
    }
    visit(leaf);
    // Odometer, innermost first.
    int i = n - 1;
    for (; i >= 0; --i) {
      index[i] += step[i];
      if (index[i] < dims[i].size)
        break;
      index[i] = 0;
    }
    if (i < 0)
      break;
  }
  return true;
}

/// Bytes of one of the two VRF staging slots.
int64_t slotBytes(const TargetDesc &target) {
  int64_t registers = std::max<int64_t>(target.vrfRegisters / 2, 1);
  return registers * static_cast<int64_t>(target.vrfRegisterBytes);
}

int64_t dramAlign(const TargetDesc &target) {
  return static_cast<int64_t>(target.memory(Space::Dram).align);
}

int64_t vrfAlign(const TargetDesc &target) {
  return static_cast<int64_t>(target.memory(Space::Vrf).align);
}

/// How a tensor's elements are stored, for moving them: a card float
/// format, or the whole-byte integer storage of an integer or quantized
/// type (copies move stored values; they never interpret them). nullopt
/// for anything else (sub-byte, block, host-only types).
std::optional<ElementFormat> getStorageFormat(Type type) {
  std::optional<::nnaccel::DType> dtype = accel::getElementDType(type);
  if (!dtype)
    return std::nullopt;
  switch (*dtype) {
  case ::nnaccel::DType::F32:
  case ::nnaccel::DType::F16:
  case ::nnaccel::DType::BF16:
  case ::nnaccel::DType::I8:
  case ::nnaccel::DType::U8:
  case ::nnaccel::DType::I16:
  case ::nnaccel::DType::I32:
    return ElementFormat(*dtype);
  default:
    return std::nullopt;
  }
}

/// The element format of `op`'s tensors (checked to be one storage format).
ElementFormat formatOf(Operation *op) {
  return *getStorageFormat(op->getResult(0).getType());
}

/// Staging slots of small leaves: that many slots of a 1/kSmallSlots share
/// of the VRF, used round robin, so that up to that many leaves are in
/// flight instead of two (each waits the DRAM latency twice; a concat of
/// many small parts is all latency).
constexpr int64_t kSmallSlots = 8;

/// The VRF staging of an op's copies: the slot rotation, and the stores
/// not emitted yet. A leaf's store is emitted only when its slot is about
/// to be reused (software pipelining): the ex queue relays tokens in
/// program order, so a store emitted right after its load would hold up
/// the next load's slot relay until that load has landed, leaving one
/// load in flight.
struct CopyStager {
  explicit CopyStager(KernelContext &context, int firstSlot = 0)
      : context(context), slot(firstSlot) {}
  ~CopyStager() { flush(); }

  /// Emits the loads of `copy`'s leaves and, lagging behind, their stores.
  void emit(const BoxCopy &copy);
  /// Emits every store still pending.
  void flush(size_t keep = 0) {
    while (pending.size() > keep) {
      emitStore(context.emitter, pending.front());
      pending.pop_front();
    }
  }

  KernelContext &context;
  int slot;
  std::deque<DmaStore> pending;
};

void CopyStager::emit(const BoxCopy &copy) {
  std::string reason;
  const int64_t dram = dramAlign(context.target);
  const int64_t vrf = vrfAlign(context.target);
  auto countLeaves = [&](int64_t size, bool shifted) -> std::optional<int64_t> {
    int64_t leaves = 0;
    if (!planLeaves(copy, size, dram, vrf, shifted, reason,
                    [&](const Leaf &) { ++leaves; }))
      return std::nullopt;
    return leaves;
  };
  int64_t slotSize = slotBytes(context.target);
  int64_t slots = 2;
  bool shifted = !countLeaves(slotSize, /*shifted=*/false);
  const int64_t smallSize =
      slotSize * 2 / kSmallSlots / vrf * vrf; // VRF-aligned
  if (std::optional<int64_t> small = countLeaves(smallSize, shifted);
      small && small == countLeaves(slotSize, shifted)) {
    slotSize = smallSize;
    slots = kSmallSlots;
  }
  planLeaves(copy, slotSize, dram, vrf, shifted, reason, [&](const Leaf &leaf) {
    // The slot's previous store first.
    flush(size_t(slots - 1));
    uint64_t vrf = uint64_t(slot % slots) * uint64_t(slotSize);
    ++slot;
    DmaLoad load;
    load.dst = {Space::Vrf, vrf};
    load.src = {Space::Dram, copy.srcBase + uint64_t(leaf.srcOffset)};
    load.format = copy.format;
    load.x = leaf.ldX;
    load.y = leaf.ldY;
    load.z = leaf.ldZ;
    load.sy = leaf.sy;
    load.sz = leaf.sz;
    load.dpitch = leaf.dpitch;
    load.pl = leaf.pl;
    emitLoad(context.emitter, load);
    DmaStore store;
    store.dst = {Space::Dram, copy.dstBase + uint64_t(leaf.dstOffset)};
    store.src = {Space::Vrf, vrf + uint64_t(leaf.shift)};
    store.format = copy.format;
    store.x = leaf.stX;
    store.y = leaf.stY;
    store.z = leaf.stZ;
    store.dy = leaf.dy;
    store.dz = leaf.dz;
    store.spitch = leaf.spitch;
    pending.push_back(store);
  });
}

bool checkBoxCopy(const BoxCopy &copy, const TargetDesc &target,
                  std::string &reason) {
  // Loads that would start at unaligned source offsets are moved to the
  // aligned address below (and the store skips the extra elements); stores
  // cannot be moved, so unaligned destination offsets are refused.
  if (planLeaves(copy, slotBytes(target), dramAlign(target), vrfAlign(target),
                 /*shifted=*/false, reason, [](const Leaf &) {}))
    return true;
  return planLeaves(copy, slotBytes(target), dramAlign(target),
                    vrfAlign(target), /*shifted=*/true, reason,
                    [](const Leaf &) {});
}

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Common type conditions: static, non-empty tensors of one element type, a
/// card float or an integer or quantized type stored in whole bytes (one
/// type: quantized parts with different scales cannot share a tensor).
LogicalResult checkTypes(Operation *op, std::string &reason) {
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type type : types) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape()) {
      reason = "only static shapes are lowered to the card";
      return failure();
    }
    if (tensor.getNumElements() == 0) {
      reason = "empty tensors are not lowered to the card";
      return failure();
    }
  }
  if (llvm::any_of(types, [](Type type) {
        return !getStorageFormat(type).has_value();
      })) {
    reason = op->getName().getStringRef().str() +
             " moves card floats (f32, f16, bf16) and 8-, 16- or 32-bit "
             "integer or quantized elements only";
    return failure();
  }
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  if (llvm::any_of(types, [&](Type type) {
        return getElementTypeOrSelf(type) != element;
      })) {
    reason = op->getName().getStringRef().str() +
             " with mixed element types is not lowered to the card";
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Per-op box copies (addresses filled in only when a context is given).
//===----------------------------------------------------------------------===//

BoxCopy makeCopy(Value src, Value dst, const KernelContext *context) {
  BoxCopy copy;
  copy.dstElements = tensorType(dst).getNumElements();
  copy.format = *getStorageFormat(dst.getType());
  if (context) {
    copy.srcBase = context->addressOf(src);
    copy.dstBase = context->addressOf(dst);
  }
  return copy;
}

/// reshape: the same bytes at another address.
SmallVector<BoxCopy> reshapeCopies(ReshapeOp op, const KernelContext *context) {
  BoxCopy copy = makeCopy(op.getInput(), op.getResult(), context);
  copy.dims.push_back({copy.dstElements, 1, 1});
  return {copy};
}

/// expand: broadcast dimensions read with source stride 0.
SmallVector<BoxCopy> expandCopies(ExpandOp op, const KernelContext *context) {
  BoxCopy copy = makeCopy(op.getInput(), op.getResult(), context);
  ArrayRef<int64_t> out = op.getType().getShape();
  ArrayRef<int64_t> in = tensorType(op.getInput()).getShape();
  SmallVector<int64_t> inStrides = rowMajorStrides(in);
  SmallVector<int64_t> outStrides = rowMajorStrides(out);
  int64_t lead = static_cast<int64_t>(out.size() - in.size());
  for (int64_t i = 0, e = out.size(); i < e; ++i) {
    int64_t j = i - lead;
    bool broadcast = j < 0 || in[j] == 1;
    copy.dims.push_back({out[i], broadcast ? 0 : inStrides[j], outStrides[i]});
  }
  return {copy};
}

SmallVector<BoxCopy> transposeCopies(TransposeOp op,
                                     const KernelContext *context) {
  BoxCopy copy = makeCopy(op.getInput(), op.getResult(), context);
  ArrayRef<int64_t> in = tensorType(op.getInput()).getShape();
  ArrayRef<int64_t> perm = op.getPermutation();
  SmallVector<int64_t> inStrides = rowMajorStrides(in);
  SmallVector<int64_t> outStrides = rowMajorStrides(op.getType().getShape());
  for (size_t i = 0; i < perm.size(); ++i)
    copy.dims.push_back({in[perm[i]], inStrides[perm[i]], outStrides[i]});
  return {copy};
}

SmallVector<BoxCopy> sliceCopies(SliceOp op, const KernelContext *context) {
  BoxCopy copy = makeCopy(op.getInput(), op.getResult(), context);
  ArrayRef<int64_t> in = tensorType(op.getInput()).getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  SmallVector<int64_t> inStrides = rowMajorStrides(in);
  SmallVector<int64_t> outStrides = rowMajorStrides(out);
  for (size_t i = 0; i < out.size(); ++i) {
    copy.srcOffset += op.getStarts()[i] * inStrides[i];
    copy.dims.push_back(
        {out[i], op.getSteps()[i] * inStrides[i], outStrides[i]});
  }
  return {copy};
}

SmallVector<BoxCopy> concatCopies(ConcatOp op, const KernelContext *context) {
  SmallVector<BoxCopy> copies;
  ArrayRef<int64_t> out = op.getType().getShape();
  SmallVector<int64_t> outStrides = rowMajorStrides(out);
  // Negative axes count from the end (the I64Attr getter is unsigned).
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += static_cast<int64_t>(out.size());
  int64_t offset = 0;
  for (Value input : op.getInputs()) {
    ArrayRef<int64_t> in = tensorType(input).getShape();
    BoxCopy copy = makeCopy(input, op.getResult(), context);
    SmallVector<int64_t> inStrides = rowMajorStrides(in);
    for (size_t i = 0; i < in.size(); ++i)
      copy.dims.push_back({in[i], inStrides[i], outStrides[i]});
    copy.dstOffset = offset * outStrides[axis];
    offset += in[axis];
    if (tensorType(input).getNumElements() != 0)
      copies.push_back(copy);
  }
  return copies;
}

/// pad, generic form: the interior box (the fill is emitted separately).
BoxCopy padInterior(PadOp op, const KernelContext *context) {
  BoxCopy copy = makeCopy(op.getInput(), op.getResult(), context);
  ArrayRef<int64_t> in = tensorType(op.getInput()).getShape();
  SmallVector<int64_t> inStrides = rowMajorStrides(in);
  SmallVector<int64_t> outStrides = rowMajorStrides(op.getType().getShape());
  ArrayRef<int64_t> pads = op.getPads();
  for (size_t i = 0; i < in.size(); ++i) {
    copy.dims.push_back({in[i], inStrides[i], outStrides[i]});
    copy.dstOffset += pads[i] * outStrides[i];
  }
  return copy;
}

//===----------------------------------------------------------------------===//
// pad with the DMA padding fields.
//===----------------------------------------------------------------------===//

/// Shape of a pad the DMA engine pads by itself: P planes of H x W, padded
/// by (pt, pb, pl, pr) <= 7 zeros, nothing else padded.
struct DmaPad {
  int64_t planes, h, w, pt, pb, pl, pr;
  int64_t planesPerChunk;
};

std::optional<DmaPad> planDmaPad(PadOp op, const TargetDesc &target) {
  if (op.getMode() != PadMode::constant || !op.getValue().isZero() ||
      op.getValue().isNegative())
    return std::nullopt;
  ArrayRef<int64_t> in = tensorType(op.getInput()).getShape();
  ArrayRef<int64_t> pads = op.getPads();
  int64_t rank = static_cast<int64_t>(in.size());
  if (rank == 0)
    return std::nullopt;
  DmaPad pad;
  pad.w = in[rank - 1];
  pad.pl = pads[rank - 1];
  pad.pr = pads[2 * rank - 1];
  pad.h = rank >= 2 ? in[rank - 2] : 1;
  pad.pt = rank >= 2 ? pads[rank - 2] : 0;
  pad.pb = rank >= 2 ? pads[2 * rank - 2] : 0;
  pad.planes = 1;
  for (int64_t i = 0; i + 2 < rank; ++i) {
    if (pads[i] || pads[rank + i])
      return std::nullopt;
    pad.planes *= in[i];
  }
  for (int64_t p : {pad.pt, pad.pb, pad.pl, pad.pr})
    if (p > kMaxDmaPad)
      return std::nullopt;
  int64_t outH = pad.h + pad.pt + pad.pb, outW = pad.w + pad.pl + pad.pr;
  if (pad.w > kMaxCount || pad.h > kMaxDmaYZ || outW > kMaxCount)
    return std::nullopt;
  const int64_t e = formatOf(op).elementBytes();
  int64_t slotElems = slotBytes(target) / e;
  // The store writes planes * outH rows of outW; the load z planes of h.
  int64_t limit =
      std::min({slotElems / (outH * outW), kMaxDmaYZ / outH, kMaxDmaYZ});
  if (limit < 1)
    return std::nullopt;
  int64_t alignElems = std::max<int64_t>(dramAlign(target) / e, 1);
  pad.planesPerChunk =
      alignedChunk(pad.planes, limit, {pad.h * pad.w, outH * outW}, alignElems);
  if (pad.planesPerChunk < pad.planes &&
      ((pad.planesPerChunk * pad.h * pad.w) % alignElems ||
       (pad.planesPerChunk * outH * outW) % alignElems))
    return std::nullopt;
  return pad;
}

void emitDmaPad(PadOp op, const DmaPad &pad, KernelContext &context) {
  const uint64_t src = context.addressOf(op.getInput());
  const uint64_t dst = context.addressOf(op.getResult());
  const int64_t outH = pad.h + pad.pt + pad.pb;
  const int64_t outW = pad.w + pad.pl + pad.pr;
  const ElementFormat fmt = formatOf(op);
  const int64_t slotSize = slotBytes(context.target);
  int slot = 0;
  for (int64_t p = 0; p < pad.planes; p += pad.planesPerChunk) {
    int64_t planes = std::min(pad.planesPerChunk, pad.planes - p);
    uint64_t vrf = uint64_t(slot) * uint64_t(slotSize);
    slot ^= 1;
    // Dense rows of w in, padded rows of outW (dpitch) out.
    DmaLoad load;
    load.dst = {Space::Vrf, vrf};
    load.src = {Space::Dram, src + uint64_t(fmt.rowBytes(p * pad.h * pad.w))};
    load.format = fmt;
    load.x = pad.w;
    load.y = pad.h;
    load.z = planes;
    load.sz = fmt.rowBytes(pad.h * pad.w);
    load.pt = pad.pt;
    load.pb = pad.pb;
    load.pl = pad.pl;
    load.pr = pad.pr;
    emitLoad(context.emitter, load);
    DmaStore store;
    store.dst = {Space::Dram, dst + uint64_t(fmt.rowBytes(p * outH * outW))};
    store.src = {Space::Vrf, vrf};
    store.format = fmt;
    store.x = outW;
    store.y = planes * outH;
    emitStore(context.emitter, store);
  }
}

/// Largest fill written per store by the generic pad (one VRF row; vector
/// `cols` is a 16-bit field).
int64_t fillChunk(const TargetDesc &target, int64_t elements, int64_t e) {
  int64_t alignElems = std::max<int64_t>(dramAlign(target) / e, 1);
  int64_t limit = std::min<int64_t>({slotBytes(target) / e, kMaxCount, 0x3FFF});
  limit = limit / alignElems * alignElems;
  return std::min(elements, std::max<int64_t>(limit, 1));
}

void emitPadFill(PadOp op, KernelContext &context) {
  const uint64_t dst = context.addressOf(op.getResult());
  const int64_t elements = op.getType().getNumElements();
  const ElementFormat fmt = formatOf(op);
  const int64_t chunk = fillChunk(context.target, elements, fmt.elementBytes());
  // Slot 0 holds the fill row; the interior copy that follows reuses the
  // slots, ordered after these stores by the emitter (write after read).
  const Operand2D fill = denseOperand(Space::Vrf, 0, chunk, fmt);
  emitFill(context.emitter, fill, 1, chunk, op.getValue().convertToFloat());
  for (int64_t i = 0; i < elements; i += chunk) {
    DmaStore store;
    store.dst = {Space::Dram, dst + uint64_t(fmt.rowBytes(i))};
    store.src = fill.ref();
    store.format = fmt;
    store.x = std::min(chunk, elements - i);
    store.dy = 0; // a single row
    emitStore(context.emitter, store);
  }
}

//===----------------------------------------------------------------------===//
// concat assembled in the VRF.
//===----------------------------------------------------------------------===//

/// A concat whose parts' box copies would store to unaligned DRAM offsets
/// (wide&deep's dense features [B, 13] next to embeddings [B, 48] in f32:
/// the second part's rows start 52 bytes into each output row) is
/// assembled in the VRF instead: chunks of whole output rows, each part's
/// rows loaded at its column offset in the staged rows (VRF addresses need
/// only the VRF's alignment), then one store of the chunk at its aligned
/// DRAM offset. Every part is viewed as outer x width elements (its
/// dimensions from the axis on), the output as outer x rowElems.
///
/// A single output row too wide for the VRF (a concat along the outermost
/// non-unit axis, such as the images of a batch: parts back to back) is
/// staged flat instead: aligned chunks of the output, each assembled from
/// the parts it overlaps. A part that began in an earlier chunk continues
/// from an offset that need not be aligned in its own buffer; it is loaded
/// from the aligned address below, the bytes before the chunk landing in a
/// guard in front of the chunk's VRF slot.
struct StagedConcat {
  int64_t outer = 0, rowElems = 0, rowsPerChunk = 0;
  SmallVector<std::pair<int64_t, int64_t>> parts; // width, column offset
  /// Flat staging (outer == 1): chunkElems output elements a chunk.
  bool flat = false;
  int64_t chunkElems = 0;
};

/// Bytes in front of a flat concat chunk's VRF slot for the bytes a
/// continuing part's aligned load brings along.
constexpr int64_t kFlatGuardBytes = 64;

std::optional<StagedConcat>
planStagedConcat(ConcatOp op, const TargetDesc &target, std::string &reason) {
  ArrayRef<int64_t> out = op.getType().getShape();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += static_cast<int64_t>(out.size());
  const ElementFormat fmt = formatOf(op);
  const int64_t e = fmt.elementBytes();
  const int64_t alignElems = std::max<int64_t>(dramAlign(target) / e, 1);
  StagedConcat plan;
  plan.outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    plan.outer *= out[d];
  int64_t inner = 1;
  for (size_t d = axis + 1; d < out.size(); ++d)
    inner *= out[d];
  plan.rowElems = out[axis] * inner;
  // Chunk starts must be DRAM-aligned in the output and in every part.
  int64_t multiple = alignElems / std::gcd(alignElems, plan.rowElems);
  int64_t column = 0;
  for (Value input : op.getInputs()) {
    int64_t width = tensorType(input).getDimSize(axis) * inner;
    if (width == 0)
      continue;
    if (fmt.rowBytes(column) % vrfAlign(target)) {
      reason = "a concat part would be staged at a VRF offset that is not a "
               "multiple of " +
               std::to_string(vrfAlign(target)) + " bytes";
      return std::nullopt;
    }
    plan.parts.push_back({width, column});
    column += width;
    int64_t need = alignElems / std::gcd(alignElems, width);
    multiple = multiple / std::gcd(multiple, need) * need;
  }
  const int64_t rowBytes = fmt.rowBytes(plan.rowElems);
  if ((plan.rowElems > kMaxCount || rowBytes > kMaxPitch ||
       rowBytes > slotBytes(target)) &&
      plan.outer == 1 && e > 0) {
    const int64_t align = dramAlign(target);
    const int64_t chunkBytes =
        (slotBytes(target) - kFlatGuardBytes) / align * align;
    plan.flat = true;
    plan.chunkElems =
        std::min<int64_t>(chunkBytes / e, kMaxCount / align * align);
    if (plan.chunkElems < 1 || (plan.chunkElems * e) % align != 0) {
      reason = "the VRF cannot hold an aligned chunk of the concat";
      return std::nullopt;
    }
    int64_t chunks = (plan.rowElems + plan.chunkElems - 1) / plan.chunkElems;
    if (chunks * int64_t(plan.parts.size() + 1) > kMaxLeaves) {
      reason = "the concat would need more than " + std::to_string(kMaxLeaves) +
               " DMA transfers";
      return std::nullopt;
    }
    return plan;
  }
  if (plan.rowElems > kMaxCount || rowBytes > kMaxPitch) {
    reason = "concat rows of " + std::to_string(plan.rowElems) +
             " elements are too wide to assemble in the VRF";
    return std::nullopt;
  }
  int64_t rows =
      std::min<int64_t>({plan.outer, kMaxDmaYZ,
                         slotBytes(target) / std::max<int64_t>(rowBytes, 1)});
  if (rows < plan.outer)
    rows = rows / multiple * multiple;
  if (rows < 1) {
    reason = "the VRF cannot hold the " + std::to_string(multiple) +
             " concat rows whose chunks start at aligned DRAM offsets";
    return std::nullopt;
  }
  plan.rowsPerChunk = rows;
  int64_t chunks = (plan.outer + rows - 1) / rows;
  if (chunks * int64_t(plan.parts.size() + 1) > kMaxLeaves) {
    reason = "the concat would need more than " + std::to_string(kMaxLeaves) +
             " DMA transfers";
    return std::nullopt;
  }
  return plan;
}

void emitStagedConcat(ConcatOp op, const StagedConcat &plan,
                      KernelContext &context) {
  const ElementFormat fmt = formatOf(op);
  const int64_t rowBytes = fmt.rowBytes(plan.rowElems);
  const uint64_t dst = context.addressOf(op.getResult());
  SmallVector<uint64_t> sources;
  for (Value input : op.getInputs())
    if (tensorType(input).getNumElements() != 0)
      sources.push_back(context.addressOf(input));
  if (plan.flat) {
    const int64_t e = fmt.elementBytes();
    const int64_t alignElems =
        std::max<int64_t>(dramAlign(context.target) / e, 1);
    for (int64_t c0 = 0, chunk = 0; c0 < plan.rowElems;
         c0 += plan.chunkElems, ++chunk) {
      const int64_t c1 = std::min(plan.rowElems, c0 + plan.chunkElems);
      const uint64_t slot =
          uint64_t(chunk % 2) * uint64_t(slotBytes(context.target)) +
          uint64_t(kFlatGuardBytes);
      for (auto [part, src] : llvm::zip(plan.parts, sources)) {
        auto [width, column] = part;
        const int64_t a = std::max(c0, column),
                      b = std::min(c1, column + width);
        if (a >= b)
          continue;
        // From the aligned element at or below a's offset in the part.
        const int64_t offset = a - column;
        const int64_t lead = offset % alignElems;
        DmaLoad load;
        load.dst = {Space::Vrf, slot + uint64_t((a - c0 - lead) * e)};
        load.src = {Space::Dram, src + uint64_t((offset - lead) * e)};
        load.format = fmt;
        load.x = b - a + lead;
        emitLoad(context.emitter, load);
      }
      DmaStore store;
      store.dst = {Space::Dram, dst + uint64_t(c0 * e)};
      store.src = {Space::Vrf, slot};
      store.format = fmt;
      store.x = c1 - c0;
      emitStore(context.emitter, store);
    }
    return;
  }
  for (int64_t row = 0, chunk = 0; row < plan.outer;
       row += plan.rowsPerChunk, ++chunk) {
    const int64_t rc = std::min(plan.rowsPerChunk, plan.outer - row);
    const uint64_t slot =
        uint64_t(chunk % 2) * uint64_t(slotBytes(context.target));
    for (auto [part, src] : llvm::zip(plan.parts, sources)) {
      auto [width, column] = part;
      DmaLoad load;
      load.dst = {Space::Vrf, slot + uint64_t(fmt.rowBytes(column))};
      load.src = {Space::Dram, src + uint64_t(fmt.rowBytes(row * width))};
      load.format = fmt;
      load.x = width;
      load.y = rc;
      load.dpitch = rowBytes;
      emitLoad(context.emitter, load);
    }
    DmaStore store;
    store.dst = {Space::Dram, dst + uint64_t(row * rowBytes)};
    store.src = {Space::Vrf, slot};
    store.format = fmt;
    store.x = plan.rowElems;
    store.y = rc;
    store.spitch = rowBytes;
    emitStore(context.emitter, store);
  }
}

//===----------------------------------------------------------------------===//
// Kernel entries.
//===----------------------------------------------------------------------===//

template <typename OpTy>
using CopiesFn = SmallVector<BoxCopy> (*)(OpTy, const KernelContext *);

template <typename OpTy, CopiesFn<OpTy> copies>
LogicalResult checkCopies(Operation *operation, const TargetDesc &target,
                          std::string &reason) {
  if (failed(checkTypes(operation, reason)))
    return failure();
  for (const BoxCopy &copy : copies(cast<OpTy>(operation), nullptr))
    if (!checkBoxCopy(copy, target, reason))
      return failure();
  return success();
}

template <typename OpTy, CopiesFn<OpTy> copies>
LogicalResult emitCopies(Operation *operation, KernelContext &context) {
  CopyStager stager(context);
  for (const BoxCopy &copy : copies(cast<OpTy>(operation), &context))
    stager.emit(copy);
  return success();
}

LogicalResult checkSlice(Operation *operation, const TargetDesc &target,
                         std::string &reason) {
  auto op = cast<SliceOp>(operation);
  if (llvm::any_of(op.getSteps(), [](int64_t step) { return step < 1; })) {
    reason = "slices with negative steps are not lowered to the card";
    return failure();
  }
  return checkCopies<SliceOp, sliceCopies>(operation, target, reason);
}

LogicalResult checkTranspose(Operation *operation, const TargetDesc &target,
                             std::string &reason) {
  return checkCopies<TransposeOp, transposeCopies>(operation, target, reason);
}

/// A concat is box copies, or assembled in the VRF when a copy would store
/// to an unaligned DRAM offset (see StagedConcat).
LogicalResult checkConcat(Operation *operation, const TargetDesc &target,
                          std::string &reason) {
  if (succeeded(checkCopies<ConcatOp, concatCopies>(operation, target, reason)))
    return success();
  if (failed(checkTypes(operation, reason)))
    return failure();
  std::string staged;
  if (planStagedConcat(cast<ConcatOp>(operation), target, staged))
    return success();
  reason += "; " + staged;
  return failure();
}

LogicalResult emitConcat(Operation *operation, KernelContext &context) {
  std::string reason;
  if (succeeded(checkCopies<ConcatOp, concatCopies>(operation, context.target,
                                                    reason)))
    return emitCopies<ConcatOp, concatCopies>(operation, context);
  auto op = cast<ConcatOp>(operation);
  std::optional<StagedConcat> plan =
      planStagedConcat(op, context.target, reason);
  if (!plan)
    return op.emitOpError(reason);
  emitStagedConcat(op, *plan, context);
  return success();
}

LogicalResult checkPad(Operation *operation, const TargetDesc &target,
                       std::string &reason) {
  auto op = cast<PadOp>(operation);
  if (failed(checkTypes(operation, reason)))
    return failure();
  // The pad value is a real number: stored as a card float only.
  if (!getElementFormat(op.getType())) {
    reason = "pad of integer or quantized tensors is not lowered to the card";
    return failure();
  }
  if (op.getMode() != PadMode::constant) {
    reason = "only constant-mode pad is lowered to the card";
    return failure();
  }
  if (planDmaPad(op, target))
    return success();
  if (!checkBoxCopy(padInterior(op, nullptr), target, reason)) {
    reason = "pad: " + reason;
    return failure();
  }
  return success();
}

LogicalResult emitPad(Operation *operation, KernelContext &context) {
  auto op = cast<PadOp>(operation);
  if (std::optional<DmaPad> pad = planDmaPad(op, context.target)) {
    emitDmaPad(op, *pad, context);
    return success();
  }
  emitPadFill(op, context);
  CopyStager stager(context, /*firstSlot=*/1); // slot 0 held the fill row
  stager.emit(padInterior(op, &context));
  return success();
}
} // namespace

void mlir::nnaccel::npu_lowering::attachDataMovementKernels(
    MLIRContext *context) {
  attachCardKernel<CardKernelModel<checkCopies<ReshapeOp, reshapeCopies>,
                                   emitCopies<ReshapeOp, reshapeCopies>>,
                   ReshapeOp>(context);
  attachCardKernel<CardKernelModel<checkCopies<ExpandOp, expandCopies>,
                                   emitCopies<ExpandOp, expandCopies>>,
                   ExpandOp>(context);
  attachCardKernel<
      CardKernelModel<checkTranspose, emitCopies<TransposeOp, transposeCopies>>,
      TransposeOp>(context);
  attachCardKernel<
      CardKernelModel<checkSlice, emitCopies<SliceOp, sliceCopies>>, SliceOp>(
      context);
  attachCardKernel<CardKernelModel<checkConcat, emitConcat>, ConcatOp>(context);
  attachCardKernel<CardKernelModel<checkPad, emitPad>, PadOp>(context);
}
