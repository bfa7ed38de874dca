//===- FatBinary.h - code objects as a CUDA fatbinary ------------*- C++ -*-===//
#ifndef OXIDE_COMPILER_FATBINARY_H
#define OXIDE_COMPILER_FATBINARY_H

#include "oxide/detail/device_image.hpp"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace oxide {

/// One entry of a CUDA fatbinary: what it holds and where its payload is.
struct FatbinEntry {
  detail::CodeKind kind = detail::CodeKind::Ptx;
  unsigned arch = 0;         ///< e.g. 90
  bool archSpecific = false; ///< sm_90a, sm_100a
  bool compressed = false;   ///< the payload is compressed (not loadable as it is)
  std::uint64_t offset = 0;  ///< of the payload, from the fatbinary's start
  std::uint64_t size = 0;    ///< of the payload (padded; PTX ends in NULs)
};

/// The entries of the fatbinary `bytes` (one, as `fatbinary --create` writes it), or an error
/// saying what is malformed.
llvm::Expected<std::vector<FatbinEntry>> parseFatbin(llvm::StringRef bytes);

/// Packs the code objects of `image` into a CUDA fatbinary with the toolkit's `fatbinary` tool
/// (uncompressed, as nvcc lays out the `.nv_fatbin` section NVIDIA's tools read), and points
/// each code object at its payload there (CodeObject::fatbin_offset), so the runtime loads
/// exactly those bytes. `debug`: the code is -G code (the fatbinary's debug flag). `log`, when
/// set, gets the command line (-v).
llvm::Expected<std::string> packFatBinary(const std::string &fatbinaryTool, detail::DeviceImage &image,
                                          bool debug, llvm::raw_ostream *log);

} // namespace oxide

#endif
