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
/// AtomicSpan<T, S> (oxide/device/atomic.hpp).
bool isAtomicSpan(clang::QualType type);
/// AppendSpan<T> (oxide/device/append.hpp).
bool isAppendSpan(clang::QualType type);
/// PermutationSpan (oxide/device/permutation.hpp).
bool isPermutationSpan(clang::QualType type);
/// ClaimSet (oxide/device/claims.hpp).
bool isClaimSet(clang::QualType type);
/// TensorMap<const T, Box, Swizzle> (oxide/device/tma.hpp).
bool isTensorMap(clang::QualType type);
/// The span types that hold a pointer by design and are bound only by the runtime: Span<T>,
/// DisjointSpan/2D/3D<T>, AtomicSpan<T, S>, AppendSpan<T>, PermutationSpan and TensorMap.
bool isPointerHoldingSpan(clang::QualType type);
/// std::span<T, N>, of any element type and extent.
bool isStdSpan(clang::QualType type);
/// The element type (first template argument) of a specialisation such as Span<const T> or
/// std::span<T>; null when `type` is not a class template specialisation with a type argument.
clang::QualType firstTemplateTypeArgument(clang::QualType type);
/// Whether `decl` is one of Oxide's internal namespaces (oxide::detail, or a `detail` nested in
/// another of Oxide's namespaces, e.g. oxide::thread::detail) or is declared, at any depth,
/// inside one.
bool isInOxideDetail(const clang::Decl *decl);

} // namespace oxide

#endif
