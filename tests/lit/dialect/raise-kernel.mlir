// RUN: oxide-opt %s -oxide-raise -split-input-file -verify-diagnostics | FileCheck %s

// oxide-raise reads the frontend's strings out of a kernel's passthrough into its #oxide.kernel,
// parsing the contract once; the other passthrough entries stay. A parameter the frontend wrote
// as 'x' (a template's, before instantiation) takes the kind its byval span class names.

// CHECK-LABEL: llvm.func ptx_kernelcc @scale
// CHECK-SAME: oxide.kernel = #oxide.kernel<params = [in: input, out: output, k: other, n: unsigned_integer], contract = "domain = 1, requires = ($0.size() == $1.size())", launch_bounds = [256, 0]>
// CHECK-SAME: passthrough = ["nounwind"]
// CHECK-NOT: oxide.contract
llvm.func ptx_kernelcc @scale(%in: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::Span.1", (ptr, i64)>},
                              %out: !llvm.ptr {llvm.byval = !llvm.struct<"class.oxide::DisjointSpan.3", (ptr, i64)>},
                              %k: f32, %n: i32)
    attributes {passthrough = ["nounwind", ["oxide.params", "in=x,out=x,k=x,n=u"],
                               ["oxide.contract", "domain = 1, requires = ($0.size() == $1.size())"],
                               ["oxide.launch_bounds", "256,0"]]} {
  llvm.return
}

// -----

// A kernel without strings is a kernel without a contract, and its passthrough goes when empty.
// CHECK-LABEL: llvm.func ptx_kernelcc @bare
// CHECK-SAME: attributes {oxide.kernel = #oxide.kernel}
llvm.func ptx_kernelcc @bare() {
  llvm.return
}

// -----

// expected-error @+1 {{malformed contract on kernel 'bad_domain': domain must be 1, 2 or 3}}
llvm.func ptx_kernelcc @bad_domain() attributes {passthrough = [["oxide.contract", "domain = 4"]]} {
  llvm.return
}

// -----

// expected-error @+1 {{malformed 'oxide.params': expected name=kind,... with kinds i, m, o, 2, 3, u, x}}
llvm.func ptx_kernelcc @bad_params(%a: i32) attributes {passthrough = [["oxide.params", "a"], ["oxide.contract", "domain = 1"]]} {
  llvm.return
}

// -----

// expected-error @+1 {{kernel 'no_params' has a contract but no valid 'oxide.params' attribute}}
llvm.func ptx_kernelcc @no_params(%a: i32) attributes {passthrough = [["oxide.contract", "domain = 1"]]} {
  llvm.return
}

// -----

// expected-error @+1 {{malformed launch bounds '256'}}
llvm.func ptx_kernelcc @bad_bounds() attributes {passthrough = [["oxide.launch_bounds", "256"]]} {
  llvm.return
}
