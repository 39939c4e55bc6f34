# Where the rocm-spirv Python package keeps its CMake package, seen from
# <prefix>/share/cmake/RocmSpirv (this folder, installed from the wheel's data):
# <prefix>/lib*/python3.*/site-packages/rocm_spirv/cmake, the newest Python first.
get_filename_component(_rocm_spirv_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
file(GLOB _rocm_spirv_found LIST_DIRECTORIES TRUE
     "${_rocm_spirv_prefix}/lib*/python3*/site-packages/rocm_spirv/cmake"
     "${_rocm_spirv_prefix}/Lib/site-packages/rocm_spirv/cmake")
# lib64 is often a link to lib: one real folder, named once.
set(_rocm_spirv_real_dirs "")
foreach(_rocm_spirv_dir IN LISTS _rocm_spirv_found)
  get_filename_component(_rocm_spirv_dir "${_rocm_spirv_dir}" REALPATH)
  list(APPEND _rocm_spirv_real_dirs "${_rocm_spirv_dir}")
endforeach()
list(REMOVE_DUPLICATES _rocm_spirv_real_dirs)
list(SORT _rocm_spirv_real_dirs COMPARE NATURAL ORDER DESCENDING)
set(_rocm_spirv_real "")
foreach(_rocm_spirv_dir IN LISTS _rocm_spirv_real_dirs)
  if(EXISTS "${_rocm_spirv_dir}/RocmSpirvConfig.cmake")
    set(_rocm_spirv_real "${_rocm_spirv_dir}")
    break()
  endif()
endforeach()
unset(_rocm_spirv_real_dirs)
unset(_rocm_spirv_found)
unset(_rocm_spirv_dir)
unset(_rocm_spirv_prefix)
