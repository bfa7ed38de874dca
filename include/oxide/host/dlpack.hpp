// Borrowing a DLPack tensor (PyTorch's, JAX's, CuPy's... through to_dlpack / __dlpack__) as an
// oxide::DeviceBuffer, for launches from C++ on memory another framework owns:
//
//   #include <oxide/host/dlpack.hpp>                 // needs <dlpack/dlpack.h> (libdlpack-dev)
//   auto x = oxide::unsafe_borrow_dlpack<float>(ctx, managed->dl_tensor);
//   auto out = oxide::unsafe_borrow_dlpack<float>(ctx, out_tensor);
//   launch(stream, x, out.view_2d(width, height));   // the launch checks apply as to any buffer
//
// Not part of <oxide/oxide.hpp>, which does not need DLPack's header.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

#include "oxide/host/buffer.hpp"
#include "oxide/host/context.hpp"
#include "oxide/host/dtype.hpp"
#include "oxide/host/error.hpp"

namespace oxide {

/// The memory of `tensor` as a DeviceBuffer<T> of its element count that never frees it
/// (DeviceBuffer::unsafe_borrow), after checking that it can be one: its elements are T (one lane),
/// it lies on `context`'s device (kDLCUDA or kDLCUDAManaged of its ordinal; kDLCPU or
/// kDLCUDAHost for the simulator), and it is contiguous in C order (its strides, where given, are
/// those of its shape; extents of 1 aside). Throws oxide::Error: DtypeMismatch, WrongContext,
/// UnsupportedStrides, ArgumentMismatch (a negative extent), Other (a null or misaligned pointer).
/// As with unsafe_borrow, the caller keeps the tensor alive while the buffer, or a launch or graph
/// using it, is in use. Use view_2d / view_3d for DisjointSpan2D/3D parameters.
template <class T>
[[nodiscard]] DeviceBuffer<T> unsafe_borrow_dlpack(const Context &context, const DLTensor &tensor) {
  constexpr std::int32_t expected = detail::dtype_of<T>();
  static_assert(expected != OXIDE_DTYPE_NONE, "oxide::unsafe_borrow_dlpack: T has no DLPack element type");
  const std::int32_t got =
      OXIDE_DTYPE(static_cast<int>(tensor.dtype.code), static_cast<int>(tensor.dtype.bits));
  if (got != expected || tensor.dtype.lanes != 1)
    throw Error(
        ErrorKind::DtypeMismatch,
        "unsafe_borrow_dlpack: the tensor's elements are " +
            (tensor.dtype.lanes != 1 ? std::to_string(tensor.dtype.lanes) + " lanes of " : std::string()) +
            detail::dtype_name(got) + ", not " + detail::dtype_name(expected));
  const bool host = tensor.device.device_type == kDLCPU || tensor.device.device_type == kDLCUDAHost;
  const bool cuda = tensor.device.device_type == kDLCUDA || tensor.device.device_type == kDLCUDAManaged;
  const Device &device = context.device();
  if (device.is_simulator() ? !host : !(cuda && tensor.device.device_id == device.ordinal()))
    throw Error(ErrorKind::WrongContext, "unsafe_borrow_dlpack: the tensor is on DLPack device " +
                                             std::to_string(static_cast<int>(tensor.device.device_type)) +
                                             ":" + std::to_string(tensor.device.device_id) + ", not on " +
                                             device.name() +
                                             (device.is_simulator() ? " (which takes host memory)" : ""));
  std::uint64_t elements = 1;
  std::int64_t expected_stride = 1;
  for (int d = tensor.ndim - 1; d >= 0; --d) {
    const std::int64_t extent = tensor.shape[d];
    if (extent < 0)
      throw Error(ErrorKind::ArgumentMismatch, "unsafe_borrow_dlpack: the tensor has a negative extent");
    if (tensor.strides && extent > 1 && tensor.strides[d] != expected_stride)
      throw Error(ErrorKind::UnsupportedStrides,
                  "unsafe_borrow_dlpack: the tensor is not contiguous (dimension " + std::to_string(d) +
                      " has stride " + std::to_string(tensor.strides[d]) + ", not " +
                      std::to_string(expected_stride) + "); borrow a contiguous copy");
    expected_stride *= extent > 1 ? extent : 1;
    elements *= static_cast<std::uint64_t>(extent);
  }
  const std::uint64_t address = reinterpret_cast<std::uintptr_t>(tensor.data) + tensor.byte_offset;
  return DeviceBuffer<T>::unsafe_borrow(context, elements == 0 ? 0 : address,
                                        static_cast<std::size_t>(elements));
}

} // namespace oxide
