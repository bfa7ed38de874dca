//===- DeviceExternals.cpp ------------------------------------------------===//

#include "oxide/compiler/DeviceExternals.h"
#include "oxide/compiler/DiagnosticFormat.h"
#include "oxide/compiler/ReportedError.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
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

/// A place in the source: the file's whole path, its line and column (0: none).
struct Where {
  std::string path;
  unsigned line = 0, column = 0;
};

Where describe(const llvm::DIScope *scope, unsigned line, unsigned column) {
  if (!scope)
    return {};
  llvm::SmallString<256> path;
  if (!scope->getFilename().starts_with("/") && !scope->getDirectory().empty())
    (path += scope->getDirectory()) += "/";
  path += scope->getFilename();
  return {std::string(path), line, column};
}

Where describe(const llvm::DILocation *loc) {
  return loc ? describe(loc->getScope(), loc->getLine(), loc->getColumn()) : describe(nullptr, 0, 0);
}

Where describe(const llvm::Function &kernel) {
  const llvm::DISubprogram *sp = kernel.getSubprogram();
  return sp ? describe(sp, sp->getLine(), 0) : describe(nullptr, 0, 0);
}

std::string nameOf(const llvm::DISubprogram *sp) {
  if (!sp)
    return "<unknown function>";
  return sp->getLinkageName().empty() ? sp->getName().str() : llvm::demangle(sp->getLinkageName().str());
}

/// In clang's format, with the source line and a caret (DiagnosticFormat.h).
void printNote(llvm::raw_ostream &os, const Where &where, const llvm::Twine &message) {
  printClangStyle(where.path, where.line, where.column, "note", message.str(), os);
}

/// Breadth-first from the kernels: `parent[f]` is the call that first reached f, for the chain.
using ParentMap = llvm::DenseMap<const llvm::Function *, const llvm::CallBase *>;

/// The chain of calls from a kernel to `loc`, a location in `function`, innermost first: the
/// functions clang inlined at `loc` (from its inlined-at locations), then the calls that
/// reached `function`. Each note is at a call site and names the function called there.
void printChain(llvm::raw_ostream &os, const llvm::DILocation *loc, const llvm::Function *function,
                const ParentMap &parent) {
  for (const llvm::Function *f = function; f;) {
    for (const llvm::DILocation *l = loc; l && l->getInlinedAt(); l = l->getInlinedAt())
      printNote(os, describe(l->getInlinedAt()),
                "called by '" + nameOf(l->getScope()->getSubprogram()) + "'");
    const llvm::CallBase *site = parent.lookup(f);
    if (!site) {
      printNote(os, describe(*f), "in kernel '" + llvm::demangle(f->getName().str()) + "'");
      break;
    }
    printNote(os, describe(site->getDebugLoc().get()),
              "called by '" + llvm::demangle(f->getName().str()) + "'");
    loc = site->getDebugLoc().get();
    f = site->getFunction();
  }
}

void printError(llvm::raw_ostream &os, const llvm::DILocation *loc, const llvm::Twine &message) {
  const Where where = describe(loc);
  printClangStyle(where.path, where.line, where.column, "error", message.str(), os);
}

/// The object a virtual call dispatches on: for `callee = *(*(object) + offset)` with `object`
/// also passed as an argument (`this`), the object's address; otherwise null.
const llvm::Value *virtualCallObject(const llvm::CallBase &call) {
  if (call.getCalledFunction() || call.isInlineAsm())
    return nullptr;
  const auto *slot = llvm::dyn_cast<llvm::LoadInst>(call.getCalledOperand()->stripPointerCasts());
  if (!slot)
    return nullptr;
  const auto *vtable =
      llvm::dyn_cast<llvm::LoadInst>(slot->getPointerOperand()->stripInBoundsConstantOffsets());
  if (!vtable)
    return nullptr;
  const llvm::Value *object = vtable->getPointerOperand()->stripPointerCasts();
  for (const llvm::Use &arg : call.args())
    if (arg->stripPointerCasts() == object)
      return object;
  return nullptr;
}

/// Where an object used by device code comes from, when that is the host.
struct HostOrigin {
  const llvm::Function *kernel = nullptr;
  unsigned parameter = 0;
};

/// Whether `address` points into memory the host provided: an object passed to a kernel by
/// value, the object a kernel's pointer parameter points to, or one in the memory a pointer
/// inside a by-value parameter points to (a span's elements). Objects built by device code
/// (locals, new, placement new) and pointers read from other memory are not followed. For a
/// function pointer, whether its value is a kernel parameter or a field of one.
std::optional<HostOrigin> hostOrigin(const llvm::Value *address, unsigned depth,
                                     llvm::SmallPtrSetImpl<const llvm::Value *> &visited) {
  if (depth > 8 || !visited.insert(address).second)
    return std::nullopt;
  llvm::SmallVector<const llvm::Value *, 4> objects;
  llvm::getUnderlyingObjects(address, objects);
  for (const llvm::Value *object : objects) {
    if (const auto *load = llvm::dyn_cast<llvm::LoadInst>(object)) {
      // A pointer field of a by-value kernel parameter.
      const auto *arg = llvm::dyn_cast<llvm::Argument>(llvm::getUnderlyingObject(load->getPointerOperand()));
      if (arg && arg->hasByValAttr() && arg->getParent()->getCallingConv() == llvm::CallingConv::PTX_Kernel)
        return HostOrigin{arg->getParent(), arg->getArgNo()};
      continue;
    }
    const auto *arg = llvm::dyn_cast<llvm::Argument>(object);
    if (!arg)
      continue;
    const llvm::Function *function = arg->getParent();
    if (function->getCallingConv() == llvm::CallingConv::PTX_Kernel)
      return HostOrigin{function, arg->getArgNo()};
    // A helper's parameter: whatever its callers pass.
    for (const llvm::User *user : function->users())
      if (const auto *call = llvm::dyn_cast<llvm::CallBase>(user))
        if (call->getCalledFunction() == function && arg->getArgNo() < call->arg_size())
          if (auto origin = hostOrigin(call->getArgOperand(arg->getArgNo()), depth + 1, visited))
            return origin;
  }
  return std::nullopt;
}

} // namespace

llvm::Error oxide::checkDeviceExternals(const llvm::Module &device, llvm::raw_ostream &os) {
  ParentMap parent;
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
        if (!call)
          continue;
        if (const llvm::Value *object = virtualCallObject(*call)) {
          llvm::SmallPtrSet<const llvm::Value *, 16> visited;
          if (auto origin = hostOrigin(object, 0, visited)) {
            ++errors;
            printError(
                os, call->getDebugLoc().get(),
                "device code makes a virtual call on an object that comes from the host (parameter " +
                    llvm::Twine(origin->parameter + 1) + " of kernel '" +
                    llvm::demangle(origin->kernel->getName().str()) +
                    "'): its vtable pointer points to host memory, so virtual dispatch cannot run on the "
                    "GPU; construct polymorphic objects in device code (a local, new, or placement new "
                    "in the kernel) or dispatch without virtual functions");
            printChain(os, call->getDebugLoc().get(), caller, parent);
          }
          continue;
        }
        const llvm::Function *callee = call->getCalledFunction();
        if (!callee && !call->isInlineAsm()) {
          llvm::SmallPtrSet<const llvm::Value *, 16> visited;
          if (auto origin = hostOrigin(call->getCalledOperand(), 0, visited)) {
            ++errors;
            printError(os, call->getDebugLoc().get(),
                       "device code calls a function pointer that comes from the host (parameter " +
                           llvm::Twine(origin->parameter + 1) + " of kernel '" +
                           llvm::demangle(origin->kernel->getName().str()) +
                           "'): a host function's address is not device code; pass the callable as a "
                           "template parameter (a closure) or an index to dispatch on in the kernel");
            printChain(os, call->getDebugLoc().get(), caller, parent);
          }
          continue;
        }
        if (!callee->isDeclaration()) {
          if (parent.try_emplace(callee, call).second)
            queue.push_back(callee);
          continue;
        }
        if (providedOnDevice(callee->getName()) || !reported.insert(callee).second)
          continue;
        ++errors;
        printError(
            os, call->getDebugLoc().get(),
            "device code uses " + construct(callee->getName()) +
                ", which has no device definition; a kernel can call only functions defined in this file "
                "(or inline in its headers) that do not depend on host-only facilities");
        printChain(os, call->getDebugLoc().get(), caller, parent);
      }
  }
  if (errors)
    return reportedError("device externals check");
  return llvm::Error::success();
}
