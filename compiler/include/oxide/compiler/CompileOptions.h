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
  std::string input;                    ///< absolute path of the single-source file
  std::string output;                   ///< executable (or stage dump) path; "-" for stdout
  std::vector<std::string> includeDirs; ///< -I
  std::vector<std::string> defines;     ///< -D (NAME or NAME=VALUE)
  unsigned optLevel = 3;                ///< -O0..-O3, for both host and device code
  std::string arch = "sm_90";           ///< --arch=sm_XX
  std::string cxxStandard = "c++20";
  EmitStage emit = EmitStage::Executable;
  bool verbose = false;
  /// nvcc's --use_fast_math: approximate sqrt/division, flush denormals to zero.
  bool fastMath = false;
  /// Contract a * b + c into FMA (nvcc's default, --fmad=true); --no-fmad turns it off.
  bool fmad = true;
  /// -g: full debug information for host code (device code always carries line tables).
  bool debug = false;
  /// -fsanitize=...: for the host compile and the link (e.g. address, undefined), which is how
  /// kernels are debugged on the CPU simulator.
  std::vector<std::string> sanitizers;
};

/// Parses "sm_90" into 90; an error that lists the accepted form otherwise.
llvm::Expected<unsigned> parseArch(llvm::StringRef arch);

} // namespace oxide

#endif
