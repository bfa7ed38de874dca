#include "sim/shared_memory.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

// AddressSanitizer's manual poisoning; null unless the program links the ASan runtime. With it,
// a raw pointer that runs off a shared array into the next one is reported.
extern "C" {
void __asan_poison_memory_region(const volatile void *address, std::size_t size) __attribute__((weak));
void __asan_unpoison_memory_region(const volatile void *address, std::size_t size) __attribute__((weak));
}

namespace oxide::detail::sim {

// Under ASan, the gap left after each array so that running off its end is reported.
static constexpr std::size_t kRedZoneBytes = 64;

void SharedMemory::Unmap::operator()(std::byte *p) const noexcept { munmap(p, kArenaBytes); }

namespace {

std::byte *map_arena() {
  void *memory =
      mmap(nullptr, SharedMemory::kArenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    throw std::bad_alloc();
  return static_cast<std::byte *>(memory);
}

} // namespace

SharedMemory::SharedMemory() : arena_(map_arena()) {}

void SharedMemory::protect(bool on) noexcept {
  if (on == protected_)
    return;
  mprotect(arena_.get(), kArenaBytes, on ? PROT_NONE : PROT_READ | PROT_WRITE);
  protected_ = on;
}

void SharedMemory::reset(std::size_t dynamic_bytes, bool poison) noexcept {
  dynamic_bytes_ = dynamic_bytes;
  static_bytes_ = 0;
  used_ = dynamic_end() + (__asan_poison_memory_region ? kRedZoneBytes : 0);
  poison_ = poison;
  sites_.clear();
  if (__asan_poison_memory_region) {
    __asan_poison_memory_region(arena_.get(), kArenaBytes);
    __asan_unpoison_memory_region(arena_.get(), dynamic_bytes);
  }
  if (poison)
    std::memset(arena_.get(), kPoison, dynamic_bytes);
}

void *SharedMemory::allocate(const void *site, std::size_t bytes, std::size_t align) noexcept {
  for (const Array &array : sites_)
    if (array.site == site)
      return array.memory;
  if (align == 0 || (align & (align - 1)) != 0)
    align = alignof(std::max_align_t);
  const std::size_t offset = (used_ + align - 1) / align * align;
  // Only the bytes the arrays ask for count against the limit, as on the GPU.
  if (bytes > kLimitBytes || static_bytes_ + bytes + dynamic_bytes_ > kLimitBytes ||
      offset + bytes > kArenaBytes)
    return nullptr;
  void *memory = arena_.get() + offset;
  static_bytes_ += bytes;
  used_ = offset + bytes + (__asan_poison_memory_region ? kRedZoneBytes : 0);
  if (__asan_unpoison_memory_region)
    __asan_unpoison_memory_region(memory, bytes);
  if (poison_) {
    const bool was_protected = protected_;
    protect(false);
    std::memset(memory, kPoison, bytes);
    protect(was_protected);
  }
  sites_.push_back({site, memory, bytes, align});
  return memory;
}

std::optional<SharedMemory::Location> SharedMemory::locate(const void *address) const noexcept {
  const auto *p = static_cast<const std::byte *>(address);
  const std::byte *base = arena_.get();
  // Inside an array first: one past the end of one array may be the start of the next.
  if (p >= base && p < base + dynamic_bytes_)
    return Location{nullptr, static_cast<std::size_t>(p - base), dynamic_bytes_, kAlignment};
  for (const Array &array : sites_) {
    const auto *begin = static_cast<const std::byte *>(array.memory);
    if (p >= begin && p < begin + array.bytes)
      return Location{array.site, static_cast<std::size_t>(p - begin), array.bytes, array.align};
  }
  if (p == base + dynamic_bytes_)
    return Location{nullptr, dynamic_bytes_, dynamic_bytes_, kAlignment};
  for (const Array &array : sites_)
    if (p == static_cast<const std::byte *>(array.memory) + array.bytes)
      return Location{array.site, array.bytes, array.bytes, array.align};
  return std::nullopt;
}

} // namespace oxide::detail::sim
