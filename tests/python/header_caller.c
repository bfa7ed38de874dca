/* The typed header that `python3 -m oxide.header libkernels.so` writes, used from C on host memory
 * (the CPU simulator): kernels_add and kernels_coordinates_3d, and a refused launch's status. */
#include "kernels.h"

#include <stdio.h>

int main(void) {
  enum { n = 100 };
  static float a[n], b[n], c[n], volume[2 * 3 * 4];
  for (int i = 0; i < n; ++i) {
    a[i] = (float)i;
    b[i] = 1.0f;
  }
  oxide_launch_config config = {0};
  config.device = OXIDE_DEVICE_SIMULATOR;
  int status = kernels_add(a, n, b, n, c, n, &config);
  if (status != OXIDE_OK) {
    printf("FAIL: %s: %s\n", oxide_status_name(status), oxide_last_error());
    return 1;
  }
  for (int i = 0; i < n; ++i)
    if (c[i] != a[i] + 1.0f) {
      printf("FAIL: c[%d] = %g\n", i, c[i]);
      return 1;
    }
  status = kernels_coordinates_3d(0.25f, volume, 2, 3, 4, &config);
  if (status != OXIDE_OK || volume[1 * 12 + 2 * 4 + 3] != 3 + 20 + 100 + 0.25f) {
    printf("FAIL: coordinates_3d: %s %s\n", oxide_status_name(status), oxide_last_error());
    return 1;
  }
  status = kernels_add(a, n, b, n - 1, c, n, &config);
  printf("header_caller: a short input: %s\n", oxide_status_name(status));
  if (status == OXIDE_OK)
    return 1;
  printf("PASS\n");
  return 0;
}
