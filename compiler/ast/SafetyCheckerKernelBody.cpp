//===- SafetyCheckerKernelBody.cpp - escapes in a contracted kernel's body ---===//
//
// Casts that would forge a span or a witness, and inline assembly, in a contracted kernel.
//
//===----------------------------------------------------------------------===//

#include "SafetyCheckers.h"

#include "oxide/compiler/Diagnostics.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/OxideTypes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace oxide::ast;
using oxide::Diag;

namespace {

/// Scans one contracted kernel's body for escapes from the safety model.
class KernelBodyChecker : public RecursiveASTVisitor<KernelBodyChecker> {
public:
  KernelBodyChecker(DiagnosticsEngine &diags, llvm::StringRef kernel) : diags(diags), kernel(kernel) {}

  bool VisitCXXConstCastExpr(CXXConstCastExpr *cast) {
    if (involvesSafeType(cast->getType()) || involvesSafeType(cast->getSubExprAsWritten()->getType()))
      castError(cast, 0);
    return true;
  }
  bool VisitCXXReinterpretCastExpr(CXXReinterpretCastExpr *cast) {
    if (involvesSafeType(cast->getType()) || involvesSafeType(cast->getSubExprAsWritten()->getType()))
      castError(cast, 1);
    return true;
  }
  bool VisitCStyleCastExpr(CStyleCastExpr *cast) {
    // `(void)idx` only discards a value.
    if (cast->getCastKind() == CK_ToVoid)
      return true;
    if (involvesSafeType(cast->getType()) || involvesSafeType(cast->getSubExprAsWritten()->getType()))
      castError(cast, 2);
    return true;
  }
  bool VisitAsmStmt(AsmStmt *stmt) {
    oxide::report(diags, stmt->getAsmLoc(), Diag::AsmInContractedKernel) << kernel;
    return true;
  }

private:
  /// `which` is the %select of Diag::CastInContractedKernel: const_cast, reinterpret_cast, C-style.
  void castError(const CastExpr *cast, int which) {
    oxide::report(diags, cast->getBeginLoc(), Diag::CastInContractedKernel) << which << kernel;
  }

  DiagnosticsEngine &diags;
  llvm::StringRef kernel;
};

} // namespace

void oxide::ast::checkKernelBody(DiagnosticsEngine &diags, llvm::StringRef kernel, Stmt *body) {
  KernelBodyChecker(diags, kernel).TraverseStmt(body);
}
