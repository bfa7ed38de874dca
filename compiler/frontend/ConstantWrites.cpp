//===- ConstantWrites.cpp - stores to oxide::constant reach the checks ----===//
//
// Clang marks a __constant__ variable (what the device compile makes of an oxide::constant)
// `constant` in the device IR, and LLVM deletes a store to constant memory as undefined
// behaviour: a `const_cast` write to a constant's storage vanished before the write checks ran,
// while the CPU simulator executed it on the host copy, which is ordinary writable memory. So the
// mark is lifted for the optimisation that precedes the checks, which then see the store and
// reject it (store-target: constant memory), and put back for the optimisation after them.
//
//===----------------------------------------------------------------------===//

#include "oxide/compiler/KernelTable.h"
#include "oxide/compiler/SimulatorDivergence.h"

#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

using namespace oxide;

ExposedConstants oxide::exposeConstantWrites(llvm::Module &module) {
  ExposedConstants exposed;
  for (llvm::GlobalVariable &g : module.globals())
    if (g.isConstant() && isHostSetVariable(g)) {
      g.setConstant(false);
      exposed.globals.push_back(&g);
    }
  return exposed;
}

void ExposedConstants::restore() {
  for (llvm::GlobalVariable *g : globals)
    g->setConstant(true);
  globals.clear();
}
