//===- OxideAttrs.td - the oxide dialect's attributes ------*- tablegen -*-===//
//
// What the dialect knows about a function as a whole: whether it is a kernel entry point, and
// then its parameters, launch contract and launch bounds, parsed once when oxide-raise reads
// them from the frontend's strings.
//
//===----------------------------------------------------------------------===//

#ifndef OXIDE_ATTRS
#define OXIDE_ATTRS

include "Oxide/IR/OxideDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Oxide_KernelAttr : AttrDef<Oxide_Dialect, "Kernel"> {
  let mnemonic = "kernel";
  let summary = "a kernel entry point: its parameters, launch contract and launch bounds";
  let description = [{
    The value of `oxide.kernel` on an `llvm.func`: the function is a kernel entry point.
    `oxide-raise` makes it from the frontend's `oxide.contract`, `oxide.params` and
    `oxide.launch_bounds` strings, parsing the contract once; the passes read the parsed
    contract from it, `oxide-record-element-sizes` adds the element size the code uses for each
    span parameter, and `oxide-to-nvvm` turns it back into the strings the kernel table reads
    (compiler/host/KernelTable.cpp).

    ```mlir
    llvm.func @k(...) attributes {oxide.kernel = #oxide.kernel}  // no contract
    llvm.func @k(...) attributes {oxide.kernel = #oxide.kernel<
        params = [in: input, out: output, n: unsigned_integer],
        contract = "domain = 1, block = (256, 1, 1), requires = ($0.size() == $1.size())",
        launch_bounds = [512, 2], element_sizes = [4, 4, 0]>}
    ```

    The parameter kinds are those of include/oxide/detail/param_kind.hpp; the contract is the
    canonical text of include/oxide/detail/contract.hpp (parameters as `$index`).
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::StringAttr", "parameter names">:$paramNames,
    ArrayRefParameter<"::oxide::detail::ParamKind", "parameter kinds">:$paramKinds,
    AttrParameter<"::oxide::ParsedContract", "the launch contract, if any">:$contract,
    AttrParameter<"unsigned", "__launch_bounds__' max threads per block (0: none)">:$maxThreads,
    AttrParameter<"unsigned", "__launch_bounds__' min blocks per SM (0: none)">:$minBlocks,
    ArrayRefParameter<"uint32_t", "element size used per span parameter">:$elementSizes);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The kernel's launch contract; nullptr when it has none.
    const ::oxide::detail::Contract *getParsedContract() const { return getContract().parsed.get(); }
    /// The same kernel with `sizes` as its element sizes.
    KernelAttr withElementSizes(::llvm::ArrayRef<uint32_t> sizes) const;
  }];
}

#endif // OXIDE_ATTRS
