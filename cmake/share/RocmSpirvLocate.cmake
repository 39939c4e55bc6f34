# Where the rocm-spirv Python package keeps its CMake package, seen from this folder, which
# the wheel installs twice: as <site-packages>/RocmSpirv/cmake and as
# <prefix>/share/cmake/RocmSpirv. Sets _rocm_spirv_real ("" when the package is gone).
set(_rocm_spirv_real "")
# 1. <site-packages>/RocmSpirv/cmake: the package is <site-packages>/rocm_spirv/cmake.
get_filename_component(_rocm_spirv_dir "${CMAKE_CURRENT_LIST_DIR}/../../rocm_spirv/cmake" ABSOLUTE)
if(EXISTS "${_rocm_spirv_dir}/RocmSpirvConfig.cmake")
  set(_rocm_spirv_real "${_rocm_spirv_dir}")
else()
  # 2. <prefix>/share/cmake/RocmSpirv: the package is
  #    <prefix>/lib*/python3.*/site-packages/rocm_spirv/cmake, the newest Python first
  #    (lib64 is often a link to lib: one real folder, named once).
  get_filename_component(_rocm_spirv_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
  file(GLOB _rocm_spirv_found LIST_DIRECTORIES TRUE
       "${_rocm_spirv_prefix}/lib*/python3*/site-packages/rocm_spirv/cmake"
       "${_rocm_spirv_prefix}/Lib/site-packages/rocm_spirv/cmake")
  set(_rocm_spirv_dirs "")
  foreach(_rocm_spirv_dir IN LISTS _rocm_spirv_found)
    get_filename_component(_rocm_spirv_dir "${_rocm_spirv_dir}" REALPATH)
    list(APPEND _rocm_spirv_dirs "${_rocm_spirv_dir}")
  endforeach()
  list(REMOVE_DUPLICATES _rocm_spirv_dirs)
  list(SORT _rocm_spirv_dirs COMPARE NATURAL ORDER DESCENDING)
  foreach(_rocm_spirv_dir IN LISTS _rocm_spirv_dirs)
    if(EXISTS "${_rocm_spirv_dir}/RocmSpirvConfig.cmake")
      set(_rocm_spirv_real "${_rocm_spirv_dir}")
      break()
    endif()
  endforeach()
  unset(_rocm_spirv_found)
  unset(_rocm_spirv_dirs)
  unset(_rocm_spirv_prefix)
endif()
unset(_rocm_spirv_dir)
