//===- SourcePaths.h - source paths as the program may hold them -*- C++ -*-===//
//
// -ffile-prefix-map and its two halves (GCC's and clang's flags): the paths that reach what a
// build writes (__FILE__, a kernel's failure reports, debug information) with a prefix of the
// build machine's replaced, so that builds of one project at two places are the same bytes.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_IR_SOURCEPATHS_H
#define OXIDE_IR_SOURCEPATHS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace oxide {

/// One OLD=NEW pair: a path that starts with the directory `from` starts with `to` instead.
struct PathPrefix {
  std::string from, to;
  /// "OLD=NEW", as the flags and the module attribute spell the pair.
  std::string text() const { return from + "=" + to; }
  /// The pair `text` spells ("OLD=NEW", split at the first '='); nullopt without a '='.
  static std::optional<PathPrefix> parse(llvm::StringRef text);
  friend bool operator==(const PathPrefix &, const PathPrefix &) = default;
};

/// `path` with its prefix replaced by the pair that applies, as clang picks it for __FILE__: of
/// the pairs whose `from` begins `path` (as text: `/src` begins `/srcs/a.cpp` too), the one whose
/// `from` sorts last, which prefers the longer of two nested directories; of pairs with the same
/// `from`, the one given last. `path` as it is when none applies.
std::string remapPathPrefix(llvm::StringRef path, llvm::ArrayRef<PathPrefix> map);

} // namespace oxide

#endif
