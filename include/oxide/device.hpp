// Everything a kernel author needs: thread-index witnesses and the span parameter types.
#pragma once

#include "oxide/device/intrinsics.hpp"
#include "oxide/device/span.hpp"
#include "oxide/device/thread.hpp"
