//===- Options.cpp - the command line of build, run, check and compile ----===//
//
// Options.td declares the spellings and aliases; LLVM's OptTable splits the arguments into
// options and values, and OptionReader applies each to the Command: one method per group of
// options (how the source is read, how device code is generated, what is produced, how oxcc
// behaves, what a build system's compile command carries), each checking its values and the
// verb. An argument the table does not know goes to unknownArgument: `oxcc compile` (a build
// system's compile command) ignores what the in-process clang decides on its own, and warns
// about other -f/-m flags; every other command rejects it. The inputs are sorted out last
// (InputFiles.cpp).
//
//===----------------------------------------------------------------------===//

#include "Oxcc.h"

#include "oxide/compiler/DiagnosticFormat.h"
#include "oxide/compiler/MlirStage.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Option/Arg.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace oxcc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

using namespace llvm::opt; // the generated tables name Options.td's kinds and flags unqualified

enum OptionID {
  OPT_INVALID = 0,
#define OPTION(...) LLVM_MAKE_OPT_ID(__VA_ARGS__),
#include "Options.inc"
#undef OPTION
};

#define OPTTABLE_STR_TABLE_CODE
#include "Options.inc"
#undef OPTTABLE_STR_TABLE_CODE

#define OPTTABLE_PREFIXES_TABLE_CODE
#include "Options.inc"
#undef OPTTABLE_PREFIXES_TABLE_CODE

constexpr llvm::opt::OptTable::Info kOptionInfos[] = {
#define OPTION(...) LLVM_CONSTRUCT_OPT_INFO(__VA_ARGS__),
#include "Options.inc"
#undef OPTION
};

class OxccOptTable : public llvm::opt::GenericOptTable {
public:
  OxccOptTable() : GenericOptTable(OptionStrTable, OptionPrefixesTable, kOptionInfos) {}
};

/// -fdiagnostics-color[=always|never|auto]: clang's diagnostics, oxide's and oxcc's own
/// messages coloured or not whatever stderr is (std::nullopt: colours on a terminal).
void setColors(std::optional<bool> colors) {
  oxide::setDiagnosticColors(colors);
  if (colors)
    llvm::errs().enable_colors(*colors);
  if (!colors)
    llvm::WithColor::setAutoDetectFunction(llvm::WithColor::defaultAutoDetectFunction());
  else if (*colors)
    llvm::WithColor::setAutoDetectFunction([](const llvm::raw_ostream &) { return true; });
  else
    llvm::WithColor::setAutoDetectFunction([](const llvm::raw_ostream &) { return false; });
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

/// -O's levels, as clang reads them; "fast" is -O3 with --fast-math.
std::optional<unsigned> optimizationLevel(llvm::StringRef value) {
  if (value.size() == 1 && value[0] >= '0' && value[0] <= '3')
    return unsigned(value[0] - '0');
  if (value == "s" || value == "z")
    return 2;
  if (value == "g" || value.empty())
    return 1;
  if (value == "fast")
    return 3;
  return std::nullopt;
}

/// One argument as the table read it: which option (OPT_INPUT, OPT_UNKNOWN or a declared one),
/// its text as the user wrote it, and its value (none when it is missing at the end).
struct Item {
  unsigned id;
  unsigned index; ///< position in the arguments
  llvm::StringRef spelling;
  std::optional<llvm::StringRef> value;
};

/// The arguments in order; an option whose value is missing (only the last can be) comes last,
/// without a value.
std::vector<Item> readArguments(const OxccOptTable &table, llvm::ArrayRef<const char *> args,
                                llvm::opt::InputArgList &parsed) {
  unsigned missingIndex = 0, missingCount = 0;
  parsed = table.ParseArgs(args, missingIndex, missingCount);
  std::vector<Item> items;
  for (const llvm::opt::Arg *arg : parsed) {
    Item item{arg->getOption().getID(), arg->getIndex(), args[arg->getIndex()], std::nullopt};
    if (arg->getNumValues() > 0)
      item.value = arg->getValue();
    items.push_back(item);
  }
  if (missingCount > 0) {
    // Which option it is: the same spelling with a value.
    const char *withValue[] = {args[missingIndex], ""};
    unsigned index = 0, count = 0;
    llvm::opt::InputArgList probe = table.ParseArgs(withValue, index, count);
    const unsigned id = probe.size() > 0 ? (*probe.begin())->getOption().getID() : unsigned(OPT_UNKNOWN);
    items.push_back({id, missingIndex, args[missingIndex], std::nullopt});
  }
  return items;
}

/// Reads the options of one command line into a Command.
class OptionReader {
public:
  OptionReader(Command &cmd, const OxccOptTable &table, llvm::ArrayRef<const char *> args)
      : cmd(cmd), table(table), args(args), verb(verbName(cmd.verb)), compileVerb(cmd.verb == Verb::Compile),
        links(cmd.verb == Verb::Build || cmd.verb == Verb::Run) {}

  /// Applies the arguments in order; an exit code on error or --help.
  std::optional<int> read() {
    llvm::opt::InputArgList parsed;
    for (const Item &item : readArguments(table, args, parsed)) {
      if (programArgs)
        break;
      if (compilerPath && item.index == *compilerPath)
        continue;
      if (item.id == OPT_INPUT) {
        inputs.push_back(item.spelling.str());
        continue;
      }
      if (auto rc = apply(item))
        return rc;
    }
    return resolveInputs(inputs, cmd);
  }

private:
  std::optional<int> apply(const Item &item) {
    switch (item.id) {
    case OPT_UNKNOWN:
      return unknownOrSeparator(item);
    case OPT_isystem:
    case OPT_iquote:
    case OPT_idirafter:
    case OPT_I:
    case OPT_W_Joined:
    case OPT_w:
    case OPT_pedantic:
    case OPT_pedantic_errors:
    case OPT_D:
    case OPT_O:
    case OPT_std_EQ:
    case OPT_ffile_prefix_map_EQ:
    case OPT_fmacro_prefix_map_EQ:
    case OPT_fdebug_prefix_map_EQ:
      return languageOption(item);
    case OPT_arch_EQ:
    case OPT_fast_math:
    case OPT_no_fmad:
    case OPT_fmad:
    case OPT_g0:
    case OPT_g:
    case OPT_G:
    case OPT_lineinfo:
    case OPT_Xptxas:
    case OPT_resource_usage:
    case OPT_no_occupancy_step:
      return deviceCodeOption(item);
    case OPT_o:
    case OPT_emit_EQ:
    case OPT_fsanitize_EQ:
    case OPT_shared:
    case OPT_l:
    case OPT_L:
    case OPT_Wl_COMMA:
      return outputOption(item);
    case OPT_help:
    case OPT_v:
    case OPT_threads_EQ:
    case OPT_fdiagnostics_color:
    case OPT_fno_diagnostics_color:
    case OPT_fdiagnostics_color_EQ:
    case OPT_save_temps:
    case OPT_save_temps_cwd:
    case OPT_save_temps_EQ:
    case OPT_no_cache:
    case OPT_unsafe_report:
      return driverOption(item);
    case OPT_MD:
    case OPT_MMD:
    case OPT_MF:
    case OPT_MT:
    case OPT_MQ:
    case OPT_x:
    case OPT_U:
      return buildSystemOption(item);
    default:
      llvm_unreachable("an option of Options.td without a group");
    }
  }

  /// An argument the table does not know: `--` (before the compiler command of `oxcc compile`,
  /// or the program's arguments of `oxcc run`), or an unknown option.
  std::optional<int> unknownOrSeparator(const Item &item) {
    const llvm::StringRef arg = item.spelling;
    if (arg != "--")
      return unknownArgument(arg);
    if (compileVerb) {
      cmd.launcher = true;
      compilerPath = item.index + 1;
      // A compiler without -O does not optimise (CMake's Debug flags are just -g).
      cmd.opts.optLevel = 0;
      return std::nullopt;
    }
    if (cmd.verb != Verb::Run)
      return usageError("'--' (program arguments) is only valid with 'oxcc run'", verb);
    for (size_t i = item.index + 1; i < args.size(); ++i)
      cmd.programArgs.push_back(args[i]);
    programArgs = true;
    return std::nullopt;
  }

  /// How the C++ source is read: include directories, macros, warnings, -O, -std.
  std::optional<int> languageOption(const Item &item) {
    const llvm::StringRef arg = item.spelling;
    const std::optional<llvm::StringRef> value = item.value;
    switch (item.id) {
    case OPT_isystem:
    case OPT_iquote:
    case OPT_idirafter:
    case OPT_I:
      if (!value)
        return usageError("'" + table.getOption(item.id).getPrefixedName() + "' needs a directory", verb);
      cmd.opts.includeDirs.push_back(value->str());
      break;
    case OPT_W_Joined:
      // -Wa, and -Wp, hand flags to the assembler and the preprocessor: not warnings.
      if (!value || value->empty() || value->starts_with("a,") || value->starts_with("p,")) {
        if (auto rc = unknownArgument(arg))
          return rc;
        break;
      }
      [[fallthrough]];
    case OPT_w:
    case OPT_pedantic:
    case OPT_pedantic_errors:
      // The CMake launcher form keeps ignoring them (unknownArgument: harmless flags).
      if (cmd.launcher) {
        if (auto rc = unknownArgument(arg))
          return rc;
        break;
      }
      cmd.opts.warnings.push_back(arg.str());
      break;
    case OPT_D:
      if (!value || value->empty())
        return usageError("'-D' needs a macro name", verb);
      cmd.opts.defines.push_back(value->str());
      break;
    case OPT_ffile_prefix_map_EQ:
    case OPT_fmacro_prefix_map_EQ:
    case OPT_fdebug_prefix_map_EQ: {
      const llvm::StringRef flag = arg.take_until([](char c) { return c == '='; });
      const std::optional<oxide::PathPrefix> prefix = oxide::PathPrefix::parse(value.value_or(""));
      if (!prefix)
        return usageError("'" + flag + "=' needs OLD=NEW, e.g. " + flag + "=/home/me/project/=", verb);
      if (item.id != OPT_fdebug_prefix_map_EQ)
        cmd.opts.macroPrefixMap.push_back(*prefix);
      if (item.id != OPT_fmacro_prefix_map_EQ)
        cmd.opts.debugPrefixMap.push_back(*prefix);
      break;
    }
    case OPT_O: {
      std::optional<unsigned> level = optimizationLevel(*value);
      if (!level) {
        if (auto rc = unknownArgument(arg))
          return rc;
        break;
      }
      cmd.opts.optLevel = *level;
      if (*value == "fast")
        cmd.opts.fastMath = true;
      break;
    }
    case OPT_std_EQ: {
      static constexpr llvm::StringLiteral standards[] = {"c++20", "gnu++20", "c++2a", "gnu++2a",
                                                          "c++23", "gnu++23", "c++2b", "gnu++2b",
                                                          "c++26", "gnu++26", "c++2c", "gnu++2c"};
      if (!llvm::is_contained(standards, *value))
        return usageError("unsupported language standard '" + *value + "'; use -std=c++20 or -std=c++23",
                          verb);
      cmd.opts.cxxStandard = value->str();
      break;
    }
    default:
      llvm_unreachable("an option of another group");
    }
    return std::nullopt;
  }

  /// How the device code is generated: architectures, floating point, debug information, ptxas.
  std::optional<int> deviceCodeOption(const Item &item) {
    const llvm::StringRef arg = item.spelling;
    const std::optional<llvm::StringRef> value = item.value;
    switch (item.id) {
    case OPT_arch_EQ: {
      const llvm::StringRef flag = arg.take_until([](char c) { return c == '='; });
      if (!value)
        return usageError("'" + flag + "' needs a value such as --arch=sm_90 or --arch=sm_80,sm_90", verb);
      // An empty value (CMake's launcher without OXIDE_ARCHITECTURES) keeps the default.
      if (!compileVerb || !value->empty())
        if (auto err = oxide::parseGpuArchList(*value, cmd.opts.archs))
          return usageError(llvm::toString(std::move(err)), verb); // a usage error: exit 2
      break;
    }
    case OPT_fast_math:
      cmd.opts.fastMath = true;
      break;
    case OPT_no_fmad:
      cmd.opts.fmad = false;
      break;
    case OPT_fmad:
      cmd.opts.fmad = true;
      break;
    case OPT_g0:
      cmd.opts.debug = false;
      break;
    case OPT_g:
      cmd.opts.debug = true;
      break;
    case OPT_G:
      cmd.opts.deviceDebug = true;
      break;
    case OPT_lineinfo:
      cmd.opts.lineInfo = true;
      break;
    case OPT_Xptxas: {
      if (!value || value->empty())
        return usageError("'-Xptxas' needs ptxas options, e.g. -Xptxas -v or -Xptxas --maxrregcount=64",
                          verb);
      // nvcc splits the value at commas: -Xptxas -v,--warn-on-spills.
      llvm::SmallVector<llvm::StringRef> parts;
      value->split(parts, ',', -1, /*KeepEmpty=*/false);
      for (llvm::StringRef part : parts)
        cmd.opts.ptxasOptions.push_back(part.str());
      break;
    }
    case OPT_resource_usage:
      cmd.opts.resourceUsage = true;
      break;
    case OPT_no_occupancy_step:
      cmd.opts.occupancyStep = false;
      break;
    default:
      llvm_unreachable("an option of another group");
    }
    return std::nullopt;
  }

  /// What is produced: the output file, the stage (--emit), a shared library, what is linked in,
  /// sanitizers.
  std::optional<int> outputOption(const Item &item) {
    const llvm::StringRef arg = item.spelling;
    const std::optional<llvm::StringRef> value = item.value;
    switch (item.id) {
    case OPT_o:
      if (cmd.verb == Verb::Check)
        return usageError("'oxcc check' writes no output; drop '-o'", verb);
      if (!value || value->empty())
        return usageError("'-o' needs a file name", verb);
      cmd.opts.output = value->str();
      break;
    case OPT_emit_EQ: {
      if (cmd.verb != Verb::Build)
        return usageError("--emit is only valid with 'oxcc build'", verb);
      llvm::StringRef stage = *value;
      if (stage == "llvm")
        cmd.opts.emit = oxide::EmitStage::LLVM;
      else if (stage == "mlir")
        cmd.opts.emit = oxide::EmitStage::MLIR;
      else if (stage == "ptx")
        cmd.opts.emit = oxide::EmitStage::PTX;
      else if (stage == "cubin")
        cmd.opts.emit = oxide::EmitStage::Cubin;
      else if (stage.consume_front("mlir-after=")) {
        const std::vector<std::string> passes = oxide::mlirPassNames();
        if (!llvm::is_contained(passes, stage)) {
          std::string what = stage.empty()
                                 ? "--emit=mlir-after= needs a pass name"
                                 : "unknown pass '" + stage.str() + "' in --emit=mlir-after=" + stage.str();
          return usageError(what + "; the MLIR stage's passes are " + llvm::join(passes, ", ") +
                                " (in the order they run)",
                            verb);
        }
        cmd.opts.emit = oxide::EmitStage::MLIR;
        cmd.opts.mlirPrintPass = stage.str();
      } else
        return usageError(
            "unknown stage '" + stage + "' for --emit; use llvm, mlir, mlir-after=PASS, ptx or cubin", verb);
      break;
    }
    case OPT_fsanitize_EQ:
      if (value->empty())
        return usageError("'-fsanitize=' needs a sanitizer, e.g. -fsanitize=address", verb);
      cmd.opts.sanitizers.push_back(value->str());
      break;
    case OPT_shared:
      if (cmd.verb != Verb::Build)
        return usageError("--shared is only valid with 'oxcc build'", verb);
      cmd.opts.shared = true;
      break;
    case OPT_l:
    case OPT_L:
    case OPT_Wl_COMMA:
      if (!links) {
        if (auto rc = unknownArgument(arg))
          return rc;
        break;
      }
      if (!value)
        return usageError("'" + arg + "' needs a value", verb);
      // -l NAME and -lNAME alike; -Wl,ARGS as written.
      cmd.opts.linkInputs.push_back(item.id == OPT_Wl_COMMA
                                        ? arg.str()
                                        : table.getOption(item.id).getPrefixedName().str() + value->str());
      break;
    default:
      llvm_unreachable("an option of another group");
    }
    return std::nullopt;
  }

  /// How oxcc itself behaves: help, verbosity, parallel builds, colours, temporaries, the cache,
  /// the unsafe report.
  std::optional<int> driverOption(const Item &item) {
    const std::optional<llvm::StringRef> value = item.value;
    switch (item.id) {
    case OPT_help:
      printCommandHelp(cmd.verb);
      return 0;
    case OPT_v:
      cmd.opts.verbose = true;
      break;
    case OPT_threads_EQ: {
      unsigned n = 0;
      if (!value || value->getAsInteger(10, n))
        return usageError("'--threads' needs a number: how many architectures to compile at once (0: one "
                          "per architecture, up to the number of cores)",
                          verb);
      cmd.opts.threads = n;
      break;
    }
    case OPT_fdiagnostics_color:
    case OPT_fno_diagnostics_color:
    case OPT_fdiagnostics_color_EQ: {
      std::optional<bool> colors;
      if (item.id == OPT_fdiagnostics_color || (value && *value == "always"))
        colors = true;
      else if (item.id == OPT_fno_diagnostics_color || (value && *value == "never"))
        colors = false;
      else if (!value || *value != "auto")
        return usageError("'-fdiagnostics-color=' takes always, never or auto", verb);
      setColors(colors);
      break;
    }
    case OPT_save_temps:
      cmd.saveTemps = "";
      break;
    case OPT_save_temps_cwd:
      cmd.saveTemps = ".";
      break;
    case OPT_save_temps_EQ:
      if (value->empty())
        return usageError("'--save-temps=' needs a directory", verb);
      cmd.saveTemps = value->str();
      break;
    case OPT_no_cache:
      cmd.noCache = true;
      break;
    case OPT_unsafe_report:
      if (cmd.verb != Verb::Check)
        return usageError("--unsafe-report is only valid with 'oxcc check'", verb);
      cmd.opts.unsafeReport = true;
      break;
    default:
      llvm_unreachable("an option of another group");
    }
    return std::nullopt;
  }

  /// What a build system's compile command carries besides the compiler's flags: dependency files
  /// (-MD, -MF, -MT), -x and -U.
  std::optional<int> buildSystemOption(const Item &item) {
    const llvm::StringRef arg = item.spelling;
    const std::optional<llvm::StringRef> value = item.value;
    switch (item.id) {
    case OPT_MD:
    case OPT_MMD:
      if (!compileVerb) {
        if (auto rc = unknownArgument(arg))
          return rc;
        break;
      }
      cmd.depFile = true;
      cmd.depSystem = item.id == OPT_MD;
      break;
    case OPT_MF:
      if (!compileVerb) {
        if (auto rc = unknownArgument(arg))
          return rc;
        break;
      }
      if (!value)
        return usageError("'-MF' needs a file name", verb);
      cmd.depFilePath = value->str();
      break;
    case OPT_MT:
    case OPT_MQ:
      if (!compileVerb) {
        if (auto rc = unknownArgument(arg))
          return rc;
        break;
      }
      if (!value)
        return usageError("'" + arg.take_front(3) + "' needs a target", verb);
      cmd.depTargets.push_back(value->str());
      break;
    case OPT_x:
      if (!compileVerb) {
        if (auto rc = unknownArgument(arg))
          return rc;
        break;
      }
      if (!value || (*value != "c++" && *value != "cuda"))
        return usageError("'-x' must be c++ for an Oxide translation unit", verb);
      break;
    case OPT_U:
      // Only a compile command may carry it (ignored, with a warning).
      if (auto rc = unknownArgument(arg))
        return rc;
      break;
    default:
      llvm_unreachable("an option of another group");
    }
    return std::nullopt;
  }

  /// What the table does not know, or what this verb does not take.
  std::optional<int> unknownArgument(llvm::StringRef arg) {
    const bool lenient = compileVerb;
    if (lenient && isHarmlessCompilerFlag(arg))
      return std::nullopt; // warnings and code-generation details the in-process clang decides on its own
    if (lenient && (arg.starts_with("-f") || arg.starts_with("-m") || arg.starts_with("-U"))) {
      if (warned.insert(arg).second)
        llvm::WithColor::warning(llvm::errs(), "oxcc")
            << "ignoring '" << arg << "': not supported for Oxide translation units\n";
      return std::nullopt;
    }
    return usageError("unknown option '" + arg + "'", verb);
  }

  Command &cmd;
  const OxccOptTable &table;
  llvm::ArrayRef<const char *> args;
  const llvm::StringRef verb;
  const bool compileVerb, links;
  llvm::StringSet<> warned;
  std::vector<std::string> inputs;
  std::optional<unsigned> compilerPath; ///< compile -- COMPILER ARGS: the first word is the compiler
  bool programArgs = false;             ///< run -- PROGRAM-ARGS
};

} // namespace

std::optional<int> oxcc::parseOptions(llvm::ArrayRef<const char *> args, Command &cmd) {
  const OxccOptTable table;
  return OptionReader(cmd, table, args).read();
}
