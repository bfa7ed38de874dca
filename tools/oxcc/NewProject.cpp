//===- NewProject.cpp - oxcc new NAME -------------------------------------===//
//
// Project templates live in tools/oxcc/templates/ and are compiled into oxcc
// (OxccTemplates.inc): a template is the files of common/ and of its own directory, with
// "dot-" file names becoming dotfiles and @NAME@, @OXIDE_PREFIX@, @OXIDE_INCLUDE_DIR@ and
// @OXIDE_VERSION@ replaced.
//
//===----------------------------------------------------------------------===//

#include "Oxcc.h"

#include "oxide/compiler/Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace oxcc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

struct TemplateFile {
  const char *path; ///< "<template>/<relative path>" under tools/oxcc/templates/
  const char *contents;
};

constexpr TemplateFile kTemplateFiles[] = {
#include "OxccTemplates.inc"
};

constexpr llvm::StringLiteral kTemplates[] = {"cmake", "basic"};

/// The files of one template: relative path in the project -> contents.
std::map<std::string, std::string> templateFiles(llvm::StringRef name) {
  std::map<std::string, std::string> files;
  for (llvm::StringRef layer : {llvm::StringRef("common"), name})
    for (const TemplateFile &file : kTemplateFiles) {
      llvm::StringRef rel(file.path);
      if (!rel.consume_front(layer) || !rel.consume_front("/"))
        continue;
      llvm::SmallVector<llvm::StringRef> parts;
      rel.split(parts, '/');
      std::string out;
      for (llvm::StringRef part : parts) {
        if (!out.empty())
          out += "/";
        out += part.consume_front("dot-") ? "." + part.str() : part.str();
      }
      files[out] = file.contents;
    }
  return files;
}

std::string substitute(std::string text, const std::map<std::string, std::string> &values) {
  for (const auto &[key, value] : values) {
    std::string pattern = "@" + key + "@";
    for (size_t pos = text.find(pattern); pos != std::string::npos;
         pos = text.find(pattern, pos + value.size()))
      text.replace(pos, pattern.size(), value);
  }
  return text;
}

/// A project name becomes a CMake target, an executable and a directory: letters, digits,
/// '_' and '-', starting with a letter.
bool validName(llvm::StringRef name) {
  if (name.empty() || !llvm::isAlpha(name.front()))
    return false;
  return llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_' || c == '-'; });
}

constexpr const char *kNewUsage = "USAGE: oxcc new NAME [--template cmake|basic]\n";

} // namespace

int oxcc::runNew(llvm::ArrayRef<const char *> args, const char *argv0) {
  std::string target, templateName = "cmake";
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (arg == "-h" || arg == "--help") {
      llvm::outs()
          << kNewUsage
          << "\nCreates the directory NAME with a project: src/main.cpp (a vecadd kernel with a launch\n"
             "contract, a prepared launch and a host check that prints PASS), README.md,\n"
             ".clang-format, .clangd and .gitignore.\n\n"
             "  --template cmake    (default) CMakeLists.txt: find_package(Oxide CONFIG REQUIRED) and\n"
             "                      add_oxide_executable(NAME src/main.cpp)\n"
             "  --template basic    no build system: oxcc build src/main.cpp -o NAME\n";
      return 0;
    }
    if (arg.consume_front("--template")) {
      if (arg.consume_front("="))
        templateName = arg.str();
      else if (arg.empty() && i + 1 < args.size())
        templateName = args[++i];
      else
        return usageError("'--template' needs a value: cmake or basic", "new");
      if (!llvm::is_contained(kTemplates, templateName))
        return usageError("unknown template '" + templateName + "'; use cmake or basic", "new");
    } else if (arg.starts_with("-")) {
      return usageError("unknown option '" + arg + "'", "new");
    } else if (!target.empty()) {
      return usageError("one project name expected, got '" + target + "' and '" + arg + "'", "new");
    } else {
      target = arg.str();
    }
  }
  if (target.empty())
    return usageError("no project name; use 'oxcc new NAME'", "new");

  llvm::SmallString<256> dir(target);
  path::remove_dots(dir, /*remove_dot_dot=*/true);
  std::string name = std::string(path::filename(dir));
  if (!validName(name))
    return usageError("invalid project name '" + name +
                          "': use letters, digits, '_' and '-', starting with a letter (it names the "
                          "directory, the CMake target and the executable)",
                      "new");
  if (fs::exists(dir))
    return reportError(
        llvm::createStringError("'" + dir.str() + "' already exists; choose another name or remove it"));
  llvm::SmallString<256> parent(dir);
  fs::make_absolute(parent);
  path::remove_filename(parent);
  if (!fs::is_directory(parent))
    return reportError(llvm::createStringError("cannot create '" + dir.str() + "': '" + parent.str() +
                                               "' is not an existing directory"));
  if (std::error_code ec = fs::create_directory(dir, /*IgnoreExisting=*/false, fs::perms::all_all))
    return reportError(llvm::createStringError("cannot create '" + dir.str() + "': " + ec.message()));

  oxide::Toolchain tc = oxide::Toolchain::locate(argv0);
  llvm::SmallString<256> include(tc.oxideIncludeDir);
  fs::make_absolute(include);
  // find_package(Oxide) looks in <prefix>/lib/cmake/Oxide; a build-tree oxcc has its package
  // configuration in <build>/lib/cmake/Oxide, so <build> works as the prefix too.
  std::map<std::string, std::string> values = {{"NAME", name},
                                               {"OXIDE_PREFIX", tc.prefix},
                                               {"OXIDE_INCLUDE_DIR", std::string(include)},
                                               {"OXIDE_VERSION", OXIDE_VERSION}};
  for (const auto &[rel, contents] : templateFiles(templateName)) {
    llvm::SmallString<256> file(dir);
    path::append(file, rel);
    if (std::error_code ec = fs::create_directories(path::parent_path(file), true, fs::perms::all_all))
      return reportError(
          llvm::createStringError("cannot create '" + path::parent_path(file).str() + "': " + ec.message()));
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec, fs::OF_Text);
    if (ec)
      return reportError(llvm::createStringError("cannot write '" + file.str() + "': " + ec.message()));
    os << substitute(contents, values);
  }

  llvm::outs() << "created " << templateName << " project '" << name << "' in " << dir << "\n\nnext:\n";
  if (templateName == "cmake")
    llvm::outs() << "  cmake -S " << dir << " -B " << dir << "/build -DCMAKE_PREFIX_PATH=" << tc.prefix
                 << "\n"
                 << "  cmake --build " << dir << "/build\n"
                 << "  " << dir << "/build/" << name << "\n";
  else
    llvm::outs() << "  cd " << dir << "\n  oxcc build src/main.cpp -o " << name << "\n  ./" << name << "\n";
  return 0;
}
