# In-project stand-in for rocm-cmake's ROCMCheckTargetIds.cmake (found first through
# CMAKE_MODULE_PATH): rocm_check_target_ids(<out> TARGETS <id>...) keeps every
# target ID the compiler accepts as `-xhip --offload-arch=<id>` (one try-compile
# each, cached as COMPILER_HAS_TARGET_ID_<id>) and drops the others.
include(CheckCXXCompilerFlag)

function(rocm_check_target_ids VARIABLE)
  cmake_parse_arguments(PARSE "" "" "TARGETS" ${ARGN})
  set(_supported)
  foreach(_target_id IN LISTS PARSE_TARGETS)
    string(MAKE_C_IDENTIFIER "${_target_id}" _sanitized)
    set(_result_var "COMPILER_HAS_TARGET_ID_${_sanitized}")
    check_cxx_compiler_flag("-xhip -nogpuinc --offload-arch=${_target_id}" "${_result_var}")
    if(${_result_var})
      list(APPEND _supported "${_target_id}")
    else()
      message(STATUS "rocm_check_target_ids: the compiler rejects ${_target_id}; dropping it")
    endif()
  endforeach()
  set(${VARIABLE} "${_supported}" PARENT_SCOPE)
endfunction()
