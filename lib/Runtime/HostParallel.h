//===- HostParallel.h - The host kernels' worker threads --------*- C++ -*-===//
//
// The float matrix products of the host kernels (matmul, fully_connected,
// conv) split their output rows over a few worker threads (an
// emulator::WorkerPool) when the work repays the hand-off. Every output element
// is computed by the same code whatever the split, so results do not depend on
// the thread count. One kernel uses the workers at a time; a kernel that finds
// them busy (the serving queue runs several sessions at once) runs on its own
// thread.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_LIB_RUNTIME_HOSTPARALLEL_H
#define NNACCEL_LIB_RUNTIME_HOSTPARALLEL_H

#include <cstdint>
#include <functional>

namespace nnaccel {
namespace runtime {
namespace detail {

/// Runs body(begin, end) over contiguous ranges covering [0, count): on the
/// workers and the calling thread when count x workPerItem (multiply-adds)
/// is large enough, else as one range on the calling thread.
void parallelRanges(int64_t count, int64_t workPerItem,
                    const std::function<void(int64_t, int64_t)> &body);

/// Threads the host kernels use (the caller included); 0 restores the
/// default, the host's hardware concurrency. For tests and tuning.
void setHostKernelThreads(unsigned threads);

} // namespace detail
} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_LIB_RUNTIME_HOSTPARALLEL_H
