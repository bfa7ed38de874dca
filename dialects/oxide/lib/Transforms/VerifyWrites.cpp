//===- VerifyWrites.cpp - every write of a contracted kernel, proven ------===//
//
// A points-to analysis over the LLVM dialect: each pointer value gets the set of places it may
// point into (its roots), computed as a fixpoint over the functions the contracted kernels
// reach, through phis, selects, calls and returns. Each write is then judged by its roots, and
// writes into an element by their constant offset inside it. See VerifyWrites.h for the rules.
//
//===----------------------------------------------------------------------===//

#include "Oxide/Transforms/VerifyWrites.h"

#include "Oxide/IR/ArchRequirements.h"
#include "Oxide/IR/KernelContract.h"
#include "Oxide/IR/OxideOps.h"
#include "Oxide/IR/UserLocation.h"

#include "oxide/detail/intrinsic_abi.hpp"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/MathExtras.h"

#include <deque>

using namespace mlir;

namespace {

/// Address spaces of NVPTX.
constexpr unsigned kGeneric = 0, kShared = 3, kConstant = 4, kLocal = 5;

/// Byte offsets of the fields of oxide's span types: the data pointer, then the extents (size, or
/// width, height[, depth]); defined by the catalog, which span.hpp checks its classes against.
constexpr int64_t kSpanDataOffset = oxide::detail::kSpanDataOffset;
constexpr int64_t kSpanExtentStride = oxide::detail::kSpanExtentStride;
static_assert(oxide::detail::kSpanExtentOffset ==
                  oxide::detail::kSpanDataOffset + oxide::detail::kSpanExtentStride,
              "the extents follow the data pointer: extent d is at data + stride * (d + 1)");

constexpr llvm::StringLiteral kRuleStoreTarget = " [safety rule: store-target]";
constexpr llvm::StringLiteral kRuleInputWrite = " [safety rule: input-write]";
constexpr llvm::StringLiteral kRuleOwnElement = " [safety rule: own-element]";
constexpr llvm::StringLiteral kRuleElementBounds = " [safety rule: element-bounds]";
constexpr llvm::StringLiteral kRuleAtomicOnly = " [safety rule: atomic-only]";
constexpr llvm::StringLiteral kRuleEscape = " [safety rule: pointer-escape]";
constexpr llvm::StringLiteral kRuleOpaque = " [safety rule: opaque-code]";
constexpr llvm::StringLiteral kRuleSpanOrigin = " [safety rule: span-origin]";
constexpr llvm::StringLiteral kRuleGlobalRead = " [safety rule: global-read]";
constexpr llvm::StringLiteral kRuleHeap = " [safety rule: device-heap]";
constexpr llvm::StringLiteral kRulePrintf = " [safety rule: printf-format]";
constexpr llvm::StringLiteral kRuleUncheckedOp = " [safety rule: unchecked-op]";

/// What a pointer may point into.
enum class RootKind : unsigned {
  Private,  ///< an alloca, or a function's byval copy of a parameter
  Shared,   ///< the block's shared memory
  Heap,     ///< a block from the device heap (malloc, new) of this thread
  Element,  ///< one element: an oxide.disjoint_get, oxide.owned_elem or oxide.span_elem result
  Param,    ///< memory a kernel's span parameter points to (source: that kernel argument)
  Global,   ///< a device global variable
  Constant, ///< constant memory
  Null,     ///< the null pointer
  Unknown,  ///< provenance lost: loaded, made from an integer, returned by unknown code
};

struct Root {
  RootKind kind;
  Value source; ///< the value that creates the root (for Param: the kernel's byval argument)
  friend bool operator==(const Root &, const Root &) = default;
};

using RootSet = llvm::SmallVector<Root, 2>;

bool holdsPointers(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return true;
  if (auto s = dyn_cast<LLVM::LLVMStructType>(type))
    return llvm::any_of(s.getBody(), holdsPointers);
  if (auto a = dyn_cast<LLVM::LLVMArrayType>(type))
    return holdsPointers(a.getElementType());
  if (auto v = dyn_cast<VectorType>(type))
    return holdsPointers(v.getElementType());
  return false;
}

unsigned addressSpace(Value pointer) {
  auto type = dyn_cast<LLVM::LLVMPointerType>(pointer.getType());
  return type ? type.getAddressSpace() : kGeneric;
}

/// One parameter of a kernel: its name and kind letter (ContractAttributes.cpp's paramKind).
struct KernelParam {
  std::string name;
  char kind = 'x';
};

std::vector<KernelParam> kernelParams(LLVM::LLVMFuncOp kernel) {
  std::vector<KernelParam> params;
  auto attr = kernel->getAttrOfType<StringAttr>(oxide::kParamsAttr);
  if (!attr)
    return params;
  llvm::SmallVector<llvm::StringRef> entries;
  attr.getValue().split(entries, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries) {
    auto [name, kind] = entry.rsplit('=');
    params.push_back({name.str(), kind.empty() ? 'x' : kind.front()});
  }
  // The frontend writes a template's parameter kinds before instantiation, when a dependent
  // span type is still 'x'; the instantiated parameter's type names its class.
  for (auto [i, param] : llvm::enumerate(params)) {
    if (param.kind != 'x' || i >= kernel.getNumArguments())
      continue;
    auto byval = kernel.getArgAttrOfType<TypeAttr>(i, LLVM::LLVMDialect::getByValAttrName());
    auto type = byval ? dyn_cast<LLVM::LLVMStructType>(byval.getValue()) : nullptr;
    if (!type || !type.isIdentified())
      continue;
    llvm::StringRef cls = type.getName().split('.').second.split('.').first; // "class.oxide::X.N"
    param.kind = llvm::StringSwitch<char>(cls)
                     .Case("oxide::DisjointSpan", 'o')
                     .Case("oxide::DisjointSpan2D", '2')
                     .Case("oxide::DisjointSpan3D", '3')
                     .Case("oxide::AtomicSpan", 'a')
                     .Case("oxide::AppendSpan", 'r')
                     .Case("oxide::PermutationSpan", 'q')
                     .Case("oxide::TensorMap", 't')
                     .Case("oxide::Span", 'i')
                     .Default('x');
  }
  return params;
}

class WriteVerifier {
public:
  WriteVerifier(ModuleOp module, llvm::ArrayRef<LLVM::LLVMFuncOp> kernels)
      : module(module), symbols(module), layout(module) {
    for (LLVM::LLVMFuncOp kernel : kernels) {
      std::vector<KernelParam> params = kernelParams(kernel);
      if (params.size() == kernel.getNumArguments())
        for (auto [i, arg] : llvm::enumerate(kernel.getArguments()))
          paramOf[arg] = params[i];
      this->kernels.insert(kernel);
      for (LLVM::LLVMFuncOp fn : oxide::reachableFunctions(kernel, symbols))
        if (checked.insert(fn))
          owner[fn] = kernel;
    }
    module.walk([&](LLVM::AddressOfOp address) {
      if (auto fn = symbols.lookup<LLVM::LLVMFuncOp>(address.getGlobalName()))
        addressTaken.insert(fn);
    });
    // An indirect call reaches a function whose address the module takes (vtables included):
    // when checked code calls through a pointer, every such function is checked too.
    bool indirect = false;
    for (size_t i = 0; i < checked.size(); ++i)
      LLVM::LLVMFuncOp(checked[i]).walk([&](LLVM::CallOp call) {
        if (call.getCalleeAttr() || indirect)
          return;
        indirect = true;
        for (LLVM::LLVMFuncOp target : addressTaken)
          if (!target.isExternal())
            for (LLVM::LLVMFuncOp fn : oxide::reachableFunctions(target, symbols))
              if (checked.insert(fn))
                owner[fn] = owner.lookup(checked[i]);
      });
    // Functions that code outside the checked set also calls (uncontracted kernels, or helpers
    // they reach): their writes are checked for the contracted callers but not rewritten.
    for (LLVM::LLVMFuncOp fn : module.getOps<LLVM::LLVMFuncOp>()) {
      if (fn.isExternal() || checked.contains(fn))
        continue;
      for (LLVM::LLVMFuncOp reached : oxide::reachableFunctions(fn, symbols))
        if (checked.contains(reached))
          sharedWithUnchecked.insert(reached);
    }
    for (LLVM::LLVMFuncOp fn : checked)
      fn.walk([&](LLVM::CallOp call) {
        if (auto callee = call.getCalleeAttr()) {
          if (auto target = symbols.lookup<LLVM::LLVMFuncOp>(callee.getValue());
              target && !target.isExternal())
            callers[target].push_back(call);
          return;
        }
        for (LLVM::LLVMFuncOp target : addressTaken)
          if (!target.isExternal() && target.getNumArguments() == call.getArgOperands().size())
            callers[target].push_back(call);
        indirectCalls.push_back(call);
      });
  }

  LogicalResult run() {
    computeRoots();
    for (LLVM::LLVMFuncOp fn : checked)
      fn.walk([&](Operation *op) { check(op); });
    checkTileShapes();
    checkGlobalReads();
    if (failed)
      return failure();
    confine();
    recordElementSizes();
    return success();
  }

private:
  //===--------------------------------------------------------------------===//
  // Roots
  //===--------------------------------------------------------------------===//

  const RootSet &rootsOf(Value value) {
    static const RootSet none;
    auto it = roots.find(value);
    return it == roots.end() ? none : it->second;
  }

  void add(Value value, Root root) {
    RootSet &set = roots[value];
    if (!llvm::is_contained(set, root)) {
      set.push_back(root);
      changed = true;
    }
  }
  void addAll(Value to, Value from) {
    if (to == from)
      return;
    RootSet copy = rootsOf(from);
    for (const Root &root : copy)
      add(to, root);
  }

  bool isKernelArgument(Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getOwner()->isEntryBlock() &&
           kernels.contains(dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp()));
  }

  /// Whether function argument `arg` is passed by value (the callee's own copy).
  static bool isByval(BlockArgument arg) {
    auto fn = dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
    return fn && fn.getArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getByValAttrName());
  }

  void computeRoots() {
    do {
      changed = false;
      for (LLVM::LLVMFuncOp fn : checked) {
        for (BlockArgument arg : fn.getArguments())
          transferArgument(fn, arg);
        fn.walk([&](Operation *op) { transfer(op); });
      }
    } while (changed);
  }

  void transferArgument(LLVM::LLVMFuncOp fn, BlockArgument arg) {
    if (!holdsPointers(arg.getType()))
      return;
    if (isByval(arg)) {
      add(arg, {RootKind::Private, arg});
      return;
    }
    auto it = callers.find(fn);
    if (kernels.contains(fn) || it == callers.end()) {
      add(arg, {RootKind::Unknown, arg});
      return;
    }
    for (LLVM::CallOp call : it->second)
      if (arg.getArgNumber() < call.getArgOperands().size())
        addAll(arg, call.getArgOperands()[arg.getArgNumber()]);
  }

  void transfer(Operation *op) {
    if (auto branch = dyn_cast<BranchOpInterface>(op)) {
      for (unsigned s = 0; s < op->getNumSuccessors(); ++s) {
        SuccessorOperands operands = branch.getSuccessorOperands(s);
        Block *succ = op->getSuccessor(s);
        for (unsigned k = 0; k < operands.size() && k < succ->getNumArguments(); ++k)
          if (Value incoming = operands[k])
            addAll(succ->getArgument(k), incoming);
      }
      return;
    }
    if (op->getNumResults() != 1 || !holdsPointers(op->getResult(0).getType()))
      return;
    Value result = op->getResult(0);
    auto fromBase = [&](Value base) {
      addAll(result, base);
      if (llvm::is_contained(rootsOf(base), Root{RootKind::Null, Value()}) && !isa<LLVM::BitcastOp>(op))
        add(result, {RootKind::Unknown, result}); // arithmetic on null makes an address from an integer
    };
    llvm::TypeSwitch<Operation *, void>(op)
        .Case<LLVM::AllocaOp>([&](auto) { add(result, {RootKind::Private, result}); })
        .Case<LLVM::GEPOp>([&](LLVM::GEPOp gep) { fromBase(gep.getBase()); })
        .Case<LLVM::BitcastOp, LLVM::AddrSpaceCastOp>([&](Operation *cast) { fromBase(cast->getOperand(0)); })
        .Case<LLVM::PtrMaskOp>([&](LLVM::PtrMaskOp mask) { fromBase(mask.getPtr()); })
        .Case<LLVM::SelectOp>([&](LLVM::SelectOp select) {
          addAll(result, select.getTrueValue());
          addAll(result, select.getFalseValue());
        })
        .Case<LLVM::InsertValueOp>([&](LLVM::InsertValueOp insert) {
          // An aggregate built field by field over poison or undef (how SROA writes a struct
          // returned by value) holds no pointer of that base once the inserts cover every part
          // that holds pointers: only the inserted ones.
          if (overwritesUndefinedPointers(insert)) {
            for (auto in = insert; in; in = in.getContainer().getDefiningOp<LLVM::InsertValueOp>())
              addAll(result, in.getValue());
            return;
          }
          addAll(result, insert.getContainer());
          addAll(result, insert.getValue());
        })
        .Case<LLVM::ExtractValueOp>(
            [&](LLVM::ExtractValueOp extract) { addAll(result, extract.getContainer()); })
        .Case<LLVM::InsertElementOp>([&](LLVM::InsertElementOp insert) {
          addAll(result, insert.getVector());
          addAll(result, insert.getValue());
        })
        .Case<LLVM::ExtractElementOp>([&](LLVM::ExtractElementOp e) { addAll(result, e.getVector()); })
        .Case<LLVM::ShuffleVectorOp>([&](LLVM::ShuffleVectorOp s) {
          addAll(result, s.getV1());
          addAll(result, s.getV2());
        })
        .Case<LLVM::ZeroOp>([&](auto) { add(result, {RootKind::Null, Value()}); })
        .Case<LLVM::AddressOfOp>([&](LLVM::AddressOfOp address) {
          auto global = symbols.lookup<LLVM::GlobalOp>(address.getGlobalName());
          RootKind kind = !global                              ? RootKind::Unknown
                          : global.getAddrSpace() == kShared   ? RootKind::Shared
                          : global.getAddrSpace() == kConstant ? RootKind::Constant
                          : global.getConstant()               ? RootKind::Constant
                                                               : RootKind::Global;
          add(result, {kind, result});
        })
        .Case<oxide::DisjointGetOp, oxide::OwnedElemOp, oxide::ReservedElemOp, oxide::PermutedElemOp,
              oxide::SpanElemOp>([&](auto) { add(result, {RootKind::Element, result}); })
        .Case<oxide::SharedAllocOp, oxide::DynamicSharedOp, oxide::MapSharedOp>(
            [&](auto) { add(result, {RootKind::Shared, result}); })
        .Case<LLVM::LoadOp>([&](LLVM::LoadOp load) {
          // A pointer loaded from a kernel's own parameter is the span's memory; any other
          // loaded pointer has lost where it came from.
          Value param = paramArgument(load.getAddr());
          add(result, param ? Root{RootKind::Param, param} : Root{RootKind::Unknown, result});
        })
        .Case<LLVM::CallOp>([&](LLVM::CallOp call) {
          auto callee = call.getCalleeAttr();
          auto returnsOf = [&](LLVM::LLVMFuncOp fn) {
            fn.walk([&](LLVM::ReturnOp ret) {
              if (ret.getArg())
                addAll(result, ret.getArg());
            });
          };
          if (!callee) { // through a pointer: any function whose address is taken
            for (LLVM::LLVMFuncOp fn : addressTaken)
              if (fn.isExternal())
                add(result, {RootKind::Unknown, result});
              else if (checked.contains(fn))
                returnsOf(fn);
            return;
          }
          auto fn = symbols.lookup<LLVM::LLVMFuncOp>(callee.getValue());
          if (fn && fn.isExternal() && fn.getSymName() == "malloc") {
            add(result, {RootKind::Heap, result});
            return;
          }
          if (!fn || fn.isExternal() || !checked.contains(fn)) {
            add(result, {RootKind::Unknown, result});
            return;
          }
          returnsOf(fn);
        })
        .Default([&](Operation *) { add(result, {RootKind::Unknown, result}); });
  }

  /// Whether `insert` and the inserts it builds on start from llvm.mlir.poison or
  /// llvm.mlir.undef and write every part of the aggregate that holds a pointer. A part they do
  /// not write is still the base's: a poison pointer, which keeps its Unknown root. Poison as an
  /// address is not accepted as such: it is UB only if the write executes, and LLVM makes it of
  /// user code that may reach it too (a pointer variable left uninitialised on one path), where
  /// the back end may give it any value; here no pointer of the base is left to write through.
  static bool overwritesUndefinedPointers(LLVM::InsertValueOp insert) {
    SmallVector<ArrayRef<int64_t>> written;
    Value base = insert.getResult();
    while (auto in = base.getDefiningOp<LLVM::InsertValueOp>()) {
      if (written.size() == 64)
        return false;
      written.push_back(in.getPosition());
      base = in.getContainer();
    }
    if (!base.getDefiningOp<LLVM::PoisonOp>() && !base.getDefiningOp<LLVM::UndefOp>())
      return false;
    SmallVector<int64_t> path;
    return coversPointers(insert.getType(), path, written);
  }

  /// Whether every pointer in the part of type `type` at `path` lies under one of `written`.
  static bool coversPointers(Type type, SmallVector<int64_t> &path, ArrayRef<ArrayRef<int64_t>> written) {
    for (ArrayRef<int64_t> w : written)
      if (w.size() <= path.size() && llvm::equal(w, ArrayRef<int64_t>(path).take_front(w.size())))
        return true;
    if (!holdsPointers(type))
      return true;
    auto covered = [&](int64_t i, Type member) {
      path.push_back(i);
      bool ok = coversPointers(member, path, written);
      path.pop_back();
      return ok;
    };
    if (auto s = dyn_cast<LLVM::LLVMStructType>(type)) {
      for (auto [i, member] : llvm::enumerate(s.getBody()))
        if (!covered(static_cast<int64_t>(i), member))
          return false;
      return true;
    }
    if (auto a = dyn_cast<LLVM::LLVMArrayType>(type); a && a.getNumElements() <= 64) {
      for (unsigned i = 0; i < a.getNumElements(); ++i)
        if (!covered(i, a.getElementType()))
          return false;
      return true;
    }
    return false;
  }

  /// The kernel argument whose byval copy `address` points into (at any offset), or null.
  Value paramArgument(Value address) {
    const RootSet &set = rootsOf(address);
    if (set.size() != 1 || set.front().kind != RootKind::Private || !isKernelArgument(set.front().source))
      return Value();
    return set.front().source;
  }

  //===--------------------------------------------------------------------===//
  // Offsets
  //===--------------------------------------------------------------------===//

  /// The byte offset of `gep` from its base when every index is a constant.
  std::optional<int64_t> constantGepOffset(LLVM::GEPOp gep) {
    int64_t offset = 0;
    Type type = gep.getElemType();
    bool first = true;
    for (auto index : gep.getIndices()) {
      int64_t i;
      if (auto attr = llvm::dyn_cast_if_present<IntegerAttr>(index)) {
        i = attr.getInt();
      } else {
        APInt value;
        if (!matchPattern(llvm::cast<Value>(index), m_ConstantInt(&value)) || value.getSignificantBits() > 63)
          return std::nullopt;
        i = value.getSExtValue();
      }
      if (first) {
        offset += i * static_cast<int64_t>(layout.getTypeSize(type).getFixedValue());
        first = false;
        continue;
      }
      if (auto s = dyn_cast<LLVM::LLVMStructType>(type)) {
        if (i < 0 || static_cast<size_t>(i) >= s.getBody().size())
          return std::nullopt;
        int64_t field = 0;
        for (int64_t f = 0; f <= i; ++f) {
          Type member = s.getBody()[f];
          if (!s.isPacked())
            field = llvm::alignTo(field, layout.getTypeABIAlignment(member));
          if (f < i)
            field += layout.getTypeSize(member).getFixedValue();
        }
        offset += field;
        type = s.getBody()[i];
      } else if (auto a = dyn_cast<LLVM::LLVMArrayType>(type)) {
        type = a.getElementType();
        offset += i * static_cast<int64_t>(layout.getTypeSize(type).getFixedValue());
      } else if (auto v = dyn_cast<VectorType>(type)) {
        type = v.getElementType();
        offset += i * static_cast<int64_t>(layout.getTypeSize(type).getFixedValue());
      } else {
        return std::nullopt;
      }
    }
    return offset;
  }

  /// Where `value` points relative to the start of root `origin`.
  struct Offset {
    enum { NotDerived, Known, Unknown } state;
    int64_t bytes = 0;
  };

  Offset offsetFrom(Value value, Value origin) {
    llvm::DenseSet<Value> visiting;
    return offsetFrom(value, origin, visiting, 0);
  }

  static Offset merge(Offset a, Offset b) {
    if (a.state == Offset::NotDerived)
      return b;
    if (b.state == Offset::NotDerived)
      return a;
    if (a.state == Offset::Known && b.state == Offset::Known && a.bytes == b.bytes)
      return a;
    return {Offset::Unknown};
  }

  Offset offsetFrom(Value value, Value origin, llvm::DenseSet<Value> &visiting, unsigned depth) {
    if (value == origin)
      return {Offset::Known, 0};
    if (!llvm::any_of(rootsOf(value), [&](const Root &r) { return r.source == origin; }))
      return {Offset::NotDerived};
    if (depth > 256 || !visiting.insert(value).second)
      return {Offset::Unknown};
    Operation *def = value.getDefiningOp();
    if (auto extract = dyn_cast_or_null<LLVM::ExtractValueOp>(def))
      return fieldOffsetFrom(extract.getContainer(), extract.getPosition(), origin, visiting, depth + 1);
    if (auto gep = dyn_cast_or_null<LLVM::GEPOp>(def)) {
      Offset base = offsetFrom(gep.getBase(), origin, visiting, depth + 1);
      std::optional<int64_t> step = constantGepOffset(gep);
      if (base.state != Offset::Known)
        return base;
      return step ? Offset{Offset::Known, base.bytes + *step} : Offset{Offset::Unknown};
    }
    if (isa_and_nonnull<LLVM::BitcastOp, LLVM::AddrSpaceCastOp>(def))
      return offsetFrom(def->getOperand(0), origin, visiting, depth + 1);
    if (auto select = dyn_cast_or_null<LLVM::SelectOp>(def))
      return merge(offsetFrom(select.getTrueValue(), origin, visiting, depth + 1),
                   offsetFrom(select.getFalseValue(), origin, visiting, depth + 1));
    // A helper that is not inlined and returns the element pointer (get_mut's result, or null):
    // the offset of each value it returns.
    if (auto call = dyn_cast_or_null<LLVM::CallOp>(def); call && call.getCalleeAttr()) {
      auto fn = symbols.lookup<LLVM::LLVMFuncOp>(call.getCalleeAttr().getValue());
      if (!fn || fn.isExternal() || !checked.contains(fn))
        return {Offset::Unknown};
      Offset result{Offset::NotDerived};
      fn.walk([&](LLVM::ReturnOp ret) {
        if (ret.getArg())
          result = merge(result, offsetFrom(ret.getArg(), origin, visiting, depth + 1));
      });
      return result;
    }
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg)
      return {Offset::Unknown};
    Block *block = arg.getOwner();
    Offset result{Offset::NotDerived};
    if (block->isEntryBlock()) {
      auto fn = dyn_cast<LLVM::LLVMFuncOp>(block->getParentOp());
      auto it = fn ? callers.find(fn) : callers.end();
      if (it == callers.end())
        return {Offset::Unknown};
      for (LLVM::CallOp call : it->second)
        result =
            merge(result, offsetFrom(call.getArgOperands()[arg.getArgNumber()], origin, visiting, depth + 1));
      return result;
    }
    for (Block *pred : block->getPredecessors()) {
      auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
      if (!branch)
        return {Offset::Unknown};
      for (unsigned s = 0; s < branch->getNumSuccessors(); ++s)
        if (branch->getSuccessor(s) == block) {
          Value incoming = branch.getSuccessorOperands(s)[arg.getArgNumber()];
          if (!incoming)
            return {Offset::Unknown};
          result = merge(result, offsetFrom(incoming, origin, visiting, depth + 1));
        }
    }
    return result;
  }

  /// Where the pointer at `position` of aggregate `aggregate` points relative to `origin`: the
  /// value an insert put there, or what each return of the called function has there (a helper
  /// that returns a struct holding a pointer, such as AtomicSpan::operator[] when not inlined).
  Offset fieldOffsetFrom(Value aggregate, ArrayRef<int64_t> position, Value origin,
                         llvm::DenseSet<Value> &visiting, unsigned depth) {
    if (!llvm::any_of(rootsOf(aggregate), [&](const Root &r) { return r.source == origin; }))
      return {Offset::NotDerived};
    if (depth > 256)
      return {Offset::Unknown};
    Operation *def = aggregate.getDefiningOp();
    if (auto insert = dyn_cast_or_null<LLVM::InsertValueOp>(def)) {
      ArrayRef<int64_t> at = insert.getPosition();
      const size_t common = std::min(at.size(), position.size());
      if (!llvm::equal(at.take_front(common), position.take_front(common))) // another part
        return fieldOffsetFrom(insert.getContainer(), position, origin, visiting, depth + 1);
      if (at.size() == position.size())
        return offsetFrom(insert.getValue(), origin, visiting, depth + 1);
      if (at.size() < position.size())
        return fieldOffsetFrom(insert.getValue(), position.drop_front(at.size()), origin, visiting,
                               depth + 1);
      return {Offset::Unknown}; // the insert replaced a part of the aggregate asked for
    }
    if (auto extract = dyn_cast_or_null<LLVM::ExtractValueOp>(def)) {
      SmallVector<int64_t> outer(extract.getPosition());
      outer.append(position.begin(), position.end());
      return fieldOffsetFrom(extract.getContainer(), outer, origin, visiting, depth + 1);
    }
    auto call = dyn_cast_or_null<LLVM::CallOp>(def);
    auto callee = call ? call.getCalleeAttr() : nullptr;
    auto fn = callee ? symbols.lookup<LLVM::LLVMFuncOp>(callee.getValue()) : nullptr;
    if (!fn || fn.isExternal() || !checked.contains(fn))
      return {Offset::Unknown};
    Offset result{Offset::NotDerived};
    fn.walk([&](LLVM::ReturnOp ret) {
      if (ret.getArg())
        result = merge(result, fieldOffsetFrom(ret.getArg(), position, origin, visiting, depth + 1));
    });
    return result;
  }

  /// The kernel argument and byte offset of the parameter field `value` was loaded from, through
  /// helper-function arguments whose every caller passes the same field.
  std::optional<std::pair<Value, int64_t>> paramField(Value value, unsigned depth = 0) {
    if (depth > 64)
      return std::nullopt;
    // The optimiser may load neighbouring fields together, as a vector.
    if (auto extract = value.getDefiningOp<LLVM::ExtractElementOp>()) {
      APInt lane;
      auto field = paramField(extract.getVector(), depth + 1);
      if (!field || !matchPattern(extract.getPosition(), m_ConstantInt(&lane)))
        return std::nullopt;
      field->second +=
          lane.getSExtValue() * static_cast<int64_t>(layout.getTypeSize(value.getType()).getFixedValue());
      return field;
    }
    if (auto load = value.getDefiningOp<LLVM::LoadOp>()) {
      Value param = paramArgument(load.getAddr());
      if (!param)
        return std::nullopt;
      Offset offset = offsetFrom(load.getAddr(), param);
      if (offset.state != Offset::Known)
        return std::nullopt;
      return std::make_pair(param, offset.bytes);
    }
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg || !arg.getOwner()->isEntryBlock())
      return std::nullopt;
    auto fn = dyn_cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
    auto it = fn ? callers.find(fn) : callers.end();
    if (it == callers.end() || addressTaken.contains(fn))
      return std::nullopt;
    std::optional<std::pair<Value, int64_t>> field;
    for (LLVM::CallOp call : it->second) {
      auto f = paramField(call.getArgOperands()[arg.getArgNumber()], depth + 1);
      if (!f || (field && *field != *f))
        return std::nullopt;
      field = f;
    }
    return field;
  }

  //===--------------------------------------------------------------------===//
  // Checks
  //===--------------------------------------------------------------------===//

  std::string kernelName(Operation *op) {
    auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
    LLVM::LLVMFuncOp kernel = fn ? owner.lookup(fn) : nullptr;
    return kernel ? llvm::demangle(kernel.getSymName().str()) : std::string("?");
  }

  /// The C++ name of the device global whose address `address` takes.
  static std::string globalName(Value address) {
    auto global = address.getDefiningOp<LLVM::AddressOfOp>();
    return global ? llvm::demangle(global.getGlobalName().str()) : std::string("?");
  }

  std::string paramName(Value kernelArg) {
    auto it = paramOf.find(kernelArg);
    return it == paramOf.end() ? std::string("?") : it->second.name;
  }
  char paramKind(Value kernelArg) {
    auto it = paramOf.find(kernelArg);
    return it == paramOf.end() ? 'x' : it->second.kind;
  }

  /// An error at the user's line of `op`: once per line and rule (an unrolled loop repeats a
  /// write many times).
  void report(Operation *op, llvm::StringRef rule, llvm::function_ref<void(InFlightDiagnostic &)> message) {
    report(oxide::userLocation(op->getLoc()), rule, message);
  }
  void report(Location loc, llvm::StringRef rule, llvm::function_ref<void(InFlightDiagnostic &)> message) {
    failed = true;
    if (!reported.insert({loc, rule}).second)
      return;
    InFlightDiagnostic diag = emitError(loc);
    message(diag);
    diag << rule;
  }

  /// The output parameter whose element `element` (a DisjointGetOp) names, for messages.
  std::string outputName(Operation *element) {
    Value data = element->getOperand(0);
    for (const Root &root : rootsOf(data))
      if (root.kind == RootKind::Param)
        return "'" + paramName(root.source) + "'";
    return "the output";
  }

  /// Why a pointer with an Unknown root has lost its provenance.
  static std::string unknownReason(Value source) {
    if (auto arg = dyn_cast<BlockArgument>(source))
      return "is a parameter of a function that is called through a pointer or from outside the kernel";
    Operation *def = source.getDefiningOp();
    if (isa<LLVM::LoadOp>(def))
      return "was loaded from memory (a pointer kept in memory no longer says where it points)";
    if (isa<LLVM::IntToPtrOp>(def))
      return "was made from an integer";
    if (isa<LLVM::GEPOp>(def))
      return "is an offset from a null pointer (an address made from an integer)";
    if (isa<LLVM::CallOp>(def))
      return "was returned by a function whose code Oxide cannot see";
    return "comes from an operation Oxide cannot follow ('" + def->getName().getStringRef().str() + "')";
  }

  /// Checks a write of `size` bytes (unknown: std::nullopt) through `address` by `op`; `operand`
  /// is the address's operand number, for confinement.
  void checkWrite(Operation *op, unsigned operand, std::optional<int64_t> size, bool atomic) {
    Value address = op->getOperand(operand);
    const unsigned space = addressSpace(address);
    if (space == kShared || space == kLocal)
      return; // the hardware keeps it in the block's shared memory or the thread's local memory
    if (space == kConstant) {
      report(op, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
        d << "this write targets constant memory, which kernels cannot write";
      });
      return;
    }
    const RootSet &set = rootsOf(address);
    if (set.empty()) {
      report(op, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
        d << "Oxide cannot tell where this write lands; in a contracted kernel a write must go to a local "
             "variable, shared memory, the thread's own DisjointSpan element or an AtomicSpan element";
      });
      return;
    }
    bool confinable = true;
    std::optional<RootKind> space1;
    bool needsConfinement = false;
    for (const Root &root : set) {
      switch (root.kind) {
      case RootKind::Null:
        break; // a write to null faults
      case RootKind::Private:
        // The kernel's copy of a span parameter holds the span's pointer and extents, which the
        // span-origin check trusts: rewriting them would forge an output.
        if (isKernelArgument(root.source) &&
            llvm::is_contained(llvm::StringRef("io23arq"), paramKind(root.source))) {
          report(op, kRuleSpanOrigin, [&](InFlightDiagnostic &d) {
            d << "this write changes the kernel's copy of span parameter '" << paramName(root.source)
              << "' (its pointer or extents), which would let it name memory the runtime did not bind; "
                 "copy the span into a local variable instead";
          });
          break;
        }
        [[fallthrough]];
      case RootKind::Shared: {
        if (space1 && *space1 != root.kind)
          confinable = false;
        space1 = root.kind;
        // A kernel's byval copy lives in parameter space, and another block's shared memory
        // (cluster::map_shared) in the cluster's window: neither can be named by a cast.
        if ((root.kind == RootKind::Private && !root.source.getDefiningOp<LLVM::AllocaOp>()) ||
            root.source.getDefiningOp<oxide::MapSharedOp>())
          confinable = false;
        // A helper that unchecked code also calls keeps its code as it is: a global pointer from
        // an unsafe kernel must not be cast to local or shared.
        // (Unless the address is made inside the helper, from its own allocas or shared
        // arrays: then it is the same kind of memory for every caller.)
        if (sharedWithUnchecked.contains(op->getParentOfType<LLVM::LLVMFuncOp>()) && dependsOnCaller(address))
          confinable = false;
        if (!provenInside(address, root, size))
          needsConfinement = true;
        break;
      }
      case RootKind::Heap:
        if (!provenInside(address, root, size))
          report(op, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
            d << "this write into memory from new or malloc lands at an offset Oxide cannot prove stays "
                 "inside the allocation (a constant size, written at constant offsets); use a local array, "
                 "or drop the contract and launch with oxide::unsafe_launch";
          });
        break;
      case RootKind::Element:
        checkElementWrite(op, address, root, size, atomic);
        break;
      case RootKind::Param:
        checkParamWrite(op, root.source);
        break;
      case RootKind::Global:
        // Every thread shares an oxide::device_global: only atomic updates inside it are safe.
        if (atomic && (provenInside(address, root, size) || provenInsideByBounds(op, address, root, size)))
          break;
        report(op, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
          if (atomic)
            d << "this atomic write lands at an offset Oxide cannot prove stays inside device global '"
              << globalName(root.source)
              << "'; update a scalar global through its atomic(), an array global's element through its "
                 "atomic(i) (bounds-checked) or at an index Oxide can bound (a constant, i % N, i & (N - 1), "
                 "or inside a check i < N), or drop the contract and launch with oxide::unsafe_launch";
          else
            d << "this write targets device global '" << globalName(root.source)
              << "', which every thread of the launch shares, so a plain write is a data race; update "
                 "it atomically (its atomic()), write results through a DisjointSpan parameter, or drop "
                 "the contract and launch with oxide::unsafe_launch";
        });
        break;
      case RootKind::Constant:
        report(op, kRuleStoreTarget,
               [&](InFlightDiagnostic &d) { d << "this write targets constant or read-only memory"; });
        break;
      case RootKind::Unknown:
        report(op, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
          d << "the address of this write " << unknownReason(root.source)
            << ", so Oxide cannot prove it lands in memory the thread may write (a local variable, "
               "shared memory, its own DisjointSpan element or an AtomicSpan element); write through "
               "the span APIs directly, or drop the contract and launch with oxide::unsafe_launch";
        });
        break;
      }
    }
    if (!needsConfinement)
      return;
    // A pointer that may also point into an element, a heap block or elsewhere cannot be made
    // a local or shared one.
    const bool onlyPrivateOrShared = llvm::all_of(set, [](const Root &r) {
      return r.kind == RootKind::Private || r.kind == RootKind::Shared || r.kind == RootKind::Null;
    });
    if (!confinable || !onlyPrivateOrShared) {
      report(op, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
        d << "this write lands at an offset Oxide cannot bound, in "
          << (space1 == RootKind::Shared ? "shared memory" : "a local variable")
          << " reached through a pointer it cannot confine (one that may point to more than one kind of "
             "memory, to another block's shared memory, to a parameter, or in a helper that kernels "
             "without a contract also call); index the array directly with a bounds check, or use "
             "separate pointers";
      });
      return;
    }
    toConfine.push_back({op, operand, *space1 == RootKind::Shared ? kShared : kLocal});
  }

  /// Whether pointer `value` may depend on what the function's callers pass it or return to it.
  static bool dependsOnCaller(Value value) {
    llvm::DenseSet<Value> seen;
    SmallVector<Value> work = {value};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        Block *block = arg.getOwner();
        if (block->isEntryBlock())
          return true;
        for (Block *pred : block->getPredecessors()) {
          auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
          if (!branch)
            return true;
          for (unsigned s = 0; s < branch->getNumSuccessors(); ++s)
            if (branch->getSuccessor(s) == block) {
              Value incoming = branch.getSuccessorOperands(s)[arg.getArgNumber()];
              if (!incoming)
                return true;
              work.push_back(incoming);
            }
        }
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (isa<LLVM::GEPOp, LLVM::BitcastOp, LLVM::AddrSpaceCastOp, LLVM::PtrMaskOp>(def))
        work.push_back(def->getOperand(0));
      else if (auto select = dyn_cast<LLVM::SelectOp>(def))
        work.append({select.getTrueValue(), select.getFalseValue()});
      else if (!isa<LLVM::AllocaOp, oxide::SharedAllocOp, oxide::DynamicSharedOp, LLVM::AddressOfOp>(def))
        return true;
    }
    return false;
  }

  /// Whether `address` stays inside the memory of a Private or Shared root, by constant offsets.
  bool provenInside(Value address, const Root &root, std::optional<int64_t> size) {
    if (!size)
      return false;
    Offset offset = offsetFrom(address, root.source);
    if (offset.state != Offset::Known || offset.bytes < 0)
      return false;
    std::optional<int64_t> bytes;
    if (auto alloca = root.source.getDefiningOp<LLVM::AllocaOp>()) {
      APInt count;
      if (matchPattern(alloca.getArraySize(), m_ConstantInt(&count)))
        bytes = count.getSExtValue() *
                static_cast<int64_t>(layout.getTypeSize(alloca.getElemType()).getFixedValue());
    } else if (auto malloc = root.source.getDefiningOp<LLVM::CallOp>();
               malloc && root.kind == RootKind::Heap) {
      if (!malloc.getArgOperands().empty())
        bytes = constantLength(malloc.getArgOperands()[0]);
    } else if (auto shared = root.source.getDefiningOp<oxide::SharedAllocOp>()) {
      bytes = shared.getBytes();
    } else if (auto remote = root.source.getDefiningOp<oxide::MapSharedOp>()) {
      if (auto mapped = remote.getPtr().getDefiningOp<oxide::SharedAllocOp>())
        bytes = mapped.getBytes(); // the same variable in another block
    } else if (auto global = root.source.getDefiningOp<LLVM::AddressOfOp>()) {
      if (auto var = symbols.lookup<LLVM::GlobalOp>(global.getGlobalName()))
        bytes = layout.getTypeSize(var.getGlobalType()).getFixedValue();
    } else if (auto arg = dyn_cast<BlockArgument>(root.source); arg && isByval(arg)) {
      auto fn = cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
      auto type = cast<TypeAttr>(fn.getArgAttr(arg.getArgNumber(), LLVM::LLVMDialect::getByValAttrName()));
      bytes = layout.getTypeSize(type.getValue()).getFixedValue();
    }
    return bytes && offset.bytes + *size <= *bytes;
  }

  /// Whether `address`, a chain of GEPs from the device global of `root`, stays inside it at
  /// `op` for every value of its variable indices, by their upper bounds there (upperBound):
  /// how g.atomic(i) with its bounds check, or g.atomic(v % N), updates an array global.
  bool provenInsideByBounds(Operation *op, Value address, const Root &root, std::optional<int64_t> size) {
    auto global = root.source.getDefiningOp<LLVM::AddressOfOp>();
    auto var = global ? symbols.lookup<LLVM::GlobalOp>(global.getGlobalName()) : nullptr;
    if (!size || !var)
      return false;
    const int64_t bytes = layout.getTypeSize(var.getGlobalType()).getFixedValue();
    int64_t low = 0, high = 0; // the offset's range: low + [0, high - low]
    for (Value v = address; v != root.source;) {
      Operation *def = v.getDefiningOp();
      if (isa_and_nonnull<LLVM::BitcastOp, LLVM::AddrSpaceCastOp>(def)) {
        v = def->getOperand(0);
        continue;
      }
      auto gep = dyn_cast_or_null<LLVM::GEPOp>(def);
      if (!gep)
        return false;
      Type type = gep.getElemType();
      bool first = true;
      for (auto index : gep.getIndices()) {
        std::optional<int64_t> fixed;
        if (auto attr = llvm::dyn_cast_if_present<IntegerAttr>(index))
          fixed = attr.getInt();
        else if (APInt c;
                 matchPattern(llvm::cast<Value>(index), m_ConstantInt(&c)) && c.getSignificantBits() <= 32)
          fixed = c.getSExtValue();
        Type step = type;
        if (!first) {
          if (auto s = dyn_cast<LLVM::LLVMStructType>(type)) {
            if (!fixed || *fixed < 0 || static_cast<size_t>(*fixed) >= s.getBody().size())
              return false;
            int64_t field = 0;
            for (int64_t f = 0; f <= *fixed; ++f) {
              Type member = s.getBody()[f];
              if (!s.isPacked())
                field = llvm::alignTo(field, layout.getTypeABIAlignment(member));
              if (f < *fixed)
                field += layout.getTypeSize(member).getFixedValue();
            }
            low += field, high += field;
            type = s.getBody()[*fixed];
            continue;
          }
          if (auto a = dyn_cast<LLVM::LLVMArrayType>(type))
            step = type = a.getElementType();
          else
            return false;
        }
        first = false;
        const int64_t scale = layout.getTypeSize(step).getFixedValue();
        int64_t added;
        if (fixed) {
          if (llvm::MulOverflow(*fixed, scale, added) || llvm::AddOverflow(low, added, low) ||
              llvm::AddOverflow(high, added, high))
            return false;
          continue;
        }
        // A GEP sign-extends its index: the bound must keep it non-negative.
        Value dynamic = llvm::cast<Value>(index);
        std::optional<uint64_t> bound = upperBound(dynamic, op);
        const unsigned width = dynamic.getType().getIntOrFloatBitWidth();
        if (!bound || *bound > static_cast<uint64_t>(bytes) || (width < 64 && *bound >> (width - 1)) ||
            llvm::MulOverflow(static_cast<int64_t>(*bound), scale, added) ||
            llvm::AddOverflow(high, added, high))
          return false;
      }
      v = gep.getBase();
      if (low < -bytes || high > bytes)
        return false;
    }
    return low >= 0 && high + *size <= bytes;
  }

  /// An unsigned upper bound of integer `value` where `at` runs: a constant, `x & C`, `x urem C`,
  /// a zero extension, or a value that a branch dominating `at` compared with a constant (a
  /// bounds check whose failing side does not reach `at`).
  std::optional<uint64_t> upperBound(Value value, Operation *at, unsigned depth = 0) {
    if (depth > 8 || !isa<IntegerType>(value.getType()))
      return std::nullopt;
    if (APInt c; matchPattern(value, m_ConstantInt(&c)))
      return c.getActiveBits() <= 63 ? std::optional<uint64_t>(c.getZExtValue()) : std::nullopt;
    std::optional<uint64_t> best;
    auto tighten = [&](std::optional<uint64_t> b) {
      if (b && (!best || *b < *best))
        best = b;
    };
    Operation *def = value.getDefiningOp();
    if (auto zext = dyn_cast_or_null<LLVM::ZExtOp>(def))
      tighten(upperBound(zext.getArg(), at, depth + 1));
    if (auto mask = dyn_cast_or_null<LLVM::AndOp>(def)) {
      tighten(upperBound(mask.getLhs(), at, depth + 1));
      tighten(upperBound(mask.getRhs(), at, depth + 1));
    }
    if (isa_and_nonnull<LLVM::AddOp, LLVM::OrOp>(def)) { // x | y <= x + y; no wrap below half the width
      std::optional<uint64_t> a = upperBound(def->getOperand(0), at, depth + 1);
      std::optional<uint64_t> b = upperBound(def->getOperand(1), at, depth + 1);
      const unsigned width = value.getType().getIntOrFloatBitWidth();
      if (a && b && width >= 2 && *a < (uint64_t(1) << (std::min(width, 62u) - 2)) &&
          *b < (uint64_t(1) << (std::min(width, 62u) - 2)))
        tighten(*a + *b);
    }
    if (auto rem = dyn_cast_or_null<LLVM::URemOp>(def))
      if (APInt c; matchPattern(rem.getRhs(), m_ConstantInt(&c)) && !c.isZero() && c.getActiveBits() <= 63)
        tighten(c.getZExtValue() - 1);
    llvm::SmallDenseSet<uint64_t, 4> excluded; // values a dominating `!=` rules out
    for (Operation *user : value.getUsers()) {
      auto cmp = dyn_cast<LLVM::ICmpOp>(user);
      APInt c;
      if (!cmp || cmp.getLhs() != value || !matchPattern(cmp.getRhs(), m_ConstantInt(&c)) ||
          c.getActiveBits() > 63)
        continue;
      const uint64_t k = c.getZExtValue();
      // Which side of the branch has value <= bound.
      std::optional<std::pair<bool, uint64_t>> side;
      switch (cmp.getPredicate()) {
      case LLVM::ICmpPredicate::ugt:
        side = {false, k};
        break;
      case LLVM::ICmpPredicate::uge:
        if (k > 0)
          side = {false, k - 1};
        break;
      case LLVM::ICmpPredicate::ult:
        if (k > 0)
          side = {true, k - 1};
        break;
      case LLVM::ICmpPredicate::ule:
        side = {true, k};
        break;
      case LLVM::ICmpPredicate::eq:
      case LLVM::ICmpPredicate::ne:
        side = {cmp.getPredicate() == LLVM::ICmpPredicate::ne, k}; // value != k on this side
        break;
      default:
        break;
      }
      if (!side)
        continue;
      const bool exclusion =
          cmp.getPredicate() == LLVM::ICmpPredicate::eq || cmp.getPredicate() == LLVM::ICmpPredicate::ne;
      for (Operation *branchUser : cmp->getUsers()) {
        auto branch = dyn_cast<LLVM::CondBrOp>(branchUser);
        if (!branch || branch.getCondition() != cmp.getResult() ||
            branch.getTrueDest() == branch.getFalseDest())
          continue;
        Block *taken = side->first ? branch.getTrueDest() : branch.getFalseDest();
        if (taken->getSinglePredecessor() != branch->getBlock() ||
            !dominance.dominates(taken, at->getBlock()))
          continue;
        if (exclusion)
          excluded.insert(side->second);
        else
          tighten(side->second);
      }
    }
    // `v < 17` then `v != 16` (how LLVM writes a nested `v <= 15`) bounds v by 15.
    while (best && *best > 0 && excluded.contains(*best))
      best = *best - 1;
    return best;
  }

  void checkElementWrite(Operation *op, Value address, const Root &root, std::optional<int64_t> size,
                         bool atomic) {
    Operation *element = root.source.getDefiningOp();
    int64_t elemSize = 0;
    std::string what;
    if (auto get = dyn_cast<oxide::DisjointGetOp>(element)) {
      elemSize = get.getElemSize();
      what = "the thread's own element of output " + outputName(get);
    } else if (auto owned = dyn_cast<oxide::OwnedElemOp>(element)) {
      elemSize = owned.getElemSize();
      what = "the thread's own element of output " + outputName(owned);
    } else if (auto slot = dyn_cast<oxide::ReservedElemOp>(element)) {
      elemSize = slot.getElemSize();
      what = "the thread's reserved slot of AppendSpan " + outputName(slot);
    } else if (auto permuted = dyn_cast<oxide::PermutedElemOp>(element)) {
      elemSize = permuted.getElemSize();
      what = "the thread's element perm[i] of output " + outputName(permuted);
    } else {
      auto span = cast<oxide::SpanElemOp>(element);
      elemSize = span.getElemSize();
      for (const Root &data : rootsOf(span.getData())) {
        if (data.kind == RootKind::Private || data.kind == RootKind::Shared || data.kind == RootKind::Null)
          continue;
        if (data.kind == RootKind::Param && paramKind(data.source) == 'a') {
          if (!atomic)
            report(op, kRuleAtomicOnly, [&](InFlightDiagnostic &d) {
              d << "this is a plain write to an element of AtomicSpan '" << paramName(data.source)
                << "', which other threads update at the same time; use its atomic operations "
                   "(fetch_add, store, exchange, compare_exchange...)";
            });
          continue;
        }
        if (data.kind == RootKind::Param) {
          checkParamWrite(op, data.source);
          continue;
        }
        report(op, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
          d << "this write targets an element of memory that is not an AtomicSpan parameter";
        });
      }
      what = "the element";
    }
    Offset offset = offsetFrom(address, root.source);
    if (offset.state == Offset::Known && size && offset.bytes >= 0 && offset.bytes + *size <= elemSize)
      return;
    report(op, kRuleElementBounds, [&](InFlightDiagnostic &diag) {
      if (offset.state == Offset::Known && size)
        diag << "this write of " << *size << " bytes at byte offset " << offset.bytes << " from " << what
             << " (" << elemSize
             << " bytes) lands outside it, in another thread's element or past the end; write only "
             << "through the pointer get_mut returns (no pointer arithmetic), or use tile_mut for several "
                "elements";
      else
        diag << "this write lands at an offset from " << what << " that Oxide cannot prove stays inside it ("
             << elemSize << " bytes); write only through the pointer get_mut returns, index members of the "
             << "element with constants, or use tile_mut for several elements";
    });
  }

  void checkParamWrite(Operation *op, Value kernelArg) {
    const std::string name = paramName(kernelArg);
    switch (paramKind(kernelArg)) {
    case 'i':
      report(op, kRuleInputWrite, [&](InFlightDiagnostic &d) {
        d << "this write targets input '" << name
          << "', a read-only oxide::Span<const T> that other threads read at the same time: inputs are "
             "never written; write results through a DisjointSpan parameter";
      });
      return;
    case 'o':
    case '2':
    case '3':
      report(op, kRuleOwnElement, [&](InFlightDiagnostic &d) {
        d << "this write targets output '" << name
          << "' at an element that was not obtained through its get_mut(witness) or tile_mut(witness), "
             "so another thread may write the same element; write only through the pointer get_mut "
             "returns for the calling thread's witness";
      });
      return;
    case 'r':
      report(op, kRuleOwnElement, [&](InFlightDiagnostic &d) {
        d << "this write targets AppendSpan '" << name
          << "' (its elements or its counter) outside a slot the writing thread reserved; write through "
             "the pointer get_mut returns for a Reservation from reserve() (or use push)";
      });
      return;
    case 'q':
      report(op, kRuleInputWrite, [&](InFlightDiagnostic &d) {
        d << "this write targets PermutationSpan '" << name
          << "', the index map that makes a scatter disjoint: kernels only read it (a permutation "
             "rewritten during the launch could send two threads to one element); write results "
             "through a DisjointSpan parameter";
      });
      return;
    case 'a':
      report(op, kRuleAtomicOnly, [&](InFlightDiagnostic &d) {
        d << "this write targets AtomicSpan '" << name
          << "' without its atomic operations; use fetch_add, store, exchange or compare_exchange";
      });
      return;
    default:
      report(op, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
        d << "this write targets memory that parameter '" << name
          << "' points to, which the kernel may not write";
      });
    }
  }

  void checkEscape(Operation *op, Value value, llvm::StringRef how) {
    checkHeapEscape(op, value, how);
    for (const Root &root : rootsOf(value))
      if (root.kind == RootKind::Element &&
          isa<oxide::DisjointGetOp, oxide::OwnedElemOp, oxide::ReservedElemOp, oxide::PermutedElemOp>(
              root.source.getDefiningOp())) {
        report(op, kRuleEscape, [&](InFlightDiagnostic &d) {
          d << "the pointer to the thread's own element of output " << outputName(root.source.getDefiningOp())
            << " escapes: it is " << how
            << ", and another thread or later code could write through it; use the pointer only to "
               "read and write that element";
        });
        return;
      }
  }

  //===--------------------------------------------------------------------===//
  // The device heap and printf
  //===--------------------------------------------------------------------===//

  /// A heap block belongs to the thread that allocated it: its address stays in that thread's
  /// registers and private memory, so no other thread can write it or free it.
  void checkHeapEscape(Operation *op, Value value, llvm::StringRef how) {
    const bool heap = llvm::any_of(rootsOf(value), [](const Root &r) { return r.kind == RootKind::Heap; });
    if (!heap)
      return;
    if (auto store = dyn_cast<LLVM::StoreOp>(op); store && !rootsOf(store.getAddr()).empty() &&
                                                  llvm::all_of(rootsOf(store.getAddr()), [](const Root &r) {
                                                    return r.kind == RootKind::Private &&
                                                           r.source.getDefiningOp<LLVM::AllocaOp>();
                                                  }))
      return; // into the thread's own stack
    report(op, kRuleHeap, [&](InFlightDiagnostic &d) {
      d << "the address of a block from malloc or new escapes: it is " << how
        << ", and another thread could then write the block or free it while its owner uses it; keep "
           "the pointer in the thread that allocated it";
    });
  }

  /// The malloc call whose result `value` is, looking through casts, zero offsets, selects and
  /// block arguments; null when it is any other address (or several blocks).
  LLVM::CallOp mallocOf(Value value, unsigned depth = 0) {
    if (depth > 8)
      return {};
    if (auto call = value.getDefiningOp<LLVM::CallOp>())
      return call.getCallee() == "malloc" ? call : LLVM::CallOp();
    if (auto cast = value.getDefiningOp<LLVM::AddrSpaceCastOp>())
      return mallocOf(cast.getArg(), depth + 1);
    if (auto cast = value.getDefiningOp<LLVM::BitcastOp>())
      return mallocOf(cast.getArg(), depth + 1);
    return {};
  }

  /// free(pointer): only the block this thread allocated, at its start, once, and nothing of it
  /// used afterwards. A block is freed where it was allocated, so the check is within a function.
  void checkFree(LLVM::CallOp call, Value pointer) {
    LLVM::CallOp block = mallocOf(pointer);
    if (!block) {
      if (llvm::all_of(rootsOf(pointer), [](const Root &r) { return r.kind == RootKind::Null; }))
        return; // free(nullptr) does nothing
      report(call, kRuleHeap, [&](InFlightDiagnostic &d) {
        d << "free() takes only a pointer that malloc returned in the same function, unchanged; this one "
          << (llvm::any_of(rootsOf(pointer), [](const Root &r) { return r.kind == RootKind::Heap; })
                  ? "points into a block at an offset, or comes from another function"
                  : "does not point to a block of the device heap (an input, an output or a local)")
          << "; free the pointer malloc returned, where it returned it";
      });
      return;
    }
    // Nothing that runs after the free may touch the block: any value derived from it (roots).
    // Once malloc runs again on a path, values it dominates are the new block's; an older one
    // (kept from before, through a phi) is still the freed one.
    DominanceInfo dominance(call->getParentOfType<LLVM::LLVMFuncOp>());
    const Value blockValue = block.getResult();
    SmallVector<std::pair<Operation *, bool>> work; // (first op, malloc ran again on the path)
    llvm::SmallPtrSet<Block *, 16> seenBlocks[2];   // by whether malloc ran again
    auto usesBlock = [&](Operation *op, bool reallocated) {
      if (op == call)
        return false;
      for (Value operand : op->getOperands()) {
        if (!holdsPointers(operand.getType()) || !llvm::any_of(rootsOf(operand), [&](const Root &r) {
              return r.kind == RootKind::Heap && r.source == blockValue;
            }))
          continue;
        if (!reallocated || !dominance.properlyDominates(blockValue, op))
          return true;
      }
      return false;
    };
    auto scanFrom = [&](Operation *first, bool reallocated) -> Operation * {
      for (Operation *op = first; op; op = op->getNextNode()) {
        if (op == block)
          reallocated = true;
        else if (usesBlock(op, reallocated))
          return op;
        if (op->hasTrait<OpTrait::IsTerminator>())
          for (Block *succ : op->getSuccessors())
            if (seenBlocks[reallocated].insert(succ).second)
              work.push_back({&succ->front(), reallocated});
      }
      return nullptr;
    };
    SmallVector<Operation *> uses;
    work.push_back({call->getNextNode(), false});
    while (!work.empty()) {
      auto [first, reallocated] = work.pop_back_val();
      if (Operation *use = first ? scanFrom(first, reallocated) : nullptr)
        uses.push_back(use);
    }
    for (Operation *use : uses)
      report(use, kRuleHeap, [&](InFlightDiagnostic &d) {
        d << "this uses a block from malloc after free() released it"
          << (isCallTo(use, "free") ? " (a second free)" : "")
          << ": the heap may already have given it to another thread; use the block before freeing it";
      });
  }

  static bool isCallTo(Operation *op, llvm::StringRef name) {
    auto call = dyn_cast<LLVM::CallOp>(op);
    return call && call.getCallee() == name;
  }

  /// printf's format must be a string literal without %n, which writes through its argument.
  void checkPrintfFormat(LLVM::CallOp call, Value format) {
    Value base = format;
    while (auto gep = base.getDefiningOp<LLVM::GEPOp>())
      base = gep.getBase();
    if (auto cast = base.getDefiningOp<LLVM::AddrSpaceCastOp>())
      base = cast.getArg();
    auto address = base.getDefiningOp<LLVM::AddressOfOp>();
    auto global = address ? symbols.lookup<LLVM::GlobalOp>(address.getGlobalName()) : LLVM::GlobalOp();
    auto text =
        global && global.getConstant() ? dyn_cast_or_null<StringAttr>(global.getValueOrNull()) : StringAttr();
    if (!text || base != format) {
      report(call, kRulePrintf, [&](InFlightDiagnostic &d) {
        d << "printf in code reached from contracted kernel '" << kernelName(call)
          << "' takes a format that is not a string literal; Oxide checks the format for conversions "
             "that write (%n), so write the format as a literal";
      });
      return;
    }
    llvm::StringRef f = text.getValue();
    for (size_t at = f.find('%'); at != llvm::StringRef::npos; at = f.find('%', at + 1)) {
      size_t end = at + 1;
      while (end < f.size() && llvm::StringRef("-+ #0123456789.*hlLqjzt'").contains(f[end]))
        ++end;
      if (end < f.size() && f[end] == 'n') {
        report(call, kRulePrintf, [&](InFlightDiagnostic &d) {
          d << "printf's %n writes the number of characters printed through its argument, which Oxide "
               "cannot check; count the characters otherwise, or remove the %n";
        });
        return;
      }
      at = end < f.size() && f[end] == '%' ? end : at; // "%%" is a literal '%'
    }
  }

  std::optional<int64_t> sizeOf(Type type) {
    if (!LLVM::isCompatibleType(type))
      return std::nullopt;
    return static_cast<int64_t>(layout.getTypeSize(type).getFixedValue());
  }

  static std::optional<int64_t> constantLength(Value length) {
    APInt value;
    if (matchPattern(length, m_ConstantInt(&value)) && value.getActiveBits() < 63)
      return value.getSExtValue();
    return std::nullopt;
  }

  /// Bytes libdevice function `name` writes through each pointer argument: a float (4), int (4)
  /// or double (8).
  /// The bytes a libdevice function writes through each pointer argument: 4 for the float
  /// functions (a trailing 'f': __nv_sincosf, __nv_fast_sincosf, __nv_modff...) and for
  /// frexp's and remquo's int, 8 for the double ones. __nv_modf is the double modf although its
  /// name ends in 'f'.
  static int64_t libdeviceOutputSize(llvm::StringRef name) {
    if (name == "__nv_modf")
      return 8;
    if (name.ends_with("f") || name.contains("frexp") || name.contains("remquo"))
      return 4;
    return 8;
  }

  void checkCall(LLVM::CallOp call) {
    auto callee = call.getCalleeAttr();
    if (!callee) {
      // Checked with every function whose address is taken; one outside the translation unit
      // could be reached.
      for (LLVM::LLVMFuncOp target : addressTaken)
        if (target.isExternal()) {
          report(call, kRuleOpaque, [&](InFlightDiagnostic &d) {
            d << "code reached from contracted kernel '" << kernelName(call)
              << "' calls through a function pointer, which may reach '"
              << llvm::demangle(target.getSymName().str())
              << "', whose code is not in this translation unit; call the function directly, or drop the "
                 "contract and launch with oxide::unsafe_launch";
          });
          return;
        }
      return;
    }
    auto fn = symbols.lookup<LLVM::LLVMFuncOp>(callee.getValue());
    if (fn && !fn.isExternal())
      return; // checked as a function of its own
    llvm::StringRef name = callee.getValue();
    if (name.starts_with("__nv_")) { // libdevice maths: writes only results through pointers
      for (auto [i, arg] : llvm::enumerate(call.getArgOperands()))
        if (isa<LLVM::LLVMPointerType>(arg.getType()))
          checkWrite(call, call.getArgOperands().getBeginOperandIndex() + i, libdeviceOutputSize(name),
                     false);
      return;
    }
    if (name == "vprintf" && !call.getArgOperands().empty())
      checkPrintfFormat(call, call.getArgOperands()[0]);
    if (name == "free" && !call.getArgOperands().empty()) {
      checkFree(call, call.getArgOperands()[0]);
      return;
    }
    if (llvm::is_contained({"vprintf", "__assertfail", "malloc"}, name)) {
      for (Value arg : call.getArgOperands())
        checkEscape(call, arg, "passed to '" + name.str() + "'");
      return;
    }
    report(call, kRuleOpaque, [&](InFlightDiagnostic &d) {
      d << "code reached from contracted kernel '" << kernelName(call) << "' calls '"
        << llvm::demangle(name.str())
        << "', whose code is not in this translation unit, so Oxide cannot check what it writes; define "
           "it in the file (or a header it includes), or drop the contract and launch with "
           "oxide::unsafe_launch";
    });
  }

  /// Intrinsics that take pointers but never write through them.
  static bool readsOnly(llvm::StringRef intrinsic) {
    return intrinsic.starts_with("llvm.prefetch") || intrinsic.starts_with("llvm.nvvm.ldg") ||
           intrinsic.starts_with("llvm.nvvm.ldu") || intrinsic.starts_with("llvm.nvvm.isspacep") ||
           intrinsic.starts_with("llvm.lifetime") || intrinsic.starts_with("llvm.invariant") ||
           intrinsic.starts_with("llvm.objectsize") || intrinsic.starts_with("llvm.nvvm.prefetch") ||
           intrinsic.starts_with("llvm.threadlocal.address");
  }

  void check(Operation *op) {
    llvm::TypeSwitch<Operation *, void>(op)
        .Case<LLVM::StoreOp>([&](LLVM::StoreOp store) {
          checkEscape(op, store.getValue(), "stored to memory");
          checkWrite(op, 1, sizeOf(store.getValue().getType()),
                     store.getOrdering() != LLVM::AtomicOrdering::not_atomic);
        })
        .Case<LLVM::AtomicRMWOp>([&](LLVM::AtomicRMWOp rmw) {
          checkEscape(op, rmw.getVal(), "stored to memory");
          checkWrite(op, 0, sizeOf(rmw.getVal().getType()), true);
        })
        .Case<LLVM::AtomicCmpXchgOp>([&](LLVM::AtomicCmpXchgOp cas) {
          checkEscape(op, cas.getVal(), "stored to memory");
          checkWrite(op, 0, sizeOf(cas.getVal().getType()), true);
        })
        .Case<LLVM::MemcpyOp, LLVM::MemmoveOp, LLVM::MemsetOp>(
            [&](auto mem) { checkWrite(op, 0, constantLength(mem.getLen()), false); })
        .Case<LLVM::MemcpyInlineOp, LLVM::MemsetInlineOp>(
            [&](auto mem) { checkWrite(op, 0, mem.getLen().getSExtValue(), false); })
        .Case<LLVM::PtrToIntOp>(
            [&](LLVM::PtrToIntOp cast) { checkEscape(op, cast.getArg(), "converted to an integer"); })
        .Case<LLVM::CallOp>([&](LLVM::CallOp call) { checkCall(call); })
        .Case<LLVM::InlineAsmOp>([&](auto) {
          report(op, kRuleOpaque, [&](InFlightDiagnostic &d) {
            d << "inline assembly in code reached from contracted kernel '" << kernelName(op)
              << "' cannot be checked: it may write any memory; use Oxide's device API, or drop the "
                 "contract and launch with oxide::unsafe_launch";
          });
        })
        .Case<LLVM::CallIntrinsicOp>([&](LLVM::CallIntrinsicOp call) {
          // Memory intrinsics the importer keeps by name (other address spaces, volatile forms).
          llvm::StringRef intrinsic = call.getIntrin();
          if ((intrinsic.starts_with("llvm.memcpy") || intrinsic.starts_with("llvm.memmove") ||
               intrinsic.starts_with("llvm.memset")) &&
              call.getArgs().size() >= 3) {
            checkWrite(op, call.getArgs().getBeginOperandIndex(), constantLength(call.getArgs()[2]), false);
            return;
          }
          if (readsOnly(call.getIntrin()) ||
              llvm::none_of(call.getArgs(), [](Value v) { return holdsPointers(v.getType()); }))
            return;
          report(op, kRuleOpaque, [&](InFlightDiagnostic &d) {
            d << "code reached from contracted kernel '" << kernelName(op) << "' calls intrinsic '"
              << call.getIntrin() << "', which may write through its pointer arguments and Oxide cannot "
              << "check; use Oxide's device API, or drop the contract and launch with oxide::unsafe_launch";
          });
        })
        .Case<oxide::DisjointGetOp, oxide::OwnedElemOp>([&](auto get) { checkSpanOrigin(get); })
        .Case<oxide::ReserveOp>([&](oxide::ReserveOp reserve) { checkReserve(reserve); })
        .Case<oxide::ReservedElemOp>([&](oxide::ReservedElemOp slot) { checkReservedSlot(slot); })
        .Case<oxide::PermutedElemOp>([&](oxide::PermutedElemOp permuted) { checkPermutedElem(permuted); })
        .Case<oxide::CpAsyncOp>([&](oxide::CpAsyncOp copy) { checkAsyncCopy(copy); })
        .Case<oxide::TmaLoadOp>([&](oxide::TmaLoadOp copy) { checkTmaLoad(copy); })
        .Case<oxide::TmaStoreOp>([&](oxide::TmaStoreOp copy) { refuseTmaStore(copy); })
        .Case<oxide::StMatrixOp>([&](oxide::StMatrixOp store) { checkStMatrix(store); })
        .Case<oxide::CachedStoreOp>([&](oxide::CachedStoreOp store) { checkCachedStore(store); })
        .Case<oxide::CachedLoadOp>([&](oxide::CachedLoadOp load) { checkCachedLoad(load); })
        .Case<oxide::TmaPrefetchOp>(
            [&](oxide::TmaPrefetchOp prefetch) { checkTensorMap(prefetch, prefetch.getMap()); })
        .Case<oxide::MbarrierInitOp, oxide::MbarrierArriveOp, oxide::MbarrierArriveExpectTxOp,
              oxide::MbarrierArriveClusterOp, oxide::MbarrierTryWaitParityOp, oxide::MbarrierInvalOp>(
            [&](auto barrier) { checkBarrier(barrier, barrier.getBar()); })
        .Case<oxide::SpanElemOp>([&](oxide::SpanElemOp elem) {
          if (auto data = paramField(elem.getData()); data && data->second == kSpanDataOffset)
            recordElementSize(elem, data->first, elem.getElemSize());
        })
        // Synchronisation, register-only warp and tensor-core operations, and the compiler's own
        // failure paths: no memory a thread may not write is reachable through them.
        .Case<oxide::BarrierOp, oxide::FenceOp, oxide::WarpShuffleOp, oxide::WarpVoteOp, oxide::WarpSyncOp,
              oxide::WarpReduxOp, oxide::WarpMatchOp, oxide::ActiveMaskOp, oxide::TrapOp, oxide::BoundsFailOp,
              oxide::ClockOp, oxide::ClusterSyncOp, oxide::GridSyncOp, oxide::MmaSyncOp, oxide::LdMatrixOp,
              oxide::CpAsyncCommitOp, oxide::CpAsyncWaitOp, oxide::MbarrierInitFenceOp,
              oxide::FenceProxyAsyncSharedOp, oxide::TmaStoreCommitOp, oxide::TmaStoreWaitOp, oxide::WgmmaOp,
              oxide::WgmmaFenceOp, oxide::WgmmaCommitGroupOp, oxide::WgmmaWaitGroupOp, oxide::SetMaxNRegOp>(
            [](Operation *) {})
        .Default([&](Operation *) {
          const bool oxideOp = op->getDialect() && op->getDialect()->getNamespace() == "oxide";
          auto effects = dyn_cast<MemoryEffectOpInterface>(op);
          // An operation nobody taught the checks, that may write: never accepted unchecked.
          if ((oxideOp || !op->isRegistered()) && (!effects || !effects.hasNoEffect())) {
            report(op, kRuleUncheckedOp, [&](InFlightDiagnostic &d) {
              d << "operation '" << op->getName() << "' may write memory and no write rule covers it; "
                << "this is a defect of Oxide's compiler (a new operation needs a rule in VerifyWrites), "
                   "please report it";
            });
            return;
          }
          if (!effects)
            return;
          SmallVector<MemoryEffects::EffectInstance> list;
          effects.getEffects(list);
          for (const MemoryEffects::EffectInstance &effect : list) {
            if (!isa<MemoryEffects::Write>(effect.getEffect()))
              continue;
            Value target = effect.getValue();
            if (!target || !isa<LLVM::LLVMPointerType>(target.getType()))
              continue;
            for (OpOperand &operand : op->getOpOperands())
              if (operand.get() == target) {
                checkWrite(op, operand.getOperandNumber(), std::nullopt, false);
                break;
              }
          }
        });
  }

  //===--------------------------------------------------------------------===//
  // Reads of device globals the kernel updates
  //===--------------------------------------------------------------------===//

  /// The symbols of the device globals that pointer `address` may point into.
  SmallVector<llvm::StringRef> globalsOf(Value address) {
    SmallVector<llvm::StringRef> names;
    for (const Root &root : rootsOf(address))
      if (root.kind == RootKind::Global)
        if (auto global = root.source.getDefiningOp<LLVM::AddressOfOp>())
          names.push_back(global.getGlobalName());
    return names;
  }

  /// The functions `kernel` runs: those it reaches by direct calls, and every function whose
  /// address the module takes once one of them calls through a pointer.
  llvm::SetVector<LLVM::LLVMFuncOp> functionsOf(LLVM::LLVMFuncOp kernel) {
    llvm::SetVector<LLVM::LLVMFuncOp> fns;
    for (LLVM::LLVMFuncOp fn : oxide::reachableFunctions(kernel, symbols))
      fns.insert(fn);
    for (size_t i = 0; i < fns.size(); ++i) {
      bool indirect = false;
      LLVM::LLVMFuncOp(fns[i]).walk([&](LLVM::CallOp call) { indirect |= !call.getCalleeAttr(); });
      if (indirect)
        for (LLVM::LLVMFuncOp target : addressTaken)
          if (!target.isExternal())
            for (LLVM::LLVMFuncOp fn : oxide::reachableFunctions(target, symbols))
              fns.insert(fn);
    }
    return fns;
  }

  /// The address an atomic update (read-modify-write, compare-exchange, atomic store) writes.
  static Value atomicUpdateAddress(Operation *op) {
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
  static SmallVector<Value> plainReads(Operation *op) {
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
  static Location readLocation(Operation *op) {
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
    auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
    return fn ? oxide::userLocation(fn.getLoc()) : loc;
  }

  /// How to read device global `symbol` atomically, for the error: its atomic() for a scalar,
  /// atomic(i) for an array, an AtomicRef of the member for a struct.
  std::string atomicReadHint(llvm::StringRef symbol) {
    const std::string name = llvm::demangle(symbol.str());
    Type value;
    if (auto global = symbols.lookup<LLVM::GlobalOp>(symbol))
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
  llvm::ArrayRef<llvm::StringRef> addressesIn(llvm::StringRef symbol) {
    auto [it, inserted] = initializerAddresses.try_emplace(symbol);
    if (inserted)
      if (auto global = symbols.lookup<LLVM::GlobalOp>(symbol))
        global.getInitializerRegion().walk(
            [&](LLVM::AddressOfOp address) { it->second.push_back(address.getGlobalName()); });
    return it->second;
  }

  /// The byte offset inside device global `symbol` that `address` points to, where it is one
  /// constant.
  std::optional<int64_t> offsetInGlobal(Value address, llvm::StringRef symbol) {
    std::optional<int64_t> result;
    for (const Root &root : rootsOf(address)) {
      auto global = root.kind == RootKind::Global ? root.source.getDefiningOp<LLVM::AddressOfOp>() : nullptr;
      if (!global || global.getGlobalName() != symbol)
        continue;
      Offset offset = offsetFrom(address, root.source);
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
  void checkAtomicShapes(const llvm::SetVector<LLVM::LLVMFuncOp> &fns,
                         const llvm::MapVector<llvm::StringRef, Operation *> &updated,
                         const std::string &kernelName) {
    struct Access {
      Operation *op;
      std::optional<int64_t> offset;
      int64_t size;
      bool update;
    };
    llvm::MapVector<llvm::StringRef, SmallVector<Access>> accesses;
    for (LLVM::LLVMFuncOp fn : fns)
      fn.walk([&](Operation *op) {
        Value address = atomicUpdateAddress(op);
        std::optional<int64_t> size;
        if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op))
          size = sizeOf(rmw.getVal().getType());
        else if (auto cas = dyn_cast<LLVM::AtomicCmpXchgOp>(op))
          size = sizeOf(cas.getVal().getType());
        else if (auto store = dyn_cast<LLVM::StoreOp>(op); store && address)
          size = sizeOf(store.getValue().getType());
        else if (auto load = dyn_cast<LLVM::LoadOp>(op);
                 load && load.getOrdering() != LLVM::AtomicOrdering::not_atomic) {
          address = load.getAddr();
          size = sizeOf(load.getResult().getType());
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
              readLocation(access.op), access.update ? kRuleStoreTarget : kRuleGlobalRead,
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
                d.attachNote(oxide::userLocation(update.op->getLoc()))
                    << "kernel '" << kernelName << "' updates it atomically here";
              });
          break;
        }
  }

  /// A plain read of a device global that other threads of the same launch update atomically is
  /// a data race (the PTX memory model orders only atomics against atomics): in a kernel that
  /// updates a global anywhere in the code it runs, every read of that global must be atomic,
  /// whichever element or field it reads, and a pointer to it must not be kept where Oxide
  /// cannot follow it. Kernels that only read a global keep plain loads.
  void checkGlobalReads() {
    for (LLVM::LLVMFuncOp kernel : module.getOps<LLVM::LLVMFuncOp>()) {
      if (!kernels.contains(kernel))
        continue;
      llvm::SetVector<LLVM::LLVMFuncOp> fns = functionsOf(kernel);
      llvm::MapVector<llvm::StringRef, Operation *> updated; // the first update of each global
      for (LLVM::LLVMFuncOp fn : fns)
        fn.walk([&](Operation *op) {
          if (Value address = atomicUpdateAddress(op))
            for (llvm::StringRef global : globalsOf(address))
              updated.insert({global, op});
        });
      if (updated.empty())
        continue;
      const std::string kernelName = llvm::demangle(kernel.getSymName().str());
      checkAtomicShapes(fns, updated, kernelName);
      // The updated global that `pointer` may point into, and its first update.
      auto updatedBy = [&](Value pointer) -> std::optional<std::pair<llvm::StringRef, Operation *>> {
        for (llvm::StringRef global : globalsOf(pointer))
          if (Operation *update = updated.lookup(global))
            return std::pair{global, update};
        return std::nullopt;
      };
      auto noteUpdate = [&](InFlightDiagnostic &d, Operation *update) {
        d.attachNote(oxide::userLocation(update->getLoc()))
            << "kernel '" << kernelName << "' updates it atomically here";
      };
      for (LLVM::LLVMFuncOp fn : fns)
        fn.walk([&](Operation *op) {
          for (Value address : plainReads(op))
            if (auto hit = updatedBy(address)) {
              report(readLocation(op), kRuleGlobalRead, [&](InFlightDiagnostic &d) {
                d << "this plain read of device global '" << llvm::demangle(hit->first.str())
                  << "' races with its atomic updates: kernel '" << kernelName
                  << "' updates it, so other threads may write it while this one reads; read it atomically ("
                  << atomicReadHint(hit->first)
                  << ", or load(oxide::MemoryOrder::acquire) to also see what the writer stored before its "
                     "update), or read it in a kernel that does not update it";
                noteUpdate(d, hit->second);
              });
              break;
            }
          // A global whose initializer holds a pointer into an updated global (a device_global
          // of a struct with `&g.get()` in it): the pointer a load takes from it has no roots.
          if (auto load = dyn_cast<LLVM::LoadOp>(op); load && holdsPointers(load.getResult().getType()))
            for (const Root &root : rootsOf(load.getAddr())) {
              auto holder = root.source ? root.source.getDefiningOp<LLVM::AddressOfOp>() : nullptr;
              if (!holder)
                continue;
              for (llvm::StringRef target : addressesIn(holder.getGlobalName()))
                if (Operation *update = updated.lookup(target)) {
                  report(readLocation(op), kRuleGlobalRead, [&](InFlightDiagnostic &d) {
                    d << "this load takes a pointer into device global '" << llvm::demangle(target.str())
                      << "' from global '" << llvm::demangle(holder.getGlobalName().str())
                      << "', whose initial value holds it; kernel '" << kernelName
                      << "' updates it atomically, and Oxide cannot check that every read through that "
                         "pointer "
                         "is atomic; read it with "
                      << atomicReadHint(target) << " directly";
                    noteUpdate(d, update);
                  });
                  break;
                }
            }
          // A pointer kept in memory or made an integer comes back without its roots: Oxide
          // could not see the reads through it.
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
          if (auto hit = updatedBy(kept)) {
            report(readLocation(op), kRuleGlobalRead, [&](InFlightDiagnostic &d) {
              d << "a pointer into device global '" << llvm::demangle(hit->first.str()) << "', which kernel '"
                << kernelName << "' updates atomically, is " << how
                << ", so Oxide cannot check that every read through it is atomic; read it with "
                << atomicReadHint(hit->first) << " where you need the value, or keep the pointer in a local "
                << "variable";
              noteUpdate(d, hit->second);
            });
          }
        });
    }
  }

  //===--------------------------------------------------------------------===//
  // Asynchronous copies (cp.async, oxide/device/mma.hpp)
  //===--------------------------------------------------------------------===//

  /// A cp.async writes its `bytes` into shared memory only (the write is then checked as any
  /// other shared-memory write: in bounds, or confined to shared memory), and reads them from a
  /// Span<const T> input, which no thread writes during the launch.
  void checkAsyncCopy(oxide::CpAsyncOp copy) {
    const RootSet &dst = rootsOf(copy.getDst());
    if (addressSpace(copy.getDst()) != kShared && (dst.empty() || llvm::any_of(dst, [](const Root &r) {
                                                     return r.kind != RootKind::Shared &&
                                                            r.kind != RootKind::Null;
                                                   }))) {
      report(copy, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
        d << "this asynchronous copy (cp_async) writes memory that is not shared memory; its destination "
             "must be a shared array (oxide::shared_array or oxide::dynamic_shared)";
      });
      return;
    }
    const RootSet &src = rootsOf(copy.getSrc());
    if (src.empty() || llvm::any_of(src, [&](const Root &r) { return !isInputData(r, 0); })) {
      report(copy, kRuleSpanOrigin, [&](InFlightDiagnostic &d) {
        d << "this asynchronous copy (cp_async) reads memory that is not a Span<const T> input of kernel '"
          << kernelName(copy)
          << "'; copy from an input span (cp_async::copy(dst, input, i)), whose memory no thread writes";
      });
      return;
    }
    checkWrite(copy, copy.getDstMutable().getOperandNumber(), copy.getBytes(), false);
  }

  //===--------------------------------------------------------------------===//
  // Hopper: mbarriers and bulk tensor copies (oxide/device/mbarrier.hpp, tma.hpp)
  //===--------------------------------------------------------------------===//

  /// Whether `pointer` points into shared memory only: an addrspace(3) pointer, or one whose every
  /// root is a shared array (of this block, or of another block of the cluster) or null.
  bool pointsIntoShared(Value pointer) {
    if (addressSpace(pointer) == kShared)
      return true;
    const RootSet &set = rootsOf(pointer);
    return !set.empty() && llvm::all_of(set, [](const Root &r) {
      return r.kind == RootKind::Shared || r.kind == RootKind::Null;
    });
  }

  /// An mbarrier is an object in shared memory: the hardware updates it (arrivals, the copy
  /// engine's transactions) where the op says, so a barrier anywhere else would be written by
  /// operations Oxide cannot see.
  void checkBarrier(Operation *op, Value barrier) {
    if (pointsIntoShared(barrier))
      return;
    report(op, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
      if (isa<oxide::TmaLoadOp>(op))
        d << "this bulk tensor copy (TMA) completes its bytes on an mbarrier";
      else
        d << "this mbarrier operation (" << op->getName().stripDialect() << ") takes a barrier";
      d << " that is not in shared memory; an mbarrier is a std::uint64_t in a shared array "
           "(oxide::shared_array or oxide::dynamic_shared)";
    });
  }

  /// The TensorMap of a bulk tensor copy says which global memory it reads and how many bytes
  /// land in shared memory: it must be the descriptor of a TensorMap parameter (kind 't', whose
  /// only field is the pointer the runtime sets to a map it encoded from a DeviceBuffer for this
  /// launch), or a helper's copy of one; never bytes of an input span, nor a map the kernel made
  /// or found in memory.
  void checkTensorMap(Operation *op, Value map) {
    Value base = map;
    while (auto cast = base.getDefiningOp<LLVM::AddrSpaceCastOp>())
      base = cast.getArg();
    auto field = paramField(base);
    if (field && field->second == 0 && paramKind(field->first) == 't')
      return;
    if (field && field->second == 0 && paramKind(field->first) == 'w') {
      report(op, kRuleSpanOrigin, [&](InFlightDiagnostic &d) {
        d << "this bulk tensor copy (TMA) reads through a writable TensorMap (TensorMap<T, ...> with a "
             "non-const T), which a contracted kernel does not take; make the parameter TensorMap<const T, "
             "...>, or launch the kernel with oxide::unsafe_launch";
      });
      return;
    }
    report(op, kRuleSpanOrigin, [&](InFlightDiagnostic &d) {
      d << "this bulk tensor copy (TMA) reads through a TensorMap that is not a parameter of kernel '"
        << kernelName(op)
        << "'; pass the oxide::TensorMap the host made from a DeviceBuffer (oxide::DeviceTensorMap) as a "
           "kernel argument, whose map describes memory the launch binds";
    });
  }

  /// A bulk tensor copy writes its box into shared memory only (lowered through the shared
  /// window, so it cannot land elsewhere); with a multicast mask, at the same offset in other
  /// blocks of the cluster, which distributed shared memory allows (the cluster launch is
  /// oxide-verify-safety's check). Its barrier is shared memory and its map a parameter's.
  void checkTmaLoad(oxide::TmaLoadOp copy) {
    if (!pointsIntoShared(copy.getDst())) {
      report(copy, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
        d << "this bulk tensor copy (TMA) writes memory that is not shared memory; its destination must be "
             "a shared array (oxide::shared_array or oxide::dynamic_shared)";
      });
      return;
    }
    checkBarrier(copy, copy.getBar());
    checkTensorMap(copy, copy.getMap());
  }

  /// A TMA store writes the box into global memory through its TensorMap's descriptor: where it
  /// lands is the map's (and the coordinates'), which the ownership of DisjointSpan2D cannot see.
  void refuseTmaStore(oxide::TmaStoreOp copy) {
    report(copy, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
      d << "a TMA store writes global memory through a descriptor the safe tier cannot confine; write the "
           "block's tile from registers with DisjointSpan2D::warpgroup_tile_mut / tile_mut, or launch the "
           "kernel with oxide::unsafe_launch";
    });
  }

  /// stmatrix writes 16 bytes at each lane's row address, which must be shared memory (as a
  /// cp.async destination: in bounds, or confined to shared memory).
  void checkStMatrix(oxide::StMatrixOp store) {
    if (!pointsIntoShared(store.getRow())) {
      report(store, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
        d << "this warp matrix store (stmatrix) writes memory that is not shared memory; its rows must be "
             "in a shared array (oxide::shared_array or oxide::dynamic_shared)";
      });
      return;
    }
    checkWrite(store, store.getRowMutable().getOperandNumber(), 16, false);
  }

  //===--------------------------------------------------------------------===//
  // Cache-hinted loads and stores (oxide/device/cache.hpp)
  //===--------------------------------------------------------------------===//

  /// Whether `pointer` may point into the thread's local memory or the block's shared memory,
  /// which a cache-hinted access (ld.global / st.global) cannot reach.
  bool mayBeLocalOrShared(Value pointer) {
    const unsigned space = addressSpace(pointer);
    if (space == kShared || space == kLocal)
      return true;
    return llvm::any_of(rootsOf(pointer), [](const Root &r) {
      return r.kind == RootKind::Private || r.kind == RootKind::Shared;
    });
  }

  /// A cache-hinted store is a store: judged by where it lands exactly as a plain one (the
  /// thread's own output element, never an input), and it must land in global memory.
  void checkCachedStore(oxide::CachedStoreOp store) {
    if (mayBeLocalOrShared(store.getPtr())) {
      report(store, kRuleStoreTarget, [&](InFlightDiagnostic &d) {
        d << "this cache-hinted store (st.global." << oxide::stringifyCacheHint(store.getHint())
          << ") may write a local variable or shared memory, which st.global cannot reach; store to the "
             "thread's own output element (the pointer get_mut returns), or use a plain store";
      });
      return;
    }
    checkWrite(store, store.getPtrMutable().getOperandNumber(), sizeOf(store.getValue().getType()), false);
  }

  /// A cache-hinted load reads global memory: never a local variable or shared memory.
  void checkCachedLoad(oxide::CachedLoadOp load) {
    if (!mayBeLocalOrShared(load.getPtr()))
      return;
    report(load, kRuleSpanOrigin, [&](InFlightDiagnostic &d) {
      d << "this cache-hinted load (ld.global." << oxide::stringifyCacheHint(load.getHint())
        << ") may read a local variable or shared memory, which ld.global cannot reach; hinted loads are "
           "for Span<const T> inputs in global memory";
    });
  }

  /// Whether `root` is the memory of a Span<const T> parameter: loaded from the kernel's own
  /// parameter, or from a helper's by-value copy of a span that every caller passes a copy of
  /// such a parameter for (a helper the compiler did not inline).
  bool isInputData(const Root &root, unsigned depth) {
    if (root.kind == RootKind::Null)
      return true;
    if (root.kind == RootKind::Param)
      return paramKind(root.source) == 'i';
    auto load = root.kind == RootKind::Unknown ? root.source.getDefiningOp<LLVM::LoadOp>() : nullptr;
    return load && isInputCopy(load.getAddr(), depth);
  }
  bool isInputCopy(Value address, unsigned depth) {
    const RootSet &copy = rootsOf(address);
    if (depth > 16 || copy.size() != 1 || copy.front().kind != RootKind::Private)
      return false;
    auto arg = dyn_cast<BlockArgument>(copy.front().source);
    if (!arg || !isByval(arg))
      return false;
    if (isKernelArgument(arg))
      return paramKind(arg) == 'i';
    auto fn = cast<LLVM::LLVMFuncOp>(arg.getOwner()->getParentOp());
    auto it = callers.find(fn);
    if (it == callers.end() || addressTaken.contains(fn))
      return false;
    return llvm::all_of(it->second, [&](LLVM::CallOp call) {
      return arg.getArgNumber() < call.getArgOperands().size() &&
             isInputCopy(call.getArgOperands()[arg.getArgNumber()], depth + 1);
    });
  }

  /// A DisjointSpan element comes from a DisjointSpan parameter: its data and extents are that
  /// parameter's fields, so the runtime's binding and overlap checks hold for it.
  template <class ElementOp> void checkSpanOrigin(ElementOp get) {
    const unsigned rank = get.getExtents().size();
    const char expected = rank == 1 ? 'o' : rank == 2 ? '2' : '3';
    auto data = paramField(get.getData());
    bool ok = data && data->second == kSpanDataOffset && paramKind(data->first) == expected;
    for (auto [d, extent] : llvm::enumerate(get.getExtents())) {
      if (!ok)
        break;
      auto field = paramField(extent);
      ok = field && field->first == data->first &&
           field->second == kSpanDataOffset + kSpanExtentStride * static_cast<int64_t>(d + 1);
    }
    if (ok) {
      shapes[data->first].push_back(get.getOperation());
      recordElementSize(get, data->first, get.getElemSize());
      return;
    }
    report(get, kRuleSpanOrigin, [&](InFlightDiagnostic &diag) {
      diag << "this DisjointSpan is not a DisjointSpan parameter of kernel '" << kernelName(get) << "'";
      for (const Root &root : rootsOf(get.getData()))
        if (root.kind == RootKind::Param) {
          diag << ": its memory is parameter '" << paramName(root.source) << "'";
          break;
        }
      diag
          << "; outputs come only from the kernel's own DisjointSpan parameters, which the runtime binds and "
             "checks for overlap (never make spans yourself, and pass the span, not its parts)";
    });
  }

  /// A reservation adds to the counter of one of the kernel's AppendSpan parameters, which the
  /// runtime binds to memory no other argument names.
  void checkReserve(oxide::ReserveOp reserve) {
    auto counter = paramField(reserve.getCounter());
    if (counter && counter->second == static_cast<int64_t>(oxide::detail::kAppendCounterOffset) &&
        paramKind(counter->first) == 'r')
      return;
    report(reserve, kRuleSpanOrigin, [&](InFlightDiagnostic &d) {
      d << "this reservation does not add to the counter of an AppendSpan parameter of kernel '"
        << kernelName(reserve) << "'; reserve slots only through an AppendSpan parameter's reserve()";
    });
  }

  /// A slot is one a reservation of this thread returned: `start` is that reservation's result
  /// (not a value kept in memory or computed from it), for the same count and the same span.
  void checkReservedSlot(oxide::ReservedElemOp slot) {
    auto data = paramField(slot.getData());
    auto size = paramField(slot.getSize());
    bool ok = data && data->second == kSpanDataOffset && paramKind(data->first) == 'r' && size &&
              size->first == data->first && size->second == kSpanDataOffset + kSpanExtentStride;
    auto reserve = slot.getStart().getDefiningOp<oxide::ReserveOp>();
    if (ok && reserve) {
      auto counter = paramField(reserve.getCounter());
      APInt reserved, named;
      const bool sameCount = reserve.getCount() == slot.getCount() ||
                             (matchPattern(reserve.getCount(), m_ConstantInt(&reserved)) &&
                              matchPattern(slot.getCount(), m_ConstantInt(&named)) && reserved == named);
      if (counter && counter->first == data->first && sameCount) {
        recordElementSize(slot, data->first, slot.getElemSize());
        return;
      }
    }
    report(slot, kRuleOwnElement, [&](InFlightDiagnostic &d) {
      if (!ok)
        d << "this slot is not in an AppendSpan parameter of kernel '" << kernelName(slot)
          << "'; append only through the kernel's own AppendSpan parameters";
      else
        d << "this slot of AppendSpan '" << paramName(data->first)
          << "' does not come straight from a reserve() of the writing thread (a reservation handed over "
             "through memory, or an offset computed from one, could give one slot to two threads); call "
             "reserve() in the thread that writes, and write through its Reservation";
    });
  }

  /// The element size device code names a span parameter's elements with: one per parameter,
  /// which the runtime compares with the span's sizeof(T) at prepare (a span reinterpreted as
  /// another element type would index past its end).
  void recordElementSize(Operation *op, Value param, int64_t size) {
    auto [it, inserted] = elementSizes.try_emplace(param, size, op);
    if (inserted || it->second.first == size)
      return;
    report(op, kRuleSpanOrigin, [&](InFlightDiagnostic &d) {
      d << "the elements of parameter '" << paramName(param) << "' are named here as " << size
        << "-byte elements but elsewhere as " << it->second.first
        << "-byte elements: the span is reinterpreted as another element type; use the span's own type";
      d.attachNote(oxide::userLocation(it->second.second->getLoc())) << "the other element size is used here";
    });
  }

  /// Records on each contracted kernel the element size its code uses for each span parameter
  /// (0: none), for the device image (KernelTable.cpp reads "oxide.elem_sizes").
  void recordElementSizes() {
    for (LLVM::LLVMFuncOp kernel : kernels) {
      std::string sizes;
      for (auto [i, arg] : llvm::enumerate(kernel.getArguments())) {
        auto it = elementSizes.find(arg);
        sizes += (i ? "," : "") + std::to_string(it == elementSizes.end() ? 0 : it->second.first);
      }
      MLIRContext *ctx = kernel.getContext();
      SmallVector<Attribute> passthrough;
      if (auto existing = kernel.getPassthroughAttr())
        passthrough.append(existing.begin(), existing.end());
      passthrough.push_back(
          ArrayAttr::get(ctx, {StringAttr::get(ctx, "oxide.elem_sizes"), StringAttr::get(ctx, sizes)}));
      kernel.setPassthroughAttr(ArrayAttr::get(ctx, passthrough));
    }
  }

  /// What a pair's distance is, for comparing two pairs: a constant's value, a kernel
  /// parameter's position, or the value itself.
  static std::string uniformKey(Value value) {
    while (isa_and_nonnull<LLVM::ZExtOp, LLVM::SExtOp>(value.getDefiningOp()))
      value = value.getDefiningOp()->getOperand(0);
    APInt constant;
    if (matchPattern(value, m_ConstantInt(&constant)))
      return "distance " + std::to_string(constant.getZExtValue());
    if (auto arg = dyn_cast<BlockArgument>(value); arg && arg.getOwner()->isEntryBlock())
      return "the distance of kernel parameter " + std::to_string(arg.getArgNumber() + 1);
    return "a distance computed at " +
           std::to_string(reinterpret_cast<std::uintptr_t>(value.getAsOpaquePointer()));
  }

  /// How the threads of `op` (an oxide.disjoint_get or oxide.owned_elem) own the output's
  /// elements, in words: two element ops give each thread the same set only if these are equal.
  std::string shapeOf(Operation *op) {
    if (auto permuted = dyn_cast<oxide::PermutedElemOp>(op)) {
      auto perm = paramField(permuted.getPerm());
      return "elements permuted by parameter '" + (perm ? paramName(perm->first) : std::string("?")) +
             "' (scatter_mut)";
    }
    if (auto get = dyn_cast<oxide::DisjointGetOp>(op)) {
      if (get.getTile() == 1 && get.getTileRows() == 1)
        return "single elements (get_mut)";
      return "tiles of " + std::to_string(get.getTileRows()) + " x " + std::to_string(get.getTile()) +
             " elements (tile_mut)";
    }
    auto owned = cast<oxide::OwnedElemOp>(op);
    std::string text = oxide::stringifyOwnership(owned.getShape()).str() + " sets";
    if (owned.getCount() != 1)
      text += " of " + std::to_string(owned.getCount());
    if (owned.getUniform())
      text += " at " + uniformKey(owned.getUniform());
    if (auto tile = owned.warpgroupTile())
      text += " of " + std::to_string(64 * tile->consumers) + " x " + std::to_string(tile->n) +
              " (warpgroups " + std::to_string(tile->first) + ".." +
              std::to_string(tile->first + tile->consumers - 1) + ", groups of " +
              std::to_string(tile->group) + " tile rows)";
    return text;
  }

  /// Threads own an output's elements by one shape: single elements, tiles of one size, or one
  /// ownership set. Two shapes on one output would give one element to two threads (element 1 of
  /// thread 1, and element 1 of thread 0's tile of 2; a warp's row and a thread's element).
  void checkTileShapes() {
    for (auto &[param, ops] : shapes) {
      Operation *first = ops.front();
      const std::string firstShape = shapeOf(first);
      for (Operation *op : ops) {
        const std::string shape = shapeOf(op);
        if (shape == firstShape)
          continue;
        report(op, kRuleOwnElement, [&](InFlightDiagnostic &d) {
          d << "output '" << paramName(param) << "' is written here as " << shape << " but elsewhere as "
            << firstShape << ": the threads' elements would overlap; use one shape for each output";
          d.attachNote(oxide::userLocation(first->getLoc())) << "the other shape is used here";
        });
        break;
      }
    }
  }

  /// A scatter names element perm[i] of a DisjointSpan parameter through a PermutationSpan
  /// parameter: the runtime bound both (the permutation checked on the host, in memory no kernel
  /// writes), so with the witness i (VerifySafety) different threads get different elements.
  void checkPermutedElem(oxide::PermutedElemOp permuted) {
    auto data = paramField(permuted.getData());
    auto size = paramField(permuted.getSize());
    const bool output = data && data->second == kSpanDataOffset && paramKind(data->first) == 'o' && size &&
                        size->first == data->first && size->second == kSpanDataOffset + kSpanExtentStride;
    auto perm = paramField(permuted.getPerm());
    auto permSize = paramField(permuted.getPermSize());
    const bool permutation = perm && perm->second == kSpanDataOffset && paramKind(perm->first) == 'q' &&
                             permSize && permSize->first == perm->first &&
                             permSize->second == kSpanDataOffset + kSpanExtentStride;
    if (output && permutation) {
      shapes[data->first].push_back(permuted.getOperation());
      recordElementSize(permuted, data->first, permuted.getElemSize());
      recordElementSize(permuted, perm->first, sizeof(std::uint32_t));
      return;
    }
    report(permuted, kRuleSpanOrigin, [&](InFlightDiagnostic &d) {
      if (!output) {
        d << "this scatter's output is not a DisjointSpan parameter of kernel '" << kernelName(permuted)
          << "'; scatter only into the kernel's own DisjointSpan parameters, which the runtime binds and "
             "checks for overlap";
        return;
      }
      d << "this scatter's permutation is not a PermutationSpan parameter of kernel '" << kernelName(permuted)
        << "'";
      for (const Root &root : rootsOf(permuted.getPerm()))
        if (root.kind == RootKind::Param) {
          d << ": its indices are parameter '" << paramName(root.source) << "'";
          break;
        }
      d << "; only a PermutationSpan parameter, bound from an oxide::Permutation the host checked, "
           "makes a scatter disjoint (never make one from other memory)";
    });
  }

  /// Makes the writes to local or shared memory at unproven offsets through pointers of that
  /// address space, so that no offset can take them into global memory.
  void confine() {
    for (auto [op, operand, space] : toConfine) {
      OpBuilder builder(op);
      Value address = op->getOperand(operand);
      auto type = LLVM::LLVMPointerType::get(op->getContext(), space);
      op->setOperand(operand, LLVM::AddrSpaceCastOp::create(builder, op->getLoc(), type, address));
      // An intrinsic kept by name spells its pointer types: llvm.memset.p0.i64 -> llvm.memset.p5.i64.
      if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
        std::string name = call.getIntrin().str();
        if (size_t at = name.find(".p0"); at != std::string::npos)
          name.replace(at, 3, ".p" + std::to_string(space));
        call.setIntrin(name);
      }
    }
  }

  struct Confinement {
    Operation *op;
    unsigned operand;
    unsigned space;
  };

  ModuleOp module;
  SymbolTable symbols;
  DataLayout layout;
  llvm::SetVector<LLVM::LLVMFuncOp> checked;
  llvm::DenseSet<LLVM::LLVMFuncOp> kernels;
  llvm::DenseMap<LLVM::LLVMFuncOp, LLVM::LLVMFuncOp> owner;
  llvm::SetVector<LLVM::LLVMFuncOp> addressTaken;
  llvm::DenseSet<LLVM::LLVMFuncOp> sharedWithUnchecked;
  SmallVector<LLVM::CallOp> indirectCalls;
  llvm::DenseMap<LLVM::LLVMFuncOp, SmallVector<LLVM::CallOp>> callers;
  llvm::DenseMap<Value, KernelParam> paramOf;
  llvm::DenseMap<Value, RootSet> roots;
  llvm::MapVector<Value, SmallVector<Operation *>> shapes;
  llvm::DenseMap<Value, std::pair<int64_t, Operation *>> elementSizes;
  std::vector<Confinement> toConfine;
  llvm::DenseSet<std::pair<Location, llvm::StringRef>> reported;
  DominanceInfo dominance;
  llvm::DenseMap<llvm::StringRef, SmallVector<llvm::StringRef>> initializerAddresses;
  bool changed = false;
  bool failed = false;
};

} // namespace

LogicalResult oxide::verifyWrites(ModuleOp module, llvm::ArrayRef<LLVM::LLVMFuncOp> contractedKernels) {
  if (contractedKernels.empty())
    return success();
  return WriteVerifier(module, contractedKernels).run();
}
