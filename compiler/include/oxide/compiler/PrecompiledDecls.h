//===- PrecompiledDecls.h - what whole-file AST walks leave out -*- C++ -*-===//
//
// The visitors that walk a whole translation unit (the safety checks, the kernel collectors)
// look for the user's kernels, launches and misuses. A compile that starts from the precompiled
// Oxide headers (PrecompiledHeader.h) reads their declarations lazily, as the user's code needs
// them; a walk that enters them deserializes all of libstdc++'s, CUDA's and Oxide's headers,
// about a tenth of a compile. They declare no kernel and launch nothing of the user's, so the
// walks leave them out: templates the user declares, and their instantiations, are the file's.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_PRECOMPILEDDECLS_H
#define OXIDE_COMPILER_PRECOMPILEDDECLS_H

#include "clang/AST/DeclBase.h"

namespace oxide {

/// Whether a whole-file walk leaves `decl` out: it comes from the precompiled headers.
inline bool isPrecompiled(const clang::Decl *decl) { return decl && decl->isFromASTFile(); }

} // namespace oxide

#endif
