//===- Commands.cpp - oxcc build, run, check and compile ------------------===//
//
// What a parsed command line does: checks it, finds the toolchain, then compiles every
// translation unit (through the object cache) and links them, writes one object and its
// depfile, checks the files, or prints one device stage; `run` then runs the program.
//
//===----------------------------------------------------------------------===//

#include "ObjectCache.h"
#include "Oxcc.h"

#include "oxide/compiler/Build.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <list>
#include <optional>

using namespace oxcc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

/// The same message the compile would give for an unreadable input, before any work.
llvm::Error checkInputs(const oxide::CompileOptions &opts) {
  for (const std::string &input : opts.inputs) {
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

/// The architecture `oxcc run` builds for when --arch does not say: the GPU the program will
/// run on (OXIDE_DEVICE=cuda:N, else GPU 0), found through the CUDA driver as the runtime finds
/// it; without a driver or a GPU (or with OXIDE_DEVICE=cpu) the kernels run on the CPU
/// simulator, which runs no GPU code: sm_90 PTX alone (no ptxas) is the quickest build.
/// `why` says how it was chosen, for -v.
oxide::GpuArch runArch(std::string &why) {
  const oxide::GpuArch simulator{90, oxide::GpuArch::Code::PtxOnly};
  const std::string device = llvm::sys::Process::GetEnv("OXIDE_DEVICE").value_or("");
  if (device == "cpu") {
    why = "OXIDE_DEVICE=cpu: the kernels run on the CPU simulator";
    return simulator;
  }
  int ordinal = 0;
  if (llvm::StringRef(device).starts_with("cuda:"))
    llvm::StringRef(device).drop_front(5).getAsInteger(10, ordinal);
  auto local = localGpuArch(ordinal);
  if (!local) {
    why = llvm::toString(local.takeError()) + ": the kernels run on the CPU simulator";
    return simulator;
  }
  const std::string name = "sm_" + std::to_string(*local);
  auto arch = oxide::parseGpuArch(name);
  if (!arch) {
    llvm::consumeError(arch.takeError());
    // A GPU newer than oxcc knows: the newest default PTX, which the driver compiles for it.
    why = "GPU " + std::to_string(ordinal) + " is " + name + ", which oxcc does not know: its PTX for sm_90";
    return oxide::GpuArch{90, oxide::GpuArch::Code::PtxOnly};
  }
  why = "the GPU the program runs on (GPU " + std::to_string(ordinal) + ", " + name + ")";
  return *arch;
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
    if (cmd.verb == Verb::Run || cmd.verb == Verb::Check || cmd.opts.output.empty() || cmd.opts.output == "-")
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
  for (const std::string &input : cmd.opts.inputs) {
    auto object = compileWithCache({cmd.opts, input}, tc, cache, /*wantDependencies=*/false);
    if (!object)
      return object.takeError();
    llvm::SmallString<128> objectPath;
    if (auto ec = fs::createTemporaryFile("oxide-" + path::stem(input), "o", objectPath))
      return llvm::createStringError("cannot create a temporary file: " + ec.message());
    removers.emplace_back(objectPath);
    if (auto err = oxide::writeFileAtomically(objectPath, object->bytes))
      return err;
    objectPaths.push_back(std::string(objectPath));
  }
  return oxide::linkExecutable(objectPaths, cmd.opts, tc);
}

llvm::Error compileOne(const Command &cmd, const oxide::Toolchain &tc) {
  const oxide::TranslationUnit tu{cmd.opts, cmd.opts.inputs.front()};
  const std::string output = cmd.opts.output.empty() ? (path::stem(tu.input) + ".o").str() : cmd.opts.output;
  if (auto err = oxide::checkWritableOutput(output))
    return err;
  const CacheConfig cache = CacheConfig::fromEnvironment(cmd.noCache);
  auto object = compileWithCache(tu, tc, cache, cmd.depFile);
  if (!object)
    return object.takeError();
  if (auto err = oxide::writeFileAtomically(output, object->bytes))
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
  std::string depPath = cmd.depFilePath.empty() ? output + ".d" : cmd.depFilePath;
  std::vector<std::string> targets =
      cmd.depTargets.empty() ? std::vector<std::string>{output} : cmd.depTargets;
  return oxide::writeFileAtomically(depPath, makeDepfile(targets, deps));
}

} // namespace

int oxcc::runCache(llvm::ArrayRef<const char *> args) {
  bool clear = false;
  for (llvm::StringRef arg : args) {
    if (arg == "-h" || arg == "--help") {
      printCommandHelp(Verb::Cache);
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

int oxcc::runCommand(Command &cmd, const char *argv0) {
  if (cmd.verb == Verb::Build && cmd.opts.output.empty() && cmd.opts.emit == oxide::EmitStage::Executable)
    return usageError("no output file; use -o OUTPUT", verbName(cmd.verb));
  if (cmd.opts.shared && cmd.opts.emit != oxide::EmitStage::Executable)
    return usageError("--shared links a library; it does not go with --emit", verbName(cmd.verb));
  if (cmd.opts.emit != oxide::EmitStage::Executable) {
    if (cmd.opts.inputs.size() != 1)
      return usageError("--emit writes one file's device code; give a single input file", verbName(cmd.verb));
    if (!cmd.opts.linkInputs.empty())
      return usageError("--emit does not link; drop the objects and -l/-L/-Wl flags", verbName(cmd.verb));
  }
  if (cmd.opts.deviceDebug && cmd.opts.lineInfo)
    cmd.opts.lineInfo = false; // -G already keeps line information
  // -G debugs the host code too; `check` makes no code, and its host compile keeps line tables.
  if (cmd.opts.deviceDebug && cmd.verb != Verb::Check)
    cmd.opts.debug = true;
  if (cmd.verb == Verb::Check)
    cmd.opts.emit = oxide::EmitStage::Check;
  // `run` builds for the GPU it runs on (or the simulator); `build` keeps the fat image.
  if (cmd.verb == Verb::Run && !cmd.opts.archsChosen()) {
    std::string why;
    cmd.opts.archs = {runArch(why)};
    if (cmd.opts.verbose)
      llvm::errs() << "oxcc: note: run builds for " << cmd.opts.archs.front().name() << ": " << why
                   << "; --arch chooses others\n";
  }
  if (cmd.verb == Verb::Run && cmd.opts.output.empty())
    cmd.opts.output = runOutputPath(cmd.opts.inputs.empty() ? cmd.opts.linkInputs : cmd.opts.inputs);
  cmd.opts.pchDirectory = precompiledHeaderDirectory();
  if (auto err = setUpTemps(cmd))
    return reportError(std::move(err));
  if (auto err = checkInputs(cmd.opts))
    return reportError(std::move(err));

  auto toolchain = oxide::Toolchain::discover(argv0);
  if (!toolchain)
    return reportError(toolchain.takeError());

  if (cmd.verb == Verb::Check) {
    // Every file is checked, even after one fails, as a compiler reports every file.
    int rc = 0;
    for (const std::string &input : cmd.opts.inputs)
      if (auto err = oxide::checkTranslationUnit({cmd.opts, input}, *toolchain))
        rc = reportError(std::move(err));
    return rc;
  }
  llvm::Error err = llvm::Error::success();
  if (cmd.verb == Verb::Compile)
    err = compileOne(cmd, *toolchain);
  else if (cmd.opts.emit != oxide::EmitStage::Executable)
    err = oxide::emitDeviceStage({cmd.opts, cmd.opts.inputs.front()}, *toolchain); // one stage of one file
  else
    err = buildExecutable(cmd, *toolchain);
  if (err)
    return reportError(std::move(err));
  if (cmd.verb == Verb::Run)
    return runBuilt(cmd.opts.output, cmd.programArgs);
  return 0;
}
