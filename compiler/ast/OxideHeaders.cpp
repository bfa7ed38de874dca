//===- OxideHeaders.cpp - which code is the user's ------------------------===//

#include "OxideHeaders.h"

#include "clang/AST/DeclCXX.h"
#include "llvm/Support/FileSystem.h"

using namespace clang;
using oxide::ast::OxideHeaders;

namespace {

const Decl *findSpanAccess(ASTContext &context) {
  auto lookupIn = [&](const DeclContext *dc, llvm::StringRef name) -> const NamedDecl * {
    for (const NamedDecl *d : dc->lookup(&context.Idents.get(name)))
      return d;
    return nullptr;
  };
  const auto *oxideNs = dyn_cast_or_null<NamespaceDecl>(lookupIn(context.getTranslationUnitDecl(), "oxide"));
  const auto *detailNs = oxideNs ? dyn_cast_or_null<NamespaceDecl>(lookupIn(oxideNs, "detail")) : nullptr;
  const auto *access = detailNs ? dyn_cast_or_null<CXXRecordDecl>(lookupIn(detailNs, "SpanAccess")) : nullptr;
  if (!access)
    return nullptr;
  return access->getDefinition() ? access->getDefinition() : access;
}

} // namespace

OxideHeaders::OxideHeaders(ASTContext &context) : sm(context.getSourceManager()) {
  if (const Decl *access = findSpanAccess(context)) {
    std::string path = canonicalPath(sm.getFileID(sm.getSpellingLoc(access->getLocation())));
    const auto pos = llvm::StringRef(path).rfind("/oxide/");
    if (pos != llvm::StringRef::npos)
      oxideDir = path.substr(0, pos + 7);
  }
}

bool OxideHeaders::contains(SourceLocation loc) {
  if (loc.isInvalid())
    return false;
  while (loc.isMacroID() && sm.isWrittenInScratchSpace(sm.getSpellingLoc(loc)))
    loc = sm.getImmediateMacroCallerLoc(loc);
  const FileID file = sm.getFileID(sm.getSpellingLoc(loc));
  auto [it, inserted] = cache.try_emplace(file, false);
  if (inserted)
    it->second = isOxideFile(canonicalPath(file));
  return it->second;
}

bool OxideHeaders::isSystemHeader(const SourceManager &sm, SourceLocation loc) {
  const SrcMgr::SLocEntry &entry = sm.getSLocEntry(sm.getFileID(loc));
  return entry.isFile() && entry.getFile().getFileCharacteristic() != SrcMgr::C_User;
}

std::string OxideHeaders::canonicalPath(FileID file) {
  OptionalFileEntryRef entry = sm.getFileEntryRefForID(file);
  if (!entry)
    return "";
  return sm.getFileManager().getCanonicalName(*entry).str();
}

bool OxideHeaders::isOxideFile(llvm::StringRef path) {
  if (path.empty())
    return false;
  if (!oxideDir.empty())
    return path.starts_with(oxideDir);
  // Without SpanAccess (a file that includes only part of Oxide): an `oxide/` directory next
  // to which oxide/oxide.hpp exists.
  for (size_t pos = path.find("/oxide/"); pos != llvm::StringRef::npos; pos = path.find("/oxide/", pos + 1))
    if (llvm::sys::fs::exists(path.substr(0, pos) + "/oxide/oxide.hpp"))
      return true;
  return false;
}
