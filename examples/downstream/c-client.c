/* c-client.c - the runtime's C interface (nnaccel/Runtime/c_api.h) from C.
 *
 * Loads a package, prints its signature, runs one request whose inputs are
 * zeros of the described shapes (a bucketed dimension, -1, as 1) and prints
 * the outputs' shapes. Exits non-zero on any error, with the runtime's
 * message.
 */
#include "nnaccel/Runtime/c_api.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static size_t element_bytes(int32_t dtype) {
  switch (dtype) {
  case NNACCEL_F64:
  case NNACCEL_I64:
    return 8;
  case NNACCEL_F32:
  case NNACCEL_I32:
    return 4;
  case NNACCEL_F16:
  case NNACCEL_BF16:
  case NNACCEL_I16:
    return 2;
  case NNACCEL_I8:
  case NNACCEL_U8:
  case NNACCEL_BOOL:
    return 1;
  default:
    return 0;
  }
}

static void print_tensor(const char *what, const nnaccel_tensor *t) {
  printf("%s %s: dtype %d, shape [", what, t->name, (int)t->dtype);
  for (int32_t d = 0; d < t->rank; ++d)
    printf("%s%" PRId64, d ? "x" : "", t->shape[d]);
  printf("]\n");
}

static int fail(const char *what) {
  fprintf(stderr, "error: %s: %s\n", what, nnaccel_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: nnaccel-c-client PACKAGE\n");
    return 2;
  }
  nnaccel_model *model;
  if (nnaccel_model_load(argv[1], &model) != NNACCEL_OK)
    return fail("load");
  printf("model %s\n", nnaccel_model_name(model));

  size_t num_inputs = nnaccel_model_num_inputs(model);
  nnaccel_tensor *inputs = calloc(num_inputs, sizeof *inputs);
  int64_t **shapes = calloc(num_inputs, sizeof *shapes);
  void **buffers = calloc(num_inputs, sizeof *buffers);
  int status = 0;
  for (size_t i = 0; i < num_inputs && !status; ++i) {
    nnaccel_tensor port;
    if (nnaccel_model_input(model, i, &port) != NNACCEL_OK) {
      status = fail("input");
      break;
    }
    print_tensor("input", &port);
    size_t bytes = element_bytes(port.dtype);
    shapes[i] = calloc((size_t)port.rank + 1, sizeof(int64_t));
    for (int32_t d = 0; d < port.rank; ++d) {
      shapes[i][d] = port.shape[d] < 0 ? 1 : port.shape[d];
      bytes *= (size_t)shapes[i][d];
    }
    if (!element_bytes(port.dtype)) {
      fprintf(stderr, "error: input %s: unsupported dtype %d\n", port.name,
              (int)port.dtype);
      status = 1;
      break;
    }
    buffers[i] = calloc(bytes ? bytes : 1, 1);
    inputs[i] = port;
    inputs[i].shape = shapes[i];
    inputs[i].data = buffers[i];
    inputs[i].byte_size = bytes;
  }

  nnaccel_session *session = NULL;
  nnaccel_outputs *outputs = NULL;
  if (!status && nnaccel_session_create(model, &session) != NNACCEL_OK)
    status = fail("session");
  if (!status &&
      nnaccel_session_run(session, inputs, num_inputs, &outputs) != NNACCEL_OK)
    status = fail("run");
  for (size_t i = 0; !status && i < nnaccel_outputs_count(outputs); ++i) {
    nnaccel_tensor out;
    if (nnaccel_outputs_get(outputs, i, &out) != NNACCEL_OK)
      status = fail("output");
    else
      print_tensor("output", &out);
  }

  nnaccel_outputs_free(outputs);
  nnaccel_session_free(session);
  nnaccel_model_free(model);
  for (size_t i = 0; i < num_inputs; ++i) {
    free(shapes[i]);
    free(buffers[i]);
  }
  free(shapes);
  free(buffers);
  free(inputs);
  return status;
}
