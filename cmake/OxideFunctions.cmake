# add_oxide_executable, add_oxide_library and oxide_target (see OxideConfig.cmake).

# Makes oxcc compile the C++ sources of `target`: it is the target's compiler launcher, so it
# receives the exact compile command CMake builds (include directories and definitions of the
# target and of what it links, -std, the build type's -O/-g, -MD depfiles) and writes the
# object, with the device image of its kernels embedded. CMake links as usual, with
# Oxide::runtime. compile_commands.json keeps the plain compiler's command, which clangd reads.
function(oxide_target target)
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "oxide_target: '${target}' is not a target")
  endif()
  get_target_property(_type "${target}" TYPE)
  if(NOT _type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    message(FATAL_ERROR "oxide_target: '${target}' is a ${_type}; Oxide sources need an executable or a library")
  endif()
  get_target_property(_archs "${target}" OXIDE_ARCHITECTURES)
  if(NOT _archs AND DEFINED OXIDE_ARCHITECTURES)
    set_property(TARGET "${target}" PROPERTY OXIDE_ARCHITECTURES "${OXIDE_ARCHITECTURES}")
  endif()
  # CMake's own CUDA architectures apply too (CUDA_ARCHITECTURES, initialised from
  # CMAKE_CUDA_ARCHITECTURES), below OXIDE_ARCHITECTURES; OFF means oxcc's default.
  get_target_property(_cuda_archs "${target}" CUDA_ARCHITECTURES)
  if(NOT _cuda_archs AND DEFINED CMAKE_CUDA_ARCHITECTURES)
    set_property(TARGET "${target}" PROPERTY CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.25)
    # Read when the build files are generated: set the properties anywhere after this.
    set(_oxide "$<TARGET_PROPERTY:${target},OXIDE_ARCHITECTURES>")
    set(_cuda "$<TARGET_PROPERTY:${target},CUDA_ARCHITECTURES>")
    set_property(TARGET "${target}" PROPERTY CXX_COMPILER_LAUNCHER
      "${OXIDE_OXCC}" compile
      "--arch=$<IF:$<BOOL:${_oxide}>,$<JOIN:${_oxide},,>,$<$<BOOL:${_cuda}>:$<JOIN:${_cuda},,>>>" --)
  else()
    # Launchers take generator expressions from CMake 3.25 on; before, the property is read
    # at the end of the directory that created the target.
    cmake_language(EVAL CODE "cmake_language(DEFER CALL _oxide_set_launcher [[${target}]])")
  endif()
  target_compile_features("${target}" PRIVATE cxx_std_20)
  # CMake names sources by absolute paths: __FILE__ and the files a kernel's failure reports name
  # are written relative to the project ("src/k.cpp:47"), so that no directory of the build
  # machine reaches the binary and two checkouts build the same bytes. Debug information (-g)
  # keeps whole paths, for the debugger; OXIDE_KEEP_SOURCE_PATHS keeps them everywhere.
  if(NOT OXIDE_KEEP_SOURCE_PATHS)
    target_compile_options("${target}" PRIVATE
      "-fmacro-prefix-map=${CMAKE_SOURCE_DIR}/=" "-fmacro-prefix-map=${CMAKE_BINARY_DIR}/=")
  endif()
  if(_type STREQUAL "EXECUTABLE" OR _type STREQUAL "SHARED_LIBRARY" OR _type STREQUAL "MODULE_LIBRARY")
    target_link_libraries("${target}" PRIVATE Oxide::runtime)
  else()
    # A static or object library's kernels register through the runtime of what links it.
    target_link_libraries("${target}" PUBLIC Oxide::runtime)
  endif()
endfunction()

function(_oxide_set_launcher target)
  get_target_property(_archs "${target}" OXIDE_ARCHITECTURES)
  if(NOT _archs)
    get_target_property(_archs "${target}" CUDA_ARCHITECTURES)
  endif()
  if(NOT _archs)
    set(_archs "")
  endif()
  string(REPLACE ";" "," _archs "${_archs}")
  set_property(TARGET "${target}" PROPERTY CXX_COMPILER_LAUNCHER "${OXIDE_OXCC}" compile "--arch=${_archs}" --)
endfunction()

# add_oxide_executable(<target> [WIN32] [MACOSX_BUNDLE] [EXCLUDE_FROM_ALL] <sources>...)
function(add_oxide_executable target)
  add_executable("${target}" ${ARGN})
  oxide_target("${target}")
endfunction()

# add_oxide_library(<target> [STATIC|SHARED|MODULE|OBJECT] [EXCLUDE_FROM_ALL] <sources>...)
function(add_oxide_library target)
  add_library("${target}" ${ARGN})
  oxide_target("${target}")
endfunction()
