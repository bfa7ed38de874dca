# Oxide's CMake package: find_package(Oxide CONFIG REQUIRED)
#
# Provides
#   add_oxide_executable(<target> [EXCLUDE_FROM_ALL] <sources>...)
#   add_oxide_library(<target> [STATIC|SHARED|OBJECT] [EXCLUDE_FROM_ALL] <sources>...)
#   oxide_target(<target>)          make an existing target's C++ sources Oxide sources
#   Oxide::oxcc                     the compiler (imported executable)
#   Oxide::runtime                  liboxide_runtime.a with its link dependencies
#   Oxide::headers                  the Oxide headers (include/oxide)
#   OXIDE_OXCC, OXIDE_INCLUDE_DIR, OXIDE_RUNTIME_LIBRARY, Oxide_VERSION
#
# The C++ sources of an Oxide target are compiled by oxcc (through the target's
# CXX_COMPILER_LAUNCHER) with the target's include directories, compile definitions, C++
# standard and build type; the OXIDE_ARCHITECTURES target property (initialised from the
# OXIDE_ARCHITECTURES variable) lists its GPU architectures, e.g. "sm_80;sm_90". See
# docs/cmake.md.
cmake_minimum_required(VERSION 3.20)

get_filename_component(_oxide_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_oxide_include_dir "${_oxide_prefix}/include")
set(_oxide_builtins "")
# Where the toolchain put clang's builtins (and, in a build tree, where the headers are).
include("${CMAKE_CURRENT_LIST_DIR}/OxideLocations.cmake" OPTIONAL)

set(OXIDE_OXCC "${_oxide_prefix}/bin/oxcc")
set(OXIDE_INCLUDE_DIR "${_oxide_include_dir}")
set(OXIDE_RUNTIME_LIBRARY "${_oxide_prefix}/lib/liboxide_runtime.a")
foreach(_oxide_file IN ITEMS "${OXIDE_OXCC}" "${OXIDE_INCLUDE_DIR}/oxide/oxide.hpp" "${OXIDE_RUNTIME_LIBRARY}")
  if(NOT EXISTS "${_oxide_file}")
    set(Oxide_FOUND FALSE)
    set(Oxide_NOT_FOUND_MESSAGE "Oxide's package in ${CMAKE_CURRENT_LIST_DIR} is incomplete: ${_oxide_file} is missing (reinstall Oxide)")
    return()
  endif()
endforeach()

include(CMakeFindDependencyMacro)
find_dependency(Threads)

if(NOT TARGET Oxide::runtime)
  add_executable(Oxide::oxcc IMPORTED)
  set_target_properties(Oxide::oxcc PROPERTIES IMPORTED_LOCATION "${OXIDE_OXCC}")

  add_library(Oxide::headers INTERFACE IMPORTED)
  set_target_properties(Oxide::headers PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${OXIDE_INCLUDE_DIR}"
    INTERFACE_COMPILE_FEATURES cxx_std_20)

  set(_oxide_link Oxide::headers Threads::Threads ${CMAKE_DL_LIBS})
  if(_oxide_builtins AND EXISTS "${_oxide_builtins}")
    list(APPEND _oxide_link "${_oxide_builtins}") # float <-> bfloat16 conversions libgcc lacks
  endif()
  # oxide::cub (include/oxide/cub.hpp): its library, then the runtime again (it calls into it),
  # then CUDA's runtime, which CUB launches through. Archives: only a program that calls
  # oxide::cub takes anything from them.
  set(_oxide_cub "${_oxide_prefix}/lib/liboxide_cub.a")
  if(EXISTS "${_oxide_cub}" AND _oxide_cuda_runtime AND EXISTS "${_oxide_cuda_runtime}")
    list(APPEND _oxide_link "${_oxide_cub}" "${OXIDE_RUNTIME_LIBRARY}" "${_oxide_cuda_runtime}" rt)
  endif()
  add_library(Oxide::runtime STATIC IMPORTED)
  set_target_properties(Oxide::runtime PROPERTIES
    IMPORTED_LOCATION "${OXIDE_RUNTIME_LIBRARY}"
    IMPORTED_LINK_INTERFACE_LANGUAGES CXX
    INTERFACE_LINK_LIBRARIES "${_oxide_link}")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/OxideFunctions.cmake")
