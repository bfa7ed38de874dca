//===- Frontend.h - in-process clang compiles of a single-source file -*- C++ -*-===//
#ifndef OXIDE_COMPILER_FRONTEND_H
#define OXIDE_COMPILER_FRONTEND_H

#include "oxide/compiler/ArchDependence.h"
#include "oxide/compiler/CompileOptions.h"
#include "oxide/compiler/Toolchain.h"
#include "oxide/compiler/UnsafeSurface.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace oxide {

/// Whether the text of `file` mentions kernels (the word "kernel" anywhere): a cheap sign,
/// before any parsing, that its compiles will need the device side and Oxide's headers. It
/// decides which files overlap their host and device compiles and use precompiled headers.
bool mentionsKernels(llvm::StringRef file);

/// The clang driver command line of the host compile of `tu` (the driver first, the input
/// last): what compileHost runs, and what the dependency scan and the object cache's key take,
/// so that none of them can drift from the others.
std::vector<std::string> hostCompileArgs(const TranslationUnit &tu, const Toolchain &tc);

/// The clang driver command line of the device compile of `tu` for `arch`. Its input is the
/// wrapper deviceWrapperPath(tu.input), which exists only in deviceFileSystem().
std::vector<std::string> deviceCompileArgs(const TranslationUnit &tu, const Toolchain &tc,
                                           const GpuArch &arch);

/// The device compile's main file: an in-memory wrapper that includes `input` with every
/// function implicitly host and device (see docs/architecture.md, section 3).
std::string deviceWrapperPath(llvm::StringRef input);
/// What deviceWrapperPath appends to the input's path; never shown to users.
inline constexpr llvm::StringLiteral kDeviceWrapperSuffix = ".oxide-device.cu";

/// The real file system with the device wrapper of `input` added.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> deviceFileSystem(llvm::StringRef input);

/// Compiles the file as ordinary C++ for the host. Kernels stay host functions (the CPU
/// simulator calls them) and carry an "oxide.kernel" annotation. Clang's diagnostics go to
/// stderr; failure is a ReportedError. With `unsafeSurface`, `oxcc check`'s compile
/// (EmitStage::Check) lists there the file's uses of the unsafe tier.
llvm::Expected<std::unique_ptr<llvm::Module>> compileHost(const TranslationUnit &tu, const Toolchain &tc,
                                                          llvm::LLVMContext &ctx,
                                                          UnsafeSurface *unsafeSurface = nullptr);

/// Compiles the file in CUDA device mode for NVPTX (`arch`): kernels become __global__
/// entry points and every user function is implicitly host+device, so only kernels and what they
/// reach are emitted. Returns clang's optimised device IR. Clang's diagnostics go to `diagOut`,
/// the command line under -v to `log` (several device compiles may run at once, each with its
/// own streams); failure is a ReportedError. With `archSeen`, records where the compile's own
/// preprocessing sees the architecture: after the precompiled headers (see
/// deviceHeadersArchDependence), or all of it when there are none.
llvm::Expected<std::unique_ptr<llvm::Module>>
compileDevice(const TranslationUnit &tu, const Toolchain &tc, const GpuArch &arch, llvm::LLVMContext &ctx,
              llvm::raw_ostream &diagOut, llvm::raw_ostream &log, ArchDependence *archSeen = nullptr);

/// Where the precompiled headers of the device compile of `tu` for `arch` see the architecture
/// (cached with them); nullopt when the compile does not start from precompiled headers. Two
/// architectures whose records are equal and free of code uses, compiling a file whose own
/// preprocessing sees no architecture (compileDevice's `archSeen`), get the same module but for
/// the target attributes: one front end serves both (retargetDeviceModule).
std::optional<ArchDependence> deviceHeadersArchDependence(const TranslationUnit &tu, const Toolchain &tc,
                                                          const GpuArch &arch);

/// The device module `bitcode`, compiled by compileDevice for `from`, as the compile for `to`
/// would have made it, in `ctx`: the functions' target CPU and features are `to`'s. An error if
/// the two compiles' targets differ in anything else.
llvm::Expected<std::unique_ptr<llvm::Module>> retargetDeviceModule(llvm::StringRef bitcode,
                                                                   const TranslationUnit &tu,
                                                                   const Toolchain &tc, const GpuArch &from,
                                                                   const GpuArch &to, llvm::LLVMContext &ctx);

} // namespace oxide

#endif
