//===- oxcc.cpp - the Oxide compiler driver -------------------------------===//
//
//   oxcc build FILE... -o OUT [options]    single-source C++ -> executable with its GPU code
//   oxcc run FILE... [options] [-- ARGS]   build (cached) into a cache directory, then run
//   oxcc check FILE... [options]           diagnostics only
//   oxcc compile -c FILE -o OBJ [options]  one translation unit -> object (build systems)
//   oxcc new NAME | doctor | cache          projects, the toolchain's health, the object cache
//
//===----------------------------------------------------------------------===//

#include "Oxcc.h"
#include "ObjectCache.h"

#include "oxide/compiler/Build.h"
#include "oxide/compiler/MlirStage.h"
#include "oxide/compiler/ReportedError.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <list>
#include <optional>

using namespace oxcc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

constexpr const char *kUsage = R"(OVERVIEW: Oxide single-source C++ GPU compiler

USAGE: oxcc <command> [options]

COMMANDS:
  build FILE... -o OUTPUT     compile and link an executable that carries its GPU code
  run FILE... [-- ARGS...]    build into the cache directory (reusing unchanged objects), run
  check FILE...               diagnostics only: C++, the safety model, launch contracts
  compile -c FILE -o OBJECT   one translation unit into an object (for build systems)
  new NAME                    create a project: CMake (default) or plain oxcc template
  doctor                      check the toolchain, CUDA, the driver and the GPUs
  cache [--clear]             show or empty the object cache

Run 'oxcc <command> --help' for a command's options; 'oxcc --version' prints the version.
)";

constexpr const char *kCompileOptions = R"(
COMPILE OPTIONS:
  -I DIR, -IDIR       add an include directory (also -isystem DIR, -iquote DIR)
  -D NAME[=VALUE]     define a macro
  -O0 .. -O3          optimisation level for host and device code (default -O3)
  -std=c++20|c++23    C++ standard (default c++20)
  --arch=LIST         GPU architectures, comma-separated or repeated: sm_XX embeds PTX and
                      a cubin, compute_XX PTX only (the driver compiles it on newer GPUs
                      too), XX-real a cubin only; XX = 70 72 75 80 86 87 89 90 100 101 103
                      120 121. Default: cubins for sm_80, sm_86, sm_89 and sm_90 and sm_90
                      PTX, leaving out those a file's kernels cannot run on (see -v). The
                      runtime loads the GPU's cubin (or an older one of its major version),
                      else the newest PTX not newer than it
  --threads=N         compile N architectures at once (default 0: one per architecture,
                      up to the number of cores), alongside the host compile unless N is 1
  --fast-math         approximate sqrt/division, flush denormals (nvcc --use_fast_math)
  --no-fmad           do not contract a * b + c into fused multiply-adds
  -g                  debug information for host code (kernels run on the CPU simulator
                      under gdb); device code always carries line tables
  -G                  debuggable device code (cuda-gdb): device variables and lines in the
                      PTX and cubin, device back end and ptxas at -O0, and -g
  --lineinfo          source lines in the cubin (Nsight Compute, compute-sanitizer)
  -fsanitize=LIST     sanitize the host code (address, undefined...), for the simulator
  --save-temps[=DIR]  keep every intermediate file (device .ll, .mlir, .opt.ll, .ptx, .cubin,
                      host .ll and .o) next to the output, or in DIR
  --no-cache          neither reuse nor store objects in the cache
  -v                  print the clang, ptxas and link command lines, cache hits, and the
                      default architectures a file leaves out
)";

constexpr const char *kEnvironment = R"(
ENVIRONMENT:
  OXIDE_CUDA_PATH     CUDA toolkit root (libdevice, ptxas); default /usr/local/cuda
  OXIDE_PTXAS         the ptxas to use
  OXCC_DUMP_DIR       write every intermediate file to this directory (as --save-temps=DIR)
  OXCC_NO_CACHE=1     do not use the object cache
  OXCC_CACHE_DIR      the object cache (default $XDG_CACHE_HOME/oxide/objects,
                      ~/.cache/oxide/objects); its pch/ holds precompiled headers
  OXCC_NO_PCH=1       parse Oxide's headers in every compile instead of precompiling them
)";

struct CommandHelp {
  const char *name;
  const char *usage;
  bool compileOptions;
};

constexpr CommandHelp kCommands[] = {
    {"build", R"(USAGE: oxcc build FILE... -o OUTPUT [options]
       oxcc build FILE --emit=STAGE [-o FILE|-]

Compiles each FILE (host and device code; kernels may be in any of them, each object carries
its own device image) and links one executable. Object files (.o), archives (.a) and shared
libraries (.so) among the FILEs are linked as they are. Objects of unchanged files come from
the cache.

BUILD OPTIONS:
  -o FILE             the executable; with --emit, the stage output ('-' or none: stdout)
  --emit=STAGE        write one device stage of a single FILE instead of building:
                      llvm (optimised LLVM IR), mlir (oxide dialect after its checks),
                      mlir-after=PASS (the module after one MLIR pass: oxide-raise,
                      oxide-verify-safety, oxide-optimize, oxide-to-nvvm), ptx,
                      cubin (binary, needs ptxas)
  -lNAME, -LDIR, -Wl,ARGS   passed to the link
)",
     true},
    {"run", R"(USAGE: oxcc run FILE... [options] [-- PROGRAM-ARGS...]

Builds like 'oxcc build' into the cache directory ($XDG_CACHE_HOME/oxide/run) unless -o is
given, then runs the program with PROGRAM-ARGS and exits with its status. Without a GPU the
kernels run on the CPU simulator (OXIDE_DEVICE=cpu forces it).

RUN OPTIONS:
  -o FILE             where to put the executable
  -lNAME, -LDIR, -Wl,ARGS   passed to the link
)",
     true},
    {"check", R"(USAGE: oxcc check FILE... [options]

Runs the host and device frontends and the oxide dialect's checks (safety model, launch
contracts, device-only constructs) on each FILE, for every --arch, and produces no code.
)",
     true},
    {"compile", R"(USAGE: oxcc compile -c FILE -o OBJECT [options] [-MD -MF DEPFILE -MT TARGET]
       oxcc compile [options] -- COMPILER COMPILER-ARGS...

Compiles one translation unit into a relocatable object with its device image embedded;
link it with the Oxide runtime (lib/liboxide_runtime.a -ldl -lpthread). The second form is
the CMake compiler launcher that add_oxide_executable installs: the compiler and its
arguments are read as a compile command (-I, -isystem, -D, -std, -O, -g, -o, -c, -MD/-MMD,
-MF, -MT, -fsanitize), warning flags and code-generation flags Oxide does not need (-W...,
-fPIC, -pthread...) are ignored, and other -f/-m flags are ignored with a warning.

COMPILE-ONLY OPTIONS:
  -o FILE             the object (default: FILE's stem + .o)
  -MD, -MMD           write a Make depfile listing every file read (-MMD: no system headers)
  -MF FILE            the depfile (default: the object + .d)
  -MT TARGET          the depfile's target (default: the object)
)",
     true},
    {"new", R"(USAGE: oxcc new NAME [--template cmake|basic]

Creates the directory NAME with a project: src/main.cpp (a vecadd kernel with a launch
contract, a prepared launch and a host check that prints PASS), README.md, .clang-format,
.clangd (flags that let clangd read Oxide sources) and .gitignore.

  --template cmake    (default) CMakeLists.txt with find_package(Oxide CONFIG REQUIRED) and
                      add_oxide_executable(NAME src/main.cpp)
  --template basic    no build system: oxcc build src/main.cpp -o NAME
)",
     false},
    {"doctor", R"(USAGE: oxcc doctor

Checks what oxcc needs (clang/LLVM, the CUDA toolkit, libdevice, ptxas, Oxide's headers and
runtime) and what the programs it builds use at run time (the NVIDIA driver and the GPUs),
one line each, with a fix for each problem. Exits 0 when oxcc can build programs: without a
driver or a GPU they run on the CPU simulator.
)",
     false},
    {"cache", R"(USAGE: oxcc cache [--clear]

Shows where the object cache is and how much it holds; --clear empties it. The cache keeps
one object per translation unit and set of options, keyed by the contents of the source and
of every file it includes, the options, the toolchain and oxcc itself.
)",
     false},
};

const CommandHelp *findCommand(llvm::StringRef name) {
  for (const CommandHelp &c : kCommands)
    if (name == c.name)
      return &c;
  return nullptr;
}

void printCommandHelp(const CommandHelp &c) {
  llvm::outs() << c.usage;
  if (c.compileOptions)
    llvm::outs() << kCompileOptions << kEnvironment;
}

struct Command {
  std::string verb;
  oxide::CompileOptions opts;
  std::vector<std::string> programArgs;
  bool noCache = false;
  std::optional<std::string> saveTemps; // "" = next to the output
  bool archGiven = false;
  // compile
  bool launcher = false;
  bool depFile = false;
  bool depSystem = true;
  std::string depFilePath;
  std::vector<std::string> depTargets;
};

bool isLinkInput(llvm::StringRef file) {
  llvm::StringRef name = path::filename(file);
  return name.ends_with(".o") || name.ends_with(".a") || name.ends_with(".so") || name.contains(".so.");
}

/// Flags a C++ compile command may carry that make no difference to oxcc's output.
bool isHarmlessCompilerFlag(llvm::StringRef arg) {
  return arg.starts_with("-W") || arg == "-w" || arg == "-pedantic" || arg == "-pedantic-errors" ||
         arg == "-pthread" || arg == "-pipe" || arg == "-m64" || arg == "-fPIC" || arg == "-fPIE" ||
         arg == "-fpic" || arg == "-fpie" || arg == "-fno-pic" || arg == "-fno-pie" ||
         arg == "-fcolor-diagnostics" || arg == "-fno-color-diagnostics" ||
         arg.starts_with("-fdiagnostics-") || arg.starts_with("-fno-diagnostics-") ||
         arg.starts_with("-fmessage-length") || arg == "-c";
}

/// Parses argv after the verb. Returns an exit code on error or help.
std::optional<int> parseOptions(llvm::ArrayRef<const char *> args, Command &cmd) {
  const bool compileVerb = cmd.verb == "compile";
  const bool lenient = compileVerb;
  llvm::StringSet<> warned;
  std::vector<std::string> inputs;
  bool skipCompilerPath = false; // compile -- COMPILER ARGS: the first word is the compiler
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (skipCompilerPath) {
      skipCompilerPath = false;
      continue;
    }
    // A flag's value: attached (-Ifoo, -o=x is not accepted) or the next argument.
    auto value = [&](llvm::StringRef flag) -> std::optional<std::string> {
      if (arg.size() > flag.size())
        return arg.drop_front(flag.size()).str();
      if (i + 1 < args.size())
        return std::string(args[++i]);
      return std::nullopt;
    };
    auto longValue = [&](llvm::StringRef flag) -> std::optional<std::string> {
      llvm::StringRef rest = arg.drop_front(flag.size());
      if (rest.consume_front("="))
        return rest.str();
      if (rest.empty() && i + 1 < args.size())
        return std::string(args[++i]);
      return std::nullopt;
    };
    if (arg == "--") {
      if (compileVerb) {
        cmd.launcher = true;
        skipCompilerPath = true;
        // A compiler without -O does not optimise (CMake's Debug flags are just -g).
        cmd.opts.optLevel = 0;
        continue;
      }
      if (cmd.verb != "run")
        return usageError("'--' (program arguments) is only valid with 'oxcc run'", cmd.verb);
      for (++i; i < args.size(); ++i)
        cmd.programArgs.push_back(args[i]);
      break;
    }
    if (arg == "-h" || arg == "--help") {
      printCommandHelp(*findCommand(cmd.verb));
      return 0;
    }
    if (arg.starts_with("-o")) {
      if (cmd.verb == "check")
        return usageError("'oxcc check' writes no output; drop '-o'", cmd.verb);
      auto v = value("-o");
      if (!v || v->empty())
        return usageError("'-o' needs a file name", cmd.verb);
      cmd.opts.output = *v;
    } else if (arg.starts_with("-isystem") || arg.starts_with("-iquote") || arg.starts_with("-idirafter")) {
      llvm::StringRef flag = arg.starts_with("-isystem")  ? "-isystem"
                             : arg.starts_with("-iquote") ? "-iquote"
                                                          : "-idirafter";
      auto v = value(flag);
      if (!v)
        return usageError("'" + flag + "' needs a directory", cmd.verb);
      cmd.opts.includeDirs.push_back(*v);
    } else if (arg.starts_with("-I")) {
      auto v = value("-I");
      if (!v)
        return usageError("'-I' needs a directory", cmd.verb);
      cmd.opts.includeDirs.push_back(*v);
    } else if (arg.starts_with("-D")) {
      auto v = value("-D");
      if (!v || v->empty())
        return usageError("'-D' needs a macro name", cmd.verb);
      cmd.opts.defines.push_back(*v);
    } else if (arg == "-O0" || arg == "-O1" || arg == "-O2" || arg == "-O3") {
      cmd.opts.optLevel = arg.back() - '0';
    } else if (arg == "-Os" || arg == "-Oz") {
      cmd.opts.optLevel = 2;
    } else if (arg == "-Og" || arg == "-O") {
      cmd.opts.optLevel = 1;
    } else if (arg == "-Ofast") {
      cmd.opts.optLevel = 3;
      cmd.opts.fastMath = true;
    } else if (arg.consume_front("-std=")) {
      static constexpr llvm::StringLiteral standards[] = {"c++20", "gnu++20", "c++2a", "gnu++2a",
                                                          "c++23", "gnu++23", "c++2b", "gnu++2b",
                                                          "c++26", "gnu++26", "c++2c", "gnu++2c"};
      if (!llvm::is_contained(standards, arg))
        return usageError("unsupported language standard '" + arg + "'; use -std=c++20 or -std=c++23",
                          cmd.verb);
      cmd.opts.cxxStandard = arg.str();
    } else if (arg.starts_with("--arch") || arg.starts_with("-arch") ||
               arg.starts_with("--gpu-architecture") || arg.starts_with("--cuda-gpu-arch") ||
               arg.starts_with("--offload-arch")) {
      llvm::StringRef flag = arg.take_until([](char c) { return c == '='; });
      if (flag != "--arch" && flag != "-arch" && flag != "--gpu-architecture" && flag != "--cuda-gpu-arch" &&
          flag != "--offload-arch")
        return usageError("unknown option '" + arg + "'", cmd.verb);
      auto v = longValue(flag);
      if (!v)
        return usageError("'" + flag + "' needs a value such as --arch=sm_90 or --arch=sm_80,sm_90",
                          cmd.verb);
      cmd.archGiven = true;
      // An empty value (CMake's launcher without OXIDE_ARCHITECTURES) keeps the default.
      if (!(cmd.launcher || compileVerb) || !v->empty())
        if (auto err = oxide::parseGpuArchList(*v, cmd.opts.archs))
          return reportError(std::move(err));
    } else if (arg.consume_front("--emit=")) {
      if (cmd.verb != "build")
        return usageError("--emit is only valid with 'oxcc build'", cmd.verb);
      if (arg == "llvm")
        cmd.opts.emit = oxide::EmitStage::LLVM;
      else if (arg == "mlir")
        cmd.opts.emit = oxide::EmitStage::MLIR;
      else if (arg == "ptx")
        cmd.opts.emit = oxide::EmitStage::PTX;
      else if (arg == "cubin")
        cmd.opts.emit = oxide::EmitStage::Cubin;
      else if (arg.consume_front("mlir-after=")) {
        const std::vector<std::string> passes = oxide::mlirPassNames();
        if (!llvm::is_contained(passes, arg)) {
          std::string what = arg.empty()
                                 ? "--emit=mlir-after= needs a pass name"
                                 : "unknown pass '" + arg.str() + "' in --emit=mlir-after=" + arg.str();
          return usageError(what + "; the MLIR stage's passes are " + llvm::join(passes, ", ") +
                                " (in the order they run)",
                            cmd.verb);
        }
        cmd.opts.emit = oxide::EmitStage::MLIR;
        cmd.opts.mlirPrintPass = arg.str();
      } else
        return usageError("unknown stage '" + arg +
                              "' for --emit; use llvm, mlir, mlir-after=PASS, ptx or cubin",
                          cmd.verb);
    } else if (arg == "-v") {
      cmd.opts.verbose = true;
    } else if (arg == "--threads" || arg.starts_with("--threads=")) {
      auto v = longValue("--threads");
      unsigned n = 0;
      if (!v || llvm::StringRef(*v).getAsInteger(10, n))
        return usageError("'--threads' needs a number: how many architectures to compile at once (0: one "
                          "per architecture, up to the number of cores)",
                          cmd.verb);
      cmd.opts.threads = n;
    } else if (arg == "--fast-math" || arg == "--use_fast_math" || arg == "-use_fast_math" ||
               arg == "-ffast-math") {
      cmd.opts.fastMath = true;
    } else if (arg == "--no-fmad" || arg == "--fmad=false" || arg == "-fmad=false" ||
               arg == "-ffp-contract=off") {
      cmd.opts.fmad = false;
    } else if (arg == "--fmad=true" || arg == "-fmad=true" || arg == "-ffp-contract=fast" ||
               arg == "-ffp-contract=on") {
      cmd.opts.fmad = true;
    } else if (arg == "-g0") {
      cmd.opts.debug = false;
    } else if (arg == "-g" || arg == "-g1" || arg == "-g2" || arg == "-g3" || arg == "-ggdb" ||
               arg == "-gline-tables-only") {
      cmd.opts.debug = true;
    } else if (arg == "-G" || arg == "--device-debug") {
      cmd.opts.deviceDebug = true;
    } else if (arg == "--lineinfo" || arg == "-lineinfo" || arg == "--generate-line-info") {
      cmd.opts.lineInfo = true;
    } else if (arg.consume_front("-fsanitize=")) {
      if (arg.empty())
        return usageError("'-fsanitize=' needs a sanitizer, e.g. -fsanitize=address", cmd.verb);
      cmd.opts.sanitizers.push_back(arg.str());
    } else if (arg == "--save-temps" || arg == "-save-temps" || arg == "-save-temps=obj") {
      cmd.saveTemps = "";
    } else if (arg == "-save-temps=cwd") {
      cmd.saveTemps = ".";
    } else if (arg.consume_front("--save-temps=")) {
      if (arg.empty())
        return usageError("'--save-temps=' needs a directory", cmd.verb);
      cmd.saveTemps = arg.str();
    } else if (arg == "--no-cache") {
      cmd.noCache = true;
    } else if ((cmd.verb == "build" || cmd.verb == "run") &&
               (arg.starts_with("-l") || arg.starts_with("-L") || arg.starts_with("-Wl,"))) {
      if (arg == "-l" || arg == "-L") {
        if (i + 1 >= args.size())
          return usageError("'" + arg + "' needs a value", cmd.verb);
        cmd.opts.linkInputs.push_back(arg.str() + args[++i]);
      } else {
        cmd.opts.linkInputs.push_back(arg.str());
      }
    } else if (compileVerb && (arg == "-MD" || arg == "-MMD")) {
      cmd.depFile = true;
      cmd.depSystem = arg == "-MD";
    } else if (compileVerb && arg.starts_with("-MF")) {
      auto v = value("-MF");
      if (!v)
        return usageError("'-MF' needs a file name", cmd.verb);
      cmd.depFilePath = *v;
    } else if (compileVerb && (arg.starts_with("-MT") || arg.starts_with("-MQ"))) {
      auto v = value(arg.take_front(3));
      if (!v)
        return usageError("'" + arg.take_front(3) + "' needs a target", cmd.verb);
      cmd.depTargets.push_back(*v);
    } else if (compileVerb && arg == "-x") {
      if (i + 1 >= args.size() ||
          (llvm::StringRef(args[i + 1]) != "c++" && llvm::StringRef(args[i + 1]) != "cuda"))
        return usageError("'-x' must be c++ for an Oxide translation unit", cmd.verb);
      ++i;
    } else if (lenient && isHarmlessCompilerFlag(arg)) {
      // Warnings and code-generation details the in-process clang decides on its own.
    } else if (lenient && (arg.starts_with("-f") || arg.starts_with("-m") || arg.starts_with("-U"))) {
      if (arg == "-U" && i + 1 < args.size())
        ++i;
      if (warned.insert(arg).second)
        llvm::WithColor::warning(llvm::errs(), "oxcc")
            << "ignoring '" << arg << "': not supported for Oxide translation units\n";
    } else if (arg.starts_with("-") && arg != "-") {
      return usageError("unknown option '" + arg + "'", cmd.verb);
    } else {
      inputs.push_back(arg.str());
    }
  }

  if (inputs.empty())
    return usageError("no input file", cmd.verb);
  for (const std::string &input : inputs) {
    if (isLinkInput(input)) {
      if (cmd.verb != "build" && cmd.verb != "run")
        return usageError(
            "'" + input + "' is not a C++ source file; 'oxcc " + cmd.verb + "' compiles sources", cmd.verb);
      cmd.opts.linkInputs.push_back(input);
      continue;
    }
    llvm::SmallString<256> absolute(input);
    fs::make_absolute(absolute);
    path::remove_dots(absolute, /*remove_dot_dot=*/true);
    cmd.opts.inputs.push_back(std::string(absolute));
  }
  if (cmd.opts.inputs.empty() && (cmd.opts.emit != oxide::EmitStage::Executable || compileVerb))
    return usageError("no C++ source file among the inputs", cmd.verb);
  if (compileVerb && cmd.opts.inputs.size() > 1)
    return usageError("'oxcc compile' compiles one file, got " + llvm::Twine(cmd.opts.inputs.size()),
                      cmd.verb);
  if (!cmd.opts.inputs.empty())
    cmd.opts.input = cmd.opts.inputs.front();
  return std::nullopt;
}

/// The same message the compile would give for an unreadable input, before any work.
llvm::Error checkInputs(const oxide::CompileOptions &opts) {
  for (const std::string &input : opts.translationUnits()) {
    auto buffer = llvm::MemoryBuffer::getFile(input);
    if (!buffer)
      return llvm::createStringError("cannot read '" + input + "': " + buffer.getError().message());
  }
  for (const std::string &input : opts.linkInputs)
    if (!llvm::StringRef(input).starts_with("-") && !fs::exists(input))
      return llvm::createStringError("cannot read '" + input + "': No such file or directory");
  return llvm::Error::success();
}

/// Where `oxcc run` puts the executable: the user cache directory, else the temp directory;
/// one name per set of inputs, so that concurrent runs of different programs do not collide.
std::string runOutputPath(const std::vector<std::string> &inputs) {
  llvm::SmallString<256> dir;
  if (!path::cache_directory(dir))
    path::system_temp_directory(/*erasedOnReboot=*/true, dir);
  path::append(dir, "oxide", "run");
  fs::create_directories(dir);
  llvm::BLAKE3 hasher;
  for (const auto &input : inputs) {
    hasher.update(input);
    hasher.update(llvm::StringRef("\0", 1));
  }
  auto digest = hasher.final<4>();
  path::append(dir, path::stem(inputs.front()) + "-" + llvm::toHex(digest, true));
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

llvm::Error writeAtomically(llvm::StringRef target, llvm::StringRef bytes) {
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = fs::createUniqueFile(target + ".tmp-%%%%%%", fd, temp))
    return llvm::createStringError("cannot write '" + target.str() + "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      fs::remove(temp);
      return llvm::createStringError("cannot write '" + target.str() + "': " + message);
    }
  }
  if (std::error_code ec = fs::rename(temp, target)) {
    fs::remove(temp);
    return llvm::createStringError("cannot write '" + target.str() + "': " + ec.message());
  }
  return llvm::Error::success();
}

/// A Make depfile: "target...: dep1 dep2 ...", with Make's escapes.
std::string makeDepfile(const std::vector<std::string> &targets, const std::vector<std::string> &deps) {
  auto escape = [](llvm::StringRef s) {
    std::string out;
    for (char c : s) {
      if (c == ' ' || c == '#' || c == '\\')
        out.push_back('\\');
      if (c == '$')
        out.push_back('$');
      out.push_back(c);
    }
    return out;
  };
  std::string text;
  for (size_t i = 0; i < targets.size(); ++i)
    text += (i ? " " : "") + escape(targets[i]);
  text += ":";
  for (const auto &dep : deps)
    text += " \\\n  " + escape(dep);
  text += "\n";
  return text;
}

/// Resolves --save-temps / $OXCC_DUMP_DIR into opts.tempsDir (created).
llvm::Error setUpTemps(Command &cmd) {
  std::optional<std::string> dir = cmd.saveTemps;
  if (dir && dir->empty()) {
    // Next to the output; `run` and `check` put them in the working directory.
    if (cmd.verb == "run" || cmd.verb == "check" || cmd.opts.output.empty() || cmd.opts.output == "-")
      dir = ".";
    else
      dir = std::string(path::parent_path(cmd.opts.output)).empty()
                ? std::string(".")
                : std::string(path::parent_path(cmd.opts.output));
  }
  if (!dir)
    if (auto env = llvm::sys::Process::GetEnv("OXCC_DUMP_DIR"); env && !env->empty())
      dir = *env;
  if (!dir)
    return llvm::Error::success();
  if (std::error_code ec = fs::create_directories(*dir))
    return llvm::createStringError("cannot create the directory '" + *dir +
                                   "' for intermediate files: " + ec.message());
  cmd.opts.tempsDir = *dir;
  return llvm::Error::success();
}

/// Where oxcc keeps its precompiled headers: the cache directory's pch/, unless
/// OXCC_NO_PCH=1 (then every compile parses the headers; see cli.md).
std::string precompiledHeaderDirectory() {
  auto off = llvm::sys::Process::GetEnv("OXCC_NO_PCH");
  if (off && !off->empty() && *off != "0")
    return {};
  const CacheConfig cache = CacheConfig::fromEnvironment(false);
  if (cache.dir.empty())
    return {};
  llvm::SmallString<256> dir(cache.dir);
  path::append(dir, "pch");
  return std::string(dir);
}

/// Compiles every translation unit (through the cache) and links them.
llvm::Error buildExecutable(const Command &cmd, const oxide::Toolchain &tc) {
  if (auto err = oxide::checkWritableOutput(cmd.opts.output))
    return err;
  const CacheConfig cache = CacheConfig::fromEnvironment(cmd.noCache);
  std::vector<std::string> objectPaths;
  std::list<llvm::FileRemover> removers;
  for (const std::string &input : cmd.opts.translationUnits()) {
    oxide::CompileOptions tuOpts = cmd.opts;
    tuOpts.input = input;
    auto object = compileWithCache(tuOpts, tc, cache, /*wantDependencies=*/false);
    if (!object)
      return object.takeError();
    llvm::SmallString<128> objectPath;
    if (auto ec = fs::createTemporaryFile("oxide-" + path::stem(input), "o", objectPath))
      return llvm::createStringError("cannot create a temporary file: " + ec.message());
    removers.emplace_back(objectPath);
    if (auto err = writeAtomically(objectPath, object->bytes))
      return err;
    objectPaths.push_back(std::string(objectPath));
  }
  return oxide::linkExecutable(objectPaths, cmd.opts, tc);
}

llvm::Error compileOne(const Command &cmd, const oxide::Toolchain &tc) {
  oxide::CompileOptions opts = cmd.opts;
  if (opts.output.empty())
    opts.output = (path::stem(opts.input) + ".o").str();
  if (auto err = oxide::checkWritableOutput(opts.output))
    return err;
  const CacheConfig cache = CacheConfig::fromEnvironment(cmd.noCache);
  auto object = compileWithCache(opts, tc, cache, cmd.depFile);
  if (!object)
    return object.takeError();
  if (auto err = writeAtomically(opts.output, object->bytes))
    return err;
  if (!cmd.depFile)
    return llvm::Error::success();
  std::vector<std::string> deps;
  for (const auto &dep : object->dependencies) {
    // -MMD: like clang, leave out system headers (the toolchain's and /usr's).
    llvm::StringRef d(dep);
    if (!cmd.depSystem &&
        (d.starts_with("/usr/") || d.starts_with(tc.cudaPath) || d.starts_with(tc.clangResourceDir)))
      continue;
    deps.push_back(dep);
  }
  std::string depPath = cmd.depFilePath.empty() ? opts.output + ".d" : cmd.depFilePath;
  std::vector<std::string> targets =
      cmd.depTargets.empty() ? std::vector<std::string>{opts.output} : cmd.depTargets;
  return writeAtomically(depPath, makeDepfile(targets, deps));
}

int runCache(llvm::ArrayRef<const char *> args) {
  bool clear = false;
  for (llvm::StringRef arg : args) {
    if (arg == "-h" || arg == "--help") {
      printCommandHelp(*findCommand("cache"));
      return 0;
    }
    if (arg != "--clear")
      return usageError("unknown option '" + arg + "'", "cache");
    clear = true;
  }
  CacheConfig cache = CacheConfig::fromEnvironment(false);
  if (cache.dir.empty())
    return reportError(
        llvm::createStringError("no cache directory: neither $XDG_CACHE_HOME nor $HOME is set"));
  if (clear) {
    if (auto err = clearCache(cache))
      return reportError(std::move(err));
    llvm::outs() << "emptied " << cache.dir << "\n";
    return 0;
  }
  llvm::outs() << describeCache(cache) << "\n";
  return 0;
}

} // namespace

int oxcc::usageError(const llvm::Twine &message, llvm::StringRef command) {
  llvm::WithColor::error(llvm::errs(), "oxcc") << message << "\n";
  if (command.empty())
    llvm::errs() << "run 'oxcc --help' for usage\n";
  else
    llvm::errs() << "run 'oxcc " << command << " --help' for usage\n";
  return kExitUsage;
}

int oxcc::reportError(llvm::Error err) {
  llvm::handleAllErrors(
      std::move(err), [](const oxide::ReportedError &) { /* diagnostics already printed */ },
      [](const llvm::ErrorInfoBase &info) {
        llvm::WithColor::error(llvm::errs(), "oxcc") << info.message() << "\n";
      });
  return kExitError;
}

int main(int argc, const char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // Decided once, while stderr is still the terminal: the object cache captures a compile's
  // diagnostics through a file, and they keep clang's colours when the terminal has them.
  (void)llvm::errs().has_colors();

  if (argc < 2)
    return usageError("no command given; use 'oxcc build FILE -o OUT', 'oxcc run FILE' or 'oxcc --help'");
  llvm::StringRef verb = argv[1];
  if (verb == "--version" || verb == "version") {
    llvm::outs() << "oxcc (Oxide) " << OXIDE_VERSION << "\n";
    return 0;
  }
  if (verb == "--help" || verb == "-h") {
    llvm::outs() << kUsage;
    return 0;
  }
  if (verb == "help") {
    if (argc < 3) {
      llvm::outs() << kUsage;
      return 0;
    }
    const CommandHelp *c = findCommand(argv[2]);
    if (!c)
      return usageError("unknown command '" + llvm::Twine(argv[2]) + "'");
    printCommandHelp(*c);
    return 0;
  }
  if (!findCommand(verb))
    return usageError("unknown command '" + verb + "'; use build, run, check, compile, new, doctor or cache");

  // Response files (@file), as CMake and other build tools may pass them.
  llvm::BumpPtrAllocator alloc;
  llvm::StringSaver saver(alloc);
  llvm::SmallVector<const char *, 64> rest(argv + 2, argv + argc);
  if (!llvm::cl::ExpandResponseFiles(saver, llvm::cl::TokenizeGNUCommandLine, rest))
    return usageError("cannot read a response file (@FILE) among the arguments", verb);

  if (verb == "new")
    return runNew(rest, argv[0]);
  if (verb == "doctor")
    return runDoctor(rest, argv[0]);
  if (verb == "cache")
    return runCache(rest);

  Command cmd;
  cmd.verb = verb.str();
  if (auto rc = parseOptions(rest, cmd))
    return *rc;
  if (cmd.verb == "build" && cmd.opts.output.empty() && cmd.opts.emit == oxide::EmitStage::Executable)
    return usageError("no output file; use -o OUTPUT", cmd.verb);
  if (cmd.opts.emit != oxide::EmitStage::Executable) {
    if (cmd.opts.translationUnits().size() != 1)
      return usageError("--emit writes one file's device code; give a single input file", cmd.verb);
    if (!cmd.opts.linkInputs.empty())
      return usageError("--emit does not link; drop the objects and -l/-L/-Wl flags", cmd.verb);
  }
  if (cmd.opts.deviceDebug && cmd.opts.lineInfo)
    cmd.opts.lineInfo = false; // -G already keeps line information
  if (cmd.verb == "check")
    cmd.opts.emit = oxide::EmitStage::Check;
  if (cmd.verb == "run" && cmd.opts.output.empty())
    cmd.opts.output = runOutputPath(cmd.opts.inputs.empty() ? cmd.opts.linkInputs : cmd.opts.inputs);
  cmd.opts.pchDirectory = precompiledHeaderDirectory();
  if (auto err = setUpTemps(cmd))
    return reportError(std::move(err));
  if (auto err = checkInputs(cmd.opts))
    return reportError(std::move(err));

  auto toolchain = oxide::Toolchain::discover(argv[0]);
  if (!toolchain)
    return reportError(toolchain.takeError());

  if (cmd.verb == "check") {
    // Every file is checked, even after one fails, as a compiler reports every file.
    int rc = 0;
    for (const std::string &input : cmd.opts.translationUnits()) {
      oxide::CompileOptions tuOpts = cmd.opts;
      tuOpts.input = input;
      if (auto err = oxide::checkTranslationUnit(tuOpts, *toolchain))
        rc = reportError(std::move(err));
    }
    return rc;
  }
  llvm::Error err = llvm::Error::success();
  if (cmd.verb == "compile")
    err = compileOne(cmd, *toolchain);
  else if (cmd.opts.emit != oxide::EmitStage::Executable)
    err = oxide::build(cmd.opts, *toolchain); // one stage of one file
  else
    err = buildExecutable(cmd, *toolchain);
  if (err)
    return reportError(std::move(err));
  if (cmd.verb == "run")
    return runBuilt(cmd.opts.output, cmd.programArgs);
  return 0;
}
