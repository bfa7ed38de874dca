//===- OxideHeaders.h - which code is the user's ------------------*- C++ -*-===//
//
// Private to compiler/ast/: the AST walks that judge the user's code (the safety checks, the
// unsafe-surface report) leave Oxide's own headers and the system's out, by one rule.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_AST_OXIDEHEADERS_H
#define OXIDE_COMPILER_AST_OXIDEHEADERS_H

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace oxide::ast {

/// Which files are Oxide's own headers: those under the `oxide/` directory that holds the
/// header declaring oxide::detail::SpanAccess (the include directory oxcc passes), found by
/// the file's real path, not by its presumed name (a `#line` directive cannot change it).
class OxideHeaders {
public:
  explicit OxideHeaders(clang::ASTContext &context);

  /// Whether `loc` is written (its spelling, through token pastes) in one of Oxide's headers.
  bool contains(clang::SourceLocation loc);

  /// Whether `loc` is in the user's code: neither in Oxide's headers nor in a system header.
  bool isUserCode(clang::SourceLocation loc) {
    return loc.isValid() && !contains(loc) && !isSystemHeader(sm, sm.getSpellingLoc(loc));
  }

  /// Whether the include search found `loc`'s file in a system directory. A user's header that
  /// only declares itself a system header (#pragma clang system_header) is still the user's:
  /// the rules apply to it.
  static bool isSystemHeader(const clang::SourceManager &sm, clang::SourceLocation loc);

private:
  std::string canonicalPath(clang::FileID file);
  bool isOxideFile(llvm::StringRef path);

  clang::SourceManager &sm;
  std::string oxideDir; // ".../include/oxide/", empty when unknown
  llvm::DenseMap<clang::FileID, bool> cache;
};

} // namespace oxide::ast

#endif
