//===- KernelGeometryFacts.cpp - block-shape facts after inlining ---------===//

#include "oxide/compiler/KernelGeometryFacts.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

#include <array>
#include <optional>

using namespace llvm;

namespace {

/// "x,y,z" (the form of nvvm.reqntid / nvvm.maxntid) as three positive extents.
std::optional<std::array<uint64_t, 3>> parseExtents(const Function &function, StringRef name) {
  Attribute attribute = function.getFnAttribute(name);
  if (!attribute.isStringAttribute())
    return std::nullopt;
  SmallVector<StringRef, 3> parts;
  attribute.getValueAsString().split(parts, ',');
  std::array<uint64_t, 3> extents{1, 1, 1};
  if (parts.empty() || parts.size() > 3)
    return std::nullopt;
  for (auto [i, part] : llvm::enumerate(parts))
    if (part.trim().getAsInteger(10, extents[i]) || extents[i] == 0)
      return std::nullopt;
  return extents;
}

/// Which dimension a threadIdx / blockDim read is, if it is one.
std::optional<unsigned> dimensionOf(Intrinsic::ID id, Intrinsic::ID x, Intrinsic::ID y, Intrinsic::ID z) {
  if (id == x)
    return 0;
  if (id == y)
    return 1;
  if (id == z)
    return 2;
  return std::nullopt;
}

/// Narrows the range of a call's result to [lo, hi) (intersected with any it has).
bool narrowRange(CallInst &call, uint64_t lo, uint64_t hi) {
  ConstantRange range(APInt(32, lo), APInt(32, hi));
  if (std::optional<ConstantRange> existing = call.getRange()) {
    ConstantRange narrowed = existing->intersectWith(range);
    if (narrowed == *existing)
      return false;
    range = narrowed;
  }
  call.addRangeRetAttr(range);
  return true;
}

} // namespace

PreservedAnalyses oxide::KernelGeometryFactsPass::run(Function &function, FunctionAnalysisManager &) {
  if (function.getCallingConv() != CallingConv::PTX_Kernel)
    return PreservedAnalyses::all();
  const auto exact = parseExtents(function, "nvvm.reqntid");
  const auto bound = parseExtents(function, "nvvm.maxntid");
  if (!exact && !bound)
    return PreservedAnalyses::all();
  const uint64_t maxThreads = bound ? (*bound)[0] * (*bound)[1] * (*bound)[2] : 0;
  if (!exact && maxThreads > UINT32_MAX)
    return PreservedAnalyses::all();

  bool changed = false;
  SmallVector<CallInst *> laneReads;
  for (Instruction &inst : make_early_inc_range(instructions(function))) {
    auto *call = dyn_cast<IntrinsicInst>(&inst);
    if (!call)
      continue;
    const Intrinsic::ID id = call->getIntrinsicID();
    if (auto d = dimensionOf(id, Intrinsic::nvvm_read_ptx_sreg_tid_x, Intrinsic::nvvm_read_ptx_sreg_tid_y,
                             Intrinsic::nvvm_read_ptx_sreg_tid_z))
      changed |= narrowRange(*call, 0, exact ? (*exact)[*d] : maxThreads);
    else if (auto d =
                 dimensionOf(id, Intrinsic::nvvm_read_ptx_sreg_ntid_x, Intrinsic::nvvm_read_ptx_sreg_ntid_y,
                             Intrinsic::nvvm_read_ptx_sreg_ntid_z)) {
      if (exact) {
        call->replaceAllUsesWith(ConstantInt::get(call->getType(), (*exact)[*d]));
        call->eraseFromParent();
        changed = true;
      } else {
        changed |= narrowRange(*call, 1, maxThreads + 1);
      }
    } else if (id == Intrinsic::nvvm_read_ptx_sreg_laneid) {
      laneReads.push_back(call);
    }
  }

  // Warps are runs of 32 consecutive linear thread ids, x fastest: with x a multiple of 32 (or a
  // 1-D block) the lane is threadIdx.x % 32, which the kernel usually has in a register already.
  if (exact && ((*exact)[0] % 32 == 0 || ((*exact)[1] == 1 && (*exact)[2] == 1)) && !laneReads.empty()) {
    IRBuilder<> builder(&*function.getEntryBlock().getFirstInsertionPt());
    CallInst *tid =
        builder.CreateIntrinsic(Intrinsic::nvvm_read_ptx_sreg_tid_x, ArrayRef<Type *>{}, ArrayRef<Value *>{});
    narrowRange(*tid, 0, (*exact)[0]);
    Value *lane = builder.CreateAnd(tid, 31, "lane");
    for (CallInst *read : laneReads) {
      read->replaceAllUsesWith(lane);
      read->eraseFromParent();
    }
    changed = true;
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
