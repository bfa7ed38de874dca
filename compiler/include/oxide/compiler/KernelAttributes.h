//===- KernelAttributes.h - the oxide clang attributes ----------*- C++ -*-===//
#ifndef OXIDE_COMPILER_KERNELATTRIBUTES_H
#define OXIDE_COMPILER_KERNELATTRIBUTES_H

#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace oxide {

/// The annotation string that marks kernels in the host module (llvm.global.annotations).
inline constexpr const char kKernelAnnotation[] = "oxide.kernel";
/// Annotation prefixes that carry a kernel's launch contract, parameter names/kinds and launch
/// bounds from the clang AST to the device IR (see ContractAttributes.cpp).
inline constexpr const char kContractAnnotation[] = "oxide.contract:";
inline constexpr const char kParamsAnnotation[] = "oxide.params:";
inline constexpr const char kLaunchBoundsAnnotation[] = "oxide.launch_bounds:";
/// Marks a kernel whose launch contract was written but reported as invalid: the checks that
/// want a contract (oxide::prepare of the kernel) stay quiet rather than add a second error.
inline constexpr const char kRejectedContractAnnotation[] = "oxide.contract.rejected";

/// The attribute the device wrapper applies to every function through #pragma clang attribute.
inline constexpr const char kImplicitDeviceAttr[] = "oxide_implicit_device";
/// The attribute the device wrapper applies to every global variable (see ConstantVariables.cpp).
inline constexpr const char kDeviceVariableAttr[] = "oxide_device_variable";

/// Functions declared under this directory (the runtime's oxide/host/ headers) stay host-only
/// in the device compile: a kernel that calls the host API is then a clang error at the call.
void setHostOnlyHeaderDirectory(std::string directory);

/// Gives an instantiation of a kernel template its launch contract and bounds where they depend
/// on template arguments (ContractAttributes.cpp) and, in the device compile, makes it (host+device
/// until then, see KernelAttributes.cpp) the __global__ kernel. The safety checker's AST consumer
/// calls it for every function before code generation sees it.
void finishKernelInstantiation(clang::ASTContext &context, clang::FunctionDecl &FD);

/// Whether `FD` carries [[kernel]] (the `oxide.kernel` annotation both compiles give it).
bool hasKernelAnnotation(const clang::FunctionDecl *FD);

/// Whether a declaration of `FD`, or of the template it was instantiated from, carries a launch
/// contract: written, waiting for its template arguments, or reported as invalid.
bool hasLaunchContract(const clang::FunctionDecl *FD);

/// Registers Oxide's clang attributes ([[kernel]], launch_contract, launch_bounds,
/// oxide_implicit_device, oxide_device_variable) and fills clang's list of plugin attributes.
/// Runs once, from any thread; every compile calls it before it starts.
void registerOxideAttributes();

} // namespace oxide

#endif
