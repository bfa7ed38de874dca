/* The C ABI of an Oxide library: the kernels a shared library (oxcc build --shared,
 * add_oxide_library(... SHARED)) exports with OXIDE_EXPORT, described and launched from C, from an
 * nvcc-built program, or from Python (python/oxide over ctypes). docs/interop.md is the guide.
 *
 * Plain C99, no Oxide or CUDA header needed: a CUstream / cudaStream_t is passed as a void *.
 *
 * - Kernels are described by oxide_kernel_count / oxide_kernel_at / oxide_find_kernel and
 *   oxide_kernel_param: each parameter's name (the contract's), kind, element type and rank.
 * - oxide_launch launches one on the caller's stream with borrowed memory: device pointers with
 *   their shapes and strides (host pointers on the CPU simulator) and scalars. It applies the
 *   launch checks of oxide::prepare (contract, `requires` relations, outputs that overlap another
 *   argument) and those of borrowed memory (element type, rank, contiguity, alignment). It never
 *   synchronises, allocates device memory or reads device memory, so a stream capture
 *   (cudaStreamBeginCapture, torch.cuda.graph) records the launch and a replay reruns it.
 * - oxide_fill sets every element of borrowed memory to one value on the caller's stream:
 *   DeviceBuffer::fill for memory the caller owns (a torch tensor's, a CuPy array's).
 * - Nothing throws across this boundary: every entry point returns a status, 0 on success; on
 *   failure, oxide_last_error() is this thread's message ("oxide: kernel 'rmsnorm': ...") and
 *   oxide_status_name(status) the kind ("RequiresViolated").
 *
 * Statuses are 1 + the value of oxide::ErrorKind (oxide/host/error.hpp), the runtime's one list
 * of failures; oxide_status_name() spells them. */
#ifndef OXIDE_C_API_H
#define OXIDE_C_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define OXIDE_C_API __attribute__((visibility("default")))
#else
#define OXIDE_C_API
#endif

/** Bumped when a struct below or an entry point's meaning changes. */
#define OXIDE_C_API_VERSION 1

/** Success; any other status is 1 + an oxide::ErrorKind. */
#define OXIDE_OK 0
/** The status of a kernel that is not exported (1 + oxide::ErrorKind::NotAKernel). */
#define OXIDE_STATUS_NOT_A_KERNEL 8

/** Element types, as DLPack encodes them: (type code << 8) | bits (kDLInt = 0, kDLUInt = 1,
 *  kDLFloat = 2, kDLBfloat = 4, kDLBool = 6). */
#define OXIDE_DTYPE(code, bits) (((code) << 8) | (bits))
#define OXIDE_DTYPE_NONE 0 /**< a parameter type with no element type the ABI can name */
#define OXIDE_DTYPE_I8 OXIDE_DTYPE(0, 8)
#define OXIDE_DTYPE_I16 OXIDE_DTYPE(0, 16)
#define OXIDE_DTYPE_I32 OXIDE_DTYPE(0, 32)
#define OXIDE_DTYPE_I64 OXIDE_DTYPE(0, 64)
#define OXIDE_DTYPE_U8 OXIDE_DTYPE(1, 8)
#define OXIDE_DTYPE_U16 OXIDE_DTYPE(1, 16)
#define OXIDE_DTYPE_U32 OXIDE_DTYPE(1, 32)
#define OXIDE_DTYPE_U64 OXIDE_DTYPE(1, 64)
#define OXIDE_DTYPE_F16 OXIDE_DTYPE(2, 16)
#define OXIDE_DTYPE_F32 OXIDE_DTYPE(2, 32)
#define OXIDE_DTYPE_F64 OXIDE_DTYPE(2, 64)
#define OXIDE_DTYPE_BF16 OXIDE_DTYPE(4, 16)
#define OXIDE_DTYPE_BOOL OXIDE_DTYPE(6, 8)

/** Parameter kinds: the letters of oxide/detail/param_kind.hpp. */
#define OXIDE_PARAM_INPUT 'i'            /**< Span<const T> */
#define OXIDE_PARAM_MUTABLE_SPAN 'm'     /**< Span<T> */
#define OXIDE_PARAM_OUTPUT 'o'           /**< DisjointSpan<T> */
#define OXIDE_PARAM_OUTPUT_2D '2'        /**< DisjointSpan2D<T>: a (height, width) tensor */
#define OXIDE_PARAM_OUTPUT_3D '3'        /**< DisjointSpan3D<T>: a (depth, height, width) tensor */
#define OXIDE_PARAM_ATOMIC 'a'           /**< AtomicSpan<T> */
#define OXIDE_PARAM_UNSIGNED_INTEGER 'u' /**< an unsigned integer scalar */
#define OXIDE_PARAM_SIGNED_INTEGER 's'   /**< a signed integer scalar */
#define OXIDE_PARAM_OTHER 'x'            /**< another scalar (float, double, bool, half) */

/** oxide_launch_config.device for the CPU simulator. */
#define OXIDE_DEVICE_SIMULATOR (-1)

/** The most dimensions a tensor argument may have. */
#define OXIDE_MAX_DIMS 4

/** An exported kernel; valid for the life of the process. */
typedef struct oxide_kernel oxide_kernel;

/** One parameter of a kernel, as oxide_kernel_param describes it. */
typedef struct oxide_param_info {
  const char *name;   /**< the contract's name for it; "arg1", "arg2"... for a kernel without one */
  int32_t kind;       /**< an OXIDE_PARAM_* letter */
  int32_t dtype;      /**< an OXIDE_DTYPE_*: the element type of a span, the type of a scalar */
  uint32_t rank;      /**< 1 for a span, 2 or 3 for DisjointSpan2D/3D, 0 for a scalar */
  uint32_t elem_size; /**< bytes per element (span) or of the value (scalar) */
  int32_t writable;   /**< whether the kernel may write through it */
} oxide_param_info;

#define OXIDE_ARG_TENSOR 0
#define OXIDE_ARG_SCALAR 1

/** One argument of a launch: borrowed memory, or a scalar. The caller keeps the memory allocated
 *  until the kernel has finished (and as long as a graph that captured the launch may run). */
typedef struct oxide_arg {
  int32_t type;  /**< OXIDE_ARG_TENSOR or OXIDE_ARG_SCALAR */
  int32_t dtype; /**< the tensor's element type; a scalar's: OXIDE_DTYPE_I64, _U64, _F64 or _BOOL */
  /** A tensor's first element (a CUdeviceptr; a host address on the simulator). A scalar's value:
   *  its int64_t, uint64_t or double bits, converted to the parameter's type with a range check. */
  uint64_t data;
  int32_t ndim; /**< 0 to OXIDE_MAX_DIMS; a tensor of 0 dimensions is one element */
  int32_t reserved;
  int64_t shape[OXIDE_MAX_DIMS];   /**< extents, outermost first */
  int64_t strides[OXIDE_MAX_DIMS]; /**< in elements, outermost first; a span needs a contiguous tensor */
} oxide_arg;

/** Where and how to launch. */
typedef struct oxide_launch_config {
  int32_t device; /**< the CUDA device ordinal, or OXIDE_DEVICE_SIMULATOR */
  uint32_t dynamic_shared_bytes;
  void *stream;     /**< the caller's CUstream / cudaStream_t (NULL: the legacy default stream) */
  uint32_t grid[3]; /**< blocks; all 0: enough blocks of `block` to cover `threads` */
  uint32_t
      block[3]; /**< threads per block; all 0: the contract's block, else 256 (1-D), 16x16 (2-D) or 8x8x4 */
  /** With grid all 0: the threads to cover in each dimension of the contract's domain; all 0: the
   *  extents of the kernel's first DisjointSpan output (its size, width x height, ...). */
  uint64_t threads[3];
} oxide_launch_config;

/** OXIDE_C_API_VERSION of the library. */
OXIDE_C_API int oxide_c_api_version(void);

/** The kernels the library exports (OXIDE_EXPORT), in registration order. */
OXIDE_C_API size_t oxide_kernel_count(void);
/** The index-th kernel; NULL past the end. */
OXIDE_C_API const oxide_kernel *oxide_kernel_at(size_t index);
/** The kernel exported under `name`; NULL when there is none (oxide_last_error says why). */
OXIDE_C_API const oxide_kernel *oxide_find_kernel(const char *name);

/** The name it is exported under ("rmsnorm"). */
OXIDE_C_API const char *oxide_kernel_name(const oxide_kernel *kernel);
/** Its launch contract in canonical form ("domain = 1, block = 256, requires = (...)"); "" when it
 *  has none (such a kernel cannot be launched through this ABI). */
OXIDE_C_API const char *oxide_kernel_contract(const oxide_kernel *kernel);
/** The contract's domain (1, 2 or 3; 0 without a contract) and exact block ({0, 0, 0} when the
 *  contract leaves it free). */
OXIDE_C_API int oxide_kernel_shape(const oxide_kernel *kernel, uint32_t *domain, uint32_t block[3]);
OXIDE_C_API size_t oxide_kernel_param_count(const oxide_kernel *kernel);
/** Describes parameter `index` (from 0) in *info. */
OXIDE_C_API int oxide_kernel_param(const oxide_kernel *kernel, size_t index, oxide_param_info *info);

/** Launches `kernel` with `count` arguments on config->stream of config->device. Checks the
 *  arguments against the parameters and the contract first; on failure nothing is enqueued. On
 *  the simulator the kernel has run when it returns (a kernel fault is KernelFault here); on a
 *  GPU a fault is reported by the caller's next synchronisation, as for any CUDA launch. */
OXIDE_C_API int oxide_launch(const oxide_kernel *kernel, const oxide_launch_config *config,
                             const oxide_arg *args, size_t count);

/** Stores the `elem_size` bytes at `value` into each of the `count` contiguous elements at `data`
 *  (a CUdeviceptr; a host address on the simulator) in the order of `stream` (the caller's
 *  CUstream / cudaStream_t; NULL: the legacy default stream) of `device` (a CUDA ordinal or
 *  OXIDE_DEVICE_SIMULATOR). The same as oxide::DeviceBuffer<T>::fill: a value whose bytes repeat
 *  every 1, 2 or 4 bytes is one cuMemsetD8/D16/D32Async, any other one strided memset per word of
 *  the element. It never synchronises, so a stream capture records it; on the simulator the
 *  memory is filled when it returns. `value` is read before it returns. Refused, with nothing
 *  enqueued: a null `value` or an `elem_size` of 0 (ArgumentMismatch), `count` * `elem_size`
 *  past the address space (ArgumentMismatch), a null `data` with `count` > 0
 *  (MisalignedArgument). Available from the library's first build with it; look the symbol up to
 *  support older libraries. */
OXIDE_C_API int oxide_fill(int32_t device, void *stream, uint64_t data, uint64_t count, uint32_t elem_size,
                           const void *value);

/** This thread's message of its last failed call ("" when none failed); valid until its next call. */
OXIDE_C_API const char *oxide_last_error(void);
/** "RequiresViolated" for a status (oxide::ErrorKind's name); "Ok" for 0, "Unknown" otherwise. */
OXIDE_C_API const char *oxide_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif /* OXIDE_C_API_H */
