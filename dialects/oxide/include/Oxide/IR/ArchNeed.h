//===- ArchNeed.h - what an oxide op needs of the GPU -----------*- C++ -*-===//
//
// The fact an op states through OxideTargetRequirementOpInterface (OxideInterfaces.td), with the
// traits Oxide_RequiresSM<N, feature> and Oxide_NeedsCluster or in C++.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_IR_ARCHNEED_H
#define OXIDE_IR_ARCHNEED_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/StringRef.h"

namespace oxide {

struct ArchNeed {
  unsigned minArch = 0; ///< the lowest architecture that has it (90 = sm_90); 0: every target
  /// What the op uses, to follow "kernel 'k' ": e.g. "uses distributed shared memory
  /// (oxide::cluster::map_shared)".
  llvm::StringRef feature;
  /// Whether it is a feature of minArch's architecture-specific target ("sm_90a") only.
  bool archSpecific = false;
};

} // namespace oxide

namespace oxide::OpTrait {

/// The op needs an architecture (Oxide_RequiresSM in ODS): the trait gives the op its
/// getArchNeed(), which OxideTargetRequirementOpInterface returns.
template <typename ConcreteType>
class RequiresSM : public mlir::OpTrait::TraitBase<ConcreteType, RequiresSM> {};

/// The op reaches other blocks of its cluster: its kernel must be launched in clusters.
template <typename ConcreteType>
class NeedsCluster : public mlir::OpTrait::TraitBase<ConcreteType, NeedsCluster> {};

} // namespace oxide::OpTrait

#endif // OXIDE_IR_ARCHNEED_H
