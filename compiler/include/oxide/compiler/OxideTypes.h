//===- OxideTypes.h - recognising Oxide's types in the clang AST -*- C++ -*-===//
#ifndef OXIDE_COMPILER_OXIDETYPES_H
#define OXIDE_COMPILER_OXIDETYPES_H

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/StringRef.h"

namespace oxide {

/// The name of an oxide:: class template that `type` specialises ("Span", "DisjointSpan",
/// "ThreadIndex1D"...), or "" when it is not one. Sugar and cv-qualifiers are looked through.
llvm::StringRef oxideClassName(clang::QualType type);
llvm::StringRef oxideClassName(const clang::CXXRecordDecl *record);

/// Span<T> or DisjointSpan<T> (of any rank): a parameter with a `.size()`.
bool isOxideSpan(clang::QualType type);
/// An output: DisjointSpan<T> of any rank.
bool isDisjointSpan(clang::QualType type);
/// A mutable Span<T> (T not const): shared writable memory, unsafe in contracted kernels.
bool isMutableSpan(clang::QualType type);
/// A thread-index witness (ThreadIndex1D/2D/3D).
bool isWitness(clang::QualType type);

} // namespace oxide

#endif
