//===- SafetyCheckerParameters.cpp - what a contracted kernel may receive ---===//
//
// The parameter types of contracted kernels: no pointers or references outside Oxide's spans,
// no mutable spans, std::span or `mutable` members; inside a span's elements, no pointers.
//
//===----------------------------------------------------------------------===//

#include "SafetyCheckers.h"

#include "oxide/compiler/Diagnostics.h"
#include "oxide/compiler/KernelAttributes.h"
#include "oxide/compiler/OxideTypes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace oxide::ast;
using oxide::Diag;

namespace {

/// Walks the type of one parameter of a contracted kernel through fields (private ones too),
/// bases, array elements, union members and lambda captures, and reports what a contracted
/// kernel must not receive: pointers of any kind and references outside Oxide's spans, mutable
/// spans, std::span, `mutable` members; inside the elements of a span, no pointers at all.
class ParameterTypeChecker {
public:
  ParameterTypeChecker(ASTContext &context, OxideHeaders &headers, const FunctionDecl *kernel,
                       const ParmVarDecl *param)
      : context(context), diags(context.getDiagnostics()), headers(headers), kernel(kernel), param(param) {}

  void check() {
    QualType type = param->getType();
    const std::string name = paramName();
    // The %select of Diag::ParameterUnsafe.
    int unsafe = -1;
    if (type->isPointerType())
      unsafe = 0;
    else if (type->isReferenceType())
      unsafe = 1;
    else if (type->isMemberPointerType())
      unsafe = 2;
    else if (oxide::isMutableSpan(type))
      unsafe = 3;
    else if (oxide::isStdSpan(type) && !oxide::firstTemplateTypeArgument(type).isConstQualified())
      unsafe = 4;
    if (unsafe >= 0) {
      oxide::report(diags, param->getLocation(), Diag::ParameterUnsafe)
          << name << kernel->getName() << unsafe;
      return;
    }
    if (oxide::isStdSpan(type)) { // std::span<const T>, bound by the runtime like Span<const T>
      walkElements(type, name, Mode::Input);
      return;
    }
    walk(type, name, Member{}, Mode::Parameter);
  }

private:
  /// Where the walk is: in the parameter's own value, or in the elements of a span it holds.
  enum class Mode { Parameter, Input, Output };

  /// The member whose type is being walked, for the message and the note.
  struct Member {
    std::string description; // "field 'data' of struct 'Inner'"
    std::string name;        // "data", for the note
    SourceLocation declared; // the note's location, or invalid
    bool captured = false;   // a lambda capture ("'x' is captured here")
  };

  void walk(QualType type, const std::string &path, const Member &member, Mode mode) {
    type = type.getCanonicalType();
    if (type->isReferenceType())
      return pointerLike("a reference", path, member, mode);
    if (type->isFunctionPointerType())
      return pointerLike("a function pointer", path, member, mode);
    if (type->isPointerType() || type->isBlockPointerType())
      return pointerLike("a raw pointer", path, member, mode);
    if (type->isMemberPointerType())
      return pointerLike("a member pointer", path, member, mode);
    if (const ArrayType *array = context.getAsArrayType(type))
      return walk(array->getElementType(), path + "[]", member, mode);
    const CXXRecordDecl *record = type->getAsCXXRecordDecl();
    if (!record || !record->getDefinition())
      return;
    record = record->getDefinition();

    if (oxide::isPointerHoldingSpan(type) && headers.contains(record->getLocation())) {
      const std::string spanName = typeName(type.getUnqualifiedType(), context);
      if (mode != Mode::Parameter)
        return pointerLike("an " + spanName + " (which holds a pointer)", path, member, mode);
      if (oxide::isMutableSpan(type))
        return spanError(HeldSpan::MutableSpan, path, member);
      if (path != paramName()) { // inside a struct, an array or a closure
        oxide::report(diags, param->getLocation(), Diag::ParameterNestedSpan)
            << paramName() << kernel->getName() << spanName << at(path, member);
        return noteDeclaration(member);
      }
      if (oxide::isOxideSpan(type) || oxide::isAppendSpan(type))
        walkElements(type, path,
                     oxide::isDisjointSpan(type) || oxide::isAppendSpan(type) ? Mode::Output : Mode::Input);
      return; // AtomicSpan<T, S>: T is an atomic scalar
    }
    if (oxide::isStdSpan(type)) {
      if (mode != Mode::Parameter)
        return pointerLike("a std::span (which holds a pointer)", path, member, mode);
      if (!oxide::firstTemplateTypeArgument(type).isConstQualified())
        return spanError(HeldSpan::MutableStdSpan, path, member);
      return spanError(HeldSpan::StdSpan, path, member);
    }
    if (!visited.insert({record, static_cast<int>(mode)}).second)
      return;

    if (record->isDynamicClass())
      pointerLike("a virtual-table pointer", path,
                  Member{recordName(record, context) + " is polymorphic", record->getName().str(),
                         record->getLocation()},
                  mode);
    for (const CXXBaseSpecifier &base : record->bases())
      walk(base.getType(), path, member, mode);

    llvm::DenseMap<const FieldDecl *, const LambdaCapture *> captureOf;
    if (record->isLambda()) {
      llvm::DenseMap<const ValueDecl *, FieldDecl *> fields;
      FieldDecl *thisField = nullptr;
      record->getCaptureFields(fields, thisField);
      for (const LambdaCapture &capture : record->captures()) {
        if (capture.capturesThis() && thisField)
          captureOf[thisField] = &capture;
        else if (capture.capturesVariable())
          if (FieldDecl *field = fields.lookup(capture.getCapturedVar()))
            captureOf[field] = &capture;
      }
    }
    for (const FieldDecl *field : record->fields()) {
      Member inner;
      std::string fieldPath = path;
      if (const LambdaCapture *capture = captureOf.lookup(field)) {
        inner.name = capture->capturesThis() ? "this" : capture->getCapturedVar()->getName().str();
        inner.description = "'" + inner.name + "' captured by " +
                            (capture->getCaptureKind() == LCK_ByRef ? "reference" : "copy") + " by a lambda";
        inner.declared = capture->getLocation();
        inner.captured = true;
        fieldPath += "." + inner.name;
      } else if (field->getIdentifier()) {
        inner.name = field->getName().str();
        inner.description = "field '" + inner.name + "' of " + recordName(record, context);
        inner.declared = field->getLocation();
        fieldPath += "." + inner.name;
      } else if (field->isUnnamedBitField()) {
        continue;
      } else { // an anonymous struct or union: its members are the record's
        inner = member;
      }
      if (field->isMutable() && mode != Mode::Output)
        mutableMember(fieldPath, inner, mode);
      walk(field->getType(), fieldPath, inner, mode);
    }
  }

  /// The elements of a Span<const T> / DisjointSpan<T> / std::span<const T> at `path`.
  void walkElements(QualType span, const std::string &path, Mode mode) {
    QualType element = oxide::firstTemplateTypeArgument(span);
    if (element.isNull())
      return;
    const std::string saved = currentSpan;
    currentSpan = typeName(span.getCanonicalType(), context);
    walk(element, path + "[]", Member{}, mode); // "inside the elements of its '...'" says where
    currentSpan = saved;
  }

  /// The parameter's name, "#2" for an unnamed second parameter.
  std::string paramName() const {
    if (!param->getName().empty())
      return param->getName().str();
    return "#" + std::to_string(param->getFunctionScopeIndex() + 1);
  }
  static std::string at(const std::string &path, const Member &member) {
    return "at '" + path + "'" + (member.description.empty() ? "" : " (" + member.description + ")");
  }
  std::string inside(Mode mode) const {
    return mode == Mode::Parameter ? "" : " inside the elements of its '" + currentSpan + "'";
  }

  void pointerLike(const std::string &what, const std::string &path, const Member &member, Mode mode) {
    // The %select of Diag::ParameterHoldsPointer: what to do instead.
    const int fix = mode == Mode::Input ? 2 : mode == Mode::Output ? 3 : what == "a reference" ? 1 : 0;
    oxide::report(diags, param->getLocation(), Diag::ParameterHoldsPointer)
        << paramName() << kernel->getName() << what << at(path, member) << inside(mode) << fix;
    noteDeclaration(member);
  }

  /// A span that a parameter may not hold, by the %select of Diag::ParameterHoldsSpan.
  enum class HeldSpan { MutableSpan, MutableStdSpan, StdSpan };
  void spanError(HeldSpan span, const std::string &path, const Member &member) {
    oxide::report(diags, param->getLocation(), Diag::ParameterHoldsSpan)
        << paramName() << kernel->getName() << static_cast<int>(span) << at(path, member);
    noteDeclaration(member);
  }

  void mutableMember(const std::string &path, const Member &member, Mode mode) {
    oxide::report(diags, param->getLocation(), Diag::ParameterMutableMember)
        << paramName() << kernel->getName() << at(path, member) << inside(mode) << (mode == Mode::Input);
    noteDeclaration(member);
  }

  void noteDeclaration(const Member &member) {
    if (member.name.empty() || !headers.isUserCode(member.declared))
      return;
    oxide::report(diags, member.declared, Diag::NoteMemberDeclared) << member.name << member.captured;
  }

  ASTContext &context;
  DiagnosticsEngine &diags;
  OxideHeaders &headers;
  const FunctionDecl *kernel;
  const ParmVarDecl *param;
  std::string currentSpan;
  llvm::DenseSet<std::pair<const CXXRecordDecl *, int>> visited;
};

} // namespace

void oxide::ast::checkKernelParameter(ASTContext &context, OxideHeaders &headers, const FunctionDecl *kernel,
                                      const ParmVarDecl *param) {
  ParameterTypeChecker(context, headers, kernel, param).check();
}
