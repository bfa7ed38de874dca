//===- NvptxBackend.h - device LLVM IR to PTX and cubin ---------*- C++ -*-===//
#ifndef OXIDE_COMPILER_NVPTXBACKEND_H
#define OXIDE_COMPILER_NVPTXBACKEND_H

#include "Oxide/IR/SourcePaths.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace oxide {

struct Toolchain;

/// Links the libdevice functions the module uses (internalised), with nvcc's precision
/// defaults (no flush-to-zero, IEEE sqrt) or, with `fastMath`, its --use_fast_math choices.
llvm::Error linkLibdevice(llvm::Module &module, const std::string &libdevicePath, bool fastMath = false);

/// Fails with a message naming every function that device code calls but nothing defines
/// (host-only functions, missing libraries): ptxas would otherwise reject the PTX cryptically.
llvm::Error checkUndefinedExternals(const llvm::Module &module);

/// Optimises the linked module at -O<optLevel> for `arch` (e.g. "sm_90") and returns its PTX.
/// When `dumpOptimized` is set, the optimised LLVM IR is printed there first. The optimised
/// module is audited for undefined-behaviour facts (UndefinedBehaviour.h); what the audit finds
/// is printed to `diagnostics` (stderr when null) and fails the build. Without `lineInfo`
/// (--lineinfo, -G) the PTX has no source lines (.file, .loc), as nvcc's; with them, their paths
/// are rewritten by `debugPrefixMap` (-fdebug-prefix-map) once the audits have printed theirs.
llvm::Expected<std::string> generatePtx(llvm::Module &module, llvm::StringRef arch, unsigned optLevel,
                                        llvm::raw_ostream *dumpOptimized = nullptr,
                                        llvm::raw_ostream *diagnostics = nullptr, bool lineInfo = true,
                                        llvm::ArrayRef<PathPrefix> debugPrefixMap = {});

/// Assembles PTX into a cubin with ptxas, adding `extraFlags` (e.g. -lineinfo); with `log` set
/// (-v) the command is printed there first. What ptxas prints when it succeeds (its warnings,
/// e.g. that it serialises wgmma instructions) goes to `warnings` when given. Safe to call from
/// several threads at once.
llvm::Expected<std::string> assembleCubin(const std::string &ptxas, const std::string &ptx,
                                          llvm::StringRef arch, unsigned optLevel,
                                          llvm::ArrayRef<llvm::StringRef> extraFlags = {},
                                          llvm::raw_ostream *log = nullptr, std::string *warnings = nullptr);

} // namespace oxide

#endif
