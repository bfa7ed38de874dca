//===- SourcePaths.cpp - source paths as the program may hold them ------===//

#include "Oxide/IR/SourcePaths.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

std::string oxide::remapPathPrefix(llvm::StringRef path, llvm::ArrayRef<PathPrefix> map) {
  const PathPrefix *chosen = nullptr;
  for (const PathPrefix &prefix : map) {
    llvm::SmallString<256> probe(path);
    if (!llvm::sys::path::replace_path_prefix(probe, prefix.from, prefix.to))
      continue;
    if (!chosen || prefix.from >= chosen->from)
      chosen = &prefix;
  }
  llvm::SmallString<256> result(path);
  if (chosen)
    llvm::sys::path::replace_path_prefix(result, chosen->from, chosen->to);
  return std::string(result);
}
