//===- RaiseThreadOps.cpp - block, warp, cluster, grid ops ------------------===//
//
// What a thread asks of its block, warp, cluster and grid: barriers, fences and atomic scopes,
// shared memory, warp operations, clocks, cluster geometry and mapping, the grid barrier, traps.
//
//===----------------------------------------------------------------------===//

#include "CallRaiser.h"

#include "llvm/ADT/TypeSwitch.h"

namespace oxide::raise {

Operation *CallRaiser::syncThreads() { return oxide::BarrierOp::create(rewriter, loc); }

Operation *CallRaiser::namedBarrier() {
  APInt arrive;
  if (!matchPattern(call.getOperand(2), m_ConstantInt(&arrive))) {
    call.emitError() << "the arrive flag of oxide intrinsic '" << name << "' must be a constant";
    return nullptr;
  }
  return oxide::NamedBarrierOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1),
                                       !arrive.isZero());
}

namespace {

/// Gives the atomic accesses `user` makes through `pointer` the LLVM sync scope `syncscope`.
void setScope(Operation *user, Value pointer, StringAttr syncscope) {
  TypeSwitch<Operation *>(user)
      .Case<LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp>([&](auto atomic) {
        if (pointer == atomic.getPtr())
          atomic.setSyncscopeAttr(syncscope);
      })
      .Case<LLVM::LoadOp>([&](LLVM::LoadOp load) {
        if (load.getOrdering() != LLVM::AtomicOrdering::not_atomic)
          load.setSyncscopeAttr(syncscope);
      })
      .Case<LLVM::StoreOp>([&](LLVM::StoreOp store) {
        if (pointer == store.getAddr() && store.getOrdering() != LLVM::AtomicOrdering::not_atomic)
          store.setSyncscopeAttr(syncscope);
      });
}

/// The scope code of `value` if it is a mark: a call of `mark`'s function with a constant scope.
std::optional<uint64_t> markScope(Value value, LLVM::CallOp mark) {
  auto call = value.getDefiningOp<LLVM::CallOp>();
  APInt scope;
  if (!call || call.getCallee() != mark.getCallee() || call.getNumOperands() != mark.getNumOperands() ||
      !matchPattern(call.getOperand(1), m_ConstantInt(&scope)) || scope.getActiveBits() > 32)
    return std::nullopt;
  return scope.getZExtValue();
}

/// The block arguments `mark`'s result flows into whose every incoming value is a mark, each
/// with the widest of their scopes (the codes grow with the scope: block, device, system). LLVM's
/// early passes sink the atomics of an if/else below both arms: one atomic through such a phi.
SmallVector<std::pair<BlockArgument, oxide::Scope>> markedPhis(LLVM::CallOp mark) {
  static_assert(static_cast<uint32_t>(oxide::Scope::block) < static_cast<uint32_t>(oxide::Scope::device) &&
                    static_cast<uint32_t>(oxide::Scope::device) < static_cast<uint32_t>(oxide::Scope::system),
                "markedPhis takes the largest code as the widest scope");
  SmallVector<std::pair<BlockArgument, oxide::Scope>> phis;
  for (OpOperand &use : mark.getResult().getUses()) {
    auto branch = dyn_cast<BranchOpInterface>(use.getOwner());
    if (!branch)
      continue;
    for (unsigned s = 0; s < branch->getNumSuccessors(); ++s) {
      SuccessorOperands operands = branch.getSuccessorOperands(s);
      for (unsigned i = 0; i < operands.size(); ++i) {
        if (operands[i] != mark.getResult())
          continue;
        Block *block = branch->getSuccessor(s);
        BlockArgument phi = block->getArgument(operands.getProducedOperandCount() + i);
        std::optional<uint64_t> widest = 0;
        for (auto pred = block->pred_begin(); widest && pred != block->pred_end(); ++pred) {
          auto incoming = dyn_cast<BranchOpInterface>((*pred)->getTerminator());
          std::optional<uint64_t> scope =
              incoming
                  ? markScope(incoming.getSuccessorOperands(pred.getSuccessorIndex())[phi.getArgNumber()],
                              mark)
                  : std::nullopt;
          widest = scope ? std::optional(std::max(*widest, *scope)) : std::nullopt;
        }
        if (widest && *widest <= oxide::getMaxEnumValForScope())
          phis.push_back({phi, static_cast<oxide::Scope>(*widest)});
      }
    }
  }
  return phis;
}

} // namespace

/// The mark of a scoped atomic's object: the atomic accesses of its result get the scope, those
/// through a phi of marks the widest of theirs (an access through anything else keeps LLVM's
/// system scope: correct, only slower), and the object replaces the mark.
Operation *CallRaiser::atomicScope() {
  auto scope = enumOperand<oxide::Scope>(1, oxide::getMaxEnumValForScope());
  if (!scope)
    return nullptr;
  auto syncscopeOf = [&](oxide::Scope s) {
    return oxide::llvmSyncScope(s).empty() ? StringAttr() : rewriter.getStringAttr(oxide::llvmSyncScope(s));
  };
  StringAttr syncscope = syncscopeOf(*scope);
  // Before this mark's uses become its object, while every incoming value of such a phi is
  // still recognisably a mark.
  for (auto [phi, widest] : markedPhis(call))
    for (OpOperand &use : phi.getUses())
      rewriter.modifyOpInPlace(use.getOwner(), [&] { setScope(use.getOwner(), phi, syncscopeOf(widest)); });
  Value object = call.getOperand(0);
  for (OpOperand &use : llvm::make_early_inc_range(call.getResult().getUses())) {
    Operation *user = use.getOwner();
    rewriter.modifyOpInPlace(user, [&] {
      setScope(user, use.get(), syncscope);
      use.set(object);
    });
  }
  return call.getOperation();
}

Operation *CallRaiser::fence() {
  auto scope = enumOperand<oxide::Scope>(0, oxide::getMaxEnumValForScope());
  if (!scope)
    return nullptr;
  return oxide::FenceOp::create(rewriter, loc, *scope);
}

Operation *CallRaiser::sharedAlloc() {
  APInt bytes, align;
  if (!matchPattern(call.getOperand(0), m_ConstantInt(&bytes)) ||
      !matchPattern(call.getOperand(1), m_ConstantInt(&align))) {
    call.emitError() << "shared memory size and alignment must be compile-time constants; use "
                        "oxide::dynamic_shared for sizes known at launch";
    return nullptr;
  }
  // The site variable is a device constant (addrspace 4): its generic address is a cast.
  Value siteAddress = call.getOperand(2);
  if (auto cast = siteAddress.getDefiningOp<LLVM::AddrSpaceCastOp>())
    siteAddress = cast.getArg();
  auto site = siteAddress.getDefiningOp<LLVM::AddressOfOp>();
  if (!site) {
    call.emitError() << "shared memory site must be the address of a global; use oxide::shared_array";
    return nullptr;
  }
  return oxide::SharedAllocOp::create(rewriter, loc, ptr, site.getGlobalNameAttr(),
                                      rewriter.getI64IntegerAttr(bytes.getZExtValue()),
                                      rewriter.getI64IntegerAttr(align.getZExtValue()));
}

Operation *CallRaiser::dynamicShared() { return oxide::DynamicSharedOp::create(rewriter, loc, ptr); }

Operation *CallRaiser::dynamicSharedSize() { return oxide::DynamicSharedSizeOp::create(rewriter, loc, i32); }

Operation *CallRaiser::laneId() { return oxide::LaneIdOp::create(rewriter, loc, i32); }

Operation *CallRaiser::warpShuffle() {
  auto mode = enumOperand<oxide::ShuffleMode>(3, oxide::getMaxEnumValForShuffleMode());
  auto width = mode ? constantOperand(4, 32) : std::nullopt;
  if (!width)
    return nullptr;
  if (!llvm::isPowerOf2_32(*width)) {
    call.emitError() << "argument 4 of oxide intrinsic '" << name << "' is " << *width
                     << ", not a power of two (1..32)";
    return nullptr;
  }
  return oxide::WarpShuffleOp::create(rewriter, loc, i32, *mode, call.getOperand(0), call.getOperand(1),
                                      call.getOperand(2), *width);
}

Operation *CallRaiser::warpVote() {
  auto mode = enumOperand<oxide::VoteMode>(2, oxide::getMaxEnumValForVoteMode());
  if (!mode)
    return nullptr;
  return oxide::WarpVoteOp::create(rewriter, loc, i32, *mode, call.getOperand(0), call.getOperand(1));
}

Operation *CallRaiser::warpSync() { return oxide::WarpSyncOp::create(rewriter, loc, call.getOperand(0)); }

Operation *CallRaiser::warpRedux() {
  auto kind = enumOperand<oxide::ReduxKind>(2, oxide::getMaxEnumValForReduxKind());
  if (!kind)
    return nullptr;
  return oxide::WarpReduxOp::create(rewriter, loc, i32, *kind, call.getOperand(0), call.getOperand(1));
}

Operation *CallRaiser::warpMatch() {
  auto kind = enumOperand<oxide::MatchKind>(2, oxide::getMaxEnumValForMatchKind());
  if (!kind)
    return nullptr;
  return oxide::WarpMatchOp::create(rewriter, loc, i32, *kind, call.getOperand(0), call.getOperand(1));
}

Operation *CallRaiser::activeMask() { return oxide::ActiveMaskOp::create(rewriter, loc, i32); }

Operation *CallRaiser::laneMask() {
  auto kind = enumOperand<oxide::LaneMaskKind>(0, oxide::getMaxEnumValForLaneMaskKind());
  if (!kind)
    return nullptr;
  return oxide::LaneMaskOp::create(rewriter, loc, i32, *kind);
}

Operation *CallRaiser::clock() {
  auto kind = enumOperand<oxide::ClockKind>(0, oxide::getMaxEnumValForClockKind());
  if (!kind)
    return nullptr;
  return oxide::ClockOp::create(rewriter, loc, i64, *kind);
}

Operation *CallRaiser::clusterGeometry() {
  auto kind = enumOperand<oxide::ClusterGeometryKind>(0, oxide::getMaxEnumValForClusterGeometryKind());
  auto dim = kind ? enumOperand<oxide::Dim>(1, oxide::getMaxEnumValForDim()) : std::nullopt;
  if (!kind || !dim)
    return nullptr;
  return oxide::ClusterGeometryOp::create(rewriter, loc, i32, *kind, *dim);
}

Operation *CallRaiser::clusterSync() { return oxide::ClusterSyncOp::create(rewriter, loc); }

Operation *CallRaiser::mapShared() {
  return oxide::MapSharedOp::create(rewriter, loc, ptr, call.getOperand(0), call.getOperand(1));
}

Operation *CallRaiser::gridSync() { return oxide::GridSyncOp::create(rewriter, loc); }

Operation *CallRaiser::boundsFail() {
  return oxide::BoundsFailOp::create(rewriter, loc, call.getOperand(0), call.getOperand(1));
}

Operation *CallRaiser::trap() { return oxide::TrapOp::create(rewriter, loc, call.getOperand(0)); }

} // namespace oxide::raise
