//===- SourcePaths.cpp - source paths as the program may hold them ------===//

#include "Oxide/IR/SourcePaths.h"

std::optional<oxide::PathPrefix> oxide::PathPrefix::parse(llvm::StringRef text) {
  if (!text.contains('='))
    return std::nullopt;
  const auto [from, to] = text.split('=');
  return PathPrefix{from.str(), to.str()};
}

std::string oxide::remapPathPrefix(llvm::StringRef path, llvm::ArrayRef<PathPrefix> map) {
  const PathPrefix *chosen = nullptr;
  for (const PathPrefix &prefix : map)
    if (path.starts_with(prefix.from) && (!chosen || prefix.from >= chosen->from))
      chosen = &prefix;
  if (!chosen)
    return path.str();
  return chosen->to + path.drop_front(chosen->from.size()).str();
}
