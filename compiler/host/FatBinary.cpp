//===- FatBinary.cpp - code objects as a CUDA fatbinary -------------------===//
//
// nvcc puts a program's device code into the `.nv_fatbin` section as a fatbinary: a 16-byte
// header (magic 0xBA55ED50, version 1, header size 16, size of the rest), then one entry per
// code object, each a header (kind: 1 PTX, 2 ELF cubin; its own size; the payload's size; the
// architecture; flags: 64-bit, debug, architecture-specific, compressed...) and the payload.
// cuobjdump, nvdisasm and cuda-gdb find device code there. oxcc writes it with the toolkit's
// own `fatbinary` tool, so the layout is the one each toolkit's tools expect (Blackwell entries
// have longer headers than Hopper's), and only reads it back to find each payload.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/FatBinary.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

using namespace oxide;

namespace {

constexpr std::uint16_t kEntryPtx = 1;
constexpr std::uint16_t kEntryElf = 2;
constexpr std::uint64_t kFlagArchSpecific = 0x100000;
constexpr std::uint64_t kFlagCompressed = 0x8000;
constexpr std::size_t kEntryHeaderMin = 64;

template <typename T> T read(llvm::StringRef bytes, std::size_t at) {
  return llvm::support::endian::read<T, llvm::endianness::little>(bytes.data() + at);
}

llvm::Error malformed(const std::string &what) {
  return llvm::createStringError("malformed fatbinary from the toolkit's fatbinary: " + what);
}

} // namespace

llvm::Expected<std::vector<FatbinEntry>> oxide::parseFatbin(llvm::StringRef bytes) {
  if (bytes.size() < detail::kFatbinHeaderSize || read<std::uint32_t>(bytes, 0) != detail::kFatbinMagic)
    return malformed("no fatbinary header");
  const std::uint64_t total = detail::kFatbinHeaderSize + read<std::uint64_t>(bytes, 8);
  if (total > bytes.size())
    return malformed("its header gives " + std::to_string(total) + " bytes, the file has " +
                     std::to_string(bytes.size()));
  std::vector<FatbinEntry> entries;
  std::size_t at = read<std::uint16_t>(bytes, 6);
  while (at < total) {
    if (total - at < kEntryHeaderMin)
      return malformed("an entry header runs past the end");
    const auto kind = read<std::uint16_t>(bytes, at);
    const auto headerSize = read<std::uint32_t>(bytes, at + 4);
    const auto payloadSize = read<std::uint64_t>(bytes, at + 8);
    if (headerSize < kEntryHeaderMin || headerSize > total - at || payloadSize > total - at - headerSize)
      return malformed("an entry runs past the end");
    if (kind != kEntryPtx && kind != kEntryElf)
      return malformed("an entry of unknown kind " + std::to_string(kind));
    const auto flags = read<std::uint64_t>(bytes, at + 40);
    FatbinEntry entry;
    entry.kind = kind == kEntryPtx ? detail::CodeKind::Ptx : detail::CodeKind::Cubin;
    entry.arch = read<std::uint32_t>(bytes, at + 28);
    entry.archSpecific = (flags & kFlagArchSpecific) != 0;
    entry.compressed = (flags & kFlagCompressed) != 0 || read<std::uint32_t>(bytes, at + 16) != 0 ||
                       read<std::uint64_t>(bytes, at + 56) != 0;
    entry.offset = at + headerSize;
    entry.size = payloadSize;
    entries.push_back(entry);
    at += headerSize + payloadSize;
  }
  return entries;
}

llvm::Expected<std::string> oxide::packFatBinary(const std::string &fatbinaryTool, detail::DeviceImage &image,
                                                 bool debug, llvm::raw_ostream *log) {
  llvm::SmallString<128> outPath;
  if (auto ec = llvm::sys::fs::createTemporaryFile("oxide", "fatbin", outPath))
    return llvm::createStringError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeOut(outPath);
  std::vector<std::unique_ptr<llvm::FileRemover>> removers;
  std::vector<std::string> images;
  for (const detail::CodeObject &code : image.code) {
    const bool ptx = code.kind == detail::CodeKind::Ptx;
    llvm::SmallString<128> path;
    if (auto ec = llvm::sys::fs::createTemporaryFile("oxide", ptx ? "ptx" : "cubin", path))
      return llvm::createStringError("cannot create a temporary file: " + ec.message());
    removers.push_back(std::make_unique<llvm::FileRemover>(path));
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return llvm::createStringError("cannot write '" + path.str().str() + "': " + ec.message());
    os << code.bytes;
    images.push_back("--image3=kind=" + std::string(ptx ? "ptx" : "elf") +
                     ",sm=" + detail::code_target_name(code).substr(3) + ",file=" + path.str().str());
  }
  const std::string create = "--create=" + outPath.str().str();
  llvm::SmallVector<llvm::StringRef> args = {fatbinaryTool, "-64", "--compress=false", create};
  if (debug)
    args.push_back("-g");
  for (const std::string &arg : images)
    args.push_back(arg);
  if (log) {
    *log << "oxcc: fatbinary:";
    for (llvm::StringRef a : args)
      *log << ' ' << a;
    *log << '\n';
  }
  std::string execError;
  llvm::SmallString<128> errPath;
  if (auto ec = llvm::sys::fs::createTemporaryFile("oxide-fatbinary", "log", errPath))
    return llvm::createStringError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeErr(errPath);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, errPath.str(), errPath.str()};
  const int rc = llvm::sys::ExecuteAndWait(fatbinaryTool, args, std::nullopt, redirects, 0, 0, &execError);
  if (rc != 0) {
    std::string output;
    if (auto buffer = llvm::MemoryBuffer::getFile(errPath))
      output = (*buffer)->getBuffer().trim().str();
    return llvm::createStringError("fatbinary failed (" +
                                   (execError.empty() ? "exit " + std::to_string(rc) : execError) + ")" +
                                   (output.empty() ? std::string() : ":\n" + output));
  }
  auto buffer = llvm::MemoryBuffer::getFile(outPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read the fatbinary: " + buffer.getError().message());
  std::string bytes = (*buffer)->getBuffer().str();
  auto entries = parseFatbin(bytes);
  if (!entries)
    return entries.takeError();
  // fatbinary writes the images in the order given; each code object takes its own entry.
  if (entries->size() != image.code.size())
    return malformed(std::to_string(entries->size()) + " entries for " + std::to_string(image.code.size()) +
                     " code objects");
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const FatbinEntry &entry = (*entries)[i];
    detail::CodeObject &code = image.code[i];
    if (entry.kind != code.kind || entry.arch != code.arch ||
        entry.archSpecific != (code.features == detail::CodeFeatures::ArchSpecific))
      return malformed("entry " + std::to_string(i) + " is not the code object given for it (" +
                       detail::code_target_name(code) + ")");
    // A compressed payload, or PTX without the NUL the driver needs to find its end, stays in
    // Oxide's image.
    llvm::StringRef payload = llvm::StringRef(bytes).substr(entry.offset, entry.size);
    if (entry.compressed || (code.kind == detail::CodeKind::Ptx && !payload.contains('\0')))
      continue;
    code.fatbin_offset = entry.offset;
    code.fatbin_size = entry.size;
  }
  return bytes;
}
