//===- Frontend.cpp - in-process clang compiles ---------------------------===//
//
// Both compiles run clang's driver logic in-process (createInvocation) so that header search,
// the aux triple and the CUDA wrappers are set up exactly as `clang++` would, then run an
// EmitLLVMOnlyAction and take the module.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/Frontend.h"
#include "DeviceDiagnostics.h"
#include "PrecompiledHeader.h"
#include "oxide/compiler/DiagnosticFormat.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/ReportedError.h"
#include "oxide/compiler/SafetyChecker.h"
#include "oxide/compiler/SimWriteChecks.h"
#include "oxide/compiler/SimulatorDivergence.h"
#include "oxide/compiler/TargetCodegen.h"
#include "oxide/compiler/UndefinedBehaviour.h"
#include "oxide/compiler/UnsafeSurface.h"
#include "oxide/compiler/VerboseLog.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/MangleNumberingContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Serialization/ASTDeserializationListener.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace oxide;

namespace {

/// The arguments both compiles share. `fullDebug`: debug information for a debugger (-g);
/// otherwise line tables only.
void addCommonArgs(std::vector<std::string> &args, const CompileOptions &opts, const Toolchain &tc,
                   unsigned optLevel, bool fullDebug) {
  args.push_back("-std=" + opts.cxxStandard);
  args.push_back("-O" + std::to_string(optLevel));
  args.push_back("-resource-dir=" + tc.clangResourceDir);
  args.push_back("-I" + tc.oxideIncludeDir);
  for (const auto &dir : opts.includeDirs)
    args.push_back("-I" + dir);
  for (const auto &def : opts.defines)
    args.push_back("-D" + def);
  // Line tables at least: the oxide dialect's diagnostics point at source lines with them.
  args.push_back(fullDebug ? "-g" : "-gline-tables-only");
  args.push_back("-fcolor-diagnostics");
  if (!opts.fmad)
    args.push_back("-ffp-contract=off");
}

/// The user's warning flags; for the device compile (`device`) without those that turn warnings
/// into errors: it reports warnings only in code the host compile does not see, and a warning the
/// host compile prints must not fail the device compile.
void addWarningArgs(std::vector<std::string> &args, const CompileOptions &opts, bool device) {
  for (const std::string &flag : opts.warnings) {
    const llvm::StringRef f(flag);
    if (device && (f == "-Werror" || f.starts_with("-Werror=") || f == "-pedantic-errors"))
      continue;
    args.push_back(flag);
  }
}

/// The device compile's main file around `include` (a quoted or angled header name). The
/// implicit-device pragma must be pushed and popped in the same file, so the device compile
/// parses this wrapper instead of the user's file. The CUDA headers and the device C++ runtime
/// (aligned new/delete, __cxa_pure_virtual...) come first, outside the pragma.
std::string wrapperAround(llvm::StringRef include) {
  std::string text;
  llvm::raw_string_ostream(text) << "#include \"oxide/detail/cuda_headers.hpp\"\n"
                                 << "#include \"oxide/detail/device_runtime.hpp\"\n"
                                 << "#pragma clang attribute push(__attribute__((" << kImplicitDeviceAttr
                                 << ")), apply_to = function)\n#pragma clang attribute push(__attribute__(("
                                 << kDeviceVariableAttr << ")), apply_to = variable(is_global))\n#include "
                                 << include << "\n#pragma clang attribute pop\n#pragma clang attribute pop\n";
  return text;
}

/// Gives the host compile the lambda mangling numbers the device compile uses.
///
/// A template kernel instantiated with a closure type (`map<decltype(f)>` for a lambda `f`
/// written in main) is found at launch by its mangled name, which must be the same in both
/// compiles. In CUDA mode clang numbers every lambda (`UlvE_`, `UlvE0_`...), but in plain C++ a
/// lambda in the body of a non-inline function or in a namespace-scope variable gets no number
/// and mangles as `$_0`. This consumer runs before code generation sees each top-level
/// declaration and numbers those lambdas exactly as clang's CUDA mode does
/// (Sema::handleLambdaNumbering): per declaration context, in source order.
class HostLambdaNumbering : public clang::ASTConsumer,
                            public clang::RecursiveASTVisitor<HostLambdaNumbering> {
public:
  void Initialize(clang::ASTContext &ctx) override { context = &ctx; }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl *decl : group)
      TraverseDecl(decl);
    return true;
  }

  // Lambdas in templates are numbered in both compiles; source order is pre-order.
  bool VisitLambdaExpr(clang::LambdaExpr *lambda) {
    clang::CXXRecordDecl *closure = lambda->getLambdaClass();
    if (!closure || closure->getLambdaManglingNumber() != 0 || closure->isDependentContext())
      return true;
    const clang::DeclContext *dc = closure->getDeclContext();
    while (const auto *captured = llvm::dyn_cast<clang::CapturedDecl>(dc))
      dc = captured->getParent();
    clang::MangleNumberingContext &numbers = context->getManglingNumberContext(dc);
    clang::CXXRecordDecl::LambdaNumbering numbering = closure->getLambdaNumbering();
    numbering.IndexInContext = numbers.getNextLambdaIndex();
    numbering.ManglingNumber = numbers.getManglingNumber(lambda->getCallOperator());
    numbering.DeviceManglingNumber = numbers.getDeviceManglingNumber(lambda->getCallOperator());
    numbering.HasKnownInternalLinkage = true;
    closure->setLambdaNumbering(numbering);
    return true;
  }

private:
  clang::ASTContext *context = nullptr;
};

/// Keeps implicitly host+device functions device functions for code generation, in the device
/// compile. Under -foffload-implicit-host-device-templates (a user's function may then share a
/// signature with one of CUDA's device functions, cuda_headers.hpp) clang emits such a function
/// for the device only once it has recorded a device caller
/// (ASTContext::CUDAImplicitHostDeviceFunUsedByDevice); but in Oxide every function is device
/// code whoever calls it. KernelAttributes.cpp records the functions it parses; this records
/// the rest before code generation sees them: template instantiations, and the functions of the
/// precompiled Oxide headers (the record is not part of a precompiled header).
class ImplicitDeviceFunctions : public clang::ASTConsumer, public clang::ASTDeserializationListener {
public:
  explicit ImplicitDeviceFunctions(clang::ASTContext &context) : context(context) {}
  clang::ASTDeserializationListener *GetASTDeserializationListener() override { return this; }
  void DeclRead(clang::GlobalDeclID, const clang::Decl *decl) override { record(decl); }
  void HandleCXXImplicitFunctionInstantiation(clang::FunctionDecl *fn) override { record(fn); }
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (const clang::Decl *decl : group)
      record(decl);
    return true;
  }

private:
  void record(const clang::Decl *decl) {
    const auto *fn = llvm::dyn_cast<clang::FunctionDecl>(decl);
    if (!fn)
      return;
    const auto *host = fn->getAttr<clang::CUDAHostAttr>();
    const auto *device = fn->getAttr<clang::CUDADeviceAttr>();
    if (host && device && host->isImplicit() && device->isImplicit())
      context.CUDAImplicitHostDeviceFunUsedByDevice.insert(fn);
  }

  clang::ASTContext &context;
};

/// Whether `context` (a translation unit, namespace, class or friend) declares a kernel that is
/// a template or lies inside one: only such kernels can be instantiated by another function's
/// body. Reads only what this compile parsed (the precompiled Oxide headers declare no kernel).
bool declaresKernelTemplate(const clang::DeclContext &context) {
  for (const clang::Decl *decl : context.noload_decls()) {
    if (const auto *friendDecl = llvm::dyn_cast<clang::FriendDecl>(decl))
      decl = friendDecl->getFriendDecl();
    if (const auto *tmpl = llvm::dyn_cast_or_null<clang::FunctionTemplateDecl>(decl))
      decl = tmpl->getTemplatedDecl();
    else if (const auto *classTmpl = llvm::dyn_cast_or_null<clang::ClassTemplateDecl>(decl))
      decl = classTmpl->getTemplatedDecl();
    if (const auto *fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(decl)) {
      if (fn->isTemplated() && hasKernelAnnotation(fn))
        return true;
    } else if (const auto *inner = llvm::dyn_cast_or_null<clang::DeclContext>(decl);
               inner &&
               (llvm::isa<clang::NamespaceDecl, clang::LinkageSpecDecl, clang::ExportDecl,
                          clang::CXXRecordDecl>(decl)) &&
               declaresKernelTemplate(*inner)) {
      return true;
    }
  }
  return false;
}

/// The device compile skips the body of `main` when no kernel template exists: that body is
/// host code, and with no kernel template to instantiate it can add nothing to the device
/// module, yet clang's Sema of it (every launch, copy and timer the program makes) is about a
/// third of the device front end of a typical program. A kernel template declared after `main`
/// could still be instantiated from it (through a template whose names are looked up at the end
/// of the file): then the compile must run again without skipping.
struct HostBodies {
  bool skippedMain = false;
  bool needed = false; ///< main was skipped, but a kernel template was declared after it
};
class HostBodySkipper : public clang::ASTConsumer {
public:
  explicit HostBodySkipper(HostBodies &bodies) : bodies(bodies) {}
  void Initialize(clang::ASTContext &ctx) override { context = &ctx; }
  bool shouldSkipFunctionBody(clang::Decl *decl) override {
    const auto *fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(decl);
    if (!fn || !fn->isMain() || declaresKernelTemplate(*context->getTranslationUnitDecl()))
      return false;
    bodies.skippedMain = true;
    return true;
  }
  void HandleTranslationUnit(clang::ASTContext &ctx) override {
    bodies.needed = bodies.skippedMain && declaresKernelTemplate(*ctx.getTranslationUnitDecl());
  }

private:
  HostBodies &bodies;
  clang::ASTContext *context = nullptr;
};

/// A shared front end's compile: the names its tokens spell and the macros it expands, checked
/// at its end (ArchDependence::checkIdentifiers).
class IdentifierCheck : public clang::ASTConsumer {
public:
  IdentifierCheck(clang::Preprocessor &pp, ArchDependence &seen) : seen(seen) {
    pp.setTokenWatcher([this](const clang::Token &tok) {
      if (tok.is(clang::tok::identifier))
        add(tok.getIdentifierInfo());
    });
    pp.addPPCallbacks(std::make_unique<MacroNames>(*this));
  }
  void HandleTranslationUnit(clang::ASTContext &) override { seen.checkIdentifiers(spelled); }

private:
  /// A macro's name is consumed by its expansion: the token watcher never sees it.
  struct MacroNames : clang::PPCallbacks {
    explicit MacroNames(IdentifierCheck &check) : check(check) {}
    void MacroExpands(const clang::Token &name, const clang::MacroDefinition &, clang::SourceRange,
                      const clang::MacroArgs *) override {
      check.add(name.getIdentifierInfo());
    }
    IdentifierCheck &check;
  };
  void add(const clang::IdentifierInfo *id) {
    if (seenNames.insert(id).second)
      spelled.insert(id->getName().str());
  }

  ArchDependence &seen;
  llvm::DenseSet<const clang::IdentifierInfo *> seenNames;
  std::set<std::string> spelled;
};

/// Clang's LLVM IR generation with Oxide's safety checks running on the same AST.
class CheckedEmitLLVMAction : public clang::EmitLLVMOnlyAction {
public:
  /// `deviceSource`: the device compile records there the code the host compile does not see.
  /// `archSeen` (if given): where the preprocessing sees the architecture. `hostBodies` (if
  /// given): the compile skips main's body when it may (HostBodySkipper) and says so there.
  CheckedEmitLLVMAction(llvm::LLVMContext *ctx, std::shared_ptr<DeviceSource> deviceSource,
                        ArchDependence *archSeen, HostBodies *hostBodies)
      : EmitLLVMOnlyAction(ctx), deviceSource(std::move(deviceSource)), archSeen(archSeen),
        hostBodies(hostBodies) {}

protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci,
                                                        llvm::StringRef file) override {
    if (deviceSource) {
      ci.getPreprocessor().addPPCallbacks(deviceSource->watch(ci.getSourceManager()));
      deviceSource->setAST(ci.getASTContext());
    }
    if (archSeen)
      ci.getPreprocessor().addPPCallbacks(archSeen->watch(ci.getPreprocessor()));
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    if (!ci.getLangOpts().CUDA) {
      consumers.push_back(std::make_unique<HostLambdaNumbering>());
      // Before code generation finishes the module: it records the kernels' parameters there.
      consumers.push_back(createSimParamRecorder(*this));
    } else {
      consumers.push_back(std::make_unique<ImplicitDeviceFunctions>(ci.getASTContext()));
      if (hostBodies)
        consumers.push_back(std::make_unique<HostBodySkipper>(*hostBodies));
    }
    consumers.push_back(createSafetyChecker());
    consumers.push_back(EmitLLVMOnlyAction::CreateASTConsumer(ci, file));
    if (archSeen && !archSeen->mustNotReach.empty())
      consumers.push_back(std::make_unique<IdentifierCheck>(ci.getPreprocessor(), *archSeen));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

private:
  std::shared_ptr<DeviceSource> deviceSource;
  ArchDependence *archSeen;
  HostBodies *hostBodies;
};

/// `oxcc check`'s host compile: the safety checks on the AST and no code at all; with
/// `unsafeSurface` (--unsafe-report), the list of the file's unsafe uses too.
class CheckedSyntaxOnlyAction : public clang::ASTFrontendAction {
public:
  explicit CheckedSyntaxOnlyAction(UnsafeSurface *unsafeSurface) : unsafeSurface(unsafeSurface) {}

protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &, llvm::StringRef) override {
    if (!unsafeSurface)
      return createSafetyChecker();
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    // After the safety checks, whose errors leave no report to make.
    consumers.push_back(createSafetyChecker());
    consumers.push_back(createUnsafeSurfaceCollector(*unsafeSurface));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

private:
  UnsafeSurface *unsafeSurface;
};

/// Marks every helper of the device module always-inline (but those the user marked noinline or
/// optnone). The write checks follow each ownership witness and span from the kernel's own
/// parameters through SSA values, so they need the kernel's helpers inlined; clang's cost model
/// declines a large helper that several kernels call (layernorm's row function, shared by two
/// kernels, was refused: its spans reached it through a pointer, not as parameters).
void inlineHelpersIntoKernels(llvm::Module &module) {
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && function.getCallingConv() != llvm::CallingConv::PTX_Kernel &&
        !function.hasFnAttribute(llvm::Attribute::NoInline) &&
        !function.hasFnAttribute(llvm::Attribute::OptimizeNone))
      function.addFnAttr(llvm::Attribute::AlwaysInline);
}

/// Clang's optimisation pipeline at `codeGen`'s level and settings, without a target machine:
/// the target-independent cost model. The device module is optimised twice, here for the MLIR
/// stage (inlined, in SSA form) and after it by the NVPTX back end with NVPTX's cost model;
/// target-specific choices made here (unrolling, vectorising, address forms for NVPTX) would
/// constrain the back end's and, measured on SGEMM, cost 3 % on the H200.
void optimizeTargetIndependent(llvm::Module &module, const clang::CodeGenOptions &codeGen) {
  inlineHelpersIntoKernels(module);
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = codeGen.UnrollLoops;
  tuning.LoopInterleaving = codeGen.UnrollLoops;
  tuning.LoopVectorization = codeGen.VectorizeLoop;
  tuning.SLPVectorization = codeGen.VectorizeSLP;
  tuning.MergeFunctions = codeGen.MergeFunctions;
  llvm::PassBuilder pb(/*TM=*/nullptr, tuning);
  const llvm::OptimizationLevel level = codeGen.OptimizationLevel >= 3   ? llvm::OptimizationLevel::O3
                                        : codeGen.OptimizeSize == 2      ? llvm::OptimizationLevel::Oz
                                        : codeGen.OptimizeSize == 1      ? llvm::OptimizationLevel::Os
                                        : codeGen.OptimizationLevel == 2 ? llvm::OptimizationLevel::O2
                                                                         : llvm::OptimizationLevel::O1;
  runDefaultPipeline(module, pb, level);
}

/// How runClang optimises the module clang generates.
enum class FrontendOptimization {
  Clang,             // clang's own pipeline, with the target's cost model (the host with -g)
  ClangKernelLines,  // the same, with line tables only where kernels reach (the host without -g)
  TargetIndependent, // optimizeTargetIndependent (the device)
  None,              // no module, only the checks (`oxcc check`'s host compile)
};

/// Whether a compile of `tu` starts from precompiled headers: when oxcc keeps them and the
/// file's text mentions kernels (a file with kernels includes Oxide's headers; a host-only
/// file of a project may not, and must not see them).
bool usePrecompiledHeaders(const TranslationUnit &tu) {
  return !tu.opts.pchDirectory.empty() && mentionsKernels(tu.input);
}

std::vector<const char *> argvOf(const std::vector<std::string> &args) {
  std::vector<const char *> argv;
  for (const std::string &arg : args)
    argv.push_back(arg.c_str());
  return argv;
}

/// The compiler invocation clang's driver makes of `argv`; its errors go to `diagOut`.
std::shared_ptr<clang::CompilerInvocation> invocationOf(llvm::ArrayRef<const char *> argv,
                                                        llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs,
                                                        llvm::raw_ostream &diagOut) {
  clang::DiagnosticOptions diagOpts;
  auto diags = clang::CompilerInstance::createDiagnostics(
      *vfs, diagOpts, new clang::TextDiagnosticPrinter(diagOut, diagOpts), /*ShouldOwnClient=*/true);
  // The driver stage only translates our own flags; its warnings (e.g. "CUDA version is newer
  // than the latest supported") are about oxcc's choices, not the user's code.
  diags->setIgnoreAllWarnings(true);
  clang::CreateInvocationOptions ciOpts;
  ciOpts.Diags = diags;
  ciOpts.VFS = vfs;
  return clang::createInvocation(argv, ciOpts);
}

/// Runs clang on `args`; its diagnostics go to `diagOut`, the command line (with `verbose`) to
/// `log`. Colours follow stderr's. With `prefix`, the compile starts from its precompiled
/// header. With `deviceIncludeDir` (Oxide's headers), the device compile's printer prints them.
/// With `archSeen`, the compile records where its own preprocessing (the precompiled header's
/// part excepted) sees the architecture. With `hostBodies`, the device compile skips main's
/// body where HostBodySkipper may, and records there whether it must run again without. With
/// `unsafeSurface`, the checks only (FrontendOptimization::None) also list the unsafe uses there.
llvm::Expected<std::unique_ptr<llvm::Module>>
runClang(const std::vector<std::string> &args, llvm::LLVMContext &ctx,
         llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs, llvm::StringRef stage,
         FrontendOptimization optimization, const PrecompiledPrefix *prefix, bool verbose,
         llvm::raw_ostream &diagOut, llvm::raw_ostream &log, const std::string *deviceIncludeDir = nullptr,
         ArchDependence *archSeen = nullptr, HostBodies *hostBodies = nullptr,
         UnsafeSurface *unsafeSurface = nullptr) {
  // Clang's code generation looks the target up (and runs its passes with the target's cost
  // model); registering the targets first makes every compile see them, in parallel too.
  initializeTargets();
  std::vector<const char *> argv = argvOf(args);
  if (verbose) {
    log << "oxcc: " << stage << " compile:";
    for (const char *a : argv)
      log << ' ' << a;
    log << '\n';
  }
  std::shared_ptr<clang::CompilerInvocation> invocation = invocationOf(argv, vfs, diagOut);
  if (!invocation)
    return reportedError(stage.str() + " compile setup");
  // Color only when stderr is a terminal, as clang itself does.
  invocation->getDiagnosticOpts().ShowColors = diagnosticColors();
  if (prefix) {
    std::string pch = findOrBuildPrecompiledHeader(*invocation, argv, *prefix, vfs, verbose, log);
    if (!pch.empty())
      invocation->getPreprocessorOpts().ImplicitPCHInclude = std::move(pch);
  }

  if (optimization == FrontendOptimization::ClangKernelLines)
    invocation->getCodeGenOpts().PassBuilderCallbacks.push_back([](llvm::PassBuilder &pb) {
      pb.registerPipelineStartEPCallback([](llvm::ModulePassManager &mpm, llvm::OptimizationLevel) {
        mpm.addPass(StripHostOnlyDebugInfoPass());
      });
    });
  const clang::CodeGenOptions codeGen = invocation->getCodeGenOpts();
  const bool optimizeHere =
      optimization == FrontendOptimization::TargetIndependent && codeGen.OptimizationLevel > 0;
  if (optimizeHere)
    invocation->getCodeGenOpts().DisableLLVMPasses = true;
  // After the precompiled header, whose compile must not skip the headers' bodies.
  if (hostBodies)
    invocation->getFrontendOpts().SkipFunctionBodies = true;
  clang::CompilerInstance ci(std::move(invocation));
  ci.setVirtualFileSystem(vfs);
  // The device compile prints what only it finds, at the user's lines (DeviceDiagnostics.h).
  std::shared_ptr<DeviceSource> deviceSource;
  if (deviceIncludeDir) {
    deviceSource = std::make_shared<DeviceSource>();
    ci.createDiagnostics(
        createDeviceDiagnosticPrinter(diagOut, ci.getDiagnosticOpts(), *deviceIncludeDir, deviceSource)
            .release(),
        /*ShouldOwnClient=*/true);
  } else {
    ci.createDiagnostics(createHostDiagnosticPrinter(diagOut, ci.getDiagnosticOpts()).release(),
                         /*ShouldOwnClient=*/true);
  }
  ci.setVerboseOutputStream(diagOut); // "N warnings generated"
  if (optimization == FrontendOptimization::None) {
    CheckedSyntaxOnlyAction check(unsafeSurface);
    if (!ci.ExecuteAction(check) || ci.getDiagnostics().hasErrorOccurred())
      return reportedError(stage.str() + " compile");
    return std::make_unique<llvm::Module>(stage, ctx); // empty: nothing was asked for but the checks
  }
  CheckedEmitLLVMAction action(&ctx, std::move(deviceSource), archSeen, hostBodies);
  if (!ci.ExecuteAction(action) || ci.getDiagnostics().hasErrorOccurred())
    return reportedError(stage.str() + " compile");
  std::unique_ptr<llvm::Module> module = action.takeModule();
  if (!module)
    return reportedError(stage.str() + " compile");
  if (archSeen)
    archSeen->checkModule(*module); // before optimisation removes what it inlines
  // The device module: no fact from undefined behaviour in the user's code reaches the checks
  // or the optimisers after them, neither as written nor as clang's pipeline derives it.
  if (optimization == FrontendOptimization::TargetIndependent) {
    // A store to an oxide::constant survives until the write checks reject it.
    ExposedConstants constants = exposeConstantWrites(*module);
    defineUndefinedBehaviour(*module, UndefinedBehaviourStage::UserCode);
    if (optimizeHere) {
      optimizeTargetIndependent(*module, codeGen);
      defineUndefinedBehaviour(*module, UndefinedBehaviourStage::UserCode);
    }
    constants.restore();
  }
  return module;
}

llvm::Error checkInput(const TranslationUnit &tu) {
  auto buffer = llvm::MemoryBuffer::getFile(tu.input);
  if (!buffer)
    return llvm::createStringError("cannot read '" + tu.input + "': " + buffer.getError().message());
  return llvm::Error::success();
}

} // namespace

bool oxide::mentionsKernels(llvm::StringRef file) {
  auto buffer = llvm::MemoryBuffer::getFile(file);
  return buffer && (*buffer)->getBuffer().contains("kernel");
}

std::vector<std::string> oxide::hostCompileArgs(const TranslationUnit &tu, const Toolchain &tc) {
  const CompileOptions &opts = tu.opts;
  // Position-independent code, not a PIE: the same object links into executables and shared
  // libraries (add_oxide_library(... SHARED), oxcc build --shared).
  std::vector<std::string> args = {tc.clangDriver, "-x", "c++", "-fPIC"};
  addCommonArgs(args, opts, tc, opts.optLevel, opts.debug);
  // CUDA's headers as the device compile has them, searched last and as system headers: a program
  // may include the ones that compile for a host too (<curand_kernel.h>: its device API then runs
  // on the simulator; <vector_types.h>). The CUDA names refused in Oxide stay refused in the
  // user's code (compiler/ast/CudaSpellings.cpp).
  if (!tc.cudaPath.empty())
    args.insert(args.end(), {"-idirafter", tc.cudaPath + "/include"});
  addWarningArgs(args, opts, /*device=*/false);
  for (const PathPrefix &prefix : opts.macroPrefixMap)
    args.push_back("-fmacro-prefix-map=" + prefix.text());
  for (const PathPrefix &prefix : opts.debugPrefixMap)
    args.push_back("-fdebug-prefix-map=" + prefix.text());
  for (const auto &sanitizer : opts.sanitizers)
    args.push_back("-fsanitize=" + sanitizer);
  // As the user spelled it: clang's diagnostics name the file so (oxcc's own do too).
  args.push_back(displayPath(tu.input));
  return args;
}

std::string oxide::deviceWrapperPath(llvm::StringRef input) { return (input + kDeviceWrapperSuffix).str(); }

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> oxide::deviceFileSystem(llvm::StringRef input) {
  const std::string wrapperPath = deviceWrapperPath(input);
  const std::string wrapper = wrapperAround("\"" + input.str() + "\"");
  auto memFS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  memFS->addFile(wrapperPath, 0, llvm::MemoryBuffer::getMemBufferCopy(wrapper, wrapperPath));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(memFS);
  return overlay;
}

std::vector<std::string> oxide::deviceCompileArgs(const TranslationUnit &tu, const Toolchain &tc,
                                                  const GpuArch &arch) {
  const CompileOptions &opts = tu.opts;
  std::vector<std::string> args = {tc.clangDriver,
                                   "-x",
                                   "cuda",
                                   "--cuda-device-only",
                                   "--cuda-gpu-arch=" + arch.smName(),
                                   "--cuda-path=" + tc.cudaPath};
  args.push_back("-nocudalib"); // libdevice is linked after the MLIR stage
  // The wrapper includes the CUDA headers itself, around names they must not take from the
  // user (oxide/detail/cuda_headers.hpp); their directory stays where the driver puts it.
  args.insert(args.end(),
              {"-nocudainc", "-Xclang", "-internal-isystem", "-Xclang", tc.cudaPath + "/include"});
  // Before oxcc's own -Wno- flags below, so that -Wall or -Weverything leaves them in force.
  addWarningArgs(args, opts, /*device=*/true);
  // 32-bit pointers into shared, constant and local memory, as nvcc emits them: one register
  // per address instead of two, and 32-bit address arithmetic.
  args.push_back("-fcuda-short-ptr");
  args.push_back("-Wno-unknown-cuda-version");
  // A forward declaration gets internal linkage (see KernelAttributes.cpp); one that is never
  // defined is reported with its call chain by checkDeviceExternals instead.
  args.push_back("-Wno-undefined-internal");
  // The wrapper's pragma regions may hold no function or variable of their kind (with the
  // precompiled headers, the user's file alone is inside them).
  args.push_back("-Wno-pragma-clang-attribute");
  // A user's function may share a signature with one of CUDA's device functions
  // (oxide/detail/cuda_headers.hpp).
  args.push_back("-foffload-implicit-host-device-templates");
  // The dialect's provenance check follows witnesses through SSA values, which needs at least
  // clang's -O2 inlining and scalar replacement; the user's level applies to the NVPTX stage.
  //
  // -G describes device variables too. Clang reduces the debug information of optimised device
  // code to line directives unless told that it is for a debugger (--cuda-noopt-device-debug,
  // nvcc's -G); the frontend still optimises (the safety checks need SSA values), so a variable
  // that -O2 folds away shows as optimised out, and the NVPTX back end and ptxas then run at -O0.
  addCommonArgs(args, opts, tc, std::max(opts.optLevel, 2u), opts.deviceDebug);
  if (opts.deviceDebug)
    args.push_back("--cuda-noopt-device-debug");
  if (opts.fastMath) {
    args.push_back("-ffast-math");
    args.push_back("-fgpu-flush-denormals-to-zero");
  }
  // __FILE__ as the host compile has it; the device debug information keeps the paths as given
  // (diagnostics read them) until the PTX is written (generatePtx).
  for (const PathPrefix &prefix : opts.macroPrefixMap)
    args.push_back("-fmacro-prefix-map=" + prefix.text());
  args.push_back(deviceWrapperPath(tu.input));
  return args;
}

llvm::Expected<std::unique_ptr<llvm::Module>> oxide::compileHost(const TranslationUnit &tu,
                                                                 const Toolchain &tc, llvm::LLVMContext &ctx,
                                                                 UnsafeSurface *unsafeSurface) {
  registerOxideAttributes();
  if (auto err = checkInput(tu))
    return std::move(err);
  PrecompiledPrefix prefix;
  prefix.directory = tu.opts.pchDirectory;
  prefix.includeDir = tc.oxideIncludeDir;
  prefix.text = "#include <oxide/oxide.hpp>\n";
  prefix.extraConsumer = [] { return std::make_unique<HostLambdaNumbering>(); };
  return runClang(hostCompileArgs(tu, tc), ctx, llvm::vfs::getRealFileSystem(), "host",
                  tu.opts.emit == EmitStage::Check ? FrontendOptimization::None
                  : tu.opts.debug                  ? FrontendOptimization::Clang
                                                   : FrontendOptimization::ClangKernelLines,
                  usePrecompiledHeaders(tu) ? &prefix : nullptr, tu.opts.verbose, llvm::errs(), verboseLog(),
                  /*deviceIncludeDir=*/nullptr, /*archSeen=*/nullptr, /*hostBodies=*/nullptr, unsafeSurface);
}

namespace {

/// The device compile's precompiled prefix: the wrapper around Oxide's headers, so that they
/// are parsed as they would be in the user's file, their functions implicitly host and device.
PrecompiledPrefix devicePrefix(const TranslationUnit &tu, const Toolchain &tc) {
  PrecompiledPrefix prefix;
  prefix.directory = tu.opts.pchDirectory;
  prefix.includeDir = tc.oxideIncludeDir;
  prefix.text = wrapperAround("<oxide/oxide.hpp>");
  return prefix;
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::Module>>
oxide::compileDevice(const TranslationUnit &tu, const Toolchain &tc, const GpuArch &arch,
                     llvm::LLVMContext &ctx, llvm::raw_ostream &diagOut, llvm::raw_ostream &log,
                     ArchDependence *archSeen) {
  registerOxideAttributes();
  if (auto err = checkInput(tu))
    return std::move(err);
  setHostOnlyHeaderDirectory(tc.oxideIncludeDir + "/oxide/host/");
  const PrecompiledPrefix prefix = devicePrefix(tu, tc);
  auto compile = [&](llvm::raw_ostream &diagnostics, HostBodies *hostBodies) {
    return runClang(deviceCompileArgs(tu, tc, arch), ctx, deviceFileSystem(tu.input), "device",
                    FrontendOptimization::TargetIndependent, usePrecompiledHeaders(tu) ? &prefix : nullptr,
                    tu.opts.verbose, diagnostics, log, &tc.oxideIncludeDir, archSeen, hostBodies);
  };
  // First with main's body skipped where that cannot change the module (HostBodySkipper); its
  // diagnostics are held back until it is known that they are the compile's.
  HostBodies bodies;
  std::string held;
  llvm::raw_string_ostream heldOut(held);
  auto module = compile(heldOut, &bodies);
  if (!bodies.needed) {
    diagOut << held;
    if (bodies.skippedMain && tu.opts.verbose)
      log << "oxcc: note: the device compile for " << arch.smName()
          << " skipped main's body (host code; the file declares no kernel template)\n";
    return module;
  }
  if (tu.opts.verbose)
    log << "oxcc: note: the device compile for " << arch.smName()
        << " runs again with main's body: a kernel template is declared after main\n";
  if (!module)
    llvm::consumeError(module.takeError());
  else
    module->reset();
  return compile(diagOut, nullptr);
}

std::optional<ArchDependence> oxide::deviceHeadersArchDependence(const TranslationUnit &tu,
                                                                 const Toolchain &tc, const GpuArch &arch) {
  if (!usePrecompiledHeaders(tu))
    return std::nullopt;
  registerOxideAttributes();
  const std::vector<std::string> args = deviceCompileArgs(tu, tc, arch);
  const std::vector<const char *> argv = argvOf(args);
  auto vfs = deviceFileSystem(tu.input);
  // The clang driver runs only when the record is not cached yet.
  auto invocation = [&] {
    std::string ignored;
    llvm::raw_string_ostream ignoredOs(ignored);
    return invocationOf(argv, vfs, ignoredOs);
  };
  return prefixArchDependence(invocation, argv, devicePrefix(tu, tc), vfs);
}

namespace {

/// The target CPU and the -target-feature flags of the device compile for `arch`.
llvm::Expected<std::pair<std::string, std::vector<std::string>>>
deviceTarget(const TranslationUnit &tu, const Toolchain &tc, const GpuArch &arch) {
  const std::vector<std::string> args = deviceCompileArgs(tu, tc, arch);
  std::string errors;
  llvm::raw_string_ostream errorsOs(errors);
  auto invocation = invocationOf(argvOf(args), deviceFileSystem(tu.input), errorsOs);
  if (!invocation)
    return llvm::createStringError("the device compile for " + arch.smName() +
                                   " cannot be set up: " + errors);
  const clang::TargetOptions &target = invocation->getTargetOpts();
  return std::pair{target.CPU, target.FeaturesAsWritten};
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::Module>>
oxide::retargetDeviceModule(llvm::StringRef bitcode, const TranslationUnit &tu, const Toolchain &tc,
                            const GpuArch &from, const GpuArch &to, llvm::LLVMContext &ctx) {
  auto source = deviceTarget(tu, tc, from);
  if (!source)
    return source.takeError();
  auto target = deviceTarget(tu, tc, to);
  if (!target)
    return target.takeError();
  if (source->second != target->second)
    return llvm::createStringError("the device compiles for " + from.smName() + " and " + to.smName() +
                                   " differ in their target features");
  auto module = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, deviceWrapperPath(tu.input)), ctx);
  if (!module)
    return module.takeError();
  const std::string fromFeature = "+" + source->first, toFeature = "+" + target->first;
  for (llvm::Function &fn : **module) {
    if (fn.hasFnAttribute("target-cpu")) {
      if (fn.getFnAttribute("target-cpu").getValueAsString() != source->first)
        return llvm::createStringError("function '" + fn.getName().str() + "' is not compiled for " +
                                       source->first);
      fn.addFnAttr("target-cpu", target->first);
    }
    if (fn.hasFnAttribute("target-features")) {
      llvm::SmallVector<llvm::StringRef> features;
      llvm::SplitString(fn.getFnAttribute("target-features").getValueAsString(), features, ",");
      std::string rewritten;
      for (llvm::StringRef feature : features)
        rewritten += (rewritten.empty() ? "" : ",") + (feature == fromFeature ? toFeature : feature.str());
      fn.addFnAttr("target-features", rewritten);
    }
  }
  return std::move(*module);
}
