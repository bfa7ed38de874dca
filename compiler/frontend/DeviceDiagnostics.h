//===- DeviceDiagnostics.h - what the compiles print ------------*- C++ -*-===//
//
// Internal to compiler/frontend: the diagnostic printers of the two compiles. The device
// compile's prints what clang's TextDiagnosticPrinter would, except that
//  - the include stack never names the internal wrapper (FILE.oxide-device.cu);
//  - an error in a system header reached from a kernel (std::vector, iostream: clang's "reference
//    to __host__ function" with its "called by" notes) is reported at the first line of the
//    chain in the user's own code, with the library's line and the chain as notes;
//  - warnings are the host compile's to print: the device compile prints only those in code the
//    host compile does not see (DeviceSource), so each warning appears once.
// Both compiles replace clang's error for a copied witness (`for (auto i : grid_stride(n))`:
// "call to implicitly-deleted copy constructor", with notes inside Oxide's headers) by one that
// says to bind it by reference.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_FRONTEND_DEVICEDIAGNOSTICS_H
#define OXIDE_COMPILER_FRONTEND_DEVICEDIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/PPCallbacks.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace oxide {

/// What the device compile's printer knows of the source beyond the diagnostics: the parts the
/// host compile does not compile the same way (the preprocessor conditionals, every branch from
/// `#if` to `#endif`, that test a macro only one of the compiles defines: __CUDA_ARCH__,
/// __CUDA__, __NVPTX__...), and the AST.
class DeviceSource {
public:
  /// Callbacks for the device compile's preprocessor that record the conditionals.
  std::unique_ptr<clang::PPCallbacks> watch(const clang::SourceManager &sm);
  /// Whether `loc` (its expansion) lies in one of them.
  bool contains(const clang::SourceManager &sm, clang::SourceLocation loc) const;

  void setAST(const clang::ASTContext &context) { ast = &context; }
  /// Where the function `caller` (named as clang's "called by" notes name it), defined where
  /// `isUser` holds, calls `callee`, explicitly or by destroying an object; invalid if nowhere.
  clang::SourceLocation findCall(llvm::StringRef caller, llvm::StringRef callee,
                                 llvm::function_ref<bool(clang::SourceLocation)> isUser) const;

private:
  friend class DeviceConditionals;
  struct Region {
    clang::FileID file;
    unsigned begin, end; ///< offsets; `end` is ~0u while the conditional is open
  };
  std::vector<Region> regions;
  const clang::ASTContext *ast = nullptr;
};

/// The device compile's diagnostic consumer; `oxideIncludeDir` (Oxide's headers) is not the
/// user's code. It prints warnings only in `deviceSource`.
std::unique_ptr<clang::DiagnosticConsumer>
createDeviceDiagnosticPrinter(llvm::raw_ostream &os, clang::DiagnosticOptions &opts,
                              std::string oxideIncludeDir, std::shared_ptr<const DeviceSource> deviceSource);

/// The host compile's: clang's printer with the witness-copy hint.
std::unique_ptr<clang::DiagnosticConsumer> createHostDiagnosticPrinter(llvm::raw_ostream &os,
                                                                       clang::DiagnosticOptions &opts);

} // namespace oxide

#endif
