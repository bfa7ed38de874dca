// An atomic in both arms of an if/else is one atomic after clang's early passes, on a phi of the
// two marked objects (AtomicRef marks its object with its scope for the raise). The raise gives
// the atomic the wider of the marks' scopes (before, LLVM's default: system). oxide-scoped-atomics
// then prints the scope (.cta, .sys; .gpu is PTX's default).
// RUN: oxcc build %s --arch=sm_90 --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
#include <oxide/oxide.hpp>

// CHECK-LABEL: .entry {{.*}}either_bin_device
// CHECK-NOT: .sys
// CHECK: atom.global.add.u32
// CHECK-NOT: atom.
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void either_bin_device(oxide::Span<const unsigned> in,
                                                                        oxide::AtomicSpan<unsigned> bins) {
  if (const unsigned *x = in.get(oxide::thread::index_1d().get())) {
    if (*x < bins.size())
      bins.fetch_add(*x, 1u);
    else
      bins.fetch_add(0, 1u);
  }
}

// CHECK-LABEL: .entry {{.*}}either_bin_block
// CHECK: atom.relaxed.cta.shared.add.u32
// CHECK-NOT: atom.relaxed.cta.shared
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1, block = 128")]] void
either_bin_block(oxide::Span<const unsigned> in, oxide::DisjointSpan<unsigned> out) {
  auto bins = oxide::shared_array<unsigned, 2>();
  const std::uint32_t t = oxide::thread_idx().x;
  if (t < 2)
    bins[t] = 0;
  oxide::sync_threads();
  const auto me = oxide::thread::index_1d();
  if (const unsigned *x = in.get(me.get())) {
    if (*x % 2 == 0)
      oxide::AtomicRef<unsigned, oxide::Scope::block>(bins[0]).fetch_add(1u);
    else
      oxide::AtomicRef<unsigned, oxide::Scope::block>(bins[1]).fetch_add(1u);
  }
  oxide::sync_threads();
  if (unsigned *o = out.get_mut(me))
    *o = bins[t % 2];
}

// A block-scope and a device-scope span: device scope covers both.
// CHECK-LABEL: .entry {{.*}}either_scope
// CHECK-NOT: .sys
// CHECK: atom.global.add.u32
// CHECK: ret;
[[kernel, oxide::launch_contract("domain = 1")]] void either_scope(oxide::Span<const unsigned> in,
                                                                   oxide::AtomicSpan<unsigned> device,
                                                                   oxide::AtomicSpan<unsigned, oxide::Scope::block> block) {
  if (const unsigned *x = in.get(oxide::thread::index_1d().get())) {
    if (*x % 2 == 0)
      device.fetch_add(0, 1u);
    else
      block.fetch_add(0, 1u);
  }
}

int main() {}
