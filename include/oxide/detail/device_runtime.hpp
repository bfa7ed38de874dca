// The device side of the C++ runtime, for oxcc's device compile only.
//
// compiler/frontend/Frontend.cpp includes this file at the top of the in-memory device wrapper,
// before the user's file and outside the implicit-device pragma, so everything here is spelled
// with explicit CUDA attributes. It is never part of the host compile: there the C++ runtime
// is the host's (libstdc++/libsupc++), which is also what kernels use on the CPU simulator.
//
// clang's CUDA wrapper <new> (lib/clang/N/include/cuda_wrappers/new) already gives device code
// operator new/delete over the device heap (malloc/free), their array, nothrow and sized forms,
// and placement new. What C++ in kernels still needs, and nothing else provides, is here:
//  * aligned operator new/delete (std::align_val_t), which a new-expression of an over-aligned
//    type calls: device malloc guarantees 16 bytes of alignment only;
//  * __cxa_pure_virtual and __cxa_deleted_virtual, which the vtables of classes with pure
//    virtual or deleted virtual functions point to: they stop the kernel with a message;
//  * memcmp, memchr and strlen, which libstdc++'s algorithms and std::char_traits call at run
//    time (std::equal, std::string_view comparisons...) and CUDA's device library lacks;
//  * device versions of libstdc++'s __throw_bad_optional_access, __throw_bad_variant_access
//    and __throw_out_of_range(_fmt), which trap with the exception's message.
#pragma once
// A system header, like the CUDA wrappers it extends: replacing operator new with inline
// device functions is what clang's own <new> wrapper does too.
#pragma clang system_header

#if defined(__CUDA__) && defined(__CUDA_ARCH__)

#include <cstddef>
#include <new>

namespace oxide::detail::device_runtime {

/// device malloc's alignment (CUDA guarantees 16 bytes).
inline constexpr std::size_t kMallocAlignment = 16;

__device__ inline void *aligned_allocate(std::size_t size, std::size_t alignment) noexcept {
  if (size == 0)
    size = 1;
  if (alignment <= kMallocAlignment)
    return ::malloc(size);
  // Over-allocate, align, and keep the block's address just below the aligned pointer.
  char *block = static_cast<char *>(::malloc(size + alignment + sizeof(void *)));
  if (!block)
    return nullptr;
  using address = __UINTPTR_TYPE__;
  const auto base = reinterpret_cast<address>(block + sizeof(void *));
  char *aligned = reinterpret_cast<char *>((base + alignment - 1) & ~(static_cast<address>(alignment) - 1));
  reinterpret_cast<void **>(aligned)[-1] = block;
  return aligned;
}

__device__ inline void aligned_free(void *pointer, std::size_t alignment) noexcept {
  if (!pointer)
    return;
  ::free(alignment <= kMallocAlignment ? pointer : static_cast<void **>(pointer)[-1]);
}

[[noreturn]] __device__ inline void stop(const char *message, const char *function) {
  __assertfail(message, "<oxide device runtime>", 0, function, sizeof(char));
  __builtin_trap();
}

} // namespace oxide::detail::device_runtime

__device__ inline void *operator new(__SIZE_TYPE__ size, std::align_val_t alignment) {
  return oxide::detail::device_runtime::aligned_allocate(size, static_cast<std::size_t>(alignment));
}
__device__ inline void *operator new[](__SIZE_TYPE__ size, std::align_val_t alignment) {
  return ::operator new(size, alignment);
}
__device__ inline void *operator new(__SIZE_TYPE__ size, std::align_val_t alignment,
                                     const std::nothrow_t &) noexcept {
  return ::operator new(size, alignment);
}
__device__ inline void *operator new[](__SIZE_TYPE__ size, std::align_val_t alignment,
                                       const std::nothrow_t &) noexcept {
  return ::operator new(size, alignment);
}
__device__ inline void operator delete(void *pointer, std::align_val_t alignment) noexcept {
  oxide::detail::device_runtime::aligned_free(pointer, static_cast<std::size_t>(alignment));
}
__device__ inline void operator delete[](void *pointer, std::align_val_t alignment) noexcept {
  ::operator delete(pointer, alignment);
}
__device__ inline void operator delete(void *pointer, __SIZE_TYPE__, std::align_val_t alignment) noexcept {
  ::operator delete(pointer, alignment);
}
__device__ inline void operator delete[](void *pointer, __SIZE_TYPE__, std::align_val_t alignment) noexcept {
  ::operator delete(pointer, alignment);
}
__device__ inline void operator delete(void *pointer, std::align_val_t alignment,
                                       const std::nothrow_t &) noexcept {
  ::operator delete(pointer, alignment);
}
__device__ inline void operator delete[](void *pointer, std::align_val_t alignment,
                                         const std::nothrow_t &) noexcept {
  ::operator delete(pointer, alignment);
}

// libstdc++ reports a failed std::optional::value() and std::get/std::visit of the wrong
// alternative through these host functions, which throw. Device code cannot throw: these
// device overloads stop the kernel with the exception's message instead, so value() and
// std::visit are usable in kernels (a `throw` written in device code is still an error).
namespace std {
[[noreturn]] __device__ inline void __throw_bad_optional_access() {
  oxide::detail::device_runtime::stop("std::bad_optional_access: value() of an empty std::optional",
                                      "std::optional::value");
}
[[noreturn]] __device__ inline void __throw_bad_variant_access(const char *what) {
  oxide::detail::device_runtime::stop(what, "std::bad_variant_access");
}
[[noreturn]] __device__ inline void __throw_bad_variant_access(bool valueless) {
  __throw_bad_variant_access(valueless ? "std::get: variant is valueless"
                                       : "std::get: wrong index for variant");
}
// std::string_view::substr/at, std::array::at...: an index out of range.
[[noreturn]] __device__ inline void __throw_out_of_range_fmt(const char *format, ...) {
  oxide::detail::device_runtime::stop(format, "std::out_of_range");
}
[[noreturn]] __device__ inline void __throw_out_of_range(const char *what) {
  oxide::detail::device_runtime::stop(what, "std::out_of_range");
}
} // namespace std

extern "C" {

// Referenced by name from vtables, so clang emits these inline definitions whenever a vtable
// that needs one is emitted.
__device__ inline void __cxa_pure_virtual() {
  oxide::detail::device_runtime::stop(
      "pure virtual function called: a virtual call reached an abstract class's pure virtual function "
      "(a call from a constructor or destructor, or through a destroyed object)",
      "__cxa_pure_virtual");
}
__device__ inline void __cxa_deleted_virtual() {
  oxide::detail::device_runtime::stop("deleted virtual function called", "__cxa_deleted_virtual");
}

__device__ inline int memcmp(const void *left, const void *right, __SIZE_TYPE__ count) noexcept {
  const auto *l = static_cast<const unsigned char *>(left);
  const auto *r = static_cast<const unsigned char *>(right);
  for (__SIZE_TYPE__ i = 0; i < count; ++i)
    if (l[i] != r[i])
      return l[i] < r[i] ? -1 : 1;
  return 0;
}
__device__ inline void *memchr(const void *data, int value, __SIZE_TYPE__ count) noexcept {
  const auto *p = static_cast<const unsigned char *>(data);
  for (__SIZE_TYPE__ i = 0; i < count; ++i)
    if (p[i] == static_cast<unsigned char>(value))
      return const_cast<unsigned char *>(p + i);
  return nullptr;
}
__device__ inline __SIZE_TYPE__ strlen(const char *string) noexcept {
  __SIZE_TYPE__ n = 0;
  while (string[n] != '\0')
    ++n;
  return n;
}

} // extern "C"

#endif // __CUDA__ && __CUDA_ARCH__
