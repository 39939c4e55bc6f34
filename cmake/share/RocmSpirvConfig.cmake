# Installed by the rocm-spirv wheel as <prefix>/share/cmake/RocmSpirv and as
# <site-packages>/RocmSpirv/cmake, so that a venv, a --user prefix or site-packages on
# CMAKE_PREFIX_PATH (or an activated venv's bin/ on PATH) finds find_package(RocmSpirv) as it
# finds pybind11 and nanobind. It forwards to the package's own copy.
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvLocate.cmake")
if(NOT _rocm_spirv_real)
  set(RocmSpirv_FOUND FALSE)
  string(CONCAT RocmSpirv_NOT_FOUND_MESSAGE
    "${CMAKE_CURRENT_LIST_DIR} belongs to a rocm-spirv install whose Python package is gone. "
    "Remedy: pip install rocm-spirv, or pass -DRocmSpirv_DIR=$(rocm-spirv --cmakedir)")
  return()
endif()
include("${_rocm_spirv_real}/RocmSpirvConfig.cmake")
unset(_rocm_spirv_real)
