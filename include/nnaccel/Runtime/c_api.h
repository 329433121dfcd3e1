/*===- c_api.h - C interface to the nnaccel runtime ---------------*- C -*-===//
 *
 * A C interface over Model and Session (nnaccel/Runtime/Model.h,
 * Session.h) for callers that cannot use C++: other languages' FFIs,
 * C servers. Plain C99; link NNAccel::Runtime (a C++ library, so the final
 * link needs the C++ standard library).
 *
 * Handles are opaque. Every function that can fail returns an
 * nnaccel_status; on NNACCEL_ERROR, nnaccel_last_error() gives the message
 * of the calling thread's last failure (the runtime's own messages, e.g.
 * "m.nnpkg: input 'x': expected f32[2x3], got f32[3x2]"). No C++ exception
 * crosses this interface.
 *
 * Lifetimes: a session keeps its model alive, so nnaccel_model_free may be
 * called while sessions are open. Output tensors are owned by their
 * nnaccel_outputs and valid until nnaccel_outputs_free. A session runs one
 * request at a time (serialise calls or use one session per thread); a
 * model is immutable and may be shared by sessions on any threads.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NNACCEL_RUNTIME_C_API_H
#define NNACCEL_RUNTIME_C_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nnaccel_status {
  NNACCEL_OK = 0,
  NNACCEL_ERROR = 1,
} nnaccel_status;

/* Element types: the numbering of nnaccel::DType (nnaccel/Numerics/DType.h).
 * Only the types that runtime inputs and outputs use are named here. */
typedef enum nnaccel_dtype {
  NNACCEL_F32 = 0,
  NNACCEL_F16 = 1,
  NNACCEL_BF16 = 2,
  NNACCEL_I32 = 3,
  NNACCEL_I16 = 4,
  NNACCEL_I8 = 5,
  NNACCEL_U8 = 6,
  NNACCEL_I64 = 14,
  NNACCEL_F64 = 16,
  NNACCEL_BOOL = 17, /* one byte per element, 0 or 1 */
} nnaccel_dtype;

typedef struct nnaccel_model nnaccel_model;
typedef struct nnaccel_session nnaccel_session;
typedef struct nnaccel_outputs nnaccel_outputs;

/* A tensor by reference: the caller's buffer for inputs, the runtime's for
 * outputs and port descriptions (data is NULL there; a shape entry of -1 is
 * a bucketed dimension, see docs/buckets.md). Data is dense, row-major. */
typedef struct nnaccel_tensor {
  const char *name;
  int32_t dtype; /* an nnaccel_dtype */
  int32_t rank;
  const int64_t *shape;
  const void *data;
  size_t byte_size;
} nnaccel_tensor;

/* The message of the calling thread's last failed call ("" if none). Valid
 * until the thread's next failing call. */
const char *nnaccel_last_error(void);

/* Opens and validates a package (Model::load / Model::fromBuffer; the buffer
 * is copied). */
nnaccel_status nnaccel_model_load(const char *path, nnaccel_model **model);
nnaccel_status nnaccel_model_load_buffer(const void *data, size_t size,
                                         nnaccel_model **model);
void nnaccel_model_free(nnaccel_model *model);

const char *nnaccel_model_name(const nnaccel_model *model);
size_t nnaccel_model_num_inputs(const nnaccel_model *model);
size_t nnaccel_model_num_outputs(const nnaccel_model *model);
/* Describes input/output `index` (name, dtype, shape; data NULL). The
 * strings and shape belong to the model. */
nnaccel_status nnaccel_model_input(const nnaccel_model *model, size_t index,
                                   nnaccel_tensor *port);
nnaccel_status nnaccel_model_output(const nnaccel_model *model, size_t index,
                                    nnaccel_tensor *port);

nnaccel_status nnaccel_session_create(const nnaccel_model *model,
                                      nnaccel_session **session);
void nnaccel_session_free(nnaccel_session *session);

/* Runs one request. `inputs` are matched to the model's inputs by name;
 * every input must be given once. The input buffers are read during the
 * call only. On success *outputs holds the outputs in signature order. */
nnaccel_status nnaccel_session_run(nnaccel_session *session,
                                   const nnaccel_tensor *inputs,
                                   size_t num_inputs,
                                   nnaccel_outputs **outputs);

size_t nnaccel_outputs_count(const nnaccel_outputs *outputs);
nnaccel_status nnaccel_outputs_get(const nnaccel_outputs *outputs, size_t index,
                                   nnaccel_tensor *tensor);
void nnaccel_outputs_free(nnaccel_outputs *outputs);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NNACCEL_RUNTIME_C_API_H */
