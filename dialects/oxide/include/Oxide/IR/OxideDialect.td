//===- OxideDialect.td - the oxide dialect -----------------*- tablegen -*-===//
//
// Kernel-level semantics of Oxide programs. Ordinary C++ stays in the LLVM dialect; this
// dialect holds what the safety checks and the contract-driven optimisations reason about.
//
//===----------------------------------------------------------------------===//

#ifndef OXIDE_DIALECT
#define OXIDE_DIALECT

include "mlir/IR/OpBase.td"

def Oxide_Dialect : Dialect {
  let name = "oxide";
  let summary = "Kernel semantics of single-source Oxide C++ programs";
  let description = [{
    The `oxide` dialect captures what a kernel does at the SIMT level: which thread-index
    witnesses it obtains, where bounds checks fail, and which functions are kernel entry points
    (`oxide.kernel = #oxide.kernel<...>` on an `llvm.func`, with the kernel's parameters and
    launch contract). `oxide-raise` creates it from the
    `__oxide_*` intrinsic calls that the C++ headers emit; `oxide-to-nvvm` lowers it to NVVM.
  }];
  let cppNamespace = "::oxide";
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let extraClassDeclaration = [{
    /// Name of the attribute (a KernelAttr) that marks an llvm.func as a kernel entry point.
    static constexpr ::llvm::StringLiteral getKernelAttrName() { return "oxide.kernel"; }
    /// Name of the module attribute that carries -fmacro-prefix-map's pairs to the lowering
    /// (an array of "OLD=NEW" strings, in the order given; Oxide/IR/SourcePaths.h): the files
    /// a kernel's reports name (a failed assert, a bounds failure) are written with them.
    static constexpr ::llvm::StringLiteral getMacroPrefixMapAttrName() { return "oxide.macro_prefix_map"; }

  private:
    /// Adds the attributes of OxideAttrs.td (in KernelAttr.cpp, beside their storage).
    void registerAttributes();

  public:
  }];
}

// Every oxide operation describes what a kernel's code does: it lives inside a function, never
// at module level, where no pass expects it (the lowering of bounds_fail crashed there).
def Oxide_InFunction : NativeOpTrait<"InFunction"> {
  let cppNamespace = "::oxide::OpTrait";
}

class Oxide_Op<string mnemonic, list<Trait> traits = []> :
    Op<Oxide_Dialect, mnemonic, !listconcat(traits, [Oxide_InFunction])>;

#endif // OXIDE_DIALECT
