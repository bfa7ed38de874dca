/* The typed header that `python3 -m oxide.header libkernels.so` writes, used from C on host memory
 * (the CPU simulator): kernels_add and kernels_coordinates_3d, oxide_fill, and refused calls' statuses. */
#include "kernels.h"

#include <stdint.h>
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
  /* oxide_fill: borrowed memory set to one value (12-byte elements: three words each). */
  static int32_t triples[5][3];
  const int32_t triple[3] = {7, -1, 42};
  status = oxide_fill(OXIDE_DEVICE_SIMULATOR, NULL, (uint64_t)(uintptr_t)triples, 5, sizeof triple, triple);
  if (status != OXIDE_OK || triples[4][0] != 7 || triples[4][1] != -1 || triples[4][2] != 42) {
    printf("FAIL: oxide_fill: %s %s\n", oxide_status_name(status), oxide_last_error());
    return 1;
  }
  status = oxide_fill(OXIDE_DEVICE_SIMULATOR, NULL, 0, 5, sizeof triple, triple);
  printf("header_caller: oxide_fill of a null pointer: %s\n", oxide_status_name(status));
  if (status == OXIDE_OK)
    return 1;
  status = kernels_add(a, n, b, n - 1, c, n, &config);
  printf("header_caller: a short input: %s\n", oxide_status_name(status));
  if (status == OXIDE_OK)
    return 1;
  printf("PASS\n");
  return 0;
}
