# RocmSpirvConfig.cmake: retarget HIP code from one code object per GPU to one
# AMDGCN-flavoured SPIR-V target (--offload-arch=amdgcnspirv). docs/cmake.md has
# the long form.
#
#   find_package(RocmSpirv REQUIRED)
#   rocm_spirv_target(mylib)              # or rocm_spirv_retarget_directory(RECURSE)
#
# find_package() alone defines functions and cache options and changes nothing.
# It may be called from any directory, any number of times: the functions read
# only their arguments, cache entries and target properties.
#
# Options (cache)
#   ROCM_SPIRV_OFFLOAD       spirv (default: one amdgcnspirv target), native
#                            (per-arch code objects), hybrid (both)
#   ROCM_SPIRV_NATIVE_ARCHS  native targets for native/hybrid (gfx942;gfx1100,
#                            gfx90a:xnack+, gfx11-generic); empty: each target's list
#   ROCM_SPIRV_PYTHON        Python with rocm_spirv importable (build-time checks)
#   ROCM_SPIRV_DEVICE_DEBUG  ON: keep -g debug info in SPIR-V device code (default OFF:
#                            the in-tree backend's form does not validate; from the
#                            environment variable of the same name)
#   ROCM_SPIRV_SCAN          ON: warn about per-arch CMake code a toolchain file
#                            cannot reach (projects hooked by the toolchain file)
#
# Variables set by find_package()
#   RocmSpirv_FOUND          TRUE
#   RocmSpirv_VERSION        the package version (from RocmSpirvConfigVersion.cmake)
#   RocmSpirv_CMAKE_DIR      this directory (for CMAKE_PROJECT_INCLUDE and the like)
#   ROCM_SPIRV_SPIRV_FLAGS   (cache, internal) what the compiler needs for amdgcnspirv
#                            beyond --offload-arch, once a target was retargeted
#
# Functions
#   rocm_spirv_target(<target>... [OFFLOAD mode] [ARCHS gfx…])
#       Retarget those targets at the end of the calling directory.
#   rocm_spirv_retarget_directory([DIRECTORY dir] [RECURSE] [OFFLOAD mode] [ARCHS gfx…])
#       Retarget every GPU-compiling target of a directory at the end of configure.
#   rocm_spirv_verify(<target> [EXPECT spirv-only|native|hybrid])
#       Fail the build when the target's file holds other GPU code.
#   rocm_spirv_wheel_metadata(<target>... [DESTINATION dir])
#       Record the targets' GPU code in the wheel (rocm_spirv.json).
#   Misuse (an alias, imported, INTERFACE or custom target, an unknown GPU
#   target, a second call with other options) stops the configure with the
#   cause and the remedy.
#
# Target properties (set on retargeted targets)
#   ROCM_SPIRV_OFFLOAD       the mode the target was built with
#   ROCM_SPIRV_ARCHS         its offload list (amdgcnspirv and/or gfx…)
#
# Modules: RocmSpirvOffload (modes, target lists, SPIR-V flags), RocmSpirvOptions
# (cache options, checks), RocmSpirvProbe (compiler probes), RocmSpirvFlags (arch
# flags in options and interfaces), RocmSpirvTarget, RocmSpirvDirectory,
# RocmSpirvVerify, RocmSpirvWheel, RocmSpirvScan; RocmSpirvProjectInclude is the
# hook a generated toolchain file installs.

if(CMAKE_VERSION VERSION_LESS 3.21)
  message(FATAL_ERROR
    "RocmSpirv needs CMake >= 3.21 (HIP language, cmake_language(DEFER)); found ${CMAKE_VERSION}. "
    "Remedy: pip install cmake, or run rocm-spirv doctor.")
endif()

# Each module has an include guard: a second find_package() only sets the
# variables above for its own directory.
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvOptions.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvTarget.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvDirectory.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvVerify.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvWheel.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvScan.cmake")
set(RocmSpirv_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(RocmSpirv_FOUND TRUE)
