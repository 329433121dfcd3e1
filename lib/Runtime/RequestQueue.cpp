//===- RequestQueue.cpp - Serving requests from worker threads ------------===//
//
// One mutex guards the FIFO and the stop flag; workers sleep on a condition
// variable. Each worker owns its Session outright, so sessions never need
// their own lock to be contended. A request is a promise plus its inputs;
// the worker fulfils the promise with the outputs and the session's stats
// of that very run (read on the worker thread, before the next request).
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/RequestQueue.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

namespace nnaccel {
namespace runtime {

namespace {
struct Request {
  std::map<std::string, Tensor> inputs;
  std::promise<Expected<RunResult>> promise;
};

std::future<Expected<RunResult>> readyError(std::string message) {
  std::promise<Expected<RunResult>> p;
  p.set_value(package::Status::error(std::move(message)));
  return p.get_future();
}
} // namespace

struct RequestQueueImpl {
  std::shared_ptr<const Model> model;
  std::vector<std::unique_ptr<Session>> sessions;
  std::vector<std::thread> workers;

  mutable std::mutex mutex;
  std::condition_variable wake;
  std::deque<Request> queue;
  bool stopping = false;
  std::mutex joinMutex; ///< serialises concurrent shutdown() calls

  void work(Session &session);
};

void RequestQueueImpl::work(Session &session) {
  while (true) {
    Request request;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [&] { return stopping || !queue.empty(); });
      // Drain the queue before honouring stop, so no promise is dropped.
      if (queue.empty())
        return;
      request = std::move(queue.front());
      queue.pop_front();
    }
    try {
      Expected<std::vector<Tensor>> outputs = session.run(request.inputs);
      if (outputs) {
        RunResult result;
        result.outputs = std::move(outputs.value());
        result.stats = session.getLastStats();
        request.promise.set_value(std::move(result));
      } else {
        request.promise.set_value(outputs.status());
      }
    } catch (const std::exception &e) {
      // Only allocation failures can get here (run() catches its own);
      // the client still gets an answer.
      try {
        request.promise.set_value(
            package::Status::error(std::string("request failed: ") + e.what()));
      } catch (...) {
      }
    }
  }
}

RequestQueue::RequestQueue(std::unique_ptr<RequestQueueImpl> impl)
    : impl(std::move(impl)) {}

RequestQueue::~RequestQueue() { shutdown(); }

Expected<std::unique_ptr<RequestQueue>>
RequestQueue::create(std::shared_ptr<const Model> model,
                     RequestQueueOptions options) {
  if (!model)
    return package::Status::error("cannot create a request queue without a "
                                  "model");
  unsigned n = options.workers ? options.workers : 1;
  auto impl = std::make_unique<RequestQueueImpl>();
  impl->model = model;
  for (unsigned i = 0; i < n; ++i) {
    Expected<std::unique_ptr<Session>> session =
        Session::create(model, options.session);
    if (!session)
      return session.status().withContext("worker " + std::to_string(i));
    impl->sessions.push_back(std::move(session.value()));
  }
  std::unique_ptr<RequestQueue> queue(new RequestQueue(std::move(impl)));
  try {
    for (unsigned i = 0; i < n; ++i) {
      RequestQueueImpl *raw = queue->impl.get();
      Session *session = raw->sessions[i].get();
      raw->workers.emplace_back([raw, session] { raw->work(*session); });
    }
  } catch (const std::exception &e) {
    // The destructor joins the workers that did start.
    return package::Status::error(std::string("cannot start workers: ") +
                                  e.what());
  }
  return queue;
}

std::future<Expected<RunResult>>
RequestQueue::submit(std::map<std::string, Tensor> inputs) {
  try {
    Request request;
    request.inputs = std::move(inputs);
    std::future<Expected<RunResult>> future = request.promise.get_future();
    {
      std::lock_guard<std::mutex> lock(impl->mutex);
      if (impl->stopping)
        return readyError("the request queue is shut down");
      impl->queue.push_back(std::move(request));
    }
    impl->wake.notify_one();
    return future;
  } catch (const std::exception &e) {
    return readyError(std::string("cannot queue the request: ") + e.what());
  }
}

void RequestQueue::shutdown() {
  std::lock_guard<std::mutex> joinLock(impl->joinMutex);
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    impl->stopping = true;
  }
  impl->wake.notify_all();
  for (std::thread &t : impl->workers)
    if (t.joinable())
      t.join();
}

unsigned RequestQueue::getNumWorkers() const {
  return static_cast<unsigned>(impl->sessions.size());
}

size_t RequestQueue::getPending() const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  return impl->queue.size();
}

const Model &RequestQueue::getModel() const { return *impl->model; }

} // namespace runtime
} // namespace nnaccel
