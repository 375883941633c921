/* embed.c: runs a .kiln artifact through the kiln runtime's C API, with host
 * buffers that the runtime stages. Inputs are filled with a fixed pattern;
 * each output's sum and sum of squares are printed. docs/embedding.md
 * explains each step. Exit status as kiln's tools: 0 ok, 1 runtime failure,
 * 2 usage or file error, 3 no CUDA device.
 *   embed_c MODEL.kiln      embed_c --version */
#include <kiln/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints |status| (if any) with |what|, frees it; returns the exit status. */
static int report(kiln_status_t status, const char *what) {
  kiln_status_code_t code = kiln_status_code(status);
  if (code == KILN_STATUS_OK)
    return 0;
  fprintf(stderr, "embed_c: %s: %s: %s\n", what, kiln_status_code_name(code),
          kiln_status_message(status));
  kiln_status_free(status);
  if (code == KILN_STATUS_UNAVAILABLE)
    return 3;
  if (code == KILN_STATUS_NOT_FOUND || code == KILN_STATUS_DATA_LOSS)
    return 2;
  return 1;
}

/* A deterministic, non-constant pattern: element |i| of an input. */
static void fill(void *data, kiln_dtype_t dtype, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    double value = (double)((i * 7) % 19 + 1) / 20.0 - 0.5;
    switch (dtype) {
    case KILN_DTYPE_F32:
      ((float *)data)[i] = (float)value;
      break;
    case KILN_DTYPE_F64:
      ((double *)data)[i] = value;
      break;
    case KILN_DTYPE_I32:
      ((int32_t *)data)[i] = (int32_t)(i % 4);
      break;
    case KILN_DTYPE_I64:
      ((int64_t *)data)[i] = (int64_t)(i % 4);
      break;
    case KILN_DTYPE_BOOL:
      ((uint8_t *)data)[i] = (uint8_t)(i % 2);
      break;
    default:
      memset(data, 0, kiln_dtype_size(dtype) * count);
    }
  }
}

static double element(const void *data, kiln_dtype_t dtype, size_t i) {
  switch (dtype) {
  case KILN_DTYPE_F32:
    return ((const float *)data)[i];
  case KILN_DTYPE_F64:
    return ((const double *)data)[i];
  case KILN_DTYPE_I32:
    return ((const int32_t *)data)[i];
  case KILN_DTYPE_I64:
    return (double)((const int64_t *)data)[i];
  default:
    return 0;
  }
}

static int supported(kiln_dtype_t dtype) {
  return dtype == KILN_DTYPE_F32 || dtype == KILN_DTYPE_F64 ||
         dtype == KILN_DTYPE_I32 || dtype == KILN_DTYPE_I64 ||
         dtype == KILN_DTYPE_BOOL;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--version") == 0) {
    printf("kiln runtime %s, API %u (header %d), artifact format %u\n",
           kiln_runtime_version(), kiln_runtime_api_version(),
           KILN_RUNTIME_API_VERSION, kiln_runtime_artifact_format_version());
    return 0;
  }
  if (argc != 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: embed_c MODEL.kiln | --version\n");
    return 2;
  }
  /* A library of another API version would have another SONAME; a check
   * for programs that load it some other way. */
  if (kiln_runtime_api_version() != KILN_RUNTIME_API_VERSION) {
    fprintf(stderr, "embed_c: built for kiln API %d, the library is %u\n",
            KILN_RUNTIME_API_VERSION, kiln_runtime_api_version());
    return 1;
  }

  kiln_model_t *model = NULL;
  kiln_session_t *session = NULL;
  cudaStream_t stream = NULL;
  void **buffers = NULL;
  size_t inputs = 0, outputs = 0;
  int exit_code = 0;

  kiln_load_options_t load_options;
  kiln_load_options_init(&load_options); /* struct_size and defaults */
  load_options.device_ordinal = 0;
  exit_code = report(kiln_model_load(argv[1], &load_options, &model),
                     "loading the model");
  if (exit_code)
    goto cleanup;

  kiln_session_options_t session_options;
  kiln_session_options_init(&session_options);
  exit_code = report(kiln_session_create(model, &session_options, &session),
                     "creating a session");
  if (exit_code)
    goto cleanup;

  inputs = kiln_model_input_count(model, 0);
  outputs = kiln_model_output_count(model, 0);
  buffers = calloc(inputs + outputs, sizeof(void *));
  for (size_t i = 0; i < inputs + outputs && !exit_code; ++i) {
    kiln_tensor_info_t info;
    int input = i < inputs;
    exit_code =
        report(input ? kiln_model_input_info(model, 0, i, &info)
                     : kiln_model_output_info(model, 0, i - inputs, &info),
               "reading the signature");
    if (exit_code)
      break;
    if (!supported(info.dtype)) {
      fprintf(stderr,
              "embed_c: '%s' is %s; this example fills and prints "
              "f32, f64, i32, i64 and bool tensors\n",
              info.name, kiln_dtype_name(info.dtype));
      exit_code = 1;
      break;
    }
    buffers[i] = malloc(info.bytes ? info.bytes : 1);
    if (input)
      fill(buffers[i], info.dtype, info.bytes / kiln_dtype_size(info.dtype));
    /* Host memory: the runtime copies through pinned staging on the
     * stream. The declared dtype and shape are checked at bind. */
    kiln_tensor_t tensor = kiln_host_tensor(buffers[i], info.bytes);
    tensor.dtype = info.dtype;
    tensor.dims = info.dims;
    tensor.rank = info.rank;
    exit_code =
        report(input ? kiln_session_bind_input(session, info.name, &tensor)
                     : kiln_session_bind_output(session, info.name, &tensor),
               "binding");
  }
  if (exit_code)
    goto cleanup;

  if (cudaStreamCreate(&stream) != cudaSuccess) {
    fprintf(stderr, "embed_c: cudaStreamCreate failed\n");
    exit_code = 1;
    goto cleanup;
  }
  /* Enqueues the run; host outputs are written when the stream gets there. */
  exit_code = report(kiln_session_run(session, stream), "running");
  if (exit_code)
    goto cleanup;
  if (cudaStreamSynchronize(stream) != cudaSuccess) {
    fprintf(stderr, "embed_c: the run failed on the GPU\n");
    exit_code = 1;
    goto cleanup;
  }
  for (size_t i = 0; i < outputs; ++i) {
    kiln_tensor_info_t info;
    kiln_status_free(kiln_model_output_info(model, 0, i, &info));
    size_t count = info.bytes / kiln_dtype_size(info.dtype);
    double sum = 0, squares = 0;
    for (size_t e = 0; e < count; ++e) {
      double value = element(buffers[inputs + i], info.dtype, e);
      sum += value;
      squares += value * value;
    }
    printf("output '%s' %s[", info.name, kiln_dtype_name(info.dtype));
    for (size_t d = 0; d < info.rank; ++d)
      printf("%s%lld", d ? "x" : "", (long long)info.dims[d]);
    printf("]: sum %.9g, sum of squares %.9g\n", sum, squares);
  }

cleanup:
  for (size_t i = 0; buffers && i < inputs + outputs; ++i)
    free(buffers[i]);
  free(buffers);
  /* Release synchronises with the session's last run. */
  kiln_session_release(session);
  kiln_model_release(model);
  if (stream)
    cudaStreamDestroy(stream);
  return exit_code;
}
