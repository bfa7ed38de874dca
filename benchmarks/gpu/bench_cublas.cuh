// The CUDA side's cuBLAS check, for the twins that time cuBLAS or cuBLASLt as the vendor
// reference in the same run (link with -lcublas, and -lcublasLt for cuBLASLt).
#pragma once

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

/// Stops the benchmark with the call and its status when a cuBLAS or cuBLASLt call fails.
#define CHECK_CUBLAS(call)                                                                                   \
  do {                                                                                                       \
    cublasStatus_t status_ = (call);                                                                         \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                                                  \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, int(status_));        \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)
