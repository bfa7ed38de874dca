/* A C program that launches an Oxide library's kernel through <oxide/c_api.h> on host memory
 * (the CPU simulator), and reports a contract violation. Prints PASS. */
#include <oxide/c_api.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  enum { n = 1000 };
  static float a[n], b[n], c[n];
  for (int i = 0; i < n; ++i) {
    a[i] = (float)i;
    b[i] = 0.5f;
  }
  const oxide_kernel *add = oxide_find_kernel("add");
  if (!add) {
    printf("FAIL: %s\n", oxide_last_error());
    return 1;
  }
  oxide_param_info info;
  if (oxide_kernel_param(add, 2, &info) != OXIDE_OK || strcmp(info.name, "c") != 0 ||
      info.kind != OXIDE_PARAM_OUTPUT || info.dtype != OXIDE_DTYPE_F32 || !info.writable) {
    printf("FAIL: parameter 3 of add is not c, a float32 output\n");
    return 1;
  }
  oxide_arg args[3];
  memset(args, 0, sizeof args);
  float *pointers[3] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    args[i].type = OXIDE_ARG_TENSOR;
    args[i].dtype = OXIDE_DTYPE_F32;
    args[i].data = (uint64_t)(uintptr_t)pointers[i];
    args[i].ndim = 1;
    args[i].shape[0] = n;
    args[i].strides[0] = 1;
  }
  oxide_launch_config config;
  memset(&config, 0, sizeof config);
  config.device = OXIDE_DEVICE_SIMULATOR;
  int status = oxide_launch(add, &config, args, 3);
  if (status != OXIDE_OK) {
    printf("FAIL: %s: %s\n", oxide_status_name(status), oxide_last_error());
    return 1;
  }
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) {
      printf("FAIL: c[%d] = %g\n", i, c[i]);
      return 1;
    }
  args[1].shape[0] = n / 2;
  status = oxide_launch(add, &config, args, 3);
  printf("c_caller: %zu kernels; a short input: %s: %s\n", oxide_kernel_count(), oxide_status_name(status),
         oxide_last_error());
  if (status == OXIDE_OK)
    return 1;
  printf("PASS\n");
  return 0;
}
