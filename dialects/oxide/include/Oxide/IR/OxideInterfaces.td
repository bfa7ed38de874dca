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

#endif // OXIDE_INTERFACES
