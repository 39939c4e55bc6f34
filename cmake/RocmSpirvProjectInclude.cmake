# Retarget an unmodified project: pass
#   -DCMAKE_PROJECT_INCLUDE=<this file> -DROCM_SPIRV_OFFLOAD=spirv|native|hybrid
# (a toolchain file from `rocm-spirv toolchain generate` does this for you). It
# runs after each project() call; the retargeting itself is deferred to the end
# of configure, so lists hard-coded later in the project are overridden too.
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvConfig.cmake")
get_property(_rocm_spirv_hooked GLOBAL PROPERTY _ROCM_SPIRV_PROJECT_HOOKED)
if(NOT _rocm_spirv_hooked)
  set_property(GLOBAL PROPERTY _ROCM_SPIRV_PROJECT_HOOKED TRUE)
  _rocm_spirv_defer_directory("${CMAKE_SOURCE_DIR}" TRUE "" "" RocmSpirvProjectInclude.cmake)
  _rocm_spirv_scan_project("${CMAKE_SOURCE_DIR}")
endif()
unset(_rocm_spirv_hooked)
