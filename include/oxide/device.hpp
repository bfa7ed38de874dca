// Everything a kernel author needs: witnesses, spans, geometry, shared memory, barriers,
// warp operations, tensor cores (mma.sync, ldmatrix, cp.async), atomics, 16-bit floats, fast
// approximate maths, vector types, printf and trap, constant memory, device globals, clusters, grid
// sync and clocks.
#pragma once

#include "oxide/device/append.hpp"
#include "oxide/device/atomic.hpp"
#include "oxide/device/claims.hpp"
#include "oxide/device/cluster.hpp"
#include "oxide/device/constant.hpp"
#include "oxide/device/cooperative.hpp"
#include "oxide/device/fast_math.hpp"
#include "oxide/device/geometry.hpp"
#include "oxide/device/global.hpp"
#include "oxide/device/group.hpp"
#include "oxide/device/half.hpp"
#include "oxide/device/intrinsics.hpp"
#include "oxide/device/mbarrier.hpp"
#include "oxide/device/mma.hpp"
#include "oxide/device/permutation.hpp"
#include "oxide/device/print.hpp"
#include "oxide/device/shared.hpp"
#include "oxide/device/shared_matrix.hpp"
#include "oxide/device/span.hpp"
#include "oxide/device/sync.hpp"
#include "oxide/device/thread.hpp"
#include "oxide/device/time.hpp"
#include "oxide/device/tma.hpp"
#include "oxide/device/vector.hpp"
#include "oxide/device/warp.hpp"
#include "oxide/device/wgmma.hpp"
