//===- ReportedError.cpp --------------------------------------------------===//

#include "oxide/compiler/ReportedError.h"

char oxide::ReportedError::ID = 0;
char oxide::UnsupportedArchError::ID = 0;
