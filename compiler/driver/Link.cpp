//===- Link.cpp - the executable, and writing a build's files -------------===//

#include "oxide/compiler/Build.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace oxide;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

llvm::Error oxide::writeFileAtomically(llvm::StringRef target, llvm::StringRef bytes) {
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

llvm::Error oxide::checkWritableOutput(llvm::StringRef output) {
  if (output.empty() || output == "-")
    return llvm::Error::success();
  if (fs::is_directory(output))
    return llvm::createStringError("cannot write '" + output.str() + "': it is a directory");
  llvm::SmallString<256> dir(output);
  fs::make_absolute(dir);
  path::remove_filename(dir);
  if (!fs::exists(dir))
    return llvm::createStringError("cannot write '" + output.str() + "': directory '" + dir.str() +
                                   "' does not exist");
  if (!fs::is_directory(dir))
    return llvm::createStringError("cannot write '" + output.str() + "': '" + dir.str() +
                                   "' is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return llvm::createStringError("cannot write '" + output.str() + "': directory '" + dir.str() +
                                   "' is not writable");
  return llvm::Error::success();
}

llvm::Error oxide::linkExecutable(llvm::ArrayRef<std::string> objects, const CompileOptions &opts,
                                  const Toolchain &tc) {
  const std::string &output = opts.output;
  std::vector<std::string> flags;
  for (const auto &sanitizer : opts.sanitizers)
    flags.push_back("-fsanitize=" + sanitizer);
  llvm::SmallVector<llvm::StringRef> args = {tc.clangDriver};
  for (const auto &object : objects)
    args.push_back(object);
  for (const auto &input : opts.linkInputs)
    args.push_back(input);
  args.append({"-o", output});
  if (!tc.cubLibrary.empty())
    args.push_back(tc.cubLibrary);
  args.push_back(tc.runtimeLibrary);
  if (!tc.cudaRuntimeStatic.empty())
    args.append({tc.cudaRuntimeStatic, "-lrt"});
  args.append({"-ldl", "-lpthread"});
  // The objects are position-independent code, and the runtime's symbols hidden: the library
  // exports the user's symbols and the C ABI of oxide/c_api.h, with its own copy of the runtime.
  if (opts.shared)
    args.push_back("-shared");
  const std::string ldPath = "--ld-path=" + tc.lld;
  if (!tc.lld.empty())
    args.push_back(ldPath);
  for (const auto &flag : flags)
    args.push_back(flag);
  if (!tc.builtinsLibrary.empty())
    args.push_back(tc.builtinsLibrary);
  if (opts.verbose) {
    llvm::errs() << "oxcc: link:";
    for (auto a : args)
      llvm::errs() << ' ' << a;
    llvm::errs() << '\n';
  }
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(tc.clangDriver, args, std::nullopt, {}, 0, 0, &execError);
  if (rc != 0)
    return llvm::createStringError("linking '" + output + "' failed" +
                                   (execError.empty() ? std::string() : ": " + execError));
  return llvm::Error::success();
}
