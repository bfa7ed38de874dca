// The shape check of DeviceBuffer::view_2d / view_3d.
#include "oxide/host/buffer_view.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "oxide/host/error.hpp"

namespace oxide::detail {

void check_view_shape(const char *operation, std::size_t size, std::size_t width, std::size_t height,
                      std::size_t depth) {
  const bool is_3d = operation[5] == '3';
  const std::string call = is_3d ? fmt::format("{}({}, {}, {})", operation, width, height, depth)
                                 : fmt::format("{}({}, {})", operation, width, height);
  std::size_t elements = 0;
  if (__builtin_mul_overflow(width, height, &elements) || __builtin_mul_overflow(elements, depth, &elements))
    throw Error(ErrorKind::ViewShapeMismatch,
                fmt::format("{} of a buffer of {} elements: the extents' product overflows", call, size));
  if (elements != size)
    throw Error(ErrorKind::ViewShapeMismatch,
                fmt::format("{} covers {} elements, but the buffer has {}; a view covers its whole buffer",
                            call, elements, size));
}

void check_slice_range(std::size_t size, std::size_t offset, std::size_t count) {
  if (offset > size || count > size - offset)
    throw Error(ErrorKind::SliceOutOfRange,
                fmt::format("slice({}, {}) of a buffer of {} elements reaches past its end; a slice needs "
                            "offset + count <= size",
                            offset, count, size));
}

} // namespace oxide::detail
