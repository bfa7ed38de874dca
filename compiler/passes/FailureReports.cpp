//===- FailureReports.cpp - a failed bounds check reports without a call --===//

#include "oxide/compiler/FailureReports.h"
#include "oxide/compiler/BoundsFailure.h"
#include "oxide/detail/failure_record.hpp"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

using namespace llvm;
namespace abi = oxide::detail;

namespace {

constexpr unsigned kGlobalSpace = 1;

/// Whether `report` takes what the lowering gives it: (index, size, file, line, function).
bool hasReportArguments(const Function &report) {
  FunctionType *type = report.getFunctionType();
  return type->getNumParams() == 5 && type->getParamType(0)->isIntegerTy(64) &&
         type->getParamType(1)->isIntegerTy(64) && type->getParamType(2)->isPointerTy() &&
         type->getParamType(3)->isIntegerTy(32) && type->getParamType(4)->isPointerTy();
}

/// The module's report sites, numbered from 1 in the order first met; one number per distinct
/// "file:line: in function".
class SiteTable {
public:
  /// The number of the site that `file`, `line` and `function` name; 0 when they are not the
  /// constants the lowering gives.
  std::uint32_t number(const Value *file, const Value *line, const Value *function) {
    StringRef fileText, functionText;
    const auto *lineNumber = dyn_cast<ConstantInt>(line);
    if (!lineNumber || !getConstantStringInfo(file->stripPointerCasts(), fileText) ||
        !getConstantStringInfo(function->stripPointerCasts(), functionText))
      return 0;
    std::string text = (fileText + ":" + Twine(lineNumber->getZExtValue()) + ": in " + functionText).str();
    auto [entry, added] = numbers_.try_emplace(text, static_cast<std::uint32_t>(texts_.size() + 1));
    if (added)
      texts_.push_back(std::move(text));
    return entry->second;
  }

  /// kFailureSitesGlobal: the texts, each ended by a NUL.
  GlobalVariable *emit(Module &module) const {
    std::string bytes;
    for (const std::string &text : texts_)
      bytes.append(text).push_back('\0');
    Constant *data = ConstantDataArray::getString(module.getContext(), bytes, /*AddNull=*/false);
    return new GlobalVariable(module, data->getType(), /*isConstant=*/true, GlobalValue::ExternalLinkage,
                              data, abi::kFailureSitesGlobal, nullptr, GlobalValue::NotThreadLocal,
                              kGlobalSpace);
  }

private:
  StringMap<std::uint32_t> numbers_;
  std::vector<std::string> texts_;
};

/// The site of `call` as a value of its block: a constant, or a phi where SimplifyCFG shared
/// one call among checks with phis of their file, line and function.
Value *siteOf(CallInst &call, SiteTable &sites) {
  BasicBlock *block = call.getParent();
  Value *file = call.getArgOperand(2), *line = call.getArgOperand(3), *function = call.getArgOperand(4);
  Type *i32 = Type::getInt32Ty(call.getContext());
  PHINode *shared = nullptr;
  for (Value *part : {file, line, function})
    if (auto *phi = dyn_cast<PHINode>(part); phi && phi->getParent() == block)
      shared = phi;
  if (!shared)
    return ConstantInt::get(i32, sites.number(file, line, function));
  auto *site = PHINode::Create(i32, shared->getNumIncomingValues(), "oxide.site", block->begin());
  for (BasicBlock *pred : shared->blocks()) {
    auto incoming = [&](Value *part) {
      auto *phi = dyn_cast<PHINode>(part);
      return phi && phi->getParent() == block ? phi->getIncomingValueForBlock(pred) : part;
    };
    site->addIncoming(ConstantInt::get(i32, sites.number(incoming(file), incoming(line), incoming(function))),
                      pred);
  }
  return site;
}

/// Stores the special registers `name`.x, .y, .z as three 32-bit words at `at`. Read by volatile
/// inline assembly, not the intrinsics, which the code generator shares with the kernel's own
/// reads of %tid and %ctaid: that moved ptxas's choices on the checked paths (block_histogram
/// 32 -> 40 registers, 0.98 -> 0.91 of nvcc; docs/performance.md, session 38).
void storeTriple(IRBuilder<> &builder, Value *at, StringRef name) {
  std::uint64_t offset = 0;
  for (StringRef axis : {"x", "y", "z"}) {
    InlineAsm *read = InlineAsm::get(FunctionType::get(builder.getInt32Ty(), false),
                                     ("mov.u32 $0, %" + name + "." + axis + ";").str(), "=r",
                                     /*hasSideEffects=*/true);
    Value *value = builder.CreateCall(read);
    builder.CreateAlignedStore(value, builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), at, offset),
                               Align(4));
    offset += 4;
  }
}

/// The record's address, kFailureRecordGlobal: the runtime writes it when it loads the module
/// (externally initialised: its 0 says nothing).
GlobalVariable *recordAddressGlobal(Module &module) {
  Type *i64 = Type::getInt64Ty(module.getContext());
  auto *global =
      new GlobalVariable(module, i64, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                         ConstantInt::get(i64, 0), abi::kFailureRecordGlobal, nullptr,
                         GlobalValue::NotThreadLocal, kGlobalSpace, /*isExternallyInitialized=*/true);
  global->setAlignment(Align(8));
  return global;
}

/// The report block of `function`, with phis of the site, index and size: it claims the record,
/// writes it, fences and traps. No record (a module the runtime did not load): it only traps.
struct ReportBlock {
  BasicBlock *block;
  PHINode *site, *index, *size;
};

ReportBlock buildReport(Function &function, GlobalVariable *recordAddress, GlobalVariable *sitesTable) {
  LLVMContext &context = function.getContext();
  auto *report = BasicBlock::Create(context, "oxide.report", &function);
  auto *claim = BasicBlock::Create(context, "oxide.report.claim", &function);
  auto *write = BasicBlock::Create(context, "oxide.report.write", &function);
  auto *stop = BasicBlock::Create(context, "oxide.report.trap", &function);
  IRBuilder<> builder(report);
  Type *i8 = builder.getInt8Ty(), *i32 = builder.getInt32Ty(), *i64 = builder.getInt64Ty();
  ReportBlock result{report, builder.CreatePHI(i32, 4, "oxide.site"),
                     builder.CreatePHI(i64, 4, "oxide.index"), builder.CreatePHI(i64, 4, "oxide.size")};
  Value *address = builder.CreateAlignedLoad(i64, recordAddress, Align(8));
  builder.CreateCondBr(builder.CreateICmpEQ(address, ConstantInt::get(i64, 0)), stop, claim);

  builder.SetInsertPoint(claim);
  Value *record = builder.CreateIntToPtr(address, builder.getPtrTy());
  auto at = [&](std::size_t offset) { return builder.CreateConstInBoundsGEP1_64(i8, record, offset); };
  Value *claimed = builder.CreateAtomicCmpXchg(
      at(abi::kFailureStateOffset), ConstantInt::get(i32, 0), ConstantInt::get(i32, abi::kFailureClaimed),
      Align(4), AtomicOrdering::Monotonic, AtomicOrdering::Monotonic, SyncScope::System);
  builder.CreateCondBr(builder.CreateExtractValue(claimed, 1), write, stop);

  builder.SetInsertPoint(write);
  builder.CreateAlignedStore(result.site, at(abi::kFailureSiteOffset), Align(4));
  Value *table = builder.CreatePtrToInt(builder.CreateAddrSpaceCast(sitesTable, builder.getPtrTy()), i64);
  builder.CreateAlignedStore(table, at(abi::kFailureSitesOffset), Align(8));
  builder.CreateAlignedStore(result.index, at(abi::kFailureIndexOffset), Align(8));
  builder.CreateAlignedStore(result.size, at(abi::kFailureSizeOffset), Align(8));
  storeTriple(builder, at(abi::kFailureBlockOffset), "ctaid");
  storeTriple(builder, at(abi::kFailureThreadOffset), "tid");
  // The host reads the record after the trap has failed the launch: the writes go first.
  builder.CreateFence(AtomicOrdering::SequentiallyConsistent, SyncScope::System);
  builder.CreateBr(stop);

  builder.SetInsertPoint(stop);
  builder.CreateIntrinsic(Intrinsic::trap, {});
  builder.CreateUnreachable();
  return result;
}

/// Removes __oxide_bounds_failure and what only it used: its format strings, vprintf,
/// __assertfail.
void eraseReportFunction(Function &failure) {
  SetVector<GlobalValue *> used;
  for (Instruction &inst : instructions(failure))
    for (Value *operand : inst.operands())
      if (auto *global = dyn_cast<GlobalValue>(operand->stripPointerCasts()))
        used.insert(global);
  failure.eraseFromParent();
  for (GlobalValue *global : used) {
    global->removeDeadConstantUsers();
    if (global->use_empty() && (global->hasLocalLinkage() || global->isDeclaration()))
      global->eraseFromParent();
  }
}

} // namespace

PreservedAnalyses oxide::WriteFailureReportsPass::run(Module &module, ModuleAnalysisManager &) {
  Function *failure = module.getFunction(kBoundsFailureName);
  if (!failure || !hasReportArguments(*failure))
    return PreservedAnalyses::all();
  // Each call with its site, by function: the table must be complete before any report refers
  // to it.
  SiteTable sites;
  MapVector<Function *, SmallVector<std::pair<CallInst *, Value *>, 8>> calls;
  for (Function &function : module) {
    if (&function == failure)
      continue;
    for (Instruction &inst : instructions(function))
      if (auto *call = dyn_cast<CallInst>(&inst); call && call->getCalledFunction() == failure)
        calls[&function].emplace_back(call, nullptr);
    if (auto found = calls.find(&function); found != calls.end())
      for (auto &[call, site] : found->second)
        site = siteOf(*call, sites);
  }
  if (calls.empty()) {
    if (failure->use_empty())
      eraseReportFunction(*failure);
    return PreservedAnalyses::none();
  }
  GlobalVariable *recordAddress = recordAddressGlobal(module);
  GlobalVariable *sitesTable = sites.emit(module);
  // An empty block would be folded into its predecessor (CodeGenPrepare), and the moves of the
  // phis' constants with it, onto the checked path; an empty asm statement keeps each failure's
  // moves on its own path.
  InlineAsm *keepBlock = InlineAsm::get(FunctionType::get(Type::getVoidTy(module.getContext()), false), "",
                                        "", /*hasSideEffects=*/true);
  for (auto &[function, functionCalls] : calls) {
    ReportBlock report = buildReport(*function, recordAddress, sitesTable);
    for (auto &[call, site] : functionCalls) {
      BasicBlock *block = call->getParent();
      report.site->addIncoming(site, block);
      report.index->addIncoming(call->getArgOperand(0), block);
      report.size->addIncoming(call->getArgOperand(1), block);
      // The report does not return: what follows the call in its block (a trap, `unreachable`)
      // never ran.
      while (&block->back() != call)
        block->back().eraseFromParent();
      call->eraseFromParent();
      for (PHINode &phi : make_early_inc_range(block->phis()))
        if (phi.use_empty())
          phi.eraseFromParent();
      CallInst::Create(keepBlock, "", block);
      BranchInst::Create(report.block, block);
    }
  }
  if (failure->use_empty())
    eraseReportFunction(*failure);
  return PreservedAnalyses::none();
}

void oxide::writeFailureReports(Module &module) {
  ModuleAnalysisManager analyses;
  (void)WriteFailureReportsPass().run(module, analyses);
}
