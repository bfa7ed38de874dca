//===- GuardedWrites.cpp - the final IR's writes, each proven again -------===//
//
// See GuardedWrites.h. An address is read back as the span's data pointer plus
// sum(scale * value) + constant bytes, all modulo 2^64 (WriteAddresses.h). With E the element size,
// every scale a multiple of E, L the element index sum(scale / E * value) and [lo, hi] the
// elements that the constant and the access width reach past L, the write lies in the span when
// (L + lo) mod 2^64 and (L + hi) mod 2^64 are both below its extent: a range of hi - lo + 1
// elements with both ends inside [0, size) cannot wrap, as size * E <= 2^64.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/GuardedWrites.h"
#include "oxide/compiler/BoundsFailure.h"
#include "oxide/compiler/IndexFacts.h"
#include "oxide/compiler/LocalArgumentBounds.h"
#include "oxide/compiler/OptimisedCodeError.h"
#include "oxide/compiler/ReturnedPointers.h"
#include "oxide/detail/contract.hpp"
#include "oxide/detail/intrinsic_abi.hpp"
#include "oxide/detail/param_kind.hpp"

#include "ValueRanges.h"
#include "WriteAddresses.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <optional>

using namespace llvm;
using namespace llvm::PatternMatch;
using oxide::ForbiddenWrite;
using oxide::detail::ParamKind;
using oxide::index_facts::FunctionFacts;
using oxide::index_facts::IndexFacts;
using oxide::index_facts::Linear;
using oxide::value_ranges::linearRange;
using oxide::value_ranges::offsetRange;
using oxide::value_ranges::Range;
using oxide::write_addresses::Address;
using oxide::write_addresses::asWrite;
using oxide::write_addresses::decompose;
using oxide::write_addresses::elementIndex;
using oxide::write_addresses::loadedFrom;
using oxide::write_addresses::Parameter;
using oxide::write_addresses::ParameterField;
using oxide::write_addresses::parameters;
using oxide::write_addresses::Write;

namespace {

// The NVPTX address spaces a write can never leave: a block's shared memory and a thread's
// local memory (docs/safety.md, "The hardware's address spaces").
constexpr unsigned kSharedAddressSpace = 3;
constexpr unsigned kConstantAddressSpace = 4;
constexpr unsigned kLocalAddressSpace = 5;

/// The workspace of a grid-wide barrier (`oxide::grid::sync`, lowered as CUDA's cooperative
/// groups do): the address the driver leaves in %envreg1 (high half) and %envreg2 (low half).
bool isGridBarrierWorkspace(const Value *object) {
  const auto *cast = dyn_cast<IntToPtrInst>(object);
  Value *high, *low;
  auto readsRegister = [](Value *v, Intrinsic::ID id) {
    const auto *call = dyn_cast<IntrinsicInst>(v);
    return call && call->getIntrinsicID() == id;
  };
  return cast &&
         match(cast->getOperand(0),
               m_DisjointOr(m_Shl(m_ZExt(m_Value(high)), m_SpecificInt(32)), m_ZExt(m_Value(low)))) &&
         readsRegister(high, Intrinsic::nvvm_read_ptx_sreg_envreg1) &&
         readsRegister(low, Intrinsic::nvvm_read_ptx_sreg_envreg2);
}

std::string quoted(const Parameter &p) { return "'" + p.name + "'"; }

/// The C++ name of `function` (of the helper a clone with bounds was made from).
std::string userName(const Function &function) {
  return demangle(function.getName().str().substr(0, function.getName().rfind(oxide::kBoundedSuffix)));
}

using oxide::LocalArray;

/// Audits the writes of one kernel, or one helper's writes into local arrays.
class KernelAudit {
public:
  KernelAudit(Function &kernel, ArrayRef<Parameter> params, std::vector<ForbiddenWrite> &findings,
              const DenseMap<const Argument *, oxide::LocalBounds> *argumentBounds = nullptr,
              bool localOnly = false)
      : kernel(kernel), params(params), findings(findings), argumentBounds(argumentBounds),
        localOnly(localOnly), name(userName(kernel)), layout(kernel.getParent()->getDataLayout()),
        dominators(kernel) {
    for (Instruction &inst : instructions(kernel))
      if (auto *call = dyn_cast<IntrinsicInst>(&inst); call && call->getIntrinsicID() == Intrinsic::assume)
        assumptions.push_back(call);
    if (kernel.hasFnAttribute("oxide.contract"))
      restateContract();
    // The audit adds no block until every write is proven or listed (run()), so the facts of
    // blocks and edges are gathered once for all of them.
    known = std::make_unique<FunctionFacts>(dominators, assumptions);
  }
  KernelAudit(const KernelAudit &) = delete;
  KernelAudit &operator=(const KernelAudit &) = delete;
  ~KernelAudit() {
    for (Instruction *inst : llvm::reverse(temporaries))
      inst->eraseFromParent();
  }

  /// Audits every write, then guards again those whose bounds it could not prove; returns
  /// them.
  SmallVector<Instruction *, 4> run() {
    SmallVector<Write, 16> writes;
    for (Instruction &inst : instructions(kernel))
      if (std::optional<Write> write = asWrite(inst, layout))
        writes.push_back(*write);
    for (const Write &write : writes)
      audit(write);
    for (const Unproven &u : unproven)
      guardAgain(u);
    for (const auto &[write, arrays] : unprovenLocal)
      guardLocal(write, arrays);
    return guarded;
  }

private:
  void fail(const Write &write, std::string what) { findings.push_back({write.inst, name, std::move(what)}); }

  /// What one object a write may reach is.
  enum class Target { allowed, span, forbidden };

  Target classify(const Write &write, const Value *object, std::optional<ParameterField> &field) {
    if (isa<AllocaInst>(object) || isa<ConstantPointerNull>(object))
      return Target::allowed; // the thread's own stack; null faults
    if (const auto *global = dyn_cast<GlobalVariable>(object)) {
      const unsigned globalSpace = global->getAddressSpace();
      if (globalSpace == kSharedAddressSpace || globalSpace == kLocalAddressSpace)
        return Target::allowed;
      if (globalSpace == kConstantAddressSpace || global->isConstant())
        return fail(write, "it writes the constant '" + demangle(global->getName().str()) + "'"),
               Target::forbidden;
      if (write.atomic)
        return Target::allowed; // a device_global's atomic() (the write check allows atomics only)
      fail(write, "it writes the global variable '" + demangle(global->getName().str()) +
                      "' without an atomic operation");
      return Target::forbidden;
    }
    if (const auto *call = dyn_cast<CallBase>(object);
        call && call->getCalledFunction() && call->getCalledFunction()->getName() == "malloc")
      return Target::allowed; // the thread's own heap block ([safety rule: device-heap])
    if (isGridBarrierWorkspace(object)) {
      if (write.atomic)
        return Target::allowed;
      fail(write, "it writes the grid barrier's workspace without an atomic operation");
      return Target::forbidden;
    }
    field = loadedFrom(object);
    if (!field) {
      fail(write,
           "the audit cannot trace its address to a span parameter or to memory of the thread or its block");
      return Target::forbidden;
    }
    return Target::span;
  }

  void audit(const Write &write) {
    const unsigned space = write.pointer->getType()->getPointerAddressSpace();
    if (space == kSharedAddressSpace)
      return;
    // Every object the address may be based on, through selects, phis and helpers that return
    // a pointer they were given (a write at `*at(local, i)` is tested against `local`).
    SmallVector<const Value *, 4> objects = oxide::underlyingObjectsThroughCalls(write.pointer);
    if (std::optional<SmallVector<LocalArray, 2>> arrays = localArrays(objects)) {
      auditLocal(write, std::move(*arrays));
      return;
    }
    if (localOnly)
      return;
    // A helper's other writes, through its arguments, were proven before optimisation at
    // constant offsets (the write proof refuses the others), and its spans' in its callers.
    if (space == kLocalAddressSpace) {
      fail(write, "it writes local memory that the audit cannot trace to one of the thread's arrays");
      return;
    }
    if (!kernel.hasFnAttribute("oxide.contract"))
      return;
    SmallVector<ParameterField, 2> spans;
    bool others = false;
    for (const Value *object : objects) {
      std::optional<ParameterField> field;
      switch (classify(write, object, field)) {
      case Target::forbidden:
        return;
      case Target::allowed:
        others |= !isa<ConstantPointerNull>(object);
        break;
      case Target::span:
        if (!llvm::any_of(spans, [&](const ParameterField &f) {
              return f.parameter == field->parameter && f.offset == field->offset;
            }))
          spans.push_back(*field);
        break;
      }
    }
    if (spans.empty())
      return;
    if (spans.size() > 1 || others) {
      // A pointer that is one span's element or another's, or the thread's own memory: each
      // target is checked; the bounds stay those the write check proved of each (the address
      // is a choice between checked pointers, which no index reaches).
      for (const ParameterField &field : spans)
        checkTarget(write, field, params[field.parameter->getArgNo()]);
      return;
    }
    const Parameter &param = params[spans[0].parameter->getArgNo()];
    if (!checkTarget(write, spans[0], param))
      return;
    // One object: its address read back to an index, or, through a choice of pointers into it,
    // tested again.
    if (objects.size() != 1 || !withinSpan(write, spans[0].parameter, param))
      unproven.push_back({write, spans[0].parameter, &param});
  }

  /// The arrays of the thread a write at `objects` lands in: the function's allocas, or a
  /// caller's array reached through a bounded argument (LocalArgumentBounds.h); nullopt where it
  /// may land elsewhere. (A null object adds none: the write would fault.)
  std::optional<SmallVector<LocalArray, 2>> localArrays(ArrayRef<const Value *> objects) const {
    SmallVector<LocalArray, 2> arrays;
    for (const Value *object : objects) {
      if (isa<ConstantPointerNull>(object))
        continue;
      if (const auto *argument = dyn_cast<Argument>(object)) {
        if (!argumentBounds || !argumentBounds->contains(argument))
          return std::nullopt;
        arrays.push_back({nullptr, 0, &argumentBounds->find(argument)->second});
        continue;
      }
      const auto *array = dyn_cast<AllocaInst>(object);
      std::optional<TypeSize> size = array ? array->getAllocationSize(layout) : std::nullopt;
      if (!size || size->isScalable())
        return std::nullopt; // a dynamic alloca: the frontend emits none in device code
      arrays.push_back({array, size->getFixedValue(), nullptr});
    }
    return arrays.empty() ? std::nullopt : std::optional(std::move(arrays));
  }

  /// A write into the thread's own arrays. Past an array it would reach the thread's other
  /// locals and the spill slots ptxas adds to the frame, among them addresses the other writes
  /// were proven for; so a write not proven inside its array is tested (a constant offset, or an
  /// index the facts bound by the array's length).
  void auditLocal(const Write &write, SmallVector<LocalArray, 2> arrays) {
    if (arrays.size() == 1 && arrays[0].alloca && withinLocal(write, arrays[0].alloca, arrays[0].bytes))
      return;
    unprovenLocal.push_back({write, std::move(arrays)});
  }

  bool withinLocal(const Write &write, const AllocaInst *array, uint64_t size) {
    if (!write.bytes || *write.bytes == 0 || *write.bytes > size)
      return false;
    if (std::optional<Range> bytes = offsetRange(write.pointer, array, layout);
        bytes && bytes->lo >= 0 && bytes->hi <= static_cast<int64_t>(size - *write.bytes))
      return true;
    const auto unit = static_cast<int64_t>(oxide::localElementUnit(*array, layout));
    std::optional<Address> address = decompose(write.pointer, unit, layout);
    if (!address || address->base != array)
      return false;
    const auto limit = static_cast<int64_t>(size - *write.bytes); // the last byte the write may start at
    if (address->terms.empty())
      return address->constant >= 0 && address->constant <= limit;
    // index * unit + constant with index <u count - hi, hi the elements the constant and width reach.
    if (address->constant < 0 || static_cast<uint64_t>(size) % unit != 0)
      return false;
    const int64_t last = address->constant + static_cast<int64_t>(*write.bytes) - 1;
    const int64_t reach = last / unit;
    const int64_t count = static_cast<int64_t>(size) / unit;
    std::optional<Linear> index = elementIndex(*address, unit, /*whole=*/false);
    if (!index || reach >= count)
      return false;
    if (std::optional<Range> range = linearRange(*index);
        range && range->lo >= 0 && range->hi < count - reach)
      return true;
    Value *bound = ConstantInt::get(Type::getInt64Ty(kernel.getContext()), count - reach);
    return known->at(write.inst).below(*index, bound);
  }

  /// Tests, ahead of `write`, that it lies inside one of `arrays`, and stops the kernel with the
  /// bounds report where it does not.
  void guardLocal(const Write &write, ArrayRef<LocalArray> arrays) {
    Instruction *at = write.inst;
    IRBuilder<> b(at);
    Value *width = write.bytes ? b.getInt64(*write.bytes)
                               : b.CreateZExtOrTrunc(cast<AnyMemIntrinsic>(at)->getLength(), b.getInt64Ty());
    const oxide::LocalArrayTest test =
        oxide::testInsideLocalArrays(b, write.pointer, width, arrays, write.bytes);
    Instruction *stop = SplitBlockAndInsertIfThen(test.outside, at->getIterator(), /*Unreachable=*/true);
    stop->getParent()->getSinglePredecessor()->getTerminator()->setMetadata("oxide.guard.again",
                                                                            MDNode::get(b.getContext(), {}));
    b.SetInsertPoint(stop);
    report(b, b.CreateUDiv(test.offset, test.unit), b.CreateUDiv(test.count, test.unit), at,
           "write inside its local array");
    b.CreateIntrinsic(Intrinsic::trap, {});
    guarded.push_back(at);
  }

  /// Whether `write` may write the span field `field` (else reported); false also for an
  /// append span's counter, which has no bounds to prove.
  bool checkTarget(const Write &write, const ParameterField &field, const Parameter &param) {
    using oxide::detail::kAppendCounterOffset;
    using oxide::detail::kSpanDataOffset;
    if (param.kind == ParamKind::append && field.offset == static_cast<int64_t>(kAppendCounterOffset)) {
      if (!write.atomic)
        fail(write, "it writes the counter of append span " + quoted(param) + " without an atomic operation");
      return false;
    }
    if (field.offset != static_cast<int64_t>(kSpanDataOffset) || !oxide::detail::is_span(param.kind))
      return fail(write, "it writes through a pointer loaded from parameter " + quoted(param) +
                             ", which is not the data of a span the kernel may write"),
             false;
    switch (param.kind) {
    case ParamKind::output:
    case ParamKind::output_2d:
    case ParamKind::output_3d:
      break;
    case ParamKind::atomic:
    case ParamKind::append:
    case ParamKind::claims:
      if (!write.atomic && param.kind != ParamKind::append)
        return fail(write, "it writes " + std::string(oxide::detail::param_kind_name(param.kind)) + " span " +
                               quoted(param) + " without an atomic operation"),
               false;
      break;
    default:
      return fail(write, "it writes " + std::string(oxide::detail::param_kind_name(param.kind)) + " " +
                             quoted(param) + ", which the kernel may only read"),
             false;
    }
    return true;
  }

  /// A write the facts do not bound, to guard again.
  struct Unproven {
    Write write;
    Argument *parameter;
    const Parameter *param;
  };

  /// Tests, ahead of `u`'s write, that every byte it writes lies in its span, and stops the
  /// kernel with the bounds report (or a trap) where one does not: the guard the lowering
  /// emitted, in a form that reads the address itself (data <= address, address + width <=
  /// data + size * element size), so that whatever the optimiser did to the index, the write
  /// that runs is in bounds.
  void guardAgain(const Unproven &u) {
    Instruction *at = u.write.inst;
    IRBuilder<> b(at);
    Type *i64 = b.getInt64Ty();
    Value *data = b.CreateLoad(b.getPtrTy(), u.parameter, "oxide.span.data");
    Value *count = nullptr;
    for (unsigned axis = 0; axis < oxide::detail::span_extents(u.param->kind); ++axis) {
      const auto offset = oxide::detail::kSpanExtentOffset + axis * oxide::detail::kSpanExtentStride;
      Value *extent = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), u.parameter, offset));
      count = count ? b.CreateMul(count, extent) : extent;
    }
    const uint64_t unit = u.param->kind == ParamKind::claims ? 4 : u.param->elementSize;
    // A claim set's size counts bits, in 32-bit words, at least one (oxide::Claims::words).
    if (u.param->kind == ParamKind::claims)
      count = b.CreateBinaryIntrinsic(Intrinsic::umax, b.CreateLShr(b.CreateAdd(count, b.getInt64(31)), 5),
                                      b.getInt64(1));
    Value *bytes = b.CreateMul(count, b.getInt64(unit), "oxide.span.bytes");
    Value *width = u.write.bytes ? b.getInt64(*u.write.bytes)
                                 : b.CreateZExtOrTrunc(cast<AnyMemIntrinsic>(at)->getLength(), i64);
    Value *pointer = u.write.pointer;
    if (pointer->getType()->getPointerAddressSpace() != 0)
      pointer = b.CreateAddrSpaceCast(pointer, b.getPtrTy());
    Value *offset = b.CreateSub(b.CreatePtrToInt(pointer, i64), b.CreatePtrToInt(data, i64), "oxide.offset");
    Value *fails = b.CreateOr(b.CreateICmpULT(bytes, width),
                              b.CreateICmpUGT(offset, b.CreateSub(bytes, width)), "oxide.write.outside");
    Instruction *stop = SplitBlockAndInsertIfThen(fails, at->getIterator(), /*Unreachable=*/true);
    // Marked, for the reader of --emit=llvm and for tests.
    stop->getParent()->getSinglePredecessor()->getTerminator()->setMetadata("oxide.guard.again",
                                                                            MDNode::get(b.getContext(), {}));
    b.SetInsertPoint(stop);
    report(b, b.CreateUDiv(offset, b.getInt64(unit)), count, at, "span index in bounds");
    b.CreateIntrinsic(Intrinsic::trap, {});
    guarded.push_back(at);
  }

  /// The bounds report of oxide-to-nvvm (index, size, file, line, function), where the module has
  /// it, else CUDA's assertion report with the line (a kernel whose only checks the audit added);
  /// the trap after it stops the kernel either way.
  void report(IRBuilder<> &b, Value *index, Value *size, Instruction *at, StringRef assertion) {
    Module &module = *kernel.getParent();
    Function *failure = module.getFunction(oxide::kBoundsFailureName);
    const DILocation *loc = at->getDebugLoc().get();
    if (!loc)
      return;
    if (!failure || failure->arg_size() != 5) {
      FunctionCallee assertFail =
          module.getOrInsertFunction("__assertfail", b.getVoidTy(), b.getPtrTy(), b.getPtrTy(),
                                     b.getInt32Ty(), b.getPtrTy(), b.getInt64Ty());
      b.CreateCall(assertFail, {b.CreateGlobalString(assertion, "__oxide_assertion.guard"),
                                b.CreateGlobalString(loc->getFilename(), "__oxide_file.guard"),
                                b.getInt32(loc->getLine()),
                                b.CreateGlobalString(name, "__oxide_function.guard"), b.getInt64(1)});
      return;
    }
    // LLVM bounded the line argument by the calls it saw.
    for (unsigned i = 0; i < failure->arg_size(); ++i)
      failure->removeParamAttr(i, Attribute::Range);
    for (User *user : failure->users())
      if (auto *call = dyn_cast<CallBase>(user))
        for (unsigned i = 0; i < call->arg_size(); ++i)
          call->removeParamAttr(i, Attribute::Range);
    Value *file = b.CreateGlobalString(loc->getFilename(), "__oxide_file.guard");
    Value *function = b.CreateGlobalString(name, "__oxide_function.guard");
    b.CreateCall(failure, {index, size, file, b.getInt32(loc->getLine()), function})
        ->setCallingConv(failure->getCallingConv());
  }

  /// The contract's `requires` relations, stated again at the kernel's entry as the lowering
  /// assumed them (oxide-optimize): LLVM drops an assumption no optimisation used
  /// (DropUnnecessaryAssumes, as `total.size() == 1` once the guard it proved was gone), and the
  /// audit needs it to prove that guard's write again. The runtime checks each relation at the
  /// launch, so they hold; erased with the other temporaries.
  void restateContract() {
    std::vector<bool> spans;
    for (const Parameter &param : params)
      spans.push_back(oxide::detail::is_span(param.kind));
    const auto parsed = oxide::detail::parse_canonical_contract(
        kernel.getFnAttribute("oxide.contract").getValueAsString(), spans);
    const auto *contract = std::get_if<oxide::detail::Contract>(&parsed);
    if (!contract)
      return;
    IRBuilder<> b(&*kernel.getEntryBlock().getFirstInsertionPt());
    using Op = oxide::detail::ContractRelation::Op;
    for (const oxide::detail::ContractRelation &relation : contract->requires_) {
      Value *lhs = contractValue(*contract, relation.lhs, b),
            *rhs = contractValue(*contract, relation.rhs, b);
      if (!lhs || !rhs)
        continue;
      const CmpInst::Predicate predicate = relation.op == Op::Eq   ? ICmpInst::ICMP_EQ
                                           : relation.op == Op::Ne ? ICmpInst::ICMP_NE
                                           : relation.op == Op::Lt ? ICmpInst::ICMP_ULT
                                           : relation.op == Op::Le ? ICmpInst::ICMP_ULE
                                           : relation.op == Op::Gt ? ICmpInst::ICMP_UGT
                                                                   : ICmpInst::ICMP_UGE;
      Value *holds = temporary(b.CreateICmp(predicate, lhs, rhs));
      auto *assume = cast<IntrinsicInst>(b.CreateAssumption(holds));
      temporaries.push_back(assume);
      assumptions.push_back(assume);
    }
  }

  /// Expression `node` of `contract` in the kernel's values; null where a parameter is not what
  /// the contract says.
  Value *contractValue(const oxide::detail::Contract &contract, uint32_t node, IRBuilder<> &b) {
    using Kind = oxide::detail::ContractNode::Kind;
    const oxide::detail::ContractNode &n = contract.nodes[node];
    if (n.kind == Kind::Literal)
      return b.getInt64(n.value);
    if (n.kind == Kind::Size || n.kind == Kind::Scalar || n.kind == Kind::Extent) {
      if (n.value >= kernel.arg_size())
        return nullptr;
      Argument *argument = kernel.getArg(static_cast<unsigned>(n.value));
      const unsigned extents = oxide::detail::span_extents(params[n.value].kind);
      if (n.kind == Kind::Scalar) {
        // The runtime rejects a negative signed scalar that `requires` reads.
        auto *type = dyn_cast<IntegerType>(argument->getType());
        return type && type->getBitWidth() <= 64 ? temporary(b.CreateZExtOrTrunc(argument, b.getInt64Ty()))
                                                 : nullptr;
      }
      if (n.kind == Kind::Extent)
        return n.axis < extents ? extent(argument, n.axis) : nullptr;
      Value *size = nullptr;
      for (unsigned axis = 0; axis < extents; ++axis)
        size = size ? temporary(b.CreateMul(size, extent(argument, axis))) : extent(argument, axis);
      return size;
    }
    Value *lhs = contractValue(contract, n.lhs, b), *rhs = contractValue(contract, n.rhs, b);
    if (!lhs || !rhs)
      return nullptr;
    switch (n.kind) {
    case Kind::Add:
      return temporary(b.CreateAdd(lhs, rhs));
    case Kind::Sub:
      return temporary(b.CreateSub(lhs, rhs));
    case Kind::Mul:
      return temporary(b.CreateMul(lhs, rhs));
    case Kind::Div:
      return temporary(b.CreateUDiv(lhs, rhs));
    default:
      return temporary(b.CreateURem(lhs, rhs));
    }
  }

  /// `v`, recorded for erasure when it is an instruction (the builder folds constants).
  Value *temporary(Value *v) {
    if (auto *inst = dyn_cast<Instruction>(v))
      temporaries.push_back(inst);
    return v;
  }

  /// A load of the extent `index` (0: size or width) of span parameter `parameter`, at the
  /// kernel's entry; the prover knows two loads of one field as one value.
  Value *extent(Argument *parameter, unsigned index) {
    Value *&cached = extents[{parameter, index}];
    if (cached)
      return cached;
    IRBuilder<> builder(&*kernel.getEntryBlock().getFirstInsertionPt());
    const auto offset = oxide::detail::kSpanExtentOffset + index * oxide::detail::kSpanExtentStride;
    auto *address =
        cast<Instruction>(builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), parameter, offset));
    auto *load = builder.CreateLoad(builder.getInt64Ty(), address);
    temporaries.push_back(address);
    temporaries.push_back(load);
    return cached = load;
  }

  /// The values the contract's assumptions make equal to `v` (v included).
  SmallVector<Value *, 4> equalTo(Value *v) {
    SmallVector<Value *, 4> result{v};
    for (size_t i = 0; i < result.size(); ++i)
      for (IntrinsicInst *assume : assumptions) {
        Value *a, *b;
        if (!match(assume->getArgOperand(0), m_SpecificICmp(ICmpInst::ICMP_EQ, m_Value(a), m_Value(b))))
          continue;
        for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}})
          if (oxide::index_facts::sameValue(x, result[i]) &&
              !llvm::any_of(result, [&](Value *r) { return oxide::index_facts::sameValue(r, y); }))
            result.push_back(y);
      }
    return result;
  }

  bool withinSpan(const Write &write, Argument *parameter, const Parameter &param) {
    // A claim set's words are 32-bit.
    const auto elementSize = param.kind == ParamKind::claims ? 4 : static_cast<int64_t>(param.elementSize);
    if (!write.bytes || *write.bytes == 0 || elementSize <= 0)
      return false;
    std::optional<Address> address = decompose(write.pointer, elementSize, layout);
    if (!address)
      return false;
    if (param.kind == ParamKind::claims)
      return withinClaims(write.inst, *address, *write.bytes, parameter);
    // L + lo .. L + hi: the elements the write reaches; L read with each term whole (the facts
    // may name it: `i < n` of i = blockIdx.x * blockDim.x + threadIdx.x), then through its sums.
    const int64_t lo = divideFloorSigned(address->constant, elementSize);
    int64_t last;
    if (AddOverflow(address->constant, static_cast<int64_t>(*write.bytes) - 1, last))
      return false;
    const int64_t hi = divideFloorSigned(last, elementSize);
    const IndexFacts facts = known->at(write.inst);
    // A write whose check oxide-loop-bounds-checks proved (markProvedWrites): its index, or for
    // a 2-D span its column, is below the extent; the row is proven here.
    if (write.inst->getMetadata(oxide::kProvedWriteMetadata)) {
      const unsigned extents = oxide::detail::span_extents(param.kind);
      std::optional<Linear> index = elementIndex(*address, elementSize, /*whole=*/false);
      return extents == 1 ||
             (extents == 2 && index && facts.rowBelow(*index, extent(parameter, 0), extent(parameter, 1)));
    }
    auto inRange = [&](const Linear &index, int64_t shift) {
      Linear shifted = index;
      if (AddOverflow(shifted.constant, shift, shifted.constant))
        return false;
      const unsigned extents = oxide::detail::span_extents(param.kind);
      if (extents == 2)
        return facts.belowProduct(shifted, extent(parameter, 0), extent(parameter, 1));
      if (extents == 3)
        return facts.belowProduct(shifted, extent(parameter, 0), extent(parameter, 1), extent(parameter, 2));
      if (extents != 1)
        return false;
      return llvm::any_of(equalTo(extent(parameter, 0)),
                          [&](Value *size) { return facts.below(shifted, size); });
    };
    for (bool whole : {true, false}) {
      std::optional<Linear> index = elementIndex(*address, elementSize, whole);
      if (index && inRange(*index, lo) && (hi == lo || inRange(*index, hi)))
        return true;
    }
    return false;
  }

  /// A claim set's word `bit >> 5`, written whole, for a bit below its size.
  /// A claim set has at least one word (oxide::Claims::words), so word 0 is always inside it:
  /// claim_mut's lowering claims word 0 with an empty mask for an index out of range.
  bool withinClaims(Instruction *at, const Address &address, uint64_t bytes, Argument *parameter) {
    if (address.constant != 0 || bytes != 4)
      return false;
    if (address.terms.empty())
      return true;
    Value *word = address.terms[0].first, *bit, *outside;
    if (address.terms.size() != 1 || address.terms[0].second != 4)
      return false;
    // select(j is out of range, 0, j >> 5): the word of j, where j < size is part of the test.
    if (match(word, m_Select(m_Value(outside), m_Zero(), m_LShr(m_Value(bit), m_SpecificInt(5)))))
      return testsBelow(outside, bit, extent(parameter, 0));
    if (!match(word, m_LShr(m_Value(bit), m_SpecificInt(5))))
      return false;
    return known->at(at).below(bit, extent(parameter, 0));
  }

  /// Whether `outside` is false only where j <u size: it is `size <=u j` or `j >=u size`, or an
  /// `or` with one of these.
  static bool testsBelow(Value *outside, Value *j, Value *size, unsigned depth = 0) {
    Value *a, *b, *l, *r;
    CmpPredicate p;
    if (depth < 4 && match(outside, m_LogicalOr(m_Value(a), m_Value(b))))
      return testsBelow(a, j, size, depth + 1) || testsBelow(b, j, size, depth + 1);
    if (!match(outside, m_ICmp(p, m_Value(l), m_Value(r))))
      return false;
    using oxide::index_facts::sameValue;
    return (p == ICmpInst::ICMP_ULE && sameValue(l, size) && sameValue(r, j)) ||
           (p == ICmpInst::ICMP_UGE && sameValue(l, j) && sameValue(r, size));
  }

  Function &kernel;
  ArrayRef<Parameter> params;
  std::vector<ForbiddenWrite> &findings;
  const DenseMap<const Argument *, oxide::LocalBounds> *argumentBounds;
  /// Only the writes into the thread's arrays (unoptimised code: the other guards are the
  /// lowering's own, and pointers may pass through memory the audit does not follow).
  bool localOnly;
  std::string name;
  const DataLayout &layout;
  DominatorTree dominators;
  SmallVector<IntrinsicInst *, 8> assumptions;
  std::unique_ptr<FunctionFacts> known;
  SmallVector<Instruction *, 8> temporaries;
  DenseMap<std::pair<Argument *, unsigned>, Value *> extents;
  SmallVector<Unproven, 4> unproven;
  /// Writes into the thread's arrays not proven inside them, with the arrays they may reach.
  SmallVector<std::pair<Write, SmallVector<LocalArray, 2>>, 2> unprovenLocal;
  SmallVector<Instruction *, 4> guarded;
};

std::string describe(const ForbiddenWrite &finding) {
  if (finding.limitation)
    return "this write of '" + finding.function + "' " + finding.what + " [safety rule: store-target]";
  return "this write of '" + finding.function +
         "' is not allowed in the optimised device code: " + finding.what +
         "; this is a defect of Oxide's compiler, please report it with this file [safety rule: "
         "optimised-guard]";
}

void auditKernel(Function &kernel, oxide::WriteAudit &audit, bool localOnly = false) {
  if (kernel.isDeclaration() || !kernel.hasFnAttribute("oxide.contract"))
    return;
  std::optional<SmallVector<Parameter, 8>> params = parameters(kernel);
  if (!params) {
    audit.forbidden.push_back({nullptr, demangle(kernel.getName().str()),
                               "its parameters are not described (oxide.params, oxide.elem_sizes)"});
    return;
  }
  for (Instruction *write : KernelAudit(kernel, *params, audit.forbidden, nullptr, localOnly).run())
    audit.guarded.push_back(write);
}

} // namespace

oxide::WriteAudit oxide::auditWrites(Module &module, bool localOnly) {
  WriteAudit audit;
  for (Function &function : module)
    auditKernel(function, audit, localOnly);
  // Helpers that write through a pointer argument into a caller's array get its bounds.
  SmallVector<Function *, 8> kernels;
  for (Function &function : module)
    if (!function.isDeclaration() && function.hasFnAttribute("oxide.contract"))
      kernels.push_back(&function);
  const DataLayout &layout = module.getDataLayout();
  // Helpers the kernels reach; a call through a pointer, which may have been cast, may reach
  // any function whose address is taken.
  SetVector<Function *> reached =
      oxide::reachedFunctions(kernels, [](const CallBase &, const Function &) { return true; });
  reached.remove_if([](const Function *f) { return f->hasFnAttribute("oxide.contract"); });
  const oxide::BoundedArguments bounded = oxide::boundLocalArguments(
      module, kernels, reached.getArrayRef(), [&](Instruction &inst) -> const Value * {
        std::optional<Write> write = asWrite(inst, layout);
        return write && write->pointer->getType()->getPointerAddressSpace() == kLocalAddressSpace
                   ? write->pointer
                   : nullptr;
      });
  for (const Instruction *at : bounded.untold)
    audit.forbidden.push_back(
        {at, userName(*at->getFunction()),
         isa<CallBase>(at)
             ? "passes on a pointer that may be into a local array of its caller or elsewhere, and "
               "a write through it cannot be tested against the array; pass separate pointers"
             : "lands in a local array of its caller at an offset Oxide cannot bound, and a function "
               "called through a pointer cannot be given the array's bounds to test it; call the "
               "function directly, or let it be inlined",
         /*limitation=*/true});
  for (Function *helper : bounded.helpers)
    for (Instruction *write : KernelAudit(*helper, {}, audit.forbidden, &bounded.bounds, localOnly).run())
      audit.guarded.push_back(write);
  return audit;
}

void oxide::printForbiddenWrites(ArrayRef<ForbiddenWrite> findings, raw_ostream &os) {
  for (const ForbiddenWrite &finding : findings) {
    printOptimisedCodeError(finding.at, describe(finding), os);
  }
}

PreservedAnalyses oxide::GuardWritesPass::run(Function &function, FunctionAnalysisManager &) {
  WriteAudit audit;
  auditKernel(function, audit);
  auto located = [](const Instruction *at, const std::string &text) {
    if (const DILocation *loc = at ? at->getDebugLoc().get() : nullptr)
      return (loc->getFilename() + ":" + Twine(loc->getLine()) + ":" + Twine(loc->getColumn()) + ": " + text)
          .str();
    return text;
  };
  for (const ForbiddenWrite &finding : audit.forbidden)
    function.getContext().diagnose(DiagnosticInfoGeneric(located(finding.at, describe(finding)), DS_Warning));
  for (const Instruction *write : audit.guarded)
    function.getContext().diagnose(
        DiagnosticInfoGeneric(located(write, "a bounds guard of this write is tested again"), DS_Remark));
  return audit.guarded.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
}
