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

namespace llvm {
class Module;
}

namespace oxide {

/// What one preprocessing saw of the architecture.
struct ArchDependence {
  /// A conditional on the architecture in the precompiled headers, as far as the rest of a
  /// compile can reach what its taken branch holds. Two architectures of different major
  /// versions whose headers differ only in such conditionals share a front end when the
  /// compile reaches none of them (compareAcrossVersions, checkModule, checkIdentifiers).
  struct Site {
    std::string file;
    unsigned line = 0, endLine = 0; ///< the #if and the #endif
    /// Inside a function's body: that function (its name's line, and its name).
    unsigned ownerLine = 0;
    std::string owner;
    /// At file scope: what the taken branch declares (functions, variables, types, macros).
    std::vector<std::string> names;
    /// Why the rules cannot see through it (an #include, an operator, braces that do not
    /// balance, a name the headers use outside the conditionals); empty if they can.
    std::string opaque;
    bool operator==(const Site &) const = default;
  };

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

  /// The conditionals of `outcomes` with what their branches hold, by "FILE:LINE" (recorded
  /// for the precompiled headers only: watch with `sites`).
  std::map<std::string, Site> sites;

  /// What a compile that serves other architectures (a shared front end's) must not reach, and
  /// where it did (checkModule, checkIdentifiers): "FILE:LINE" of a site -> what reached it.
  std::vector<Site> mustNotReach;
  std::map<std::string, std::string> reached;
  /// The first of `sites` that the compile reached, as text; empty if none.
  std::string whyReached(const std::vector<Site> &sites) const;

  /// Callbacks that record into this, for `pp`'s preprocessing; with `sites`, the conditionals'
  /// sites too (a token watcher on `pp`).
  std::unique_ptr<clang::PPCallbacks> watch(clang::Preprocessor &pp, bool sites = false);

  /// Records in `reached` the sites of mustNotReach that `module` (before optimisation) holds
  /// code of: a function whose body holds the site, or a line inside it.
  void checkModule(const llvm::Module &module);
  /// Records in `reached` the sites of mustNotReach whose names (or owners) the compile's own
  /// tokens spelled (`spelled`: the identifiers of its tokens after macro expansion, the
  /// precompiled headers' excepted, which their record covers).
  void checkIdentifiers(const std::set<std::string> &spelled);

  /// The record as text (cached beside the precompiled headers), and back.
  std::string serialize() const;
  static std::optional<ArchDependence> deserialize(llvm::StringRef text);
};

/// Whether preprocessings recorded as `a` and `b` (of the same files, for two architectures)
/// produced the same tokens and, for what follows them, where they differ: `differing`
/// receives the macros defined differently. Empty if they agree, else why not.
std::string compareArchDependence(const ArchDependence &a, const ArchDependence &b,
                                  std::set<std::string> &differing);

/// As compareArchDependence, for architectures of different major versions (`leader` the
/// older): their headers may also differ in conditionals whose sites the rules can see through;
/// those sites are added to `mustNotReach`, which the leader's compile then checks.
std::string compareAcrossVersions(const ArchDependence &leader, const ArchDependence &follower,
                                  std::set<std::string> &differing,
                                  std::vector<ArchDependence::Site> &mustNotReach);

/// Why the rest of a compile, recorded as `own` after headers whose architectures differ in
/// `differing` macros, may differ between those architectures; empty if it cannot.
std::string whyArchDependent(const ArchDependence &own, const std::set<std::string> &differing);

} // namespace oxide

#endif // OXIDE_COMPILER_ARCHDEPENDENCE_H
