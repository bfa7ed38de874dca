//===- Dependencies.h - the files a translation unit reads ------*- C++ -*-===//
#ifndef OXIDE_OXCC_DEPENDENCIES_H
#define OXIDE_OXCC_DEPENDENCIES_H

#include "oxide/compiler/CompileOptions.h"
#include "oxide/compiler/Toolchain.h"

#include <string>
#include <vector>

namespace oxcc {

/// What the host compile and every device compile of a translation unit read: the files
/// (main file first) and the paths that must stay absent because creating one of them would
/// change what an #include or __has_include finds (a header earlier in the search path).
struct Dependencies {
  std::vector<std::string> files;
  std::vector<std::string> absent;
};

/// Preprocesses `tu` in-process as the host compile and as each device compile do
/// (same include paths, macros, language and CUDA mode) and records every file read.
/// Oxide's own headers are always included, whether or not the file reaches them.
llvm::Expected<Dependencies> scanDependencies(const oxide::TranslationUnit &tu, const oxide::Toolchain &tc);

} // namespace oxcc

#endif
