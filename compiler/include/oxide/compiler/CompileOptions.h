//===- CompileOptions.h - what the user asked oxcc for ----------*- C++ -*-===//
#ifndef OXIDE_COMPILER_COMPILEOPTIONS_H
#define OXIDE_COMPILER_COMPILEOPTIONS_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace oxide {

/// What a build produces: an executable, an intermediate device stage (`--emit=`), or only
/// diagnostics (`oxcc check`: both frontends and the oxide dialect's checks, no code).
enum class EmitStage { Executable, LLVM, MLIR, PTX, Check };

struct CompileOptions {
  std::string input;                     ///< absolute path of the single-source file
  std::string output;                    ///< executable (or stage dump) path; "-" for stdout
  std::vector<std::string> includeDirs;  ///< -I
  std::vector<std::string> defines;      ///< -D (NAME or NAME=VALUE)
  unsigned optLevel = 3;                 ///< -O0..-O3, for both host and device code
  std::string arch = "sm_90";            ///< --arch=sm_XX
  std::string cxxStandard = "c++20";
  EmitStage emit = EmitStage::Executable;
  bool verbose = false;
};

/// Parses "sm_90" into 90; an error that lists the accepted form otherwise.
llvm::Expected<unsigned> parseArch(llvm::StringRef arch);

} // namespace oxide

#endif
