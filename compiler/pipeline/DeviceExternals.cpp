//===- DeviceExternals.cpp ------------------------------------------------===//

#include "oxide/compiler/DeviceExternals.h"
#include "oxide/compiler/ReportedError.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>

using namespace oxide;

namespace {

/// Functions the device side provides without a definition in the module.
bool providedOnDevice(llvm::StringRef name) {
  return name.starts_with("llvm.") || name.starts_with("__oxide_") || name.starts_with("__nv_") ||
         name.starts_with("__nvvm_") ||
         llvm::is_contained({"vprintf", "malloc", "free", "__assertfail"}, name);
}

/// What a C++ runtime symbol stands for, so the message names the construct.
std::string construct(llvm::StringRef name) {
  if (name == "__dynamic_cast")
    return "dynamic_cast (RTTI is not available in device code)";
  if (name.starts_with("__cxa_allocate_exception") || name.starts_with("__cxa_throw") ||
      name.starts_with("__cxa_begin_catch") || name.starts_with("__cxa_rethrow"))
    return "a C++ exception (exceptions are not available in device code)";
  if (name.starts_with("__cxa_guard"))
    return "a function-local static with dynamic initialisation (not available in device code)";
  if (name.starts_with("_ZTI") || name.starts_with("_ZTS"))
    return "typeid (RTTI is not available in device code)";
  return "'" + llvm::demangle(name.str()) + "'";
}

std::string describe(const llvm::DIScope *scope, unsigned line, unsigned column) {
  if (!scope)
    return "<unknown location>";
  llvm::SmallString<256> path;
  if (!scope->getFilename().starts_with("/") && !scope->getDirectory().empty())
    (path += scope->getDirectory()) += "/";
  path += scope->getFilename();
  std::string result = (path + ":" + llvm::Twine(line)).str();
  return column ? result + ":" + std::to_string(column) : result;
}

std::string describe(const llvm::DILocation *loc) {
  return loc ? describe(loc->getScope(), loc->getLine(), loc->getColumn()) : describe(nullptr, 0, 0);
}

std::string describe(const llvm::Function &kernel) {
  const llvm::DISubprogram *sp = kernel.getSubprogram();
  return sp ? describe(sp, sp->getLine(), 0) : describe(nullptr, 0, 0);
}

} // namespace

llvm::Error oxide::checkDeviceExternals(const llvm::Module &device) {
  // Breadth-first from the kernels: `parent[f]` is the call that first reached f, for the chain.
  llvm::DenseMap<const llvm::Function *, const llvm::CallBase *> parent;
  std::deque<const llvm::Function *> queue;
  for (const llvm::Function &f : device)
    if (!f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::PTX_Kernel) {
      parent[&f] = nullptr;
      queue.push_back(&f);
    }
  unsigned errors = 0;
  llvm::DenseSet<const llvm::Function *> reported;
  while (!queue.empty()) {
    const llvm::Function *caller = queue.front();
    queue.pop_front();
    for (const llvm::BasicBlock &bb : *caller)
      for (const llvm::Instruction &inst : bb) {
        const auto *call = llvm::dyn_cast<llvm::CallBase>(&inst);
        const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
        if (!callee)
          continue;
        if (!callee->isDeclaration()) {
          if (parent.try_emplace(callee, call).second)
            queue.push_back(callee);
          continue;
        }
        if (providedOnDevice(callee->getName()) || !reported.insert(callee).second)
          continue;
        ++errors;
        llvm::errs() << describe(call->getDebugLoc().get()) << ": ";
        llvm::WithColor::error(llvm::errs(), "", /*DisableColors=*/!llvm::errs().has_colors())
            << "device code uses " << construct(callee->getName())
            << ", which has no device definition; a kernel can call only functions defined in this file "
               "(or inline in its headers) that do not depend on host-only facilities\n";
        // The chain of calls from the kernel, innermost first.
        for (const llvm::Function *f = caller; f;) {
          const llvm::CallBase *site = parent.lookup(f);
          llvm::errs() << (site ? describe(site->getDebugLoc().get()) : describe(*f)) << ": ";
          llvm::WithColor::note(llvm::errs(), "", !llvm::errs().has_colors())
              << (site ? "called by '" : "in kernel '") << llvm::demangle(f->getName().str()) << "'\n";
          if (!site)
            break;
          f = site->getFunction();
        }
      }
  }
  if (errors)
    return reportedError("device externals check");
  return llvm::Error::success();
}
