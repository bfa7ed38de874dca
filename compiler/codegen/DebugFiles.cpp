//===- DebugFiles.cpp - the files a module's debug information names -----===//

#include "oxide/compiler/DebugFiles.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/InstIterator.h"

std::vector<llvm::DIFile *> oxide::debugFiles(llvm::Module &module) {
  llvm::DebugInfoFinder finder;
  finder.processModule(module);
  llvm::SmallSetVector<llvm::DIFile *, 16> files;
  auto add = [&](llvm::DIFile *file) {
    if (file)
      files.insert(file);
  };
  for (llvm::DIScope *scope : finder.scopes())
    add(scope->getFile());
  for (llvm::DISubprogram *sp : finder.subprograms())
    add(sp->getFile());
  for (llvm::DICompileUnit *cu : finder.compile_units())
    add(cu->getFile());
  for (llvm::Function &fn : module)
    for (llvm::Instruction &inst : llvm::instructions(fn))
      for (llvm::DILocation *loc = inst.getDebugLoc(); loc; loc = loc->getInlinedAt())
        add(loc->getScope()->getFile());
  return {files.begin(), files.end()};
}

void oxide::remapDebugPaths(llvm::Module &module, llvm::ArrayRef<PathPrefix> map) {
  if (map.empty())
    return;
  // A DIFile's operands: its name (0), then its directory (1). One pass each, the files found
  // again: a file whose new name makes it another's is merged into that one and deleted.
  for (unsigned operand : {0u, 1u})
    for (llvm::DIFile *file : debugFiles(module)) {
      const llvm::StringRef path = operand == 0 ? file->getFilename() : file->getDirectory();
      if (!path.empty())
        file->replaceOperandWith(operand,
                                 llvm::MDString::get(module.getContext(), remapPathPrefix(path, map)));
    }
}
