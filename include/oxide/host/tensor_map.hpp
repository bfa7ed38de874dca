// The host side of oxide::TensorMap (oxide/device/tma.hpp): a tensor in device memory and the
// descriptor through which TMA copies read boxes of it (and, for a mutable element type, TMA
// stores write them).
//
//   using A = oxide::DeviceTensorMap<const oxide::bfloat16, oxide::Box<128, 64>, oxide::Swizzle::b128>;
//   auto a = A::create(stream, std::move(buffer), {m, k});  // an m x k row-major matrix
//   gemm(stream, a, ...);       // binds to a TensorMap<const bf16, Box<128, 64>, Swizzle::b128>
//
// On a GPU the descriptor is a CUtensorMap (cuTensorMapEncodeTiled); on the simulator it is the
// simulator's own format. Either way it lives in 128 bytes of device memory that the object owns.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "oxide/detail/host/launch_core.hpp"
#include "oxide/device/tma.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/simulator.hpp"
#include "oxide/host/stream.hpp"

namespace oxide {

namespace detail {

/// What a descriptor says, as the public API takes it: outermost dimension first, strides in
/// elements. encode_tensor_map validates and converts it.
struct TensorMapSpec {
  std::uint32_t rank = 0;          ///< 1..5
  std::uint32_t element_bytes = 0; ///< 1, 2, 4 or 8
  std::uint32_t swizzle_bytes = 0; ///< 0 (none), 32, 64 or 128
  std::uint64_t data = 0;          ///< device address of element (0, ..., 0)
  std::uint64_t buffer_bytes = 0;  ///< bytes of the buffer from `data` on
  std::uint64_t extents[5]{};      ///< elements per dimension, outermost first
  std::uint64_t strides[4]{};      ///< elements between consecutive indices of the outer dimensions
  std::uint32_t box[5]{};          ///< the box's extents, outermost first
};

/// The 128 bytes of a descriptor: a CUtensorMap (which CUDA 13 aligns to 128 bytes; TMA needs
/// 64), or the simulator's.
struct alignas(128) TensorMapBytes {
  std::byte bytes[128];
};

/// Validates `spec` (the rules of cuTensorMapEncodeTiled, on both backends) and encodes it for the
/// context of `stream`. Throws oxide::Error: InvalidTensorMap naming the rule a value breaks,
/// Driver when the driver refuses it.
[[nodiscard]] TensorMapBytes encode_tensor_map(const Stream &stream, const TensorMapSpec &spec);

struct TensorMapObjectAccess;

} // namespace detail

/// A tensor of T in device memory, viewed as row-major with the given extents, and the descriptor
/// through which TMA copies read it (T const: loads only) or also write it (T mutable: TMA stores,
/// oxide::tma::store, in kernels launched with oxide::unsafe_launch) in boxes of shape B with
/// swizzle S. It binds only to a kernel parameter TensorMap<T, B, S> of the same type. It owns
/// the tensor's buffer, so that the buffer lives as long as the descriptor that points into it;
/// release() gives it back. RAII and move-only, like DeviceBuffer.
template <class T, class B, Swizzle S = Swizzle::none> class DeviceTensorMap {
public:
  using kernel_parameter = TensorMap<T, B, S>;
  using element_type = std::remove_const_t<T>;
  static constexpr std::uint32_t rank = B::rank;

  /// An empty map, which binds to no launch.
  DeviceTensorMap() = default;

  /// The map of `tensor`, viewed as a row-major tensor of `extents` (outermost first, e.g.
  /// {rows, columns}) whose rows are contiguous and packed: each outer dimension's stride is the
  /// product of the extents inside it. Uploads the descriptor on `stream`. Throws oxide::Error
  /// (InvalidTensorMap) when the extents need more elements than `tensor` has, or break TMA's
  /// rules (each extent 1..2^32, rows a multiple of 16 bytes when there are several).
  [[nodiscard]] static DeviceTensorMap create(Stream &stream, DeviceBuffer<element_type> tensor,
                                              const std::array<std::uint64_t, rank> &extents) {
    std::array<std::uint64_t, rank - 1> strides{};
    std::uint64_t stride = 1;
    for (std::size_t d = rank - 1; d > 0; --d) {
      stride *= extents[d];
      strides[d - 1] = stride;
    }
    return create(stream, std::move(tensor), extents, strides);
  }

  /// The same with explicit `strides`: the elements from one index to the next of each outer
  /// dimension, outermost first (rank - 1 of them; the innermost dimension is contiguous). Each
  /// is a multiple of 16 bytes below 2^40 bytes and covers the dimension inside it (rows never
  /// overlap: padding is allowed).
  [[nodiscard]] static DeviceTensorMap create(Stream &stream, DeviceBuffer<element_type> tensor,
                                              const std::array<std::uint64_t, rank> &extents,
                                              const std::array<std::uint64_t, rank - 1> &strides) {
    detail::TensorMapSpec spec;
    spec.rank = rank;
    spec.element_bytes = sizeof(T);
    spec.swizzle_bytes = static_cast<std::uint32_t>(S);
    spec.data = tensor.device_ptr();
    spec.buffer_bytes = tensor.size_bytes();
    for (std::size_t d = 0; d < rank; ++d) {
      spec.extents[d] = extents[d];
      spec.box[d] = B::extents[d];
    }
    for (std::size_t d = 0; d + 1 < rank; ++d)
      spec.strides[d] = strides[d];
    const detail::TensorMapBytes bytes = detail::encode_tensor_map(stream, spec);
    if constexpr (!std::is_const_v<T>) {
      // TMA stores write a row's bytes in whole 16-byte chunks (past a row whose bytes are not a
      // multiple of 16, up to the next chunk): the last row's last chunk must be the buffer's.
      std::uint64_t last_row = 0;
      for (std::size_t d = 0; d + 1 < rank; ++d)
        last_row += (extents[d] ? extents[d] - 1 : 0) * strides[d];
      const std::uint64_t row_bytes = (extents[rank - 1] * sizeof(T) + 15) / 16 * 16;
      if (last_row * sizeof(T) + row_bytes > tensor.size_bytes())
        throw Error(ErrorKind::InvalidTensorMap,
                    "oxide: DeviceTensorMap::create: TMA stores write the rows of a writable tensor in whole "
                    "16-byte chunks, and the buffer ends inside the last row's last chunk; give the buffer " +
                        std::to_string(last_row * sizeof(T) + row_bytes) + " bytes (it has " +
                        std::to_string(tensor.size_bytes()) + ")");
    }
    DeviceTensorMap map;
    map.descriptor_ = DeviceBuffer<detail::TensorMapBytes>::from_host(stream, {&bytes, 1});
    map.tensor_ = std::move(tensor);
    map.tensor_allocation_ = detail::BufferAccess::allocation(map.tensor_);
    map.extents_ = extents;
    return map;
  }

  /// The tensor, read-only: it stays the map's while the map lives (bind it as a Span<const T>
  /// input; replace its contents with copy_from_host).
  [[nodiscard]] const DeviceBuffer<element_type> &buffer() const noexcept { return tensor_; }
  /// The tensor, for a launch that writes it: a kernel that makes what a later launch on the same
  /// stream reads through the map (a transpose before a GEMM). A launch that takes both the map
  /// and its tensor as an output is refused (OverlappingArguments: its copies would read what it
  /// writes), and a map whose tensor was given other memory through this reference (assigned,
  /// reset) is refused at its next launch (InvalidTensorMap).
  [[nodiscard]] DeviceBuffer<element_type> &buffer_mut() noexcept { return tensor_; }
  /// Copies `host` (exactly buffer().size() elements) into the tensor, ordered on `stream`.
  void copy_from_host(Stream &stream, detail::HostElements<const element_type> host) {
    tensor_.copy_from_host(stream, host);
  }
  /// The tensor's elements, read back on `stream` (what TMA stores wrote, for a mutable T).
  [[nodiscard]] std::vector<element_type> to_host(Stream &stream) const { return tensor_.to_host(stream); }
  /// The extents the map was made with, outermost first.
  [[nodiscard]] const std::array<std::uint64_t, rank> &extents() const noexcept { return extents_; }
  /// Whether the map holds a descriptor (it was made by create and not released or moved from).
  [[nodiscard]] bool empty() const noexcept { return descriptor_.size() == 0; }

  /// Ends the map (its descriptor is freed) and gives the tensor back. Launches already
  /// enqueued with the map must have completed, as for DeviceBuffer::reset.
  [[nodiscard]] DeviceBuffer<element_type> release() && {
    descriptor_.reset();
    return std::move(tensor_);
  }

private:
  friend struct detail::TensorMapObjectAccess;
  DeviceBuffer<detail::TensorMapBytes> descriptor_;
  DeviceBuffer<element_type> tensor_;
  /// The allocation the descriptor points into: buffer() is a const reference, which a host
  /// const_cast could give other memory; the launch then refuses the stale descriptor.
  std::uint64_t tensor_allocation_ = 0;
  std::array<std::uint64_t, rank> extents_{};
};

namespace detail {

struct TensorMapObjectAccess {
  template <class T, class B, Swizzle S>
  [[nodiscard]] static const DeviceBuffer<TensorMapBytes> &
  descriptor(const DeviceTensorMap<T, B, S> &map) noexcept {
    return map.descriptor_;
  }
  /// Whether the tensor still holds the memory the descriptor was encoded for.
  template <class T, class B, Swizzle S>
  [[nodiscard]] static bool descriptor_current(const DeviceTensorMap<T, B, S> &map) noexcept {
    return BufferAccess::allocation(map.tensor_) == map.tensor_allocation_;
  }
};

/// A TensorMap parameter takes a named DeviceTensorMap of exactly its type.
template <class T, class B, Swizzle S> struct Binder<TensorMap<T, B, S>> {
  template <class Arg>
  static constexpr bool accepts =
      std::is_lvalue_reference_v<Arg> && std::same_as<std::remove_cvref_t<Arg>, DeviceTensorMap<T, B, S>>;
  /// Throws oxide::Error (InvalidTensorMap) for an empty map: its copies would fault.
  static TensorMap<T, B, S> bind(const DeviceTensorMap<T, B, S> &map) {
    if (map.empty())
      throw Error(
          ErrorKind::InvalidTensorMap,
          "oxide: an empty DeviceTensorMap (default-constructed, moved from or released) is passed for a "
          "TensorMap parameter; make it with DeviceTensorMap::create");
    if (!TensorMapObjectAccess::descriptor_current(map))
      throw Error(
          ErrorKind::InvalidTensorMap,
          "oxide: the tensor of a DeviceTensorMap was given other memory after create (through a "
          "const_cast of buffer()), so its descriptor points at memory it no longer owns; make the map "
          "again with DeviceTensorMap::create");
    const auto &descriptor = TensorMapObjectAccess::descriptor(map);
    return TensorMapAccess::make<TensorMap<T, B, S>>(
        reinterpret_cast<const void *>(static_cast<std::uintptr_t>(descriptor.device_ptr())));
  }
};

template <class T, class B, Swizzle S> inline constexpr bool is_tensor_map_param_v<TensorMap<T, B, S>> = true;
/// A map of a mutable T is written (TMA stores): the launch's aliasing checks count it as an output.
template <class T, class B, Swizzle S>
inline constexpr bool writes_through_v<TensorMap<T, B, S>> = !std::is_const_v<T>;
template <class T, class B, Swizzle S>
inline constexpr bool is_device_tensor_map_v<DeviceTensorMap<T, B, S>> = true;

} // namespace detail

namespace sim::detail {
template <class T, class B, Swizzle S>
inline constexpr char param_kind_v<TensorMap<T, B, S>> =
    param_kind_letter(std::is_const_v<T> ? ParamKind::tensor_map : ParamKind::writable_tensor_map);
} // namespace sim::detail

} // namespace oxide
