//===- Oxcc.h - pieces of the oxcc command-line driver ----------*- C++ -*-===//
#ifndef OXIDE_OXCC_OXCC_H
#define OXIDE_OXCC_OXCC_H

#include "oxide/compiler/CompileOptions.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace oxcc {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

/// oxcc's commands (kVerbs in oxcc.cpp holds their names and help).
enum class Verb { Build, Run, Check, Compile, New, Doctor, Cache };

/// The name users type for `verb`: "build", "run"...
llvm::StringRef verbName(Verb verb);

/// Prints `oxcc <verb> --help`.
void printCommandHelp(Verb verb);

/// What the command line of `oxcc build|run|check|compile` asks for.
struct Command {
  Verb verb = Verb::Build;
  oxide::CompileOptions opts;
  std::vector<std::string> programArgs; ///< run: after `--`
  bool noCache = false;
  std::optional<std::string> saveTemps; ///< "" = next to the output
  // compile
  bool launcher = false; ///< `oxcc compile [options] -- COMPILER ARGS...`
  bool depFile = false;  ///< -MD, -MMD
  bool depSystem = true; ///< -MD: system headers too
  std::string depFilePath;
  std::vector<std::string> depTargets;
};

/// Parses the arguments after the verb (Options.td, Options.cpp) into `cmd`. Returns an exit code on error
/// or --help.
std::optional<int> parseOptions(llvm::ArrayRef<const char *> args, Command &cmd);

/// Sorts the command line's `inputs` into the sources and the link inputs of `cmd`, refusing
/// what the verb cannot take (InputFiles.cpp). Returns an exit code on error.
std::optional<int> resolveInputs(llvm::ArrayRef<std::string> inputs, Command &cmd);

/// Runs a parsed `oxcc build|run|check|compile` (Commands.cpp).
int runCommand(Command &cmd, const char *argv0);

/// `oxcc cache [--clear]`.
int runCache(llvm::ArrayRef<const char *> args);

/// Prints "oxcc: error: MESSAGE" and the hint to run `oxcc <command> --help`; returns 2.
int usageError(const llvm::Twine &message, llvm::StringRef command = "");

/// Prints an error (nothing more when clang or MLIR already printed its diagnostics); returns 1.
int reportError(llvm::Error err);

/// `oxcc new NAME [--template cmake|basic]`.
int runNew(llvm::ArrayRef<const char *> args, const char *argv0);

/// `oxcc doctor`: checks every part of the toolchain and the machine's GPUs.
int runDoctor(llvm::ArrayRef<const char *> args, const char *argv0);

/// The compute capability (* 10 + minor) of GPU `ordinal`, asked of the CUDA driver as the
/// runtime asks it; an error saying what is missing (no driver, no such GPU).
llvm::Expected<unsigned> localGpuArch(int ordinal);

} // namespace oxcc

#endif
