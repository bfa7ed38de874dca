//===- CallRule.cpp - calls, intrinsics and inline assembly ---------------===//
//
// Code Oxide cannot see may write anything: calls to functions without a body (but libdevice's
// maths, whose writes through pointers are checked as writes, printf, assert, malloc and free),
// calls through pointers that may reach one, intrinsics that may write through their pointers,
// and inline assembly that may touch memory (RegisterOnlyAsm.cpp) are refused (opaque-code).
// printf's format must be a literal without %n.
//
//===----------------------------------------------------------------------===//

#include "WriteProofImpl.h"

#include "llvm/Demangle/Demangle.h"

using namespace mlir;
using namespace oxide::writeproof;

namespace {

/// The bytes a libdevice function writes through each pointer argument: 4 for the float
/// functions (a trailing 'f': __nv_sincosf, __nv_fast_sincosf, __nv_modff...) and for
/// frexp's and remquo's int, 8 for the double ones. __nv_modf is the double modf although its
/// name ends in 'f'.
int64_t libdeviceOutputSize(llvm::StringRef name) {
  if (name == "__nv_modf")
    return 8;
  if (name.ends_with("f") || name.contains("frexp") || name.contains("remquo"))
    return 4;
  return 8;
}

/// Intrinsics that take pointers but never write through them.
bool readsOnly(llvm::StringRef intrinsic) {
  return intrinsic.starts_with("llvm.prefetch") || intrinsic.starts_with("llvm.nvvm.ldg") ||
         intrinsic.starts_with("llvm.nvvm.ldu") || intrinsic.starts_with("llvm.nvvm.isspacep") ||
         intrinsic.starts_with("llvm.lifetime") || intrinsic.starts_with("llvm.invariant") ||
         intrinsic.starts_with("llvm.objectsize") || intrinsic.starts_with("llvm.nvvm.prefetch") ||
         intrinsic.starts_with("llvm.threadlocal.address");
}

} // namespace

/// Checked with every function whose address is taken; one outside the translation unit could
/// be reached.
void CallRule::checkIndirectCall(LLVM::CallOp call) {
  for (LLVMFuncOp target : state.code.addressTaken)
    if (target.isExternal()) {
      report(call, SafetyRule::OpaqueCode, [&](InFlightDiagnostic &d) {
        d << "code reached from contracted kernel '" << kernelName(call)
          << "' calls through a function pointer, which may reach '"
          << llvm::demangle(target.getSymName().str())
          << "', whose code is not in this translation unit; call the function directly, or drop the "
             "contract and launch with oxide::unsafe_launch";
      });
      return;
    }
}

void CallRule::checkCall(LLVM::CallOp call) {
  auto callee = call.getCalleeAttr();
  if (!callee) {
    checkIndirectCall(call);
    return;
  }
  auto fn = state.code.symbols.lookup<LLVMFuncOp>(callee.getValue());
  if (fn && !fn.isExternal())
    return; // checked as a function of its own
  llvm::StringRef name = callee.getValue();
  if (name.starts_with("__nv_")) { // libdevice maths: writes only results through pointers
    for (auto [i, arg] : llvm::enumerate(call.getArgOperands()))
      if (isa<LLVM::LLVMPointerType>(arg.getType()))
        TargetRule(state).checkWrite(call, call.getArgOperands().getBeginOperandIndex() + i,
                                     libdeviceOutputSize(name), false);
    return;
  }
  if (name == "vprintf" && !call.getArgOperands().empty())
    checkPrintfFormat(call, call.getArgOperands()[0]);
  if (name == "free" && !call.getArgOperands().empty()) {
    EscapeRule(state).checkFree(call, call.getArgOperands()[0]);
    return;
  }
  if (llvm::is_contained({"vprintf", "__assertfail", "malloc"}, name)) {
    for (Value arg : call.getArgOperands())
      EscapeRule(state).checkEscape(call, arg, "passed to '" + name.str() + "'");
    return;
  }
  report(call, SafetyRule::OpaqueCode, [&](InFlightDiagnostic &d) {
    d << "code reached from contracted kernel '" << kernelName(call) << "' calls '"
      << llvm::demangle(name.str())
      << "', whose code is not in this translation unit, so Oxide cannot check what it writes; define "
         "it in the file (or a header it includes), or drop the contract and launch with "
         "oxide::unsafe_launch";
  });
}

/// printf's format must be a string literal without %n, which writes through its argument.
void CallRule::checkPrintfFormat(LLVM::CallOp call, Value format) {
  Value base = format;
  while (auto gep = base.getDefiningOp<LLVM::GEPOp>())
    base = gep.getBase();
  if (auto cast = base.getDefiningOp<LLVM::AddrSpaceCastOp>())
    base = cast.getArg();
  auto address = base.getDefiningOp<LLVM::AddressOfOp>();
  auto global =
      address ? state.code.symbols.lookup<LLVM::GlobalOp>(address.getGlobalName()) : LLVM::GlobalOp();
  auto text =
      global && global.getConstant() ? dyn_cast_or_null<StringAttr>(global.getValueOrNull()) : StringAttr();
  if (!text || base != format) {
    report(call, SafetyRule::PrintfFormat, [&](InFlightDiagnostic &d) {
      d << "printf in code reached from contracted kernel '" << kernelName(call)
        << "' takes a format that is not a string literal; Oxide checks the format for conversions "
           "that write (%n), so write the format as a literal";
    });
    return;
  }
  llvm::StringRef f = text.getValue();
  for (size_t at = f.find('%'); at != llvm::StringRef::npos; at = f.find('%', at + 1)) {
    size_t end = at + 1;
    while (end < f.size() && llvm::StringRef("-+ #0123456789.*hlLqjzt'").contains(f[end]))
      ++end;
    if (end < f.size() && f[end] == 'n') {
      report(call, SafetyRule::PrintfFormat, [&](InFlightDiagnostic &d) {
        d << "printf's %n writes the number of characters printed through its argument, which Oxide "
             "cannot check; count the characters otherwise, or remove the %n";
      });
      return;
    }
    at = end < f.size() && f[end] == '%' ? end : at; // "%%" is a literal '%'
  }
}

void CallRule::checkIntrinsic(LLVM::CallIntrinsicOp call) {
  // Memory intrinsics the importer keeps by name (other address spaces, volatile forms).
  llvm::StringRef intrinsic = call.getIntrin();
  if ((intrinsic.starts_with("llvm.memcpy") || intrinsic.starts_with("llvm.memmove") ||
       intrinsic.starts_with("llvm.memset")) &&
      call.getArgs().size() >= 3) {
    TargetRule(state).checkWrite(call, call.getArgs().getBeginOperandIndex(),
                                 constantLength(call.getArgs()[2]), false);
    return;
  }
  if (readsOnly(call.getIntrin()) ||
      llvm::none_of(call.getArgs(), [](Value v) { return holdsPointers(v.getType()); }))
    return;
  report(call, SafetyRule::OpaqueCode, [&](InFlightDiagnostic &d) {
    d << "code reached from contracted kernel '" << kernelName(call) << "' calls intrinsic '"
      << call.getIntrin() << "', which may write through its pointer arguments and Oxide cannot "
      << "check; use Oxide's device API, or drop the contract and launch with oxide::unsafe_launch";
  });
}

void CallRule::checkInlineAsm(LLVM::InlineAsmOp op) {
  std::optional<std::string> why;
  if (llvm::any_of(op->getOperandTypes(), holdsPointers) || llvm::any_of(op->getResultTypes(), holdsPointers))
    why = "it takes or gives a pointer";
  else
    why = whyAsmMayAccessMemory(op.getAsmString(), op.getConstraints());
  if (!why)
    return;
  report(op, SafetyRule::OpaqueCode, [&](InFlightDiagnostic &d) {
    d << "inline assembly in code reached from contracted kernel '" << kernelName(op)
      << "' cannot be checked: " << *why
      << ", so it may write any memory (only assembly that computes in registers is accepted); use "
         "Oxide's device API, or drop the contract and launch with oxide::unsafe_launch";
  });
}
