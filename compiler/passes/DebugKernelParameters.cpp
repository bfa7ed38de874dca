//===- DebugKernelParameters.cpp - kernel parameters a debugger can read --===//

#include "oxide/compiler/DebugKernelParameters.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/IRBuilder.h"

using namespace llvm;

PreservedAnalyses oxide::DebugKernelParametersPass::run(Function &function, FunctionAnalysisManager &) {
  if (function.getCallingConv() != CallingConv::PTX_Kernel || function.isDeclaration())
    return PreservedAnalyses::all();
  const DataLayout &layout = function.getDataLayout();
  bool changed = false;
  for (Argument &arg : function.args()) {
    Type *byval = arg.getParamByValType();
    if (!byval)
      continue;
    const TinyPtrVector<DbgVariableRecord *> declares = findDVRDeclares(&arg);
    if (declares.empty())
      continue;
    // At the head of the entry block, ahead of its debug records too: the declarations that
    // will name the copy may be attached to its first instruction.
    BasicBlock &entry = function.getEntryBlock();
    BasicBlock::iterator at = entry.getFirstInsertionPt();
    at.setHeadBit(true);
    IRBuilder<> builder(&entry, at);
    AllocaInst *copy = builder.CreateAlloca(byval, nullptr, arg.getName() + ".debug");
    copy->setAlignment(layout.getPrefTypeAlign(byval));
    builder.CreateMemCpy(copy, copy->getAlign(), &arg, arg.getParamAlign().valueOrOne(),
                         layout.getTypeAllocSize(byval));
    for (DbgVariableRecord *declare : declares)
      declare->replaceVariableLocationOp(&arg, copy);
    changed = true;
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
