//===- RequestQueue.h - Serving requests from worker threads -----*- C++
//-*-===//
//
// RequestQueue is the runtime's minimal server: N worker threads, each with
// its own Session (and so its own emulator) over one shared immutable
// Model, take requests from a FIFO queue. submit() returns at once with a
// std::future, so requests from many client threads overlap up to N at a
// time. Each result carries its own RunStats, since "the last run" of a
// pooled session means nothing to a client.
//
// Destruction (or shutdown()) stops accepting requests, lets the workers
// finish everything already queued, and joins them; no future is ever left
// without a value.
//
//===----------------------------------------------------------------------===//

#ifndef NNACCEL_RUNTIME_REQUESTQUEUE_H
#define NNACCEL_RUNTIME_REQUESTQUEUE_H

#include "nnaccel/Runtime/Session.h"

#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nnaccel {
namespace runtime {

struct RequestQueueOptions {
  /// Worker threads, each with one Session. 0 is treated as 1.
  unsigned workers = 2;
  SessionOptions session;
};

/// The answer to one request.
struct RunResult {
  std::vector<Tensor> outputs; ///< in signature order
  RunStats stats;
};

struct RequestQueueImpl;

class RequestQueue {
public:
  /// Creates the sessions and starts the workers.
  static Expected<std::unique_ptr<RequestQueue>>
  create(std::shared_ptr<const Model> model, RequestQueueOptions options = {});
  /// Equivalent to shutdown().
  ~RequestQueue();
  RequestQueue(const RequestQueue &) = delete;
  RequestQueue &operator=(const RequestQueue &) = delete;

  /// Queues a request (inputs by name, as Session::run). Thread-safe. After
  /// shutdown() the future is ready at once with an error.
  std::future<Expected<RunResult>> submit(std::map<std::string, Tensor> inputs);

  /// Stops accepting requests, completes the queued ones, joins the workers.
  /// Idempotent; thread-safe.
  void shutdown();

  unsigned getNumWorkers() const;
  /// Requests waiting for a worker (not counting those running).
  size_t getPending() const;
  const Model &getModel() const;

private:
  explicit RequestQueue(std::unique_ptr<RequestQueueImpl> impl);
  std::unique_ptr<RequestQueueImpl> impl;
};

} // namespace runtime
} // namespace nnaccel

#endif // NNACCEL_RUNTIME_REQUESTQUEUE_H
