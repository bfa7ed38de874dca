//===- VerboseLog.h - where -v's lines go -----------------------*- C++ -*-===//
#ifndef OXIDE_COMPILER_VERBOSELOG_H
#define OXIDE_COMPILER_VERBOSELOG_H

#include "llvm/Support/raw_ostream.h"

namespace oxide {

/// Where `-v` writes its command lines and notes: stderr, but never into what the object cache
/// keeps of a compile to replay on a hit. While the cache captures stderr (it redirects file
/// descriptor 2 into a file), this stream writes to the descriptor the real stderr was saved
/// to, so a later build without -v never prints an earlier build's -v lines. Unbuffered.
llvm::raw_ostream &verboseLog();

/// The descriptor verboseLog() writes to: the saved stderr while a capture redirects fd 2, -1
/// for stderr again.
void setVerboseLogDescriptor(int fd);
/// The descriptor verboseLog() writes to now (the real stderr).
int verboseLogDescriptor();

} // namespace oxide

#endif
