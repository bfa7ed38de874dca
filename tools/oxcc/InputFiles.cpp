//===- InputFiles.cpp - the inputs of build, run, check and compile -------===//
//
// What each input on the command line is: a C++ source to compile, or an object or library to
// link; CUDA sources and binary files given as sources are refused with what to do instead.
//
//===----------------------------------------------------------------------===//

#include "Oxcc.h"

#include "oxide/compiler/DiagnosticFormat.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace oxcc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

bool isLinkInput(llvm::StringRef file) {
  llvm::StringRef name = path::filename(file);
  return name.ends_with(".o") || name.ends_with(".a") || name.ends_with(".so") || name.contains(".so.");
}

/// Why `input`, given as a source file, is not one oxcc can compile, in one sentence: CUDA
/// source (.cu, .cuh), or a binary file (a NUL byte in its first 4 KiB). A file that cannot be
/// read is left to the compile, which says so.
std::optional<std::string> notASource(llvm::StringRef input) {
  const llvm::StringRef ext = path::extension(input);
  if (ext == ".cu" || ext == ".cuh")
    return "'" + input.str() +
           "' is CUDA source, which oxcc does not compile: oxcc takes C++ files (.cpp, .cc, .cxx) whose "
           "kernels are [[kernel]] functions written with <oxide/oxide.hpp> (docs/getting-started.md)";
  uint64_t size = 0;
  if (fs::file_size(input, size) || size == 0)
    return std::nullopt;
  auto buffer = llvm::MemoryBuffer::getFileSlice(input, std::min<uint64_t>(size, 4096), 0);
  if (!buffer)
    return std::nullopt;
  const llvm::StringRef head = (*buffer)->getBuffer();
  if (!head.contains('\0'))
    return std::nullopt;
  const char *what = head.starts_with("\x7f"
                                      "ELF")
                         ? " (an ELF object, library or executable: give it a .o, .a or .so name to link it)"
                     : head.starts_with("!<arch>") ? " (an archive: give it a .a name to link it)"
                                                   : "";
  return "'" + input.str() + "' is a binary file, not C++ source" + what;
}

} // namespace

std::optional<int> oxcc::resolveInputs(llvm::ArrayRef<std::string> inputs, Command &cmd) {
  const llvm::StringRef verb = verbName(cmd.verb);
  const bool compileVerb = cmd.verb == Verb::Compile;
  const bool links = cmd.verb == Verb::Build || cmd.verb == Verb::Run;
  if (inputs.empty())
    return usageError("no input file", verb);
  for (const std::string &input : inputs) {
    if (isLinkInput(input)) {
      if (!links)
        return usageError("'" + input + "' is not a C++ source file; 'oxcc " + verb + "' compiles sources",
                          verb);
      cmd.opts.linkInputs.push_back(input);
      continue;
    }
    if (std::optional<std::string> why = notASource(input))
      return usageError(*why, verb);
    llvm::SmallString<256> absolute(input);
    fs::make_absolute(absolute);
    path::remove_dots(absolute, /*remove_dot_dot=*/true);
    oxide::setInputSpelling(absolute, input);
    cmd.opts.inputs.push_back(std::string(absolute));
  }
  if (cmd.opts.inputs.empty() && (cmd.opts.emit != oxide::EmitStage::Executable || compileVerb))
    return usageError("no C++ source file among the inputs", verb);
  if (compileVerb && cmd.opts.inputs.size() > 1)
    return usageError("'oxcc compile' compiles one file, got " + llvm::Twine(cmd.opts.inputs.size()), verb);
  return std::nullopt;
}
