"""Writes deep but valid MLIR for deep-ir.test: `chain` (grid-stride steps) or `geps` (address steps)."""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "chain":
    lines = ["llvm.func @k(%p: !llvm.ptr, %n: i64) attributes {oxide.kernel = #oxide.kernel} {",
             "  %i0 = oxide.thread_index rank 1 dim x : i64"]
    lines += [f"  %i{k + 1} = oxide.grid_stride_next %i{k} rank 1 dim x : i64" for k in range(n)]
    lines += [f"  %e = oxide.disjoint_get %p [%n] at [%i{n}] elem 4 : !llvm.ptr", "  llvm.return", "}"]
else:
    lines = ['llvm.func @k(%out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan", (ptr, i64)>})'
             ' attributes {oxide.kernel = #oxide.kernel<params = [out: output], contract = "domain = 1, dynamic_shared = 0..0">} {',
             "  %eight = llvm.mlir.constant(8 : i64) : i64",
             "  %one = llvm.mlir.constant(1 : i64) : i64",
             "  %v = llvm.mlir.constant(1.0 : f32) : f32",
             "  %i = oxide.thread_index rank 1 dim x : i64",
             "  %data = llvm.load %out : !llvm.ptr -> !llvm.ptr",
             "  %sizep = llvm.getelementptr %out[%eight] : (!llvm.ptr, i64) -> !llvm.ptr, i8",
             "  %size = llvm.load %sizep : !llvm.ptr -> i64",
             "  %p0 = oxide.disjoint_get %data [%size] at [%i] elem 4 : !llvm.ptr"]
    lines += [f"  %p{k + 1} = llvm.getelementptr %p{k}[%one] : (!llvm.ptr, i64) -> !llvm.ptr, f32" for k in range(n)]
    lines += [f"  llvm.store %v, %p{n} : f32, !llvm.ptr", "  llvm.return", "}"]
print("\n".join(lines))
