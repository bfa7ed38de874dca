//===- SafetyChecker.cpp - AST checks of the safety model -----------------===//
//
// The consumer that runs the safety model's AST checks after parsing; each checker is in a file
// of its own (SafetyCheckers.h).
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/SafetyChecker.h"
#include "OxideHeaders.h"
#include "SafetyCheckers.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/SimulatorDivergence.h"

#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaConsumer.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using oxide::ast::OxideHeaders;

namespace {

class SafetyConsumer : public SemaConsumer {
public:
  void Initialize(ASTContext &ctx) override { context = &ctx; }

  /// Before the parser reads the first token: the preprocessor's conditionals on the target are
  /// recorded from there on (SimulatorDivergence.h).
  void InitializeSema(Sema &S) override {
    sema = &S;
    targetSource.watch(S.getPreprocessor());
    oxide::ast::watchCudaSpellings(S);
  }

  /// Runs before code generation sees each declaration (the consumer comes first in
  /// Frontend.cpp's MultiplexConsumer), instantiations of templates included.
  bool HandleTopLevelDecl(DeclGroupRef group) override {
    for (Decl *D : group)
      if (auto *FD = dyn_cast<FunctionDecl>(D);
          FD && FD->isTemplateInstantiation() && prepared.insert(FD).second) {
        oxide::finishKernelInstantiation(*context, *FD);
        oxide::ast::renumberContract(*context, *FD);
      }
    return true;
  }

  void HandleTranslationUnit(ASTContext &context) override {
    OxideHeaders headers(context);
    oxide::ast::checkDetailApi(context, headers);
    if (sema)
      oxide::ast::checkCudaSpellings(context, headers, sema->getPreprocessor());
    const std::vector<const FunctionDecl *> contracted =
        oxide::ast::checkKernelsAndLaunches(context, headers);
    oxide::checkSimulatorDivergence(context, targetSource, contracted,
                                    [&](SourceLocation loc) { return headers.isUserCode(loc); });
    if (context.getLangOpts().CUDAIsDevice)
      oxide::ast::checkDeviceConstructs(context);
  }

private:
  ASTContext *context = nullptr;
  Sema *sema = nullptr;
  llvm::DenseSet<const FunctionDecl *> prepared;
  oxide::TargetDependentSource targetSource;
};

} // namespace

std::unique_ptr<ASTConsumer> oxide::createSafetyChecker() { return std::make_unique<SafetyConsumer>(); }
