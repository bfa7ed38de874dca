// 2-D and 3-D views of a DeviceBuffer: how a buffer is passed to a DisjointSpan2D/3D parameter.
//
//   auto image = oxide::DeviceBuffer<float>::zeroed(stream, width * height);
//   launch(stream, input, image.view_2d(width, height));   // binds to DisjointSpan2D<float>
//
// A view covers its whole buffer (width * height == size(), checked when it is made and again at
// each launch, since the buffer may have been assigned another allocation since) and refers to it
// without owning it: make it in the launch call, while the buffer is alive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace oxide {

template <class T> class DeviceBuffer;
class Stream;

/// A buffer seen as a row-major width x height array (rank 2) or width x height x depth volume
/// (rank 3), x fastest. Binds to DisjointSpan2D<T> / DisjointSpan3D<T> of the same rank, and to
/// Span<const T> as a flat input. Made by DeviceBuffer::view_2d / view_3d.
template <class T, unsigned Rank> class BufferView {
  static_assert(Rank == 2 || Rank == 3, "buffer views have rank 2 or 3");

public:
  using element_type = T;
  static constexpr unsigned rank = Rank;

  [[nodiscard]] DeviceBuffer<T> &buffer() const noexcept { return *buffer_; }
  [[nodiscard]] std::size_t width() const noexcept { return width_; }
  [[nodiscard]] std::size_t height() const noexcept { return height_; }
  /// 1 for a 2-D view.
  [[nodiscard]] std::size_t depth() const noexcept { return depth_; }

private:
  friend class DeviceBuffer<T>;
  BufferView(DeviceBuffer<T> &buffer, std::size_t width, std::size_t height, std::size_t depth) noexcept
      : buffer_(&buffer), width_(width), height_(height), depth_(depth) {}

  DeviceBuffer<T> *buffer_;
  std::size_t width_, height_, depth_;
};

template <class T> using BufferView2D = BufferView<T, 2>;
template <class T> using BufferView3D = BufferView<T, 3>;

/// `size()` elements of a DeviceBuffer starting at element `offset()`: how the parts of one
/// allocation (an arena of weights, activations and gradients) are passed to kernels. Binds like
/// the buffer itself to Span<const T>, and, unless T is const, to Span<T>, DisjointSpan<T> and
/// AtomicSpan<T>; the launch checks see only the slice's own bytes, so two disjoint slices of
/// one buffer may be written by the same launch and overlapping ones may not. Made by
/// DeviceBuffer::slice (BufferSlice<const T> from a const buffer); refers to the buffer without
/// owning it.
template <class T> class BufferSlice {
public:
  using element_type = T;
  using buffer_type = DeviceBuffer<std::remove_const_t<T>>;

  [[nodiscard]] const buffer_type &buffer() const noexcept { return *buffer_; }
  [[nodiscard]] std::size_t offset() const noexcept { return offset_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  /// The device address of the first element (of where it would be, for an empty slice).
  [[nodiscard]] std::uint64_t device_ptr() const noexcept;
  /// Sets the slice's elements (only them) to `value` in the order of `stream`, as
  /// DeviceBuffer::fill does the whole buffer; does not wait. Throws oxide::Error (WrongContext).
  void fill(Stream &stream, const std::remove_const_t<T> &value) const
    requires(!std::is_const_v<T> && std::is_trivially_copyable_v<T>);
  /// The slice of this slice (offsets relative to it). Throws oxide::Error (SliceOutOfRange).
  [[nodiscard]] BufferSlice slice(std::size_t offset, std::size_t count) const;
  /// The same elements, read-only.
  operator BufferSlice<const T>() const noexcept
    requires(!std::is_const_v<T>)
  {
    return {*buffer_, offset_, size_};
  }

private:
  friend buffer_type;
  friend class BufferSlice<std::remove_const_t<T>>;
  BufferSlice(const buffer_type &buffer, std::size_t offset, std::size_t size) noexcept
      : buffer_(&buffer), offset_(offset), size_(size) {}

  const buffer_type *buffer_;
  std::size_t offset_, size_;
};

namespace detail {
/// Throws oxide::Error (SliceOutOfRange) unless [offset, offset + count) lies in [0, size).
void check_slice_range(std::size_t size, std::size_t offset, std::size_t count);

/// Throws oxide::Error (ViewShapeMismatch) unless the extents' product is exactly `size`.
void check_view_shape(const char *operation, std::size_t size, std::size_t width, std::size_t height,
                      std::size_t depth);
} // namespace detail

} // namespace oxide
