//===- Passes.td - oxide dialect transformations -----------*- tablegen -*-===//

#ifndef OXIDE_TRANSFORMS_PASSES
#define OXIDE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def OxideRaise : Pass<"oxide-raise", "::mlir::ModuleOp"> {
  let summary = "Raise __oxide_* intrinsic calls and kernel entry points into the oxide dialect";
  let description = [{
    Replaces each `llvm.call @__oxide_*` emitted by the C++ headers with the matching oxide
    op, marks every `ptx_kernel` function with `oxide.kernel = #oxide.kernel<...>` (its
    parameters, parsed contract and launch bounds, read out of the frontend's
    `oxide.contract`, `oxide.params` and `oxide.launch_bounds` strings in `passthrough`), and
    erases the now-unused intrinsic declarations. Errors, at the kernel: a malformed string.
    At the call: an unknown `__oxide_*` function; operand or
    result types other than the intrinsic's; a kind, dimension, rank, element size, tile
    extent or shared-memory size that is not a constant in range; a shared-memory site that is
    not the address of a global.
  }];
  let dependentDialects = ["::oxide::OxideDialect"];
}

def OxideVerifySafety : Pass<"oxide-verify-safety", "::mlir::ModuleOp"> {
  let summary = "Prove witness provenance, launch contracts and where every write of a contracted kernel lands";
  let description = [{
    The safety model's checks on the IR (docs/safety.md, "Why the safe tier is sound"). Errors
    point at the user's line; those of the rules end with `[safety rule: NAME]`.

    * In every kernel: each `oxide.disjoint_get` coordinate is, on every path, the calling
      thread's own `oxide.thread_index` of the same rank and dimension, or an
      `oxide.grid_stride_next` step of it (followed through phis and every call site), so no
      two threads obtain the same element; a computed, loaded or forged index is an error
      (witness). In every function a kernel reaches, `oxide.grid_sync` needs
      `cooperative = true` and `oxide.cluster_sync` and `oxide.map_shared` need
      `cluster = (...)` in the kernel's contract.
    * In a kernel with a launch contract (its `#oxide.kernel`'s): every thread index reachable
      from it has the contract's rank (`domain`).
    * Then, if all of that holds, for the contracted kernels and every function they reach
      (the analysis `oxide::WriteProof`, lib/Transforms/WriteProof/), a points-to analysis
      gives each pointer the places it may point into, as a fixpoint through phis, selects,
      calls, returns and indirect calls (to any address-taken function); a pointer loaded from memory (other than a span parameter's data pointer)
      or made from an integer has none. Each write (store, atomic, memcpy/memmove/memset
      destination, libdevice output, any op with a write effect) must land in a local
      variable or by-value parameter copy (not a span parameter's: its fields are trusted),
      shared memory,
      the thread's own `oxide.disjoint_get` element at a constant offset inside it
      (own-element, element-bounds), an AtomicSpan element (`oxide.span_elem`) by atomics
      only (atomic-only), or a constant-size heap block at constant offsets (store-target);
      never an input (input-write). Pointers to own elements are not stored, converted to
      integers or passed to unchecked calls (pointer-escape); inline assembly, intrinsics
      that may write through pointers and calls to functions without a body are errors
      (opaque-code); each `oxide.disjoint_get` takes its data and extents from the fields of
      one DisjointSpan parameter of its rank (span-origin), and one output has one tile shape
      (own-element). Oxide ops take part through `OxideMemoryAccessOpInterface` (what each reads and writes,
      through which operand, under which rule); an oxide op that may write and does not
      implement it is an error (unchecked-op).
    * When all of that holds, it does what `oxide-record-element-sizes` and
      `oxide-confine-private-writes` do (passes of their own, which read the proof this pass
      computed; called as functions, so that the module is verified once): the only changes it
      makes to the module.
  }];
  let dependentDialects = ["::oxide::OxideDialect"];
}

def OxideRecordElementSizes : Pass<"oxide-record-element-sizes", "::mlir::ModuleOp"> {
  let summary = "Record for the kernel table the element size each contracted kernel gives its spans";
  let description = [{
    Adds `element_sizes = [S0, S1, ...]` to the `#oxide.kernel` of each contracted kernel
    (`oxide-to-nvvm` writes them out as `oxide.elem_sizes`): per parameter, the element size in bytes its code names that span parameter's elements
    with (0: none), which the device image carries (compiler/host/KernelTable.cpp) and the
    runtime compares with the span's `sizeof(T)` before each launch. The sizes come from the
    write proof (`oxide::WriteProof`, Oxide/Transforms/WriteProof.h), which
    `oxide-verify-safety` computes; run alone, this pass computes it and fails, with its
    errors, where a write breaks a rule. `oxide-verify-safety` does the same when the proof holds.
  }];
}

def OxideConfinePrivateWrites : Pass<"oxide-confine-private-writes", "::mlir::ModuleOp"> {
  let summary = "Confine the unbounded writes to local or shared memory of contracted kernels";
  let description = [{
    The write proof (`oxide::WriteProof`) accepts a write to a local variable or to shared
    memory at an offset it cannot bound when the pointer can only point into memory of that one
    kind. Such a write is made through a pointer of that address space (an
    `llvm.addrspacecast` to `!llvm.ptr<5>` or `!llvm.ptr<3>`; an intrinsic kept by name gets
    the matching name, `llvm.memset.p5.i64`), so no offset takes it into global memory.
    `oxide-verify-safety` does the same when the proof holds; run alone, it computes the proof and
    fails, with its errors, where a write breaks a rule.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def OxideTestPrintPointerRoots : Pass<"oxide-test-print-pointer-roots", "::mlir::ModuleOp"> {
  let summary = "Test pass: print the write proof's pointer roots and offsets as remarks";
  let description = [{
    For testing the write proof's analyses alone (tests/lit/dialect/pointer-roots.mlir): a
    remark at each op of the code the proof covers (the contracted kernels and what they reach)
    whose result holds a pointer, `roots:` then each place it may point into (private, shared,
    heap, element, param, global, constant, null or unknown), where it comes from, and its
    constant byte offset from there when the analysis knows one (`+8`). Changes nothing.
  }];
}

def OxideOptimize : Pass<"oxide-optimize", "::mlir::ModuleOp"> {
  let summary = "Turn launch-contract facts into code-generation facts";
  let description = [{
    For every kernel, its launch bounds (`#oxide.kernel`'s `launch_bounds`) become `nvvm.maxntid` and
    `nvvm.minctasm`. For kernels with a launch contract, in addition:
    * an exact block becomes `nvvm.reqntid` (and replaces `nvvm.maxntid`, which PTX forbids
      beside it); oxide-to-nvvm then makes blockDim a constant and gives threadIdx its range;
    * every `requires` relation becomes an `llvm.intr.assume` at entry (the runtime checks
      them before each launch), over the spans' sizes and the scalar parameters;
    * each span parameter's data pointer is assumed non-null (the runtime never binds null);
    * loads through the data pointer of a read-only span parameter are marked invariant
      (outputs cannot alias inputs, which the launch checks), so NVPTX emits `ld.global.nc`,
      and a 4-, 8- or 16-byte memcpy out of one (a small struct copy) becomes one invariant
      scalar or vector load and a store.
    A malformed contract or launch-bounds string is an error.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect"];
}

def OxideGuardElementAccesses : Pass<"oxide-guard-element-accesses", "::mlir::ModuleOp"> {
  let summary = "Stop the kernel at an access through an element pointer that no null test guards";
  let description = [{
    `disjoint_get`, `owned_elem`, `reserved_elem`, `permuted_elem` and `span_elem` give null to a
    thread that owns no element (and `malloc` when the heap is exhausted), and the safety proof
    lets an access through that null fault.
    LLVM instead calls such an access undefined and deletes the test that made the pointer null,
    so a forgotten null test became an out-of-bounds write on the GPU. Before each access (a
    load, store, atomic, memory intrinsic, or a call whose parameter promises a non-null
    pointer) through an element pointer, or through an address computed from one, that is not
    dominated by the edge of a branch on the pointer being non-null, this pass inserts that
    branch, to `oxide.trap` with a message at the access. Accesses behind the user's own test
    get nothing; returning the pointer, comparing it and passing it to a function that may test
    it are no accesses.
  }];
  let dependentDialects = ["::oxide::OxideDialect", "::mlir::LLVM::LLVMDialect"];
}

#endif // OXIDE_TRANSFORMS_PASSES
