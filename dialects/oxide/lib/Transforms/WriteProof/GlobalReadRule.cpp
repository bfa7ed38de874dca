//===- GlobalReadRule.cpp - reads of device globals the kernel updates ----===//
//
// A plain read of a device global that other threads of the same launch update atomically is
// a data race (the PTX memory model orders only atomics against atomics): in a kernel that
// updates a global anywhere in the code it runs, every read of that global must be atomic,
// whichever element or field it reads, and a pointer to it must not be kept where Oxide cannot
// follow it. Kernels that only read a global keep plain loads. Atomics on one value must also
// be the same access (offset and size) or disjoint.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "Oxide/IR/UserLocation.h"

#include "llvm/Demangle/Demangle.h"

#include <deque>

using namespace mlir;
using namespace oxide::writeproof;

namespace {

/// The address an atomic update (read-modify-write, compare-exchange, atomic store) writes.
Value atomicUpdateAddress(Operation *op) {
  if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op))
    return rmw.getPtr();
  if (auto cas = dyn_cast<LLVM::AtomicCmpXchgOp>(op))
    return cas.getPtr();
  if (auto store = dyn_cast<LLVM::StoreOp>(op);
      store && store.getOrdering() != LLVM::AtomicOrdering::not_atomic)
    return store.getAddr();
  return {};
}

/// The addresses `op` reads plainly (not by an atomic instruction): loads, the sources of
/// memcpy/memmove (inline, volatile and by-name forms), cache-hinted loads, and any other
/// operation with a read effect on a pointer.
SmallVector<Value> plainReads(Operation *op) {
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return load.getOrdering() == LLVM::AtomicOrdering::not_atomic ? SmallVector<Value>{load.getAddr()}
                                                                  : SmallVector<Value>{};
  if (isa<LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp, LLVM::StoreOp>(op))
    return {};
  if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
    llvm::StringRef name = call.getIntrin();
    if ((name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove")) && call.getArgs().size() >= 2)
      return {call.getArgs()[1]};
    if (name.starts_with("llvm.nvvm.ldg") || name.starts_with("llvm.nvvm.ldu"))
      return {call.getArgs().front()};
    return {};
  }
  SmallVector<Value> reads;
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &effect : list)
      if (isa<MemoryEffects::Read>(effect.getEffect()) && effect.getValue() &&
          isa<LLVM::LLVMPointerType>(effect.getValue().getType()))
        reads.push_back(effect.getValue());
  }
  return reads;
}

/// Where to blame read `op`: its line, else (a load the optimiser merged from several lines
/// has none) the first line that uses the value it read, else its function's.
Location readLocation(Operation *op) {
  auto known = [](Location loc) { return bool(loc->findInstanceOf<FileLineColLoc>()); };
  Location loc = oxide::userLocation(op->getLoc());
  if (known(loc))
    return loc;
  llvm::DenseSet<Operation *> seen;
  std::deque<Operation *> work(op->getUsers().begin(), op->getUsers().end());
  while (!work.empty() && seen.size() < 64) {
    Operation *at = work.front();
    work.pop_front();
    if (!seen.insert(at).second)
      continue;
    if (Location use = oxide::userLocation(at->getLoc()); known(use))
      return use;
    work.insert(work.end(), at->getUsers().begin(), at->getUsers().end());
  }
  auto fn = op->getParentOfType<LLVMFuncOp>();
  return fn ? oxide::userLocation(fn.getLoc()) : loc;
}

/// The note on each global-read error: where the kernel updates the global.
void noteUpdate(InFlightDiagnostic &d, Operation *update, const std::string &kernelName) {
  d.attachNote(oxide::userLocation(update->getLoc()))
      << "kernel '" << kernelName << "' updates it atomically here";
}

} // namespace

SmallVector<llvm::StringRef> GlobalReadRule::globalsOf(Value address) const {
  SmallVector<llvm::StringRef> names;
  for (const Root &root : rootsOf(address))
    if (root.kind == RootKind::Global)
      if (auto global = root.source.getDefiningOp<LLVM::AddressOfOp>())
        names.push_back(global.getGlobalName());
  return names;
}

/// How to read device global `symbol` atomically, for the error: its atomic() for a scalar,
/// atomic(i) for an array, an AtomicRef of the member for a struct.
std::string GlobalReadRule::atomicReadHint(llvm::StringRef symbol) {
  const std::string name = llvm::demangle(symbol.str());
  Type value;
  if (auto global = state.code.symbols.lookup<LLVM::GlobalOp>(symbol))
    if (auto wrapper = dyn_cast<LLVM::LLVMStructType>(global.getGlobalType());
        wrapper && wrapper.getBody().size() == 1)
      value = wrapper.getBody().front();
  if (auto array = dyn_cast_or_null<LLVM::LLVMStructType>(value); // std::array<T, N>
      array && array.getBody().size() == 1 && isa<LLVM::LLVMArrayType>(array.getBody().front()))
    value = array.getBody().front();
  if (value && (isa<IntegerType>(value) || isa<FloatType>(value)))
    return name + ".atomic().load()";
  if (value && isa<LLVM::LLVMArrayType>(value))
    return name + ".atomic(i).load()";
  return "oxide::AtomicRef(" + name + ".unsafe_ref().member).load()";
}

/// The globals whose address global `symbol`'s initial value holds (llvm.mlir.addressof in its
/// initializer region).
llvm::ArrayRef<llvm::StringRef> GlobalReadRule::addressesIn(llvm::StringRef symbol) {
  auto [it, inserted] = initializerAddresses.try_emplace(symbol);
  if (inserted)
    if (auto global = state.code.symbols.lookup<LLVM::GlobalOp>(symbol))
      global.getInitializerRegion().walk(
          [&](LLVM::AddressOfOp address) { it->second.push_back(address.getGlobalName()); });
  return it->second;
}

/// The byte offset inside device global `symbol` that `address` points to, where it is one
/// constant.
std::optional<int64_t> GlobalReadRule::offsetInGlobal(Value address, llvm::StringRef symbol) const {
  std::optional<int64_t> result;
  for (const Root &root : rootsOf(address)) {
    auto global = root.kind == RootKind::Global ? root.source.getDefiningOp<LLVM::AddressOfOp>() : nullptr;
    if (!global || global.getGlobalName() != symbol)
      continue;
    Offset offset = state.offsets.offsetFrom(address, root.source);
    if (offset.state != Offset::Known || (result && *result != offset.bytes))
      return std::nullopt;
    result = offset.bytes;
  }
  return result;
}

/// Atomics on one value are ordered only with atomics of the same bytes: in the PTX memory
/// model two atomics that overlap without covering the same bytes (an 8-byte load of a struct
/// whose 4-byte member others update, a float update of an int's bytes at another offset)
/// are not morally strong, so they race. Each atomic load and update of a global that the
/// kernel updates must be disjoint from each update or the same access (offset and size); at
/// an offset Oxide cannot tell, the same size (atomics are naturally aligned).
void GlobalReadRule::checkAtomicShapes(const llvm::SetVector<LLVMFuncOp> &fns, const Updates &updated,
                                       const std::string &kernelName) {
  struct Access {
    Operation *op;
    std::optional<int64_t> offset;
    int64_t size;
    bool update;
  };
  llvm::MapVector<llvm::StringRef, SmallVector<Access>> accesses;
  for (LLVMFuncOp fn : fns)
    fn.walk([&](Operation *op) {
      Value address = atomicUpdateAddress(op);
      std::optional<int64_t> size;
      if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op))
        size = state.code.sizeOf(rmw.getVal().getType());
      else if (auto cas = dyn_cast<LLVM::AtomicCmpXchgOp>(op))
        size = state.code.sizeOf(cas.getVal().getType());
      else if (auto store = dyn_cast<LLVM::StoreOp>(op); store && address)
        size = state.code.sizeOf(store.getValue().getType());
      else if (auto load = dyn_cast<LLVM::LoadOp>(op);
               load && load.getOrdering() != LLVM::AtomicOrdering::not_atomic) {
        address = load.getAddr();
        size = state.code.sizeOf(load.getResult().getType());
      }
      if (!address || !size)
        return;
      for (llvm::StringRef global : globalsOf(address))
        if (updated.count(global))
          accesses[global].push_back(
              {op, offsetInGlobal(address, global), *size, bool(atomicUpdateAddress(op))});
    });
  for (auto &[global, list] : accesses)
    for (auto [i, access] : llvm::enumerate(list))
      for (auto [j, update] : llvm::enumerate(list)) {
        // Each pair once: an update against the updates before it, a load against all.
        if (!update.update || (access.update && j >= i))
          continue;
        const bool clash = access.offset && update.offset
                               ? *access.offset < *update.offset + update.size &&
                                     *update.offset < *access.offset + access.size &&
                                     (*access.offset != *update.offset || access.size != update.size)
                               : access.size != update.size;
        if (!clash)
          continue;
        report(
            readLocation(access.op), access.update ? SafetyRule::StoreTarget : SafetyRule::GlobalRead,
            [&](InFlightDiagnostic &d) {
              d << "this atomic " << (access.update ? "update" : "load") << " of " << access.size
                << " bytes of device global '" << llvm::demangle(global.str()) << "'";
              if (access.offset)
                d << " at byte offset " << *access.offset;
              d << " overlaps an atomic update of " << update.size << " bytes";
              if (update.offset)
                d << " at byte offset " << *update.offset;
              d << " without being the same access: atomics that cover different bytes of one value race "
                   "in "
                   "the PTX memory model; access each value of the global with one type, at its own offset";
              noteUpdate(d, update.op, kernelName);
            });
        break;
      }
}

void GlobalReadRule::check() {
  for (LLVMFuncOp kernel : state.code.module.getOps<LLVMFuncOp>())
    if (state.code.kernels.contains(kernel))
      checkKernel(kernel);
}

void GlobalReadRule::checkKernel(LLVMFuncOp kernel) {
  llvm::SetVector<LLVMFuncOp> fns = state.code.functionsOf(kernel);
  Updates updated; // the first update of each global
  for (LLVMFuncOp fn : fns)
    fn.walk([&](Operation *op) {
      if (Value address = atomicUpdateAddress(op))
        for (llvm::StringRef global : globalsOf(address))
          updated.insert({global, op});
    });
  if (updated.empty())
    return;
  const std::string kernelName = llvm::demangle(kernel.getSymName().str());
  checkAtomicShapes(fns, updated, kernelName);
  for (LLVMFuncOp fn : fns)
    fn.walk([&](Operation *op) {
      checkRead(op, updated, kernelName);
      if (auto load = dyn_cast<LLVM::LoadOp>(op); load && holdsPointers(load.getResult().getType()))
        checkPointerFromInitializer(load, updated, kernelName);
      checkKeptPointer(op, updated, kernelName);
    });
}

/// A plain read of an updated global.
void GlobalReadRule::checkRead(Operation *op, const Updates &updated, const std::string &kernelName) {
  for (Value address : plainReads(op))
    for (llvm::StringRef global : globalsOf(address))
      if (Operation *update = updated.lookup(global)) {
        report(readLocation(op), SafetyRule::GlobalRead, [&](InFlightDiagnostic &d) {
          d << "this plain read of device global '" << llvm::demangle(global.str())
            << "' races with its atomic updates: kernel '" << kernelName
            << "' updates it, so other threads may write it while this one reads; read it atomically ("
            << atomicReadHint(global)
            << ", or load(oxide::MemoryOrder::acquire) to also see what the writer stored before its "
               "update), or read it in a kernel that does not update it";
          noteUpdate(d, update, kernelName);
        });
        return;
      }
}

/// A global whose initializer holds a pointer into an updated global (a device_global of a
/// struct with `&g.get()` in it): the pointer a load takes from it has no roots.
void GlobalReadRule::checkPointerFromInitializer(LLVM::LoadOp load, const Updates &updated,
                                                 const std::string &kernelName) {
  for (const Root &root : rootsOf(load.getAddr())) {
    auto holder = root.source ? root.source.getDefiningOp<LLVM::AddressOfOp>() : nullptr;
    if (!holder)
      continue;
    for (llvm::StringRef target : addressesIn(holder.getGlobalName()))
      if (Operation *update = updated.lookup(target)) {
        report(readLocation(load), SafetyRule::GlobalRead, [&](InFlightDiagnostic &d) {
          d << "this load takes a pointer into device global '" << llvm::demangle(target.str())
            << "' from global '" << llvm::demangle(holder.getGlobalName().str())
            << "', whose initial value holds it; kernel '" << kernelName
            << "' updates it atomically, and Oxide cannot check that every read through that "
               "pointer "
               "is atomic; read it with "
            << atomicReadHint(target) << " directly";
          noteUpdate(d, update, kernelName);
        });
        break;
      }
  }
}

/// A pointer kept in memory or made an integer comes back without its roots: Oxide could not
/// see the reads through it.
void GlobalReadRule::checkKeptPointer(Operation *op, const Updates &updated, const std::string &kernelName) {
  Value kept;
  llvm::StringRef how = "stored to memory";
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    kept = store.getValue();
  else if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op))
    kept = rmw.getVal();
  else if (auto cas = dyn_cast<LLVM::AtomicCmpXchgOp>(op))
    kept = cas.getVal();
  else if (auto cast = dyn_cast<LLVM::PtrToIntOp>(op))
    kept = cast.getArg(), how = "converted to an integer";
  if (!kept)
    return;
  for (llvm::StringRef global : globalsOf(kept))
    if (Operation *update = updated.lookup(global)) {
      report(readLocation(op), SafetyRule::GlobalRead, [&](InFlightDiagnostic &d) {
        d << "a pointer into device global '" << llvm::demangle(global.str()) << "', which kernel '"
          << kernelName << "' updates atomically, is " << how
          << ", so Oxide cannot check that every read through it is atomic; read it with "
          << atomicReadHint(global) << " where you need the value, or keep the pointer in a local "
          << "variable";
        noteUpdate(d, update, kernelName);
      });
      return;
    }
}
