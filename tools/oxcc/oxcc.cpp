//===- oxcc.cpp - the Oxide compiler driver -------------------------------===//
//
//   oxcc build FILE... -o OUT [options]    single-source C++ -> executable with its GPU code
//   oxcc run FILE... [options] [-- ARGS]   build (cached) into a cache directory, then run
//   oxcc check FILE... [options]           diagnostics only
//   oxcc compile -c FILE -o OBJ [options]  one translation unit -> object (build systems)
//   oxcc new NAME | doctor | cache          projects, the toolchain's health, the object cache
//
// This file holds the commands and their help; Options.td and Options.cpp the command line
// of the compiling commands, Commands.cpp what they do.
//
//===----------------------------------------------------------------------===//

#include "Oxcc.h"

#include "oxide/compiler/ReportedError.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace oxcc;

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
  -Wall, -Wno-X, -Werror[=X], -w, -pedantic
                      warning flags, as clang takes them; each warning is printed once,
                      by the host compile (the device compile adds only those in code
                      under __CUDA_ARCH__ and the like)
  -O0 .. -O3          optimisation level for host and device code (default -O3)
  -std=c++20|c++23    C++ standard (default c++20)
  --arch=LIST         GPU architectures, comma-separated or repeated: sm_XX embeds PTX and
                      a cubin, compute_XX PTX only (the driver compiles it on newer GPUs
                      too), XX-real a cubin only; XX = 70 72 75 80 86 87 89 90 100 101 103
                      120 121, with an 'a' for a GPU's own instructions (sm_90a, sm_100a);
                      native (this machine's GPU 0), all, all-major (as nvcc's). Default:
                      cubins for sm_80, sm_86, sm_89, sm_90, sm_100 and sm_120 and sm_90
                      PTX, leaving out those a file's kernels cannot run on (see -v). The
                      runtime loads the GPU's cubin (or an older one of its major version),
                      else the newest PTX not newer than it
  --threads=N         compile N architectures at once (default 0: one per architecture,
                      up to the number of cores), alongside the host compile unless N is 1
  --fast-math         approximate sqrt/division, flush denormals (nvcc --use_fast_math)
  --no-fmad           do not contract a * b + c into fused multiply-adds
  -g                  debug information for host code (kernels run on the CPU simulator
                      under gdb)
  -G                  debuggable device code (cuda-gdb): device variables and lines in the
                      PTX and cubin, device back end and ptxas at -O0, and -g
  --lineinfo          source lines in the cubin (Nsight Compute, compute-sanitizer); without
                      it or -G, device code carries no lines and no paths, as nvcc's
  -Xptxas OPTS        options for ptxas (comma-separated, repeatable), e.g. -Xptxas -v for
                      registers, shared memory and spills per kernel and architecture
  --resource-usage    one line per kernel and architecture: registers, shared memory, stack,
                      spills
  --no-occupancy-step do not assemble a kernel of a fixed block size again when a few
                      fewer registers would fit one more block per multiprocessor
  -fdiagnostics-color[=always|never|auto]
                      colour diagnostics (default auto: on a terminal)
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

/// A command: its name, and its help (with the compile options and the environment after it
/// when it compiles).
struct VerbInfo {
  Verb verb;
  const char *name;
  const char *usage;
  bool compileOptions;
};

constexpr VerbInfo kVerbs[] = {
    {Verb::Build, "build", R"(USAGE: oxcc build FILE... -o OUTPUT [options]
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
  --shared            link a shared library (lib.so) instead of an executable: its kernels
                      marked OXIDE_EXPORT are callable through the C ABI of <oxide/c_api.h>
                      and from Python (docs/interop.md)
  -lNAME, -LDIR, -Wl,ARGS   passed to the link
)",
     true},
    {Verb::Run, "run", R"(USAGE: oxcc run FILE... [options] [-- PROGRAM-ARGS...]

Builds like 'oxcc build' into the cache directory ($XDG_CACHE_HOME/oxide/run) unless -o is
given, then runs the program with PROGRAM-ARGS and exits with its status. Without a GPU the
kernels run on the CPU simulator (OXIDE_DEVICE=cpu forces it). Without --arch it builds for
the GPU it will run on only (asked of the CUDA driver), or sm_90 PTX alone for the simulator;
-v says which and why.

RUN OPTIONS:
  -o FILE             where to put the executable
  -lNAME, -LDIR, -Wl,ARGS   passed to the link
)",
     true},
    {Verb::Check, "check", R"(USAGE: oxcc check FILE... [options]

Runs the host and device frontends and the oxide dialect's checks (safety model, launch
contracts, device-only constructs) on each FILE and produces no code: one device compile, for
the first --arch (else sm_90), whose kernels' architecture requirements are checked against
every --arch; no NVPTX code generation and no ptxas.

CHECK OPTIONS:
  --unsafe-report     also print, to stdout, each FILE's uses of the unsafe tier
                      (unsafe_launch, unsafe_borrow, Stream::adopt, unsafe_ref,
                      sim::register_kernel) and its kernels without a launch contract,
                      each at file:line:col with the function it is in, and their count
)",
     true},
    {Verb::Compile, "compile", R"(USAGE: oxcc compile -c FILE -o OBJECT [options] [-MD -MF DEPFILE -MT TARGET]
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
    {Verb::New, "new", R"(USAGE: oxcc new NAME [--template cmake|basic]

Creates the directory NAME with a project: src/main.cpp (a vecadd kernel with a launch
contract, a prepared launch and a host check that prints PASS), README.md, .clang-format,
.clangd (flags that let clangd read Oxide sources) and .gitignore.

  --template cmake    (default) CMakeLists.txt with find_package(Oxide CONFIG REQUIRED) and
                      add_oxide_executable(NAME src/main.cpp)
  --template basic    no build system: oxcc build src/main.cpp -o NAME
)",
     false},
    {Verb::Doctor, "doctor", R"(USAGE: oxcc doctor

Checks what oxcc needs (clang/LLVM, the CUDA toolkit, libdevice, ptxas, Oxide's headers and
runtime) and what the programs it builds use at run time (the NVIDIA driver and the GPUs),
one line each, with a fix for each problem. Exits 0 when oxcc can build programs: without a
driver or a GPU they run on the CPU simulator.
)",
     false},
    {Verb::Cache, "cache", R"(USAGE: oxcc cache [--clear]

Shows where the object cache is and how much it holds; --clear empties it. The cache keeps
one object per translation unit and set of options, keyed by the contents of the source and
of every file it includes, the options, the toolchain and oxcc itself.
)",
     false},
};

const VerbInfo *findVerb(llvm::StringRef name) {
  auto it = llvm::find_if(kVerbs, [&](const VerbInfo &v) { return name == v.name; });
  return it == std::end(kVerbs) ? nullptr : it;
}

const VerbInfo &infoOf(Verb verb) {
  return *llvm::find_if(kVerbs, [&](const VerbInfo &v) { return v.verb == verb; });
}

} // namespace

llvm::StringRef oxcc::verbName(Verb verb) { return infoOf(verb).name; }

void oxcc::printCommandHelp(Verb verb) {
  const VerbInfo &c = infoOf(verb);
  llvm::outs() << c.usage;
  if (c.compileOptions)
    llvm::outs() << kCompileOptions << kEnvironment;
}

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
    const VerbInfo *c = findVerb(argv[2]);
    if (!c)
      return usageError("unknown command '" + llvm::Twine(argv[2]) + "'");
    printCommandHelp(c->verb);
    return 0;
  }
  const VerbInfo *command = findVerb(verb);
  if (!command)
    return usageError("unknown command '" + verb + "'; use build, run, check, compile, new, doctor or cache");

  // Response files (@file), as CMake and other build tools may pass them.
  llvm::BumpPtrAllocator alloc;
  llvm::StringSaver saver(alloc);
  llvm::SmallVector<const char *, 64> rest(argv + 2, argv + argc);
  if (!llvm::cl::ExpandResponseFiles(saver, llvm::cl::TokenizeGNUCommandLine, rest))
    return usageError("cannot read a response file (@FILE) among the arguments", verb);

  switch (command->verb) {
  case Verb::New:
    return runNew(rest, argv[0]);
  case Verb::Doctor:
    return runDoctor(rest, argv[0]);
  case Verb::Cache:
    return runCache(rest);
  case Verb::Build:
  case Verb::Run:
  case Verb::Check:
  case Verb::Compile:
    break;
  }
  Command cmd;
  cmd.verb = command->verb;
  if (auto rc = parseOptions(rest, cmd))
    return *rc;
  return runCommand(cmd, argv[0]);
}
