// oxide::unsafe_borrow_dlpack (oxide/host/dlpack.hpp) on the CPU simulator: host DLPack tensors
// borrowed as DeviceBuffers, and each refusal (element type, lanes, device, strides, extents,
// alignment) with its error kind. The dtype codes it checks are the C ABI's (oxide/c_api.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "oxide/host/dlpack.hpp"
#include "oxide/oxide.hpp"

namespace {

DLTensor host_tensor(void *data, std::int64_t *shape, int ndim, std::int64_t *strides, std::uint8_t code,
                     std::uint8_t bits) {
  DLTensor t{};
  t.data = data;
  t.device = {kDLCPU, 0};
  t.ndim = ndim;
  t.dtype = {code, bits, 1};
  t.shape = shape;
  t.strides = strides;
  t.byte_offset = 0;
  return t;
}

template <class F> oxide::ErrorKind kind_of(F &&f) {
  try {
    f();
  } catch (const oxide::Error &e) {
    return e.kind();
  }
  ADD_FAILURE() << "no oxide::Error thrown";
  return oxide::ErrorKind::Other;
}

TEST(DlpackBorrow, HostTensorBecomesABorrowedBuffer) {
  auto ctx = oxide::Context::cpu();
  std::vector<float> data(24, 1.0f);
  std::int64_t shape[] = {4, 6};
  DLTensor t = host_tensor(data.data(), shape, 2, nullptr, kDLFloat, 32);
  auto buffer = oxide::unsafe_borrow_dlpack<float>(ctx, t);
  EXPECT_EQ(buffer.size(), 24u);
  EXPECT_EQ(buffer.device_ptr(), reinterpret_cast<std::uintptr_t>(data.data()));
  auto view = buffer.view_2d(6, 4);
  EXPECT_EQ(view.width(), 6u);
  std::int64_t strides[] = {6, 1};
  t.strides = strides;
  t.byte_offset = 8; // two floats in
  shape[0] = 2;
  auto offset = oxide::unsafe_borrow_dlpack<float>(ctx, t);
  EXPECT_EQ(offset.device_ptr(), reinterpret_cast<std::uintptr_t>(data.data() + 2));
  EXPECT_EQ(offset.size(), 12u);
}

TEST(DlpackBorrow, Refusals) {
  auto ctx = oxide::Context::cpu();
  std::vector<double> data(8);
  std::int64_t shape[] = {8};
  DLTensor t = host_tensor(data.data(), shape, 1, nullptr, kDLFloat, 64);
  EXPECT_EQ(kind_of([&] { (void)oxide::unsafe_borrow_dlpack<float>(ctx, t); }),
            oxide::ErrorKind::DtypeMismatch);
  EXPECT_NO_THROW((void)oxide::unsafe_borrow_dlpack<double>(ctx, t));
  t.dtype.lanes = 2;
  EXPECT_EQ(kind_of([&] { (void)oxide::unsafe_borrow_dlpack<double>(ctx, t); }),
            oxide::ErrorKind::DtypeMismatch);
  t.dtype.lanes = 1;
  t.device = {kDLCUDA, 0};
  EXPECT_EQ(kind_of([&] { (void)oxide::unsafe_borrow_dlpack<double>(ctx, t); }),
            oxide::ErrorKind::WrongContext);
  t.device = {kDLCPU, 0};
  std::int64_t shape2[] = {4, 2}, strides[] = {1, 4}; // column-major
  t.shape = shape2;
  t.ndim = 2;
  t.strides = strides;
  EXPECT_EQ(kind_of([&] { (void)oxide::unsafe_borrow_dlpack<double>(ctx, t); }),
            oxide::ErrorKind::UnsupportedStrides);
  std::int64_t negative[] = {-1};
  t.shape = negative;
  t.ndim = 1;
  t.strides = nullptr;
  EXPECT_EQ(kind_of([&] { (void)oxide::unsafe_borrow_dlpack<double>(ctx, t); }),
            oxide::ErrorKind::ArgumentMismatch);
  t.shape = shape;
  t.byte_offset = 3; // misaligned
  EXPECT_EQ(kind_of([&] { (void)oxide::unsafe_borrow_dlpack<double>(ctx, t); }), oxide::ErrorKind::Other);
  std::int64_t empty[] = {0};
  t.shape = empty;
  t.data = nullptr;
  t.byte_offset = 0;
  EXPECT_EQ(oxide::unsafe_borrow_dlpack<double>(ctx, t).size(), 0u);
}

TEST(DlpackBorrow, DtypeCodesAreDlpacks) {
  static_assert(oxide::detail::dtype_of<float>() == OXIDE_DTYPE(kDLFloat, 32));
  static_assert(oxide::detail::dtype_of<oxide::bfloat16>() == OXIDE_DTYPE(kDLBfloat, 16));
  static_assert(oxide::detail::dtype_of<std::uint8_t>() == OXIDE_DTYPE(kDLUInt, 8));
  static_assert(oxide::detail::dtype_of<std::int64_t>() == OXIDE_DTYPE(kDLInt, 64));
  EXPECT_EQ(oxide::detail::dtype_name(OXIDE_DTYPE_BF16), "bfloat16");
  EXPECT_EQ(oxide::detail::dtype_name(OXIDE_DTYPE_U16), "uint16");
}

} // namespace
