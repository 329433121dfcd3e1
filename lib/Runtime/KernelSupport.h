//===- KernelSupport.h - Shared machinery of the host kernels ---*- C++ -*-===//
//
// Private to lib/Runtime. The per-family kernel files share: the kernel
// context (operands, declared results, error reporting), fp32 staging of
// f16/bf16/f64 data (float kernels compute in fp32, the device's precision),
// numpy broadcasting walks, axis normalisation, fused activations, and the
// declarations of every kernel for the dispatch table in HostKernels.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_RUNTIME_KERNELSUPPORT_H
#define NNACCEL_LIB_RUNTIME_KERNELSUPPORT_H

#include "nnaccel/Runtime/HostOp.h"
#include "nnaccel/Runtime/Tensor.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace nnaccel {
namespace runtime {
namespace detail {

/// Everything one kernel invocation sees. The dispatcher has already
/// checked the operand count, that required operands are present, that
/// all descriptors are valid and that outputDescs has one entry per
/// result; `outputs` is sized to match and holds null tensors that the
/// kernel fills with makeOutput / setOutput.
struct KernelContext {
  const HostOp &op;
  Span<const Tensor *const> inputs;
  const std::vector<TensorDesc> &outputDescs;
  std::vector<Tensor> &outputs;

  Status error(const std::string &message) const { return op.error(message); }
  /// Operand i or nullptr when absent.
  const Tensor *input(size_t i) const {
    return i < inputs.size() ? inputs[i] : nullptr;
  }
  /// Checks that result i was declared as `expected`, allocates it, and
  /// points `out` at it.
  Status makeOutput(size_t i, const TensorDesc &expected, Tensor *&out);
  /// Same check, then stores an existing tensor (shared bytes) as result i.
  Status setOutput(size_t i, Tensor value);
  /// Fails with "unsupported element type X for <what>".
  Status unsupported(DType dtype, const char *what = "this op") const;
};

//===--- Element types ----------------------------------------------------===//

/// Calls fn(T{}) with the C++ type of an integer dtype (bool-as-uint8_t for
/// i1 is excluded: callers decide whether i1 is arithmetic). Returns false
/// for non-integer dtypes.
template <typename Fn> bool visitIntDType(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::I8:
    fn(int8_t{});
    return true;
  case DType::I16:
    fn(int16_t{});
    return true;
  case DType::I32:
    fn(int32_t{});
    return true;
  case DType::I64:
    fn(int64_t{});
    return true;
  case DType::U8:
    fn(uint8_t{});
    return true;
  case DType::U16:
    fn(uint16_t{});
    return true;
  case DType::U32:
    fn(uint32_t{});
    return true;
  default:
    return false;
  }
}

/// Calls fn(T{}) with an unsigned integer type of the element size, for
/// kernels that only move elements.
template <typename Fn> bool visitElementBits(size_t elementSize, Fn &&fn) {
  switch (elementSize) {
  case 1:
    fn(uint8_t{});
    return true;
  case 2:
    fn(uint16_t{});
    return true;
  case 4:
    fn(uint32_t{});
    return true;
  case 8:
    fn(uint64_t{});
    return true;
  default:
    return false;
  }
}

/// Two's-complement wrap-around arithmetic without signed-overflow UB.
template <typename T> T wrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T> T wrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename T> T wrapMul(T a, T b) {
  // Promote to a wide unsigned type so that e.g. uint16 * uint16 does not
  // become a signed int multiply.
  using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                               std::make_unsigned_t<T>>;
  return static_cast<T>(static_cast<W>(static_cast<W>(a) * static_cast<W>(b)));
}
template <typename T> T wrapNeg(T a) { return wrapSub(T(0), a); }

/// NaN-propagating max/min for floating types (as numerics::maxF32), plain
/// for integers.
template <typename T> T maxValue(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
    if (a == b)
      return std::signbit(a) ? b : a;
  }
  return a > b ? a : b;
}
template <typename T> T minValue(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<T>::quiet_NaN();
    if (a == b)
      return std::signbit(a) ? a : b;
  }
  return a < b ? a : b;
}

//===--- fp32 staging -----------------------------------------------------===//

/// Read-only fp32 data of a float tensor: the tensor's own bytes when it is
/// f32, a converted copy (exact for f16/bf16, RNE for f64) otherwise.
class F32Input {
public:
  explicit F32Input(const Tensor &t);
  const float *data() const { return ptr; }
  size_t size() const { return count; }
  float operator[](size_t i) const { return ptr[i]; }

private:
  std::vector<float> storage;
  const float *ptr = nullptr;
  size_t count = 0;
};

/// fp32 results for a float tensor: written in place when it is f32, else
/// into scratch that commit() rounds to the tensor's type (RNE).
class F32Output {
public:
  explicit F32Output(Tensor &t);
  float *data() { return ptr; }
  float &operator[](size_t i) { return ptr[i]; }
  void commit();

private:
  Tensor &tensor;
  std::vector<float> storage;
  float *ptr = nullptr;
};

/// Converts n fp32 values to a float dtype's storage (RNE).
void storeF32(const float *src, size_t n, DType dtype, void *dst);
/// Converts n values of a float dtype to fp32.
void loadF32(const void *src, size_t n, DType dtype, float *dst);

/// Every element of an integer tensor (any integer dtype) as int64_t.
std::vector<int64_t> readIndexTensor(const Tensor &t);

//===--- Shapes -----------------------------------------------------------===//

/// numpy broadcast of two shapes; false if they do not broadcast.
bool broadcastShapes(const std::vector<int64_t> &a,
                     const std::vector<int64_t> &b, std::vector<int64_t> &out);
/// Element strides of a row-major tensor of shape `in` when broadcast to
/// `out` (right-aligned; 0 along broadcast dimensions). `in` must broadcast
/// to `out`.
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &in,
                                      const std::vector<int64_t> &out);
/// Row-major strides of `shape`.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape);
/// Normalises a possibly negative axis into [0, rank).
bool normalizeAxis(int64_t axis, int64_t rank, int64_t &out);
int64_t product(const std::vector<int64_t> &v, size_t begin, size_t end);

/// Walks the elements of a broadcast result in row-major order as runs along
/// the innermost (coalesced) dimension. For every run it calls
///   body(outOffset, inOffsets, length, innerSteps)
/// where inOffsets[k] is the element offset of the run's first element in
/// input k and innerSteps[k] its step (0 or the dimension's stride).
/// Dimensions are coalesced first, so e.g. a per-channel operand of an NCHW
/// tensor gives runs of H*W elements.
template <size_t N, typename Body>
void forEachBroadcastRun(const std::vector<int64_t> &outShape,
                         const std::array<std::vector<int64_t>, N> &strides,
                         Body &&body) {
  // Coalesce: drop unit dimensions, then merge dimension i into i+1 when
  // every operand (and the output) steps through them contiguously.
  std::vector<int64_t> shape;
  std::array<std::vector<int64_t>, N> st;
  for (size_t d = 0; d < outShape.size(); ++d) {
    if (outShape[d] == 1)
      continue;
    if (outShape[d] == 0)
      return;
    bool merge = !shape.empty();
    for (size_t k = 0; k < N && merge; ++k)
      merge = st[k].back() == strides[k][d] * outShape[d];
    if (merge) {
      shape.back() *= outShape[d];
      for (size_t k = 0; k < N; ++k)
        st[k].back() = strides[k][d];
      continue;
    }
    shape.push_back(outShape[d]);
    for (size_t k = 0; k < N; ++k)
      st[k].push_back(strides[k][d]);
  }
  std::array<int64_t, N> offsets{};
  std::array<int64_t, N> steps{};
  if (shape.empty()) {
    body(int64_t(0), offsets, int64_t(1), steps);
    return;
  }
  const size_t rank = shape.size();
  const int64_t inner = shape.back();
  for (size_t k = 0; k < N; ++k)
    steps[k] = st[k].back();
  std::vector<int64_t> index(rank, 0);
  int64_t outOffset = 0;
  while (true) {
    body(outOffset, offsets, inner, steps);
    outOffset += inner;
    // Advance the odometer over the outer dimensions.
    size_t d = rank - 1;
    while (d > 0) {
      --d;
      ++index[d];
      for (size_t k = 0; k < N; ++k)
        offsets[k] += st[k][d];
      if (index[d] < shape[d])
        break;
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= st[k][d] * shape[d];
      index[d] = 0;
      if (d == 0)
        return;
    }
    if (rank == 1)
      return;
  }
}

//===--- Operand checks and products --------------------------------------===//

/// Success when `t` has a float element type equal to `expected`; else the
/// kernel's error naming the operand (`name`).
Status requireFloat(const KernelContext &ctx, const Tensor *t, DType expected,
                    const char *name);

/// The f32 dot product of two k-element rows in the device's accumulation
/// order (numerics::dotF32).
float dotRows(const float *a, const float *b, int64_t k);
/// out[j] = dotRows(rows + j * k, x, k) for j < n, through the vectorised
/// numerics::matVecF32 (the same bits).
void dotRowsAll(const float *rows, int64_t n, const float *x, int64_t k,
                float *out);

//===--- Fused activations ------------------------------------------------===//

struct FusedActivation {
  enum Kind { None, Relu, Clip, Sigmoid, Tanh, Gelu } kind = None;
  float min = -INFINITY;
  float max = INFINITY;
};
/// Reads `activation` (default "none"), `activation_min`, `activation_max`.
Status parseActivation(const HostOp &op, FusedActivation &out);
/// The attributes of a fully_connected: transpose_input, transpose_weight
/// (default 0), alpha, beta (default 1) and the fused activation.
struct FullyConnectedAttrs {
  int64_t transposeInput = 0, transposeWeight = 0;
  double alpha = 1.0, beta = 1.0;
  FusedActivation activation;
};
Status parseFullyConnectedAttrs(const HostOp &op, FullyConnectedAttrs &out);
/// Applies the activation in place with the numerics::VectorOps definitions
/// (gelu is the exact erf form, the only one the compiler fuses).
void applyActivation(const FusedActivation &act, float *data, size_t n);

//===--- Kernels (one per accel op; see HostKernels.cpp) ------------------===//

// clang-format off
#define NNACCEL_HOST_KERNELS(X)                                                \
  X(add) X(sub) X(mul) X(div) X(pow) X(max) X(min) X(compare) X(where)         \
  X(sqrt) X(exp) X(erf) X(tanh) X(sigmoid) X(relu) X(neg) X(abs) X(round)      \
  X(gelu) X(clip) X(cast) X(matmul) X(fullyConnected) X(conv) X(maxPool)       \
  X(avgPool)                                                                   \
  X(globalAvgPool) X(batchNorm) X(layerNorm) X(softmax) X(logSoftmax)          \
  X(reduceSum) X(reduceMean) X(reduceMax) X(reduceProd) X(reshape)            \
  X(transpose) X(concat)                                                       \
  X(slice) X(gather) X(expand) X(pad) X(embeddingBag) X(lstm) X(gru)           \
  X(quantize) X(dequantize) X(requantize) X(convert) X(transfer)               \
  X(argMax) X(argMin) X(topK) X(gatherElements) X(scatterElements)             \
  X(cumsum) X(mod) X(einsum) X(resize) X(convTranspose) X(math)               \
  X(gatherND) X(scatterND) X(gridSample) X(maxUnpool) X(det)
// clang-format on

#define NNACCEL_DECLARE_KERNEL(name) Status name##Kernel(KernelContext &ctx);
NNACCEL_HOST_KERNELS(NNACCEL_DECLARE_KERNEL)
#undef NNACCEL_DECLARE_KERNEL

/// fully_connected on quantized (integer-stored) operands
/// (HostQuantizedLinalg.cpp); fullyConnectedKernel dispatches to it.
Status quantizedFullyConnectedKernel(KernelContext &ctx);
/// fully_connected with a block-float (msfp8, msfp9, mxint8) weight
/// (HostBlockLinalg.cpp); fullyConnectedKernel dispatches to it.
Status blockFullyConnectedKernel(KernelContext &ctx);
/// conv with a block-float weight (F x K rows, `kernel_shape`)
/// (HostBlockLinalg.cpp); convKernel dispatches to it.
Status blockConvKernel(KernelContext &ctx);
/// conv on quantized (integer-stored) operands (HostQuantizedLinalg.cpp);
/// convKernel dispatches to it.
Status quantizedConvKernel(KernelContext &ctx);
/// add of quantized tensors (HostQuantizedElementwise.cpp); addKernel
/// dispatches to it.
Status quantizedAddKernel(KernelContext &ctx);

/// The real result of a conv or fully_connected quantized to `out`'s i8/u8 type
/// with the op's output_scale and output_zero_point as the card's epilogue does
/// it: sat(RNE(y * f32(1 / f32(scale))) + zero point)
/// (HostQuantizedLinalg.cpp).
Status quantizeRealResult(KernelContext &ctx, const std::vector<float> &real,
                          Tensor &out);

} // namespace detail
} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_LIB_RUNTIME_KERNELSUPPORT_H
