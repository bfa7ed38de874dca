//===- Build.h - the whole single-source build ------------------*- C++ -*-===//
#ifndef OXIDE_COMPILER_BUILD_H
#define OXIDE_COMPILER_BUILD_H

#include "oxide/compiler/CompileOptions.h"
#include "oxide/compiler/Toolchain.h"

namespace oxide {

/// Builds `opts.input` into an executable at `opts.output` that carries its device image, or,
/// with `opts.emit` set, writes that intermediate stage of the device code instead.
llvm::Error build(const CompileOptions &opts, const Toolchain &tc);

} // namespace oxide

#endif
