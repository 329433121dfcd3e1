//===- CAPI.cpp - The C interface over Model and Session ------------------===//
//
// Each entry point translates between the C structs and the C++ API and
// turns every failure, reported or thrown (allocation), into NNACCEL_ERROR
// with the message stored per thread.
//
//===----------------------------------------------------------------------===//

#include "nnaccel/Runtime/Model.h"
#include "nnaccel/Runtime/Session.h"
#include "nnaccel/Runtime/c_api.h"

#include <exception>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace nnaccel;
using namespace nnaccel::runtime;

struct nnaccel_model {
  std::shared_ptr<const Model> model;
};

struct nnaccel_session {
  std::unique_ptr<Session> session;
};

struct nnaccel_outputs {
  std::vector<Tensor> tensors;
  std::vector<std::string> names;
};

namespace {

thread_local std::string lastError;

nnaccel_status fail(std::string message) {
  lastError = std::move(message);
  return NNACCEL_ERROR;
}

/// Runs `body`, which returns a status, converting exceptions to errors.
template <typename Body> nnaccel_status guarded(Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail("out of memory");
  } catch (const std::exception &error) {
    return fail(error.what());
  } catch (...) {
    return fail("unknown error");
  }
}

void describe(const PortInfo &port, nnaccel_tensor *out) {
  out->name = port.name.c_str();
  out->dtype = static_cast<int32_t>(port.dtype);
  out->rank = static_cast<int32_t>(port.shape.size());
  out->shape = port.shape.data();
  out->data = nullptr;
  out->byte_size = 0;
}

nnaccel_status port(const nnaccel_model *model, size_t index,
                    nnaccel_tensor *out, bool input) {
  if (!model || !out)
    return fail("nnaccel_model_input/output: null argument");
  const std::vector<PortInfo> &ports =
      input ? model->model->getInputs() : model->model->getOutputs();
  if (index >= ports.size())
    return fail(std::string(input ? "input" : "output") + " index " +
                std::to_string(index) + " out of range (the model has " +
                std::to_string(ports.size()) + ")");
  describe(ports[index], out);
  return NNACCEL_OK;
}

nnaccel_status wrapModel(Expected<std::shared_ptr<const Model>> loaded,
                         nnaccel_model **model) {
  if (!loaded)
    return fail(loaded.message());
  *model = new nnaccel_model{std::move(*loaded)};
  return NNACCEL_OK;
}

} // namespace

extern "C" {

const char *nnaccel_last_error(void) { return lastError.c_str(); }

nnaccel_status nnaccel_model_load(const char *path, nnaccel_model **model) {
  if (!path || !model)
    return fail("nnaccel_model_load: null argument");
  *model = nullptr;
  return guarded([&] { return wrapModel(Model::load(path), model); });
}

nnaccel_status nnaccel_model_load_buffer(const void *data, size_t size,
                                         nnaccel_model **model) {
  if (!data || !model)
    return fail("nnaccel_model_load_buffer: null argument");
  *model = nullptr;
  return guarded(
      [&] { return wrapModel(Model::fromBuffer(data, size), model); });
}

void nnaccel_model_free(nnaccel_model *model) { delete model; }

const char *nnaccel_model_name(const nnaccel_model *model) {
  return model ? model->model->getName().c_str() : "";
}

size_t nnaccel_model_num_inputs(const nnaccel_model *model) {
  return model ? model->model->getInputs().size() : 0;
}

size_t nnaccel_model_num_outputs(const nnaccel_model *model) {
  return model ? model->model->getOutputs().size() : 0;
}

nnaccel_status nnaccel_model_input(const nnaccel_model *model, size_t index,
                                   nnaccel_tensor *port) {
  return ::port(model, index, port, /*input=*/true);
}

nnaccel_status nnaccel_model_output(const nnaccel_model *model, size_t index,
                                    nnaccel_tensor *port) {
  return ::port(model, index, port, /*input=*/false);
}

nnaccel_status nnaccel_session_create(const nnaccel_model *model,
                                      nnaccel_session **session) {
  if (!model || !session)
    return fail("nnaccel_session_create: null argument");
  *session = nullptr;
  return guarded([&] {
    Expected<std::unique_ptr<Session>> created = Session::create(model->model);
    if (!created)
      return fail(created.message());
    *session = new nnaccel_session{std::move(*created)};
    return NNACCEL_OK;
  });
}

void nnaccel_session_free(nnaccel_session *session) { delete session; }

nnaccel_status nnaccel_session_run(nnaccel_session *session,
                                   const nnaccel_tensor *inputs,
                                   size_t num_inputs,
                                   nnaccel_outputs **outputs) {
  if (!session || !outputs || (num_inputs && !inputs))
    return fail("nnaccel_session_run: null argument");
  *outputs = nullptr;
  return guarded([&] {
    std::map<std::string, Tensor> named;
    for (size_t i = 0; i < num_inputs; ++i) {
      const nnaccel_tensor &in = inputs[i];
      std::string name = in.name ? in.name : "";
      if (in.dtype < 0 || !isValidDType(static_cast<unsigned>(in.dtype)))
        return fail("input '" + name + "': invalid dtype " +
                    std::to_string(in.dtype));
      if (in.rank < 0 || (in.rank > 0 && !in.shape))
        return fail("input '" + name + "': invalid rank or null shape");
      TensorDesc desc(static_cast<DType>(in.dtype),
                      std::vector<int64_t>(in.shape, in.shape + in.rank));
      if (Status valid = desc.validate(); !valid.ok())
        return fail("input '" + name + "': " + valid.message());
      if (desc.getByteSize() != in.byte_size || (in.byte_size && !in.data))
        return fail("input '" + name + "': " + desc.toString() + " needs " +
                    std::to_string(desc.getByteSize()) + " bytes, given " +
                    std::to_string(in.byte_size));
      if (named.count(name))
        return fail("input '" + name + "' given twice");
      // The caller's buffer outlives the call, and run() reads it only
      // during the call: a view avoids the copy.
      named.emplace(name, Tensor::view(std::move(desc), in.data, nullptr));
    }
    Expected<std::vector<Tensor>> result = session->session->run(named);
    if (!result)
      return fail(result.message());
    auto owned = std::make_unique<nnaccel_outputs>();
    owned->tensors = std::move(*result);
    for (const PortInfo &port : session->session->getModel().getOutputs())
      owned->names.push_back(port.name);
    owned->names.resize(owned->tensors.size());
    *outputs = owned.release();
    return NNACCEL_OK;
  });
}

size_t nnaccel_outputs_count(const nnaccel_outputs *outputs) {
  return outputs ? outputs->tensors.size() : 0;
}

nnaccel_status nnaccel_outputs_get(const nnaccel_outputs *outputs, size_t index,
                                   nnaccel_tensor *tensor) {
  if (!outputs || !tensor)
    return fail("nnaccel_outputs_get: null argument");
  if (index >= outputs->tensors.size())
    return fail("output index " + std::to_string(index) +
                " out of range (there are " +
                std::to_string(outputs->tensors.size()) + ")");
  const Tensor &t = outputs->tensors[index];
  tensor->name = outputs->names[index].c_str();
  tensor->dtype = static_cast<int32_t>(t.getDType());
  tensor->rank = static_cast<int32_t>(t.getRank());
  tensor->shape = t.getShape().data();
  tensor->data = t.data();
  tensor->byte_size = t.getByteSize();
  return NNACCEL_OK;
}

void nnaccel_outputs_free(nnaccel_outputs *outputs) { delete outputs; }

} // extern "C"
