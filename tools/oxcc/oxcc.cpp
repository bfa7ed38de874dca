//===- oxcc.cpp - the Oxide compiler driver -------------------------------===//
//
//   oxcc build FILE -o OUT [options]     single-source C++ -> executable with its GPU code
//   oxcc run FILE [options] [-- ARGS]    build into a cache directory, then run
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/Build.h"
#include "oxide/compiler/ReportedError.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

constexpr const char *kUsage = R"(OVERVIEW: Oxide single-source C++ GPU compiler

USAGE: oxcc build FILE -o OUTPUT [options]
       oxcc run FILE [options] [-- PROGRAM-ARGS...]
       oxcc check FILE [options]          diagnostics only: C++, safety model, contracts
       oxcc --version | --help

OPTIONS:
  -o FILE           output executable (build); with --emit, the stage output ('-' = stdout)
  -I DIR, -IDIR     add an include directory
  -D NAME[=VALUE]   define a macro
  -O0 .. -O3        optimisation level for host and device code (default -O3)
  -std=c++20|c++23  C++ standard (default c++20)
  --arch=sm_XX      GPU architecture (default sm_90)
  --emit=STAGE      print a device stage instead of building: llvm, mlir or ptx
  --fast-math       approximate sqrt/division, flush denormals (nvcc --use_fast_math)
  --no-fmad         do not contract a * b + c into fused multiply-adds
  -g                debug information for host code (kernels run on the CPU simulator
                    under gdb); device code always carries line tables
  -fsanitize=LIST   sanitize the host code (address, undefined...), for kernels on the simulator
  -v                print the clang and link command lines
)";

int usageError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "oxcc") << message << "\n";
  llvm::errs() << "run 'oxcc --help' for usage\n";
  return kExitUsage;
}

int reportError(llvm::Error err) {
  int rc = kExitError;
  llvm::handleAllErrors(
      std::move(err), [](const oxide::ReportedError &) { /* diagnostics already printed */ },
      [](const llvm::ErrorInfoBase &info) {
        llvm::WithColor::error(llvm::errs(), "oxcc") << info.message() << "\n";
      });
  return rc;
}

struct Command {
  std::string verb;
  oxide::CompileOptions opts;
  std::vector<std::string> programArgs;
};

/// Parses argv after the verb. Returns an exit code on error or help.
std::optional<int> parseOptions(llvm::ArrayRef<const char *> args, Command &cmd) {
  std::vector<std::string> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    auto value = [&](llvm::StringRef flag) -> std::optional<std::string> {
      if (arg.size() > flag.size())
        return arg.drop_front(flag.size()).str();
      if (i + 1 < args.size())
        return std::string(args[++i]);
      return std::nullopt;
    };
    if (arg == "--") {
      for (++i; i < args.size(); ++i)
        cmd.programArgs.push_back(args[i]);
      break;
    }
    if (arg == "-h" || arg == "--help") {
      llvm::outs() << kUsage;
      return 0;
    }
    if (arg.starts_with("-o")) {
      auto v = value("-o");
      if (!v)
        return usageError("'-o' needs a file name");
      cmd.opts.output = *v;
    } else if (arg.starts_with("-I")) {
      auto v = value("-I");
      if (!v)
        return usageError("'-I' needs a directory");
      cmd.opts.includeDirs.push_back(*v);
    } else if (arg.starts_with("-D")) {
      auto v = value("-D");
      if (!v)
        return usageError("'-D' needs a macro name");
      cmd.opts.defines.push_back(*v);
    } else if (arg == "-O0" || arg == "-O1" || arg == "-O2" || arg == "-O3") {
      cmd.opts.optLevel = arg.back() - '0';
    } else if (arg.consume_front("-std=")) {
      if (arg != "c++20" && arg != "c++23" && arg != "gnu++20" && arg != "gnu++23")
        return usageError("unsupported language standard '" + arg + "'; use -std=c++20 or -std=c++23");
      cmd.opts.cxxStandard = arg.str();
    } else if (arg.starts_with("--arch")) {
      llvm::StringRef rest = arg.drop_front(6);
      if (rest.consume_front("="))
        cmd.opts.arch = rest.str();
      else if (rest.empty() && i + 1 < args.size())
        cmd.opts.arch = args[++i];
      else
        return usageError("'--arch' needs a value such as --arch=sm_90");
    } else if (arg.consume_front("--emit=")) {
      if (arg == "llvm")
        cmd.opts.emit = oxide::EmitStage::LLVM;
      else if (arg == "mlir")
        cmd.opts.emit = oxide::EmitStage::MLIR;
      else if (arg == "ptx")
        cmd.opts.emit = oxide::EmitStage::PTX;
      else
        return usageError("unknown stage '" + arg + "' for --emit; use llvm, mlir or ptx");
    } else if (arg == "-v") {
      cmd.opts.verbose = true;
    } else if (arg == "--fast-math" || arg == "--use_fast_math") {
      cmd.opts.fastMath = true;
    } else if (arg == "--no-fmad" || arg == "--fmad=false") {
      cmd.opts.fmad = false;
    } else if (arg == "-g") {
      cmd.opts.debug = true;
    } else if (arg.consume_front("-fsanitize=")) {
      if (arg.empty())
        return usageError("'-fsanitize=' needs a sanitizer, e.g. -fsanitize=address");
      cmd.opts.sanitizers.push_back(arg.str());
    } else if (arg.starts_with("-")) {
      return usageError("unknown option '" + arg + "'");
    } else {
      inputs.push_back(arg.str());
    }
  }
  if (inputs.empty())
    return usageError("no input file");
  if (inputs.size() > 1)
    return usageError("one input file expected, got " + llvm::Twine(inputs.size()));
  llvm::SmallString<256> input(inputs.front());
  llvm::sys::fs::make_absolute(input);
  llvm::sys::path::remove_dots(input, /*remove_dot_dot=*/true);
  cmd.opts.input = std::string(input);
  return std::nullopt;
}

/// Where `oxcc run` puts the executable: the user cache directory, else the temp directory.
std::string runOutputPath(const std::string &input) {
  llvm::SmallString<256> dir;
  if (!llvm::sys::path::cache_directory(dir))
    llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, dir);
  llvm::sys::path::append(dir, "oxide", "run");
  llvm::sys::fs::create_directories(dir);
  llvm::sys::path::append(dir, llvm::sys::path::stem(input));
  return std::string(dir);
}

/// Runs the built program; without a GPU it runs its kernels on the CPU simulator (and says so).
int runBuilt(const std::string &exe, const std::vector<std::string> &programArgs) {
  llvm::SmallVector<llvm::StringRef> argv = {exe};
  for (const auto &a : programArgs)
    argv.push_back(a);
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(exe, argv, std::nullopt, {}, 0, 0, &execError);
  if (rc < 0) {
    llvm::WithColor::error(llvm::errs(), "oxcc") << "running '" << exe << "' failed: " << execError << "\n";
    return kExitError;
  }
  return rc;
}

} // namespace

int main(int argc, const char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  if (argc < 2)
    return usageError("no command given; use 'oxcc build FILE -o OUT' or 'oxcc run FILE'");
  llvm::StringRef verb = argv[1];
  if (verb == "--version") {
    llvm::outs() << "oxcc (Oxide) " << OXIDE_VERSION << "\n";
    return 0;
  }
  if (verb == "--help" || verb == "-h") {
    llvm::outs() << kUsage;
    return 0;
  }
  if (verb != "build" && verb != "run" && verb != "check")
    return usageError("unknown command '" + verb + "'; use 'build', 'run' or 'check'");

  Command cmd;
  cmd.verb = verb.str();
  if (auto rc = parseOptions(llvm::ArrayRef(argv + 2, argv + argc), cmd))
    return *rc;
  if (cmd.verb == "build" && cmd.opts.output.empty() && cmd.opts.emit == oxide::EmitStage::Executable)
    return usageError("no output file; use -o OUTPUT");
  if (cmd.verb != "build" && cmd.opts.emit != oxide::EmitStage::Executable)
    return usageError("--emit is only valid with 'oxcc build'");
  if (cmd.verb == "check")
    cmd.opts.emit = oxide::EmitStage::Check;
  if (cmd.verb == "run") {
    if (cmd.opts.output.empty())
      cmd.opts.output = runOutputPath(cmd.opts.input);
  }

  auto toolchain = oxide::Toolchain::discover(argv[0]);
  if (!toolchain)
    return reportError(toolchain.takeError());
  if (auto err = oxide::build(cmd.opts, *toolchain))
    return reportError(std::move(err));
  if (cmd.verb == "run")
    return runBuilt(cmd.opts.output, cmd.programArgs);
  return 0;
}
