//===- NarrowLoopCounters.h - 64-bit loop counters that fit 32 bits -*- C++ -*-===//
#ifndef OXIDE_COMPILER_NARROWLOOPCOUNTERS_H
#define OXIDE_COMPILER_NARROWLOOPCOUNTERS_H

#include "llvm/IR/PassManager.h"

namespace oxide {

/// Counts a 64-bit loop counter in 32 bits where every value the loop body sees fits in 32: the
/// counter starts below 2^32 (a block or thread index) and the loop goes on only while its next
/// value is below a count below 2^32 (a 32-bit row count, widened). The body then sees
/// `zext i32` of the narrow counter, and the NVPTX back end multiplies it by another widened
/// 32-bit value with one mul.wide.u32 instead of a 64-bit product (three IMADs). The test of
/// the next value stays 64-bit, so it cannot wrap. block_stride(rows) is such a loop (its
/// witnesses are 64-bit), and at one row per block its 64-bit row arithmetic cost 44
/// instructions a warp: softmax with a block of 1024 per row ran at 0.85 of nvcc's, whose
/// `unsigned r` counter is 32-bit.
struct NarrowLoopCountersPass : llvm::PassInfoMixin<NarrowLoopCountersPass> {
  llvm::PreservedAnalyses run(llvm::Function &function, llvm::FunctionAnalysisManager &analyses);
};

} // namespace oxide

#endif
