//===- SafetyCheckers.h - the safety model's AST checkers -------*- C++ -*-===//
//
// The checkers that compiler/ast/SafetyChecker.cpp's consumer runs after parsing, one file
// each (SafetyChecker<Name>.cpp), and the helpers they share.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_AST_SAFETYCHECKERS_H
#define OXIDE_COMPILER_AST_SAFETYCHECKERS_H

#include "OxideHeaders.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Sema/Sema.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace oxide::ast {

//===----------------------------------------------------------------------===//
// Shared helpers (SafetyCheckerCommon.cpp)
//===----------------------------------------------------------------------===//

/// The text after `prefix` in the first annotation of `D` that starts with it.
std::optional<llvm::StringRef> annotation(const clang::Decl *D, llvm::StringRef prefix);
/// Whether `FD` is a [[kernel]].
bool isKernel(const clang::FunctionDecl *FD);
/// Whether `type` is, or points/refers to, a span or a witness.
bool involvesSafeType(clang::QualType type);
/// `type` printed for a message: "oxide::Span<const Node>", "Box<float *>".
std::string typeName(clang::QualType type, const clang::ASTContext &context);
/// A record for a message: "struct 'Box'", "lambda", "an anonymous union in struct 'Box'".
std::string recordName(const clang::CXXRecordDecl *record, const clang::ASTContext &context);
/// Whether a walk over the user's code passes `decl` over: a declaration written in Oxide's or
/// the system's headers (and so the instantiations of its templates: what they name is spelled
/// there).
bool isOutsideUserCode(const clang::Decl *decl, OxideHeaders &headers);

//===----------------------------------------------------------------------===//
// The checkers
//===----------------------------------------------------------------------===//

/// What a contracted kernel may receive through parameter `param` (SafetyCheckerParameters.cpp).
void checkKernelParameter(clang::ASTContext &context, OxideHeaders &headers,
                          const clang::FunctionDecl *kernel, const clang::ParmVarDecl *param);

/// No reference to oxide::detail outside Oxide's headers (SafetyCheckerDetailApi.cpp).
void checkDetailApi(clang::ASTContext &context, OxideHeaders &headers);

/// No casts that forge spans or witnesses, no inline assembly, in the body of contracted kernel
/// `kernel` (SafetyCheckerKernelBody.cpp).
void checkKernelBody(clang::DiagnosticsEngine &diags, llvm::StringRef kernel, clang::Stmt *body);

/// Kernels' contracts, launch bounds, parameters and bodies, and launch sites
/// (SafetyCheckerKernels.cpp); returns the contracted kernels.
std::vector<const clang::FunctionDecl *> checkKernelsAndLaunches(clang::ASTContext &context,
                                                                 OxideHeaders &headers);

/// C++ that compiles for the GPU but cannot run there as it does on the host, in what the
/// device compile's kernels reach (SafetyCheckerDeviceConstructs.cpp).
void checkDeviceConstructs(clang::ASTContext &context);

/// CUDA's names in the host compile's user code, refused with their Oxide equivalent
/// (CudaSpellings.cpp): `watchCudaSpellings` before parsing, `checkCudaSpellings` after.
void watchCudaSpellings(clang::Sema &sema);
void checkCudaSpellings(clang::ASTContext &context, OxideHeaders &headers, clang::Preprocessor &pp);

/// The contract of an instantiation of a kernel template with a parameter pack, numbered by the
/// instantiation's parameters (SafetyCheckerPackContracts.cpp).
void renumberContract(clang::ASTContext &context, clang::FunctionDecl &FD);

} // namespace oxide::ast

#endif // OXIDE_COMPILER_AST_SAFETYCHECKERS_H
