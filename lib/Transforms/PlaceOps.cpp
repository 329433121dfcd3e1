//===- PlaceOps.cpp - accel-place pass ------------------------------------===//
//
// Schedules the ops of each card partition on the cores of its card: list
// scheduling (highest level first) with the core cost model. Ops whose
// placement already names cores (pieces of a split op, or a user's hint)
// run there; the others go to the core on which they finish first, paying
// a synchronisation for every operand another core produced. Views (a
// reshape, a slice or concat along an outer axis) need no core: the memory
// plan makes them out of their operands. The schedule becomes the IR: each
// op's cores in its placement, its modelled start and length in
// `accel.schedule`, and the ops in order of their start, which is the order
// each core's program runs them in.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Transforms/Passes.h"

#include "CostModel.h"

#include "Accel/AccelOps.h"
#include "NPU/NPUTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <queue>

#define DEBUG_TYPE "accel-place"

namespace mlir::nnaccel {
#define GEN_PASS_DEF_ACCELPLACE
#include "nnaccel/Transforms/Passes.h.inc"
} // namespace mlir::nnaccel

using namespace mlir;
using namespace mlir::nnaccel;
using namespace mlir::nnaccel::accel;

namespace {

bool isOuterAxis(Type type, int64_t axis) {
  auto shaped = cast<RankedTensorType>(type);
  return llvm::all_of(shaped.getShape().take_front(axis),
                      [](int64_t dim) { return dim == 1; });
}

/// True for ops the memory plan turns into views of their operands (no
/// instructions, no core): reshapes, and slices and concats along an axis
/// with only unit dimensions before it.
bool isView(Operation *op) {
  if (isa<ReshapeOp>(op))
    return true;
  if (auto concat = dyn_cast<ConcatOp>(op))
    return isOuterAxis(concat.getType(), concat.getAxis());
  if (auto slice = dyn_cast<SliceOp>(op)) {
    auto input = cast<RankedTensorType>(slice.getInput().getType());
    auto result = cast<RankedTensorType>(slice.getType());
    // Contiguous: at most one axis is cut, outer dimensions are 1.
    int64_t cut = -1;
    for (int64_t axis = 0; axis < input.getRank(); ++axis)
      if (input.getDimSize(axis) != result.getDimSize(axis)) {
        if (cut >= 0)
          return false;
        cut = axis;
      }
    return cut < 0 || isOuterAxis(input, cut);
  }
  return false;
}

/// One op of the partition as the scheduler sees it.
struct Task {
  Operation *op;
  size_t index;               // position in the block
  double cycles = 0;          // on one core
  SmallVector<int64_t> cores; // fixed cores; empty: the scheduler picks
  bool view = false;
  std::optional<int64_t> order; // the user's priority hint
  SmallVector<size_t> producers, consumers;
  size_t waiting = 0; // producers not scheduled yet
  double level = 0;   // longest path from here to the end
  double start = 0, finish = 0;
  int64_t core = -1; // the core it ran on (-1: a view)
  size_t sequence = 0;
};

class CoreScheduler {
public:
  CoreScheduler(const CoreCostModel &model, unsigned cores)
      : model(model), coreFree(cores, 0.0) {}

  void run(Block &body);
  unsigned numMoved = 0, numOrderWarnings = 0;

private:
  void buildTasks(Block &body);
  double readyTime(const Task &task, int64_t core) const;
  void schedule(Task &task);

  const CoreCostModel &model;
  SmallVector<double> coreFree;
  std::vector<Task> tasks;
};

void CoreScheduler::buildTasks(Block &body) {
  llvm::DenseMap<Operation *, size_t> taskOf;
  for (Operation &op : body.without_terminator()) {
    if (isa<ConstantOp>(op))
      continue;
    Task task;
    task.op = &op;
    task.index = tasks.size();
    task.view = isView(&op);
    task.cycles = task.view ? 0 : model.estimate(&op);
    if (auto placement = op.getAttrOfType<PlacementAttr>(
            AccelDialect::getPlacementAttrName()))
      for (int64_t core : placement.getCores())
        if (core < int64_t(coreFree.size()))
          task.cores.push_back(core);
    // An op its kernel runs as one unit on several cores (placed there by
    // accel-split-ops) takes each of them for its share of the work.
    if (task.cores.size() > 1 && !task.view)
      if (auto kernel = dyn_cast<CardKernelOpInterface>(&op))
        if (kernel.getMaxKernelCores(model.getTarget()) > 1)
          task.cycles = model.estimateOnCores(
              &op,
              std::min<unsigned>(unsigned(task.cores.size()),
                                 kernel.getMaxKernelCores(model.getTarget())));
    if (auto hint = op.getAttrOfType<HintAttr>(AccelDialect::getHintAttrName()))
      task.order = hint.getOrder();
    for (Value operand : op.getOperands()) {
      Operation *producer = operand.getDefiningOp();
      auto it = producer ? taskOf.find(producer) : taskOf.end();
      if (it == taskOf.end() || llvm::is_contained(task.producers, it->second))
        continue;
      task.producers.push_back(it->second);
      tasks[it->second].consumers.push_back(task.index);
    }
    // An order hint cannot put an op before what it reads.
    for (size_t index : task.producers) {
      const Task &producer = tasks[index];
      if (!task.order || !producer.order || *producer.order <= *task.order)
        continue;
      op.emitWarning() << describeNode(&op) << ": order hint " << *task.order
                       << " puts it before its producer "
                       << describeNode(producer.op) << " (order "
                       << *producer.order
                       << "); it runs after it, as the data requires";
      ++numOrderWarnings;
    }
    task.waiting = task.producers.size();
    taskOf[&op] = task.index;
    tasks.push_back(std::move(task));
  }
  for (Task &task : llvm::reverse(tasks)) {
    double below = 0;
    for (size_t consumer : task.consumers)
      below = std::max(below, tasks[consumer].level);
    task.level = task.cycles + below;
  }
}

/// When `task`'s operands are available on `core` (-1: for a view).
double CoreScheduler::readyTime(const Task &task, int64_t core) const {
  double ready = 0;
  for (size_t index : task.producers) {
    const Task &producer = tasks[index];
    // Another core's result is complete in DRAM only after a barrier.
    bool elsewhere = core >= 0 && producer.core >= 0 && producer.core != core;
    ready =
        std::max(ready, producer.finish + (elsewhere ? model.overhead() : 0.0));
  }
  return ready;
}

void CoreScheduler::schedule(Task &task) {
  if (task.view) {
    task.start = task.finish = readyTime(task, -1);
    // A view's value lives where its operands were computed.
    for (size_t index : task.producers)
      if (tasks[index].core >= 0) {
        task.core = tasks[index].core;
        break;
      }
    return;
  }
  if (!task.cores.empty()) {
    double start = 0;
    for (int64_t core : task.cores)
      start = std::max({start, coreFree[core], readyTime(task, core)});
    task.start = start;
    task.finish = start + task.cycles;
    task.core = task.cores.front();
    for (int64_t core : task.cores)
      coreFree[core] = task.finish;
    return;
  }
  double best = INFINITY;
  for (int64_t core = 0; core < int64_t(coreFree.size()); ++core) {
    double start = std::max(coreFree[core], readyTime(task, core));
    if (start + task.cycles < best) {
      best = start + task.cycles;
      task.start = start;
      task.core = core;
    }
  }
  task.finish = best;
  coreFree[task.core] = task.finish;
}

void CoreScheduler::run(Block &body) {
  buildTasks(body);
  if (tasks.empty())
    return;
  // Highest level first; then the user's order hint (lower first); then
  // the op's position, so equal ops keep their order.
  auto lower = [&](size_t a, size_t b) {
    const Task &x = tasks[a], &y = tasks[b];
    // On one core every order takes as long: keep the program's.
    if (coreFree.size() > 1 && x.level != y.level)
      return x.level < y.level;
    int64_t ox = x.order.value_or(INT64_MAX), oy = y.order.value_or(INT64_MAX);
    if (ox != oy)
      return ox > oy;
    return x.index > y.index;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(lower)> ready(
      lower);
  for (Task &task : tasks)
    if (task.waiting == 0)
      ready.push(task.index);
  size_t sequence = 0;
  while (!ready.empty()) {
    Task &task = tasks[ready.top()];
    ready.pop();
    schedule(task);
    task.sequence = sequence++;
    for (size_t consumer : task.consumers)
      if (--tasks[consumer].waiting == 0)
        ready.push(consumer);
  }

  // The schedule becomes the IR: cores, start and length, and the block
  // in start order (producers always start no later than their consumers
  // and were scheduled before them, so the order keeps every use after its
  // definition).
  MLIRContext *context = body.getParentOp()->getContext();
  auto card = cast<CardPartitionOp>(body.getParentOp()).getCard();
  std::vector<Task *> order;
  for (Task &task : tasks) {
    order.push_back(&task);
    Operation *op = task.op;
    op->setAttr(
        AccelDialect::getScheduleAttrName(),
        DenseI64ArrayAttr::get(context, {int64_t(std::llround(task.start)),
                                         int64_t(std::llround(task.cycles))}));
    if (task.view || !task.cores.empty())
      continue;
    op->setAttr(AccelDialect::getPlacementAttrName(),
                getPlacementOnCores(op, card, {task.core}));
  }
  llvm::stable_sort(order, [](const Task *a, const Task *b) {
    if (a->start != b->start)
      return a->start < b->start;
    return a->sequence < b->sequence;
  });
  // Constants first (they have no operands), then the ops in start order.
  Operation *terminator = body.getTerminator();
  SmallVector<Operation *> constants;
  for (Operation &op : body)
    if (isa<ConstantOp>(op))
      constants.push_back(&op);
  for (Operation *constant : constants)
    constant->moveBefore(terminator);
  for (Task *task : order)
    task->op->moveBefore(terminator);
  for (Task &task : tasks)
    numMoved += task.sequence != task.index;
}

struct AccelPlacePass : mlir::nnaccel::impl::AccelPlaceBase<AccelPlacePass> {
  using Base::Base;

  void runOnOperation() override {
    const ::nnaccel::isa::TargetDesc *target =
        npu::lookupTarget(getOperation());
    if (!target)
      return signalPassFailure();
    unsigned cores = std::max<unsigned>(target->coresPerCard, 1);
    if (maxCores)
      cores = std::min<unsigned>(cores, maxCores);
    CoreCostModel model(*target);
    getOperation().walk([&](CardPartitionOp partition) {
      CoreScheduler scheduler(model, cores);
      scheduler.run(partition.getBody().front());
      numReordered += scheduler.numMoved;
      numOrderWarnings += scheduler.numOrderWarnings;
    });
  }
};
} // namespace
