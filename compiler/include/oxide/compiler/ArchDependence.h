//===- ArchDependence.h - where a device compile sees its architecture -*- C++ -*-===//
//
// The device compiles of one file for several architectures differ only where the preprocessor
// sees the architecture: __CUDA_ARCH__ and its siblings (__CUDA_ARCH_LIST__,
// __CUDA_ARCH_FEAT_SM90_ALL), and __has_builtin, whose answer follows the target's features.
// Wherever the outcomes agree, the tokens, the AST, clang's code and its target-independent
// optimisation agree too, but for the functions' target attributes. This records those places,
// so that one front end can serve several architectures (ArchBuilds.cpp).
//
// A conditional on the architecture whose branches only define macros (CUDA's nv/target:
// `#if (_NV_TARGET___NV_PROVIDES_SM_86)  #define _NV_TARGET_BOOL___NV_PROVIDES_SM_86 1  #else
// ... 0`) differs between two architectures only in those macros: the two compiles still agree
// unless a differing macro is expanded later (in code, or in a condition, whose outcome is then
// recorded).
//
//===----------------------------------------------------------------------===//

#ifndef OXIDE_COMPILER_ARCHDEPENDENCE_H
#define OXIDE_COMPILER_ARCHDEPENDENCE_H

#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace oxide {

/// What one preprocessing saw of the architecture.
struct ArchDependence {
  /// The first place where the architecture itself reached the tokens (__CUDA_ARCH__ in code,
  /// in an #include or a #pragma); empty if none. Such a compile is its architecture's alone.
  std::string codeUse;
  /// The outcomes of the conditionals on the architecture whose branches hold more than macro
  /// definitions, one per line ("FILE:LINE: true"), in order.
  std::vector<std::string> outcomes;
  /// A conditional on the architecture whose branches only define macros.
  struct MacroConditional {
    std::string outcome;            ///< as in `outcomes`
    std::vector<std::string> names; ///< every macro its branches define or undefine
    bool operator==(const MacroConditional &) const = default;
  };
  std::vector<MacroConditional> macroConditionals;
  /// The macros of macroConditionals (and those a caller seeds) expanded in code: name -> the
  /// first place.
  std::map<std::string, std::string> macrosInCode;
  /// The macros of macroConditionals, and those seeded (a compile's record seeded with its
  /// precompiled headers' macros).
  std::set<std::string> archMacros;

  /// Callbacks that record into this, for `pp`'s preprocessing.
  std::unique_ptr<clang::PPCallbacks> watch(const clang::Preprocessor &pp);

  /// The record as text (cached beside the precompiled headers), and back.
  std::string serialize() const;
  static std::optional<ArchDependence> deserialize(llvm::StringRef text);
};

/// Whether preprocessings recorded as `a` and `b` (of the same files, for two architectures)
/// produced the same tokens and, for what follows them, where they differ: `differing`
/// receives the macros defined differently. Empty if they agree, else why not.
std::string compareArchDependence(const ArchDependence &a, const ArchDependence &b,
                                  std::set<std::string> &differing);

/// Why the rest of a compile, recorded as `own` after headers whose architectures differ in
/// `differing` macros, may differ between those architectures; empty if it cannot.
std::string whyArchDependent(const ArchDependence &own, const std::set<std::string> &differing);

} // namespace oxide

#endif // OXIDE_COMPILER_ARCHDEPENDENCE_H
