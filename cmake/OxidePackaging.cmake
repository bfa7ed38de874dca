# Packages of the install tree (`cpack` in the build directory, docs/cmake.md "Packages"):
#   oxide-<version>-linux-x86_64.tar.gz  unpack anywhere; oxcc finds the rest relative to itself
#   oxide_<version>_amd64.deb             installs into /opt/oxide, with its dependencies declared
# The installed oxcc runs on Debian 12's LLVM, Clang and MLIR 22 (linked as shared libraries,
# found through its run path /usr/lib/llvm-22/lib), links programs with clang++-22 and its
# builtins, and compiles device code with a CUDA toolkit, which is not a Debian package:
# `oxcc doctor` checks it.
set(CPACK_PACKAGE_NAME "oxide")
set(CPACK_PACKAGE_VENDOR "Oxide")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Oxide C++: single-source SIMT compiler (oxcc) for C++ with [[kernel]] functions, its runtime and headers")
set(CPACK_PACKAGE_CONTACT "Oxide developers")
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_PACKAGE_FILE_NAME "oxide-${PROJECT_VERSION}-linux-x86_64")
set(CPACK_STRIP_FILES ON)

# Debian: /opt/oxide (the headers stay out of /usr/include, where clang would take them for
# system headers), and what oxcc needs at run time. The CUDA toolkit (ptxas, libdevice,
# fatbinary) is NVIDIA's, not Debian's: recommended by name only through doctor.
set(CPACK_PROJECT_CONFIG_FILE "${CMAKE_CURRENT_LIST_DIR}/OxideCPackOptions.cmake")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE "amd64")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libllvm22, llvm-22-dev, libclang-cpp22, libmlir-22, clang-22, libclang-common-22-dev, libclang-rt-22-dev, libstdc++-12-dev, libc6 (>= 2.36)")
# CMake projects also need a compiler CMake finds as `c++` (clang-22 installs only clang++-22):
# oxcc compiles the Oxide sources as the launcher, but project(... CXX) tests the compiler.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "lld-22, clangd-22, cmake (>= 3.20), ninja-build, g++")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "oxcc compiles C++ with [[kernel]] functions into executables that carry their GPU code (a CUDA fatbinary) and run it through the CUDA driver, or on a CPU simulator without a GPU. Needs a CUDA toolkit 12 or newer in /usr/local/cuda (OXIDE_CUDA_PATH) for device code; run `oxcc doctor`.")
include(CPack)
