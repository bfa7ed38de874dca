//===- CacheOps.td - cache-hinted global loads and stores --*- tablegen -*-===//
//
// PTX's ld.global and st.global with a cache operator (and ld.global.nc), which LLVM's NVPTX
// target has no way to ask for: oxide-to-nvvm lowers them to inline PTX. Included from
// OxideOps.td. The value is the bits of the element (1, 2, 4, 8 or 16 bytes, the 8- and
// 16-byte ones as vectors of 32-bit words: ld.v2.b32, ld.v4.b32); the headers bit-cast it.
//
//===----------------------------------------------------------------------===//

#ifndef OXIDE_CACHE_OPS
#define OXIDE_CACHE_OPS

// The bits of one element: what a single ld/st moves.
def Oxide_CachedValue : AnyTypeOf<[I8, I16, I32, I64, VectorOfLengthAndType<[2, 4], [I32]>]>;

def Oxide_CachedLoadOp : Oxide_Op<"cached_load", [Oxide_DeclaresMemoryAccess]> {
  let summary = "load from global memory with a cache operator (ld.global.cs ..., ld.global.nc)";
  let description = [{
    Reads the value at `ptr` (global memory: generic or address space 1, aligned to the value's
    size) as `ld.global.<hint>`: `nc` the read-only (texture) path (`__ldg`), `ca`, `cg`, `cs`,
    `lu` and `cv` PTX's load cache operators. Store operators (`wb`, `wt`) are rejected.

    ```mlir
    %v = oxide.cached_load cs %p : !llvm.ptr -> vector<4xi32>
    ```
  }];
  let arguments = (ins Oxide_CacheHint:$hint, Arg<LLVM_AnyPointer, "global memory to read", [MemRead]>:$ptr);
  let results = (outs Oxide_CachedValue:$value);
  let assemblyFormat = "$hint $ptr attr-dict `:` qualified(type($ptr)) `->` type($value)";
  let hasVerifier = 1;
}

def Oxide_CachedStoreOp : Oxide_Op<"cached_store", [Oxide_DeclaresMemoryAccess]> {
  let summary = "store to global memory with a cache operator (st.global.cs, st.global.wt ...)";
  let description = [{
    Writes `value` at `ptr` (global memory: generic or address space 1, aligned to the value's
    size) as `st.global.<hint>`: `wb`, `cg`, `cs` or `wt`; load operators are rejected. A write
    like any store: `oxide-verify-safety` checks where it lands in a contracted kernel (the
    thread's own output element), and it must be global memory.

    ```mlir
    oxide.cached_store wt %v, %p : i32, !llvm.ptr
    ```
  }];
  let arguments = (ins Oxide_CacheHint:$hint, Oxide_CachedValue:$value,
                       Arg<LLVM_AnyPointer, "global memory to write", [MemWrite]>:$ptr);
  let assemblyFormat = "$hint $value `,` $ptr attr-dict `:` type($value) `,` qualified(type($ptr))";
  let hasVerifier = 1;
}

#endif // OXIDE_CACHE_OPS
