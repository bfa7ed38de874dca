// Oxide: everything a single-source program needs, device API and host runtime.
#pragma once

#include "oxide/device.hpp"

#include "oxide/detail/cuda_host_functions.hpp"
#include "oxide/detail/cuda_spellings.hpp"

#include "oxide/host/append_buffer.hpp"
#include "oxide/host/buffer.hpp"
#include "oxide/host/buffer_view.hpp"
#include "oxide/host/claims.hpp"
#include "oxide/host/constant.hpp"
#include "oxide/host/context.hpp"
#include "oxide/host/device.hpp"
#include "oxide/host/error.hpp"
#include "oxide/host/event.hpp"
#include "oxide/host/export.hpp"
#include "oxide/host/global.hpp"
#include "oxide/host/graph.hpp"
#include "oxide/host/kernel_argument.hpp"
#include "oxide/host/launch.hpp"
#include "oxide/host/launch_config.hpp"
#include "oxide/host/permutation.hpp"
#include "oxide/host/pinned.hpp"
#include "oxide/host/simulator.hpp"
#include "oxide/host/stream.hpp"
#include "oxide/host/tensor_map.hpp"
#include "oxide/host/unsafe_launch.hpp"
