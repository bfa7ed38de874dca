//===- ReportedError.cpp --------------------------------------------------===//

#include "oxide/compiler/ReportedError.h"

char oxide::ReportedError::ID = 0;
