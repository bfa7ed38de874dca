// The device image: what the compiler embeds in a host executable and the runtime loads.
//
// Layout (all integers little-endian):
//   "OXIDEIMG" | u32 version | u32 code_count | u32 kernel_count
//   code_count   x { u32 kind | u32 arch | u32 features | u32 where | u64 size | bytes or u64 offset }
//                  PTX or cubin, per arch: its bytes follow (where = 0), or they are the payload at
//                  `offset` in the CUDA fatbinary registered with the image (where = 1)
//   kernel_count x { u32 name_size | name | u32 param_count | param_count x { u32 size | u32 align }
//                    | u32 contract_size | contract | u32 params_size | params
//                    | u32 max_threads | u32 min_blocks }
// Header-only and dependency-free: the compiler writes it, the runtime reads it.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace oxide::detail {

enum class CodeKind : std::uint32_t { Ptx = 0, Cubin = 1 };

/// What a code object was compiled for beyond its architecture's number.
enum class CodeFeatures : std::uint32_t {
  /// The architecture's common features: the code also runs on later GPUs (a cubin on later ones
  /// of its major version, PTX on any later one).
  Portable = 0,
  /// Its architecture-specific features too ("sm_90a": wgmma, setmaxnreg): the code runs on
  /// exactly that compute capability, as PTX or cubin.
  ArchSpecific = 1,
};

/// One compiled form of the module: PTX (JIT-compiled by the driver) or a cubin for one arch.
struct CodeObject {
  CodeKind kind = CodeKind::Ptx;
  std::uint32_t arch = 0; ///< compute capability * 10 + minor, e.g. 90 for sm_90
  std::string bytes;
  CodeFeatures features = CodeFeatures::Portable;
  /// Where the compiler put `bytes` in the CUDA fatbinary it embeds next to the image (the
  /// `.nv_fatbin` section, which cuobjdump, nvdisasm and cuda-gdb read): the payload's offset
  /// and size there. kNotInFatbin: the bytes travel in the image itself.
  static constexpr std::uint64_t kNotInFatbin = ~std::uint64_t{0};
  std::uint64_t fatbin_offset = kNotInFatbin;
  std::uint64_t fatbin_size = 0;
};

/// The target a code object was compiled for, as PTX and ptxas name it: "sm_90", "sm_90a".
inline std::string code_target_name(const CodeObject &code) {
  return "sm_" + std::to_string(code.arch) + (code.features == CodeFeatures::ArchSpecific ? "a" : "");
}

/// Whether `code` can load on a device of compute capability `arch` (* 10 + minor). This is the
/// one statement of the compatibility rules: architecture-specific code runs on its own
/// architecture only; a cubin runs on its architecture and later ones of the same major version
/// (binary compatibility); PTX is JIT-compiled for its architecture or any later one.
inline bool code_runs_on(const CodeObject &code, int arch) noexcept {
  const int code_arch = static_cast<int>(code.arch);
  if (code.features == CodeFeatures::ArchSpecific)
    return code_arch == arch;
  if (code_arch > arch)
    return false;
  return code.kind == CodeKind::Ptx || code_arch / 10 == arch / 10;
}

struct ParamLayout {
  std::uint32_t size = 0;
  std::uint32_t align = 0;
  /// For a span parameter whose elements the device code names (get_mut, tile_mut, AtomicSpan
  /// access): the element size it uses, which must be the span's sizeof(T); 0 otherwise.
  std::uint32_t elem_size = 0;
  friend bool operator==(const ParamLayout &, const ParamLayout &) = default;
};

/// A kernel entry point: its mangled (PTX) name, the byte layout of its parameters, and what
/// the launch checks need: its launch contract in canonical form (empty when it has none, see
/// oxide/detail/contract.hpp), its parameters as "name=kind,..." (the letters of
/// oxide/detail/param_kind.hpp; empty when there is no contract) and its launch bounds (0 when
/// absent).
struct KernelInfo {
  std::string name;
  std::vector<ParamLayout> params;
  std::string contract;
  std::string param_kinds;
  std::uint32_t max_threads = 0;
  std::uint32_t min_blocks = 0;
};

struct DeviceImage {
  /// 4: code objects carry their CodeFeatures (sm_90a). 5: their bytes may be in a fatbinary.
  static constexpr std::uint32_t kVersion = 5;
  std::vector<CodeObject> code;
  std::vector<KernelInfo> kernels;

  [[nodiscard]] const KernelInfo *find_kernel(std::string_view name) const {
    for (const auto &k : kernels)
      if (k.name == name)
        return &k;
    return nullptr;
  }
};

inline constexpr char kImageMagic[8] = {'O', 'X', 'I', 'D', 'E', 'I', 'M', 'G'};

inline std::string encode_image(const DeviceImage &image) {
  std::string out(kImageMagic, sizeof kImageMagic);
  auto put32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
      out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  auto put64 = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
      out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  put32(DeviceImage::kVersion);
  put32(static_cast<std::uint32_t>(image.code.size()));
  put32(static_cast<std::uint32_t>(image.kernels.size()));
  for (const auto &c : image.code) {
    put32(static_cast<std::uint32_t>(c.kind));
    put32(c.arch);
    put32(static_cast<std::uint32_t>(c.features));
    if (c.fatbin_offset != CodeObject::kNotInFatbin) {
      put32(1);
      put64(c.fatbin_size);
      put64(c.fatbin_offset);
      continue;
    }
    put32(0);
    put64(c.bytes.size());
    out += c.bytes;
  }
  for (const auto &k : image.kernels) {
    put32(static_cast<std::uint32_t>(k.name.size()));
    out += k.name;
    put32(static_cast<std::uint32_t>(k.params.size()));
    for (const auto &p : k.params) {
      put32(p.size);
      put32(p.align);
      put32(p.elem_size);
    }
    put32(static_cast<std::uint32_t>(k.contract.size()));
    out += k.contract;
    put32(static_cast<std::uint32_t>(k.param_kinds.size()));
    out += k.param_kinds;
    put32(k.max_threads);
    put32(k.min_blocks);
  }
  return out;
}

/// The CUDA fatbinary's header: magic, version 1, header size 16, then the size of what follows.
inline constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;
inline constexpr std::size_t kFatbinHeaderSize = 16;

/// The whole size of the fatbinary at `data` (its header says), or 0 when it is not one.
inline std::size_t fatbin_size(const unsigned char *data) {
  if (!data)
    return 0;
  std::uint32_t magic = 0;
  std::uint64_t rest = 0;
  for (int i = 0; i < 4; ++i)
    magic |= std::uint32_t(data[i]) << (8 * i);
  for (int i = 0; i < 8; ++i)
    rest |= std::uint64_t(data[8 + i]) << (8 * i);
  if (magic != kFatbinMagic || rest > (std::uint64_t{1} << 40))
    return 0;
  return kFatbinHeaderSize + static_cast<std::size_t>(rest);
}

/// Parses an image; std::nullopt when the bytes are not a well-formed image of this version.
/// `fatbin` holds the payloads of code objects stored in a fatbinary (where = 1).
inline std::optional<DeviceImage> decode_image(std::span<const unsigned char> bytes,
                                               std::span<const unsigned char> fatbin = {}) {
  std::size_t pos = 0;
  auto take = [&](std::size_t n) -> const unsigned char * {
    if (bytes.size() - pos < n)
      return nullptr;
    const unsigned char *p = bytes.data() + pos;
    pos += n;
    return p;
  };
  auto get = [&](auto &v) -> bool {
    const unsigned char *p = take(sizeof v);
    if (!p)
      return false;
    std::uint64_t acc = 0;
    for (std::size_t i = 0; i < sizeof v; ++i)
      acc |= std::uint64_t(p[i]) << (8 * i);
    v = static_cast<std::remove_reference_t<decltype(v)>>(acc);
    return true;
  };
  auto get_string = [&](std::uint64_t n, std::string &s) -> bool {
    const unsigned char *p = take(n);
    if (!p)
      return false;
    s.assign(reinterpret_cast<const char *>(p), n);
    return true;
  };

  const unsigned char *magic = take(sizeof kImageMagic);
  if (!magic || std::memcmp(magic, kImageMagic, sizeof kImageMagic) != 0)
    return std::nullopt;
  std::uint32_t version = 0, code_count = 0, kernel_count = 0;
  if (!get(version) || version != DeviceImage::kVersion || !get(code_count) || !get(kernel_count))
    return std::nullopt;

  DeviceImage image;
  for (std::uint32_t i = 0; i < code_count; ++i) {
    CodeObject c;
    std::uint32_t kind = 0, features = 0, where = 0;
    std::uint64_t size = 0;
    if (!get(kind) || kind > 1 || !get(c.arch) || !get(features) || features > 1 || !get(where) ||
        where > 1 || !get(size))
      return std::nullopt;
    if (where == 1) {
      std::uint64_t offset = 0;
      if (!get(offset) || offset > fatbin.size() || size > fatbin.size() - offset)
        return std::nullopt;
      c.bytes.assign(reinterpret_cast<const char *>(fatbin.data() + offset), size);
      c.fatbin_offset = offset;
      c.fatbin_size = size;
    } else if (!get_string(size, c.bytes)) {
      return std::nullopt;
    }
    c.kind = static_cast<CodeKind>(kind);
    c.features = static_cast<CodeFeatures>(features);
    image.code.push_back(std::move(c));
  }
  for (std::uint32_t i = 0; i < kernel_count; ++i) {
    KernelInfo k;
    std::uint32_t name_size = 0, param_count = 0;
    if (!get(name_size) || !get_string(name_size, k.name) || !get(param_count))
      return std::nullopt;
    for (std::uint32_t j = 0; j < param_count; ++j) {
      ParamLayout p;
      if (!get(p.size) || !get(p.align) || !get(p.elem_size))
        return std::nullopt;
      k.params.push_back(p);
    }
    std::uint32_t contract_size = 0, kinds_size = 0;
    if (!get(contract_size) || !get_string(contract_size, k.contract) || !get(kinds_size) ||
        !get_string(kinds_size, k.param_kinds) || !get(k.max_threads) || !get(k.min_blocks))
      return std::nullopt;
    image.kernels.push_back(std::move(k));
  }
  if (pos != bytes.size())
    return std::nullopt;
  return image;
}

} // namespace oxide::detail

extern "C" {
/// Called from a constructor that the compiler adds to every host object with kernels:
/// registers the embedded device image and maps each kernel's host address to its entry name.
void __oxide_register_image(const unsigned char *image, std::size_t image_size,
                            const void *const *kernel_addresses, const char *const *kernel_names,
                            std::size_t kernel_count);
/// The same for an image whose kernels read oxide::constant variables: also maps each
/// variable's host address to its symbol in the image.
void __oxide_register_image_with_constants(const unsigned char *image, std::size_t image_size,
                                           const void *const *kernel_addresses,
                                           const char *const *kernel_names, std::size_t kernel_count,
                                           const void *const *constant_addresses,
                                           const char *const *constant_names, std::size_t constant_count);
/// The same for an image whose code objects are payloads of the CUDA fatbinary at `fatbin` (in
/// the object's `.nv_fatbin` section, where NVIDIA's tools look for device code); the constant
/// tables may be null when there are no constants.
void __oxide_register_fat_image(const unsigned char *image, std::size_t image_size,
                                const unsigned char *fatbin, const void *const *kernel_addresses,
                                const char *const *kernel_names, std::size_t kernel_count,
                                const void *const *constant_addresses, const char *const *constant_names,
                                std::size_t constant_count);
}
