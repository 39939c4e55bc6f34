# The version check of the package's own copy (see RocmSpirvConfig.cmake beside this file).
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvLocate.cmake")
if(_rocm_spirv_real)
  include("${_rocm_spirv_real}/RocmSpirvConfigVersion.cmake")
else()
  # Accepted, so that RocmSpirvConfig.cmake gets to say what is missing and the remedy.
  set(PACKAGE_VERSION "0")
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
unset(_rocm_spirv_real)
