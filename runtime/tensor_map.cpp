// DeviceTensorMap's descriptors (oxide/host/tensor_map.hpp): the rules of cuTensorMapEncodeTiled,
// checked here for both backends so that the simulator refuses what a GPU would, then a
// CUtensorMap on a GPU or the simulator's format (sim/tensor_map_format.hpp).
#include <fmt/format.h>

#include <cstring>
#include <string>

#include "context_state.hpp"
#include "cuda_driver.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/tensor_map.hpp"
#include "sim/tensor_map_format.hpp"

namespace oxide::detail {
namespace {

[[noreturn]] void invalid(const std::string &message) {
  throw Error(ErrorKind::InvalidTensorMap, "DeviceTensorMap::create: " + message);
}

/// "(4096, 8192)": values outermost first.
std::string tuple(const std::uint64_t *values, std::uint32_t count) {
  std::string text = "(";
  for (std::uint32_t i = 0; i < count; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + ")";
}

/// The checks; on success `inner` holds the tensor innermost first, strides in bytes.
void validate(const TensorMapSpec &spec, sim::TensorMapImage &inner) {
  const std::uint32_t rank = spec.rank, size = spec.element_bytes;
  if (rank < 1 || rank > sim::TensorMapImage::kMaxRank)
    invalid(fmt::format("rank {}; a tensor map has rank 1 to 5", rank));
  if (size != 1 && size != 2 && size != 4 && size != 8)
    invalid(fmt::format("{}-byte elements; a tensor map's take 1, 2, 4 or 8 bytes", size));
  if (spec.data % 16 != 0)
    invalid(fmt::format("the tensor at {:#x} is not 16-byte aligned", spec.data));
  const std::string extents = tuple(spec.extents, rank);
  for (std::uint32_t d = 0; d < rank; ++d)
    if (spec.extents[d] == 0 || spec.extents[d] > (std::uint64_t{1} << 32))
      invalid(fmt::format("extent {} of {} (outermost first) is {}; each extent is 1..2^32", d, extents,
                          spec.extents[d]));
  // Strides: the innermost dimension is contiguous; each outer one covers the one inside it.
  std::uint64_t covered = spec.extents[rank - 1];      // elements the dimension inside spans
  unsigned __int128 last = spec.extents[rank - 1] - 1; // the last element's index
  for (std::uint32_t d = rank - 1; d-- > 0;) {
    const std::uint64_t stride = spec.strides[d];
    const unsigned __int128 bytes = static_cast<unsigned __int128>(stride) * size;
    if (bytes % 16 != 0 || bytes >= (static_cast<unsigned __int128>(1) << 40))
      invalid(
          fmt::format("the stride of dimension {} (outermost first) is {} elements ({} bytes); TMA strides "
                      "are multiples of 16 bytes below 2^40 bytes",
                      d, stride, static_cast<std::uint64_t>(bytes)));
    if (stride < covered)
      invalid(
          fmt::format("the stride of dimension {} (outermost first) is {} elements, less than the {} of the "
                      "dimension inside it: its indices would overlap",
                      d, stride, covered));
    covered = stride * spec.extents[d];
    last += static_cast<unsigned __int128>(stride) * (spec.extents[d] - 1);
  }
  const unsigned __int128 needed = (last + 1) * size;
  if (needed > spec.buffer_bytes)
    invalid(fmt::format("a tensor of extents {} needs {} bytes of its buffer, which has {}", extents,
                        static_cast<std::uint64_t>(needed), spec.buffer_bytes));
  // The box (its type checked the rest at compile time).
  if (spec.swizzle_bytes != 0 && spec.swizzle_bytes != 32 && spec.swizzle_bytes != 64 &&
      spec.swizzle_bytes != 128)
    invalid(fmt::format("a {}-byte swizzle; the swizzles are 32, 64 and 128 bytes", spec.swizzle_bytes));
  inner.rank = rank;
  inner.element_bytes = size;
  inner.swizzle_bytes = spec.swizzle_bytes;
  inner.data = spec.data;
  for (std::uint32_t d = 0; d < rank; ++d) {
    inner.extents[d] = spec.extents[rank - 1 - d];
    inner.box[d] = spec.box[rank - 1 - d];
    if (inner.box[d] < 1 || inner.box[d] > 256)
      invalid(fmt::format("box extent {} is {}; each is 1..256", rank - 1 - d, inner.box[d]));
  }
  for (std::uint32_t d = 1; d < rank; ++d)
    inner.strides[d - 1] = spec.strides[rank - 1 - d] * size;
}

#if CUDA_VERSION >= 12000
CUtensorMapDataType data_type(std::uint32_t size) noexcept {
  // TMA copies bytes: the type only gives the element size (no NaN fill is asked for).
  switch (size) {
  case 1:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case 2:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case 4:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  default:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  }
}

CUtensorMapSwizzle swizzle_mode(std::uint32_t bytes) noexcept {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}
#endif

} // namespace

TensorMapBytes encode_tensor_map(const Stream &stream, const TensorMapSpec &spec) {
  sim::TensorMapImage inner;
  validate(spec, inner);
  TensorMapBytes out{};
  const ContextState &state = *StreamAccess::context_state(stream);
  if (state.is_simulator()) {
    static_assert(sizeof inner == sizeof out.bytes);
    std::memcpy(out.bytes, &inner, sizeof out.bytes);
    return out;
  }
#if CUDA_VERSION >= 12000
  const DriverApi &api = driver();
  if (!api.cuTensorMapEncodeTiled)
    throw Error(ErrorKind::Driver, "DeviceTensorMap::create: the CUDA driver has no cuTensorMapEncodeTiled "
                                   "(CUDA 12.0); update the NVIDIA driver");
  static_assert(sizeof(CUtensorMap) == sizeof out.bytes && alignof(CUtensorMap) <= alignof(TensorMapBytes),
                "a DeviceTensorMap's descriptor holds a CUtensorMap");
  cuuint64_t dims[5] = {}, strides[4] = {};
  cuuint32_t box[5] = {}, element_strides[5] = {1, 1, 1, 1, 1};
  for (std::uint32_t d = 0; d < inner.rank; ++d) {
    dims[d] = inner.extents[d];
    box[d] = inner.box[d];
  }
  for (std::uint32_t d = 0; d + 1 < inner.rank; ++d)
    strides[d] = inner.strides[d];
  CUtensorMap map;
  const ScopedCurrent current(state);
  const CUresult result = api.cuTensorMapEncodeTiled(
      &map, data_type(inner.element_bytes), inner.rank,
      reinterpret_cast<void *>(static_cast<std::uintptr_t>(inner.data)), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_mode(inner.swizzle_bytes), CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    const std::uint64_t box_extents[5] = {spec.box[0], spec.box[1], spec.box[2], spec.box[3], spec.box[4]};
    throw_driver_error(result, "cuTensorMapEncodeTiled", {},
                       fmt::format("a tensor of extents {} in boxes of {}", tuple(spec.extents, spec.rank),
                                   tuple(box_extents, spec.rank)));
  }
  std::memcpy(out.bytes, &map, sizeof out.bytes);
  return out;
#else
  throw Error(ErrorKind::Driver,
              "DeviceTensorMap::create: the runtime was built with CUDA headers older than "
              "12.0, which have no tensor maps");
#endif
}

} // namespace oxide::detail
