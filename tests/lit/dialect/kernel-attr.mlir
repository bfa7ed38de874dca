// RUN: oxide-opt %s -split-input-file | FileCheck %s
// RUN: oxide-opt %s -split-input-file | oxide-opt -split-input-file | FileCheck %s

// #oxide.kernel prints what it holds, in one order, and leaves out what a kernel does not have.

// CHECK-LABEL: llvm.func @plain
// CHECK-SAME: attributes {oxide.kernel = #oxide.kernel}
llvm.func @plain() attributes {oxide.kernel = #oxide.kernel} {
  llvm.return
}

// -----

// Entries in any order; kinds by name; a name that is not an identifier as a string.
// CHECK-LABEL: llvm.func @full
// CHECK-SAME: oxide.kernel = #oxide.kernel<params = [in: input, out: output, "n 2": unsigned_integer], contract = "domain = 1, block = (256, 1, 1), requires = ($0.size() == $1.size(), $2 <= $0.size())", launch_bounds = [512, 2], element_sizes = [4, 4, 0]>
llvm.func @full(%in: !llvm.ptr, %out: !llvm.ptr, %n: i64)
    attributes {oxide.kernel = #oxide.kernel<element_sizes = [4, 4, 0], launch_bounds = [512, 2],
                contract = "domain = 1, block = (256, 1, 1), requires = ($0.size() == $1.size(), $2 <= $0.size())",
                params = [in: input, out: output, "n 2": unsigned_integer]>} {
  llvm.return
}

// -----

// Every kind of include/oxide/detail/param_kind.hpp but the pointers has a name.
// CHECK-LABEL: llvm.func @kinds
// CHECK-SAME: params = [a: input, b: mutable_span, c: output, d: output_2d, e: output_3d, f: atomic, g: append, h: permutation, i: claims, j: tensor_map, k: writable_tensor_map, l: unsigned_integer, m: signed_integer, n: other]
llvm.func @kinds() attributes {oxide.kernel = #oxide.kernel<params = [a: input, b: mutable_span, c: output, d: output_2d, e: output_3d, f: atomic, g: append, h: permutation, i: claims, j: tensor_map, k: writable_tensor_map, l: unsigned_integer, m: signed_integer, n: other]>} {
  llvm.return
}
