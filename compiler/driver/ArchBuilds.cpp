//===- ArchBuilds.cpp - every architecture of a translation unit ----------===//
//
// The device builds of one translation unit run in parallel, alongside its host compile, each
// into its own buffers; their diagnostics are then printed in architecture order, as a serial
// build would print them, and their code objects become one fat device image.
//
// Most of a device build is its front end (clang, to the target-independently optimised
// module), and the front ends of different architectures differ only where the preprocessor
// sees the architecture (ArchDependence.h). Architectures whose precompiled headers see them
// alike share one front end, the oldest's, when the user's own code does not look at the
// architecture either; each still runs its own MLIR stage, NVPTX back end and ptxas. Across
// major versions the headers differ (CUDA's and clang's functions for sm_90): a newer major
// version shares too when the oldest's compile reaches none of the conditionals that differ.
//
//===----------------------------------------------------------------------===//

#include "DeviceBuild.h"

#include "oxide/compiler/Build.h"
#include "oxide/compiler/DiagnosticFormat.h"
#include "oxide/compiler/Frontend.h"
#include "oxide/compiler/Progress.h"
#include "oxide/compiler/ReportedError.h"
#include "oxide/compiler/TargetCodegen.h"
#include "oxide/compiler/VerboseLog.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <deque>
#include <map>

using namespace oxide;
using namespace oxide::driver;

namespace {

void discardArchBuilds(std::vector<ArchBuild> &builds) {
  for (ArchBuild &b : builds)
    if (b.image && !*b.image)
      llvm::consumeError(b.image->takeError());
  builds.clear();
}

/// Architectures that one front end serves: the leader's (the oldest: what its compile accepts,
/// the newer ones' features accept too) and the followers'.
struct FrontEndGroup {
  size_t leader;
  std::vector<size_t> followers;
  std::set<std::string> archMacros; ///< what the headers made architecture macros
  std::set<std::string> differing;  ///< those the headers define differently for the group
  /// For a follower of another major version: the conditionals of the headers that differ
  /// from the leader's, which the leader's compile must not reach (by follower index).
  std::map<size_t, std::vector<ArchDependence::Site>> mustNotReach;
  /// For a leader without followers of a newer major version: why it could not follow an
  /// older group's leader, for -v.
  std::string whyAlone;
};

/// Groups `archs` (indices) by what their precompiled headers see of the architecture. One
/// whose record is unknown (no precompiled headers) or whose headers use the architecture in
/// code compiles alone.
std::vector<FrontEndGroup> groupByFrontEnd(const TranslationUnit &tu, const Toolchain &tc,
                                           llvm::ArrayRef<GpuArch> archs) {
  std::vector<FrontEndGroup> groups;
  std::vector<std::optional<ArchDependence>> records;
  for (size_t i = 0; i < archs.size(); ++i) {
    // An architecture-specific target (sm_90a) has feature macros of its own: it compiles alone.
    records.push_back(archs.size() > 1 && !archs[i].archSpecific
                          ? deviceHeadersArchDependence(tu, tc, archs[i])
                          : std::nullopt);
    const std::optional<ArchDependence> &record = records.back();
    FrontEndGroup *joined = nullptr;
    std::string whyAlone;
    for (FrontEndGroup &group : groups) {
      const std::optional<ArchDependence> &leader = records[group.leader];
      if (!record || !leader)
        continue;
      std::set<std::string> differing;
      // Clang's target description of NVPTX is the same for every architecture but for the
      // macros (which the records show) and the builtins' features, which grow with the
      // architecture: the oldest's compile accepts nothing the newer ones' would not.
      if (archs[i].number / 10 == archs[group.leader].number / 10) {
        if (!compareArchDependence(*leader, *record, differing).empty())
          continue;
      } else {
        // Only a group whose leader is older: the sites are found against the leader's compile.
        std::vector<ArchDependence::Site> sites;
        if (archs[i].number < archs[group.leader].number)
          continue;
        if (std::string why = compareAcrossVersions(*leader, *record, differing, sites); !why.empty()) {
          if (whyAlone.empty())
            whyAlone = why;
          continue;
        }
        group.mustNotReach[i] = std::move(sites);
      }
      group.differing.insert(differing.begin(), differing.end());
      joined = &group;
      break;
    }
    if (!joined) {
      groups.push_back({i, {}, record ? record->archMacros : std::set<std::string>(), {}, {}, whyAlone});
      continue;
    }
    joined->followers.push_back(i);
    if (archs[i].number < archs[joined->leader].number) {
      if (!joined->mustNotReach.empty()) { // the sites were found against the old leader
        joined->followers.pop_back();
        groups.push_back({i, {}, record->archMacros, {}, {}, {}});
        continue;
      }
      std::swap(joined->leader, joined->followers.back());
    }
  }
  return groups;
}

/// A leader's front end, as its followers take it.
struct SharedFrontEnd {
  GpuArch arch;
  std::string bitcode;                     ///< the module; empty if it cannot be shared
  std::string diagnostics;                 ///< what the front end printed
  std::string whyNot;                      ///< why it cannot be shared, for -v
  std::map<size_t, std::string> whyNotFor; ///< why it cannot serve one follower
};

} // namespace

std::vector<GpuArch> driver::effectiveArchs(const CompileOptions &opts) {
  std::vector<GpuArch> result;
  for (const GpuArch &arch : opts.targetArchs()) {
    auto same = llvm::find_if(result, [&](const GpuArch &a) {
      return a.number == arch.number && a.archSpecific == arch.archSpecific;
    });
    if (same == result.end()) {
      result.push_back(arch);
      continue;
    }
    const bool ptx = same->hasPtx() || arch.hasPtx(), cubin = same->hasCubin() || arch.hasCubin();
    same->code = ptx && cubin ? GpuArch::Code::PtxAndCubin
                 : ptx        ? GpuArch::Code::PtxOnly
                              : GpuArch::Code::CubinOnly;
  }
  return result;
}

std::vector<ArchBuild> driver::buildArchs(const TranslationUnit &tu, const Toolchain &tc,
                                          llvm::ArrayRef<GpuArch> archs) {
  const CompileOptions &opts = tu.opts;
  std::vector<ArchBuild> builds(archs.size());
  const bool colors = diagnosticColors();
  // On a terminal, a build over a second shows how many architectures are done.
  ProgressLine progress("oxcc: " + llvm::sys::path::filename(tu.input).str(), "architectures",
                        static_cast<unsigned>(archs.size()));
  auto build = [&](size_t i, const DeviceFrontEnd &frontEnd) {
    ArchBuild &b = builds[i];
    b.arch = archs[i];
    llvm::raw_string_ostream log(b.log), diagOut(b.diagnostics), resources(b.resources);
    diagOut.enable_colors(colors);
    b.image.emplace(
        buildDeviceImage(tu, tc, b.arch, nullptr, &b.constants, diagOut, log, frontEnd, &resources));
    progress.advance();
  };

  // Every compile owns its contexts (LLVM, clang, MLIR) and temporary files; the frontend's
  // shared state is read-only or locked (see setHostOnlyHeaderDirectory), and the targets are
  // registered before any compile starts (initializeTargets). Without --threads, no more
  // compiles than cores.
  const unsigned threads = opts.threads ? std::min<unsigned>(opts.threads, archs.size()) : archs.size();
  std::optional<llvm::DefaultThreadPool> pool;
  std::deque<std::function<void()>> serial; // without a pool: what is left to run, in order
  if (threads > 1) {
    initializeTargets();
    llvm::ThreadPoolStrategy strategy = llvm::heavyweight_hardware_concurrency(threads);
    strategy.Limit = opts.threads == 0;
    pool.emplace(strategy);
  }
  auto start = [&](std::function<void()> task) {
    if (pool)
      pool->async(std::move(task));
    else
      serial.push_back(std::move(task));
  };

  // A follower takes its leader's module, retargeted, and what the front end printed; or, when
  // that cannot be, compiles its own.
  auto follow = [&](size_t i, const SharedFrontEnd &from) {
    build(i,
          [&, i](llvm::LLVMContext &ctx, llvm::raw_ostream &diagOut,
                 llvm::raw_ostream &log) -> llvm::Expected<std::unique_ptr<llvm::Module>> {
            std::string whyNot = from.whyNot;
            if (auto it = from.whyNotFor.find(i); whyNot.empty() && it != from.whyNotFor.end())
              whyNot = it->second;
            else if (!from.bitcode.empty()) {
              auto module = retargetDeviceModule(from.bitcode, tu, tc, from.arch, archs[i], ctx);
              if (module) {
                diagOut << from.diagnostics;
                if (opts.verbose)
                  log << "oxcc: note: " << archs[i].smName() << " shares the device front end of "
                      << from.arch.smName() << "\n";
                return module;
              }
              whyNot = llvm::toString(module.takeError());
            }
            if (opts.verbose)
              log << "oxcc: note: " << archs[i].smName() << " needs a device front end of its own: " << whyNot
                  << "\n";
            return compileDevice(tu, tc, archs[i], ctx, diagOut, log);
          });
  };
  // A leader's front end records where the user's code sees the architecture; the followers
  // start once it is done.
  const std::vector<FrontEndGroup> groups = groupByFrontEnd(tu, tc, archs);
  std::vector<SharedFrontEnd> shared(groups.size());
  auto lead = [&](size_t g) {
    const FrontEndGroup &group = groups[g];
    if (group.followers.empty() && (group.whyAlone.empty() || !opts.verbose))
      return build(group.leader, nullptr);
    if (group.followers.empty())
      return build(group.leader,
                   [&](llvm::LLVMContext &ctx, llvm::raw_ostream &diagOut, llvm::raw_ostream &log) {
                     log << "oxcc: note: " << archs[group.leader].smName()
                         << " needs a device front end of its own: " << group.whyAlone << "\n";
                     return compileDevice(tu, tc, archs[group.leader], ctx, diagOut, log);
                   });
    SharedFrontEnd &out = shared[g];
    out.arch = archs[group.leader];
    build(group.leader,
          [&](llvm::LLVMContext &ctx, llvm::raw_ostream &diagOut,
              llvm::raw_ostream &log) -> llvm::Expected<std::unique_ptr<llvm::Module>> {
            llvm::raw_string_ostream printed(out.diagnostics);
            printed.enable_colors(colors);
            ArchDependence seen;
            seen.archMacros = group.archMacros;
            for (const auto &[follower, sites] : group.mustNotReach)
              seen.mustNotReach.insert(seen.mustNotReach.end(), sites.begin(), sites.end());
            auto module = compileDevice(tu, tc, out.arch, ctx, printed, log, &seen);
            diagOut << out.diagnostics;
            for (const auto &[follower, sites] : group.mustNotReach)
              if (std::string why = seen.whyReached(sites); !why.empty())
                out.whyNotFor[follower] = why;
            if (!module)
              out.whyNot = "the " + out.arch.smName() + " front end failed";
            else if (std::string why = whyArchDependent(seen, group.differing); !why.empty())
              out.whyNot = why;
            else if (out.whyNotFor.size() < group.followers.size()) {
              llvm::raw_string_ostream bitcode(out.bitcode);
              llvm::WriteBitcodeToFile(**module, bitcode, /*ShouldPreserveUseListOrder=*/true);
            }
            for (size_t f : group.followers)
              start([&follow, &out, f] { follow(f, out); });
            return module;
          });
  };
  for (size_t g = 0; g < groups.size(); ++g)
    start([&lead, g] { lead(g); });
  if (pool)
    pool->wait(); // also for the followers, which the leaders add
  while (!serial.empty()) {
    std::function<void()> task = std::move(serial.front());
    serial.pop_front();
    task();
  }
  return builds;
}

GpuArch driver::checkArch(const CompileOptions &opts) {
  return opts.archsChosen() ? effectiveArchs(opts).front() : GpuArch{ptxDefaultArch()};
}

driver::EarlyDeviceBuilds::EarlyDeviceBuilds(const TranslationUnit &tu, const Toolchain &tc)
    : EarlyDeviceBuilds(tu, tc, effectiveArchs(tu.opts)) {}

driver::EarlyDeviceBuilds::EarlyDeviceBuilds(const TranslationUnit &tu, const Toolchain &tc,
                                             std::vector<GpuArch> archs)
    : concurrent(tu.opts.threads != 1) {
  initializeTargets(); // before any compile, so that none registers them while another runs
  builds = std::async(concurrent ? std::launch::async : std::launch::deferred,
                      [&tu, &tc, archs = std::move(archs)] { return buildArchs(tu, tc, archs); });
}

driver::EarlyDeviceBuilds::~EarlyDeviceBuilds() {
  if (concurrent && builds.valid()) {
    std::vector<ArchBuild> unused = builds.get();
    discardArchBuilds(unused);
  }
}

llvm::Expected<std::vector<BuiltArch>> driver::reportArchBuilds(const TranslationUnit &tu,
                                                                std::vector<ArchBuild> builds) {
  const CompileOptions &opts = tu.opts;
  // Every build ran to its end (in parallel): what each printed is merged, so that a diagnostic
  // all architectures report is printed once and one only some report is not lost.
  std::vector<const ArchBuild *> all;
  for (const ArchBuild &b : builds) {
    verboseLog() << b.log;
    all.push_back(&b);
  }
  for (const ArchBuild &b : builds)
    llvm::errs() << b.resources;
  const MergedDiagnostics merged = mergeDiagnostics(all);
  llvm::errs() << respellInputs(merged.text);

  std::vector<BuiltArch> built;
  std::vector<std::pair<std::string, std::vector<std::string>>> leftOut; // reason -> architectures
  unsigned minArch = 0;
  llvm::Error failure = llvm::Error::success();
  bool reported = false;             // a failure whose diagnostics were printed
  std::vector<std::string> messages; // the other failures' messages, each once
  for (size_t i = 0; i < builds.size(); ++i) {
    ArchBuild &b = builds[i];
    if (*b.image) {
      built.push_back({b.arch, std::move(**b.image), std::move(b.constants)});
      continue;
    }
    llvm::Error rest = llvm::handleErrors(
        b.image->takeError(),
        [&](const UnsupportedArchError &e) {
          auto same = llvm::find_if(leftOut, [&](const auto &entry) { return entry.first == e.reason; });
          if (same == leftOut.end())
            leftOut.push_back({e.reason, {b.arch.smName()}});
          else
            same->second.push_back(b.arch.smName());
          minArch = std::max(minArch, e.minArch);
        },
        [&](std::unique_ptr<ReportedError> e) -> llvm::Error {
          if (merged.printedError[i]) {
            reported = true;
            return llvm::Error::success();
          }
          // A stage that failed without printing an error: its failure is the message.
          return llvm::createStringError("the " + b.arch.smName() + " device build failed: " + e->stage +
                                         " failed without a diagnostic");
        });
    if (!rest)
      continue;
    const std::string message = llvm::toString(std::move(rest));
    if (!llvm::is_contained(messages, message)) {
      failure = llvm::joinErrors(std::move(failure), llvm::createStringError(message));
      messages.push_back(message);
    }
  }
  if (reported && !failure)
    failure = reportedError("the device compile");
  if (failure)
    return std::move(failure);
  if (opts.verbose)
    for (const auto &[reason, names] : leftOut)
      verboseLog() << kLeavingOutNote << llvm::join(names, ", ") << " (of the default architectures) for "
                   << tu.input << ": " << reason << "\n";
  if (built.empty() && !leftOut.empty())
    return llvm::createStringError(
        "none of the default architectures can run the kernels of '" + tu.input +
        "': " + leftOut.back().first + "; choose architectures with --arch" +
        (minArch ? " (e.g. --arch=sm_" + std::to_string(minArch) + ")" : std::string()));
  return std::move(built);
}

llvm::Expected<detail::DeviceImage> driver::buildFatImage(const TranslationUnit &tu, const Toolchain &tc,
                                                          std::vector<ArchBuild> builds,
                                                          std::vector<std::string> &constants) {
  auto built = reportArchBuilds(tu, std::move(builds));
  if (!built)
    return built.takeError();
  detail::DeviceImage fat;
  bool ptxOnlyNote = false;
  for (BuiltArch &b : *built) {
    if (&b == &built->front()) {
      fat.kernels = std::move(b.image.kernels);
      constants = std::move(b.constants);
    } else {
      // Host code registers one kernel table, so every architecture must define the same
      // kernels (a kernel under `#if __CUDA_ARCH__ >= 800` would break that).
      llvm::StringSet<> names;
      for (const auto &k : fat.kernels)
        names.insert(k.name);
      bool same = b.image.kernels.size() == fat.kernels.size();
      for (const auto &k : b.image.kernels)
        same = same && names.contains(k.name);
      if (!same)
        return llvm::createStringError("'" + tu.input + "' defines different kernels for " + b.arch.smName() +
                                       " than for " + built->front().arch.smName() +
                                       "; kernels must not depend on __CUDA_ARCH__");
    }
    for (auto &code : b.image.code)
      fat.code.push_back(std::move(code));
    ptxOnlyNote |= b.arch.hasCubin() && tc.ptxas.empty();
  }
  if (ptxOnlyNote)
    llvm::errs() << "oxcc: note: ptxas not found (looked in " << tc.cudaPath
                 << "/bin and $OXIDE_PTXAS); embedding PTX only, which the driver compiles when the program "
                    "starts\n";
  return fat;
}
