# RocmSpirv: retarget HIP code from one code object per GPU to one
# AMDGCN-flavoured SPIR-V target (--offload-arch=amdgcnspirv).
#
#   find_package(RocmSpirv REQUIRED)
#   rocm_spirv_target(mylib)                # or rocm_spirv_retarget_directory(RECURSE)
#
# find_package alone only defines functions, variables and two cache options.
include_guard(GLOBAL)

if(CMAKE_VERSION VERSION_LESS 3.21)
  message(FATAL_ERROR
    "RocmSpirv needs CMake >= 3.21 (HIP language, cmake_language(DEFER)); found ${CMAKE_VERSION}. "
    "Remedy: pip install cmake, or run rocm-spirv doctor.")
endif()

set(RocmSpirv_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvOptions.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvProbe.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvTarget.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvDirectory.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvVerify.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvWheel.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvScan.cmake")
set(RocmSpirv_FOUND TRUE)
