//===- ResourceUsage.cpp - ptxas -v's report, as nvcc users read it -------===//
//
// `-Xptxas -v` passes ptxas's own report through (as nvcc does); `--resource-usage` condenses
// it into one line per kernel and architecture, with the kernel demangled:
//
//   ptxas info    : Compiling entry function '_Z12block_reduce...' for 'sm_90'
//   ptxas info    : Function properties for _Z12block_reduce...
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 13 registers, used 1 barriers, 32 bytes smem
//
//   oxcc: resource usage: app.cpp: sm_90: block_reduce(...): 13 registers, 32 bytes shared
//         memory, 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
//
//===----------------------------------------------------------------------===//

#include "DeviceBuild.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Path.h"

using namespace oxide;
using namespace oxide::driver;

PtxasReport driver::splitPtxasOutput(llvm::StringRef output) {
  PtxasReport report;
  bool inInfo = false;
  while (!output.empty()) {
    auto [line, rest] = output.split('\n');
    output = rest;
    // An info line, or the indented line that continues one ("    0 bytes stack frame...").
    if (line.starts_with("ptxas info"))
      inInfo = true;
    else if (!(inInfo && line.starts_with(" ")))
      inInfo = false;
    std::string &to = inInfo ? report.info : report.warnings;
    to += line.str() + "\n";
  }
  report.warnings = llvm::StringRef(report.warnings).trim().str();
  return report;
}

namespace {

/// The number before `unit` in `text` ("13 registers" -> 13), or 0.
unsigned numberBefore(llvm::StringRef text, llvm::StringRef unit) {
  const size_t at = text.find(unit);
  if (at == llvm::StringRef::npos)
    return 0;
  llvm::StringRef before = text.take_front(at).rtrim();
  const size_t start = before.find_last_not_of("0123456789");
  unsigned n = 0;
  (void)before.substr(start == llvm::StringRef::npos ? 0 : start + 1).getAsInteger(10, n);
  return n;
}

} // namespace

std::vector<KernelResources> driver::parseResourceUsage(llvm::StringRef info) {
  std::vector<KernelResources> kernels;
  llvm::StringRef properties; // the function whose properties the next line gives
  while (!info.empty()) {
    auto [line, rest] = info.split('\n');
    info = rest;
    llvm::StringRef text = line.split(':').second.trim();
    if (line.starts_with("ptxas info") && text.consume_front("Compiling entry function '")) {
      auto [name, tail] = text.split('\'');
      KernelResources usage;
      usage.name = name.str();
      usage.arch = tail.split('\'').second.split('\'').first.str();
      kernels.push_back(usage);
    } else if (line.starts_with("ptxas info") && text.consume_front("Function properties for ")) {
      properties = text;
    } else if (line.starts_with(" ") && !kernels.empty() && properties == kernels.back().name) {
      kernels.back().stack = numberBefore(line, "bytes stack frame");
      kernels.back().spillStores = numberBefore(line, "bytes spill stores");
      kernels.back().spillLoads = numberBefore(line, "bytes spill loads");
    } else if (line.starts_with("ptxas info") && text.starts_with("Used ") && !kernels.empty()) {
      kernels.back().registers = numberBefore(text, "registers");
      kernels.back().shared = numberBefore(text, "bytes smem");
    }
  }
  return kernels;
}

const KernelResources *driver::findKernel(llvm::ArrayRef<KernelResources> kernels, llvm::StringRef kernel) {
  const auto *found = llvm::find_if(kernels, [&](const KernelResources &k) { return k.name == kernel; });
  return found == kernels.end() ? nullptr : found;
}

std::string driver::summarizeResourceUsage(llvm::StringRef info, llvm::StringRef input) {
  std::string out;
  llvm::raw_string_ostream os(out);
  for (const KernelResources &k : parseResourceUsage(info))
    os << "oxcc: resource usage: " << llvm::sys::path::filename(input) << ": " << k.arch << ": "
       << llvm::demangle(k.name) << ": " << k.registers << " registers, " << k.shared
       << " bytes shared memory, " << k.stack << " bytes stack, " << k.spillStores << " bytes spill stores, "
       << k.spillLoads << " bytes spill loads\n";
  return out;
}
