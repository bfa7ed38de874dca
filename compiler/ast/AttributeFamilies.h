//===- AttributeFamilies.h - registration of each attribute file -*- C++ -*-===//
//
// Private to compiler/ast/: oxide::registerOxideAttributes (KernelAttributes.cpp) calls these,
// once, so each file keeps its ParsedAttrInfo types to itself.
//
//===----------------------------------------------------------------------===//
#ifndef OXIDE_COMPILER_AST_ATTRIBUTEFAMILIES_H
#define OXIDE_COMPILER_AST_ATTRIBUTEFAMILIES_H

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace oxide::ast {

/// launch_contract and launch_bounds (ContractAttributes.cpp).
void registerContractAttributes();
/// Gives an instantiation of a kernel template whose contract or launch bounds depend on its
/// template arguments its own (ContractAttributes.cpp); called by finishKernelInstantiation.
void instantiateContract(clang::ASTContext &context, clang::FunctionDecl &FD);
/// oxide_device_variable (ConstantVariables.cpp).
void registerConstantVariables();

} // namespace oxide::ast

#endif
