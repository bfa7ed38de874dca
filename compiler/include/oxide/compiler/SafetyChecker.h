//===- SafetyChecker.h - AST checks of the safety model ---------*- C++ -*-===//
#ifndef OXIDE_COMPILER_SAFETYCHECKER_H
#define OXIDE_COMPILER_SAFETYCHECKER_H

#include "clang/AST/ASTConsumer.h"

#include <memory>

namespace oxide {

/// Checks, after parsing, what the attributes alone cannot:
///  * contracted kernels take only safe parameters (no raw pointers, references, mutable
///    spans), and their bodies use no const_cast/reinterpret_cast on spans or witnesses and no
///    inline asm; a launch contract or launch bounds only on a [[kernel]], and an exact block
///    within the launch bounds;
///  * at launch sites, a buffer bound to a DisjointSpan output is not also passed as another
///    argument (`launch(stream, c, b, c)`);
///  * what contracted kernels reach in the user's files has no preprocessor conditional on the
///    target (SimulatorDivergence.h): the consumer records them from the preprocessor it gets
///    with Sema (a SemaConsumer), before the first token.
std::unique_ptr<clang::ASTConsumer> createSafetyChecker();

} // namespace oxide

#endif
