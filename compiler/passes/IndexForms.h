//===- IndexForms.h - an index as arithmetic over named values --*- C++ -*-===//
//
// Private to the prover (IndexFacts.cpp): the forms beyond the public Linear/linearize/sameValue
// of oxide/compiler/IndexFacts.h that its facts are read in.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_PASSES_INDEXFORMS_H
#define OXIDE_COMPILER_PASSES_INDEXFORMS_H

#include "oxide/compiler/IndexFacts.h"

#include <cstdint>
#include <optional>

namespace oxide::index_facts {

/// The value a zero extension extends (an unsigned value is the same number either way).
llvm::Value *stripZExt(llvm::Value *v);

/// `atom + offset`, or the constant `offset` when atom is null.
struct Affine {
  llvm::Value *atom = nullptr;
  int64_t offset = 0;
};

/// `v` as atom + constant. An offset is split off only for == and != facts (`modular`), which
/// hold modulo 2^n either way; for an ordering, `x + k` stays one atom: it equals x + k only if
/// it does not wrap, and the `nuw` that would say so may come from InstCombine reading a signed
/// `nsw` add of the user's, a fact of undefined behaviour. `x | k` with no bit in common is
/// x + k for either: no carry, so no wrap.
std::optional<Affine> affine(llvm::Value *v, bool modular);

/// Whether two atoms (null for a constant) are one number, as sameValue.
bool sameAtom(llvm::Value *a, llvm::Value *b);

/// Lane `lane` of an integer vector as atom + constant (modulo 2^n: for == and != facts),
/// through the insertelement/shufflevector/add-constant chains SLP vectorisation builds.
std::optional<Affine> laneAffine(llvm::Value *vector, int lane, unsigned depth = 0);

} // namespace oxide::index_facts

#endif
