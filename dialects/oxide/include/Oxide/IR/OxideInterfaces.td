//===- OxideInterfaces.td - facts oxide ops state -----------*- tablegen -*-===//

#ifndef OXIDE_INTERFACES
#define OXIDE_INTERFACES

include "mlir/IR/OpBase.td"

def Oxide_MemoryAccessOpInterface : OpInterface<"MemoryAccessOpInterface"> {
  let cppNamespace = "::oxide";
  let description = [{
    What an oxide op reads and writes, through which operand, and under which rule the write
    proof of `oxide-verify-safety` judges each access (`::oxide::MemoryAccess`,
    Oxide/IR/MemoryAccess.h). Every oxide op that may write memory (one that is not `Pure` and
    declares no read-only memory effects) implements it: an op that only synchronises or works in
    registers states no access (the default). The proof refuses an op that may write and does not
    implement it (rule `unchecked-op`), so a new op cannot be accepted unchecked.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Appends the memory accesses of this op, in the order the proof checks them",
      /*retTy=*/"void",
      /*methodName=*/"getMemoryAccesses",
      /*args=*/(ins "::llvm::SmallVectorImpl<::oxide::MemoryAccess> &":$accesses),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return;">
  ];
}

// An op that touches no memory a thread could not (synchronisation, register-only warp and
// tensor-core operations, the compiler's own failure paths) lists the interface itself among
// its traits; one that accesses memory lists Oxide_DeclaresMemoryAccess and states its
// accesses in C++ (its getMemoryAccesses).
defvar Oxide_DeclaresMemoryAccess =
    DeclareOpInterfaceMethods<Oxide_MemoryAccessOpInterface, ["getMemoryAccesses"]>;

def Oxide_TargetRequirementOpInterface : OpInterface<"TargetRequirementOpInterface"> {
  let cppNamespace = "::oxide";
  let description = [{
    What an oxide op needs of the GPU: the lowest architecture that has it and what it uses, in
    words (`::oxide::ArchNeed`, Oxide/IR/ArchNeed.h; collectArchRequirements makes it its
    kernel's requirement and the driver's error), and whether its kernel must be launched in
    thread-block clusters (oxide-verify-safety's check). Ops state it with the traits
    `Oxide_RequiresSM<N, feature>` and `Oxide_NeedsCluster`, or, where it depends on an
    attribute or an operand, in C++ (their getArchNeed / needsClusterLaunch).
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"The lowest architecture that has this op (minArch 0: every target) and what it uses",
      /*retTy=*/"::oxide::ArchNeed",
      /*methodName=*/"getArchNeed",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return {};">,
    InterfaceMethod<
      /*desc=*/"Whether this op needs its kernel launched in thread-block clusters",
      /*retTy=*/"bool",
      /*methodName=*/"needsClusterLaunch",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return $_op->template hasTrait<::oxide::OpTrait::NeedsCluster>();">
  ];
}

// The op needs sm_<sm> (sm_<sm>a when archSpecific), for the reason `feature` gives after
// "kernel 'k' ": e.g. "uses distributed shared memory (oxide::cluster::map_shared)".
class Oxide_RequiresSMTrait<int sm, string feature, bit archSpecific>
    : NativeOpTrait<"RequiresSM", [], "::oxide::ArchNeed getArchNeed() { return {" # sm # ", \"" #
                                      feature # "\", " # !if(archSpecific, "true", "false") # "}; }"> {
  let cppNamespace = "::oxide::OpTrait";
}
class Oxide_RequiresSM<int sm, string feature, bit archSpecific = 0>
    : TraitList<[Oxide_TargetRequirementOpInterface, Oxide_RequiresSMTrait<sm, feature, archSpecific>]>;

// The op reaches other blocks of its cluster: its kernel must be launched in clusters (a
// launch contract's `cluster = (x, y, z)`). Listed beside Oxide_RequiresSM<90, ...>.
def Oxide_NeedsCluster : NativeOpTrait<"NeedsCluster"> {
  let cppNamespace = "::oxide::OpTrait";
}

// An op whose needs depend on its attributes or operands states them in C++.
defvar Oxide_DeclaresTargetRequirement =
    DeclareOpInterfaceMethods<Oxide_TargetRequirementOpInterface, ["getArchNeed", "needsClusterLaunch"]>;

#endif // OXIDE_INTERFACES
