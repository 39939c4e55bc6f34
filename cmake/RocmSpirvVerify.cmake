# rocm_spirv_verify(<target> [EXPECT spirv-only|native|hybrid]): fail the build
# when the artifact's offload bundles do not hold what the mode promises.
include_guard(GLOBAL)

set(ROCM_SPIRV_PYTHON "" CACHE FILEPATH "Python with rocm_spirv importable (for rocm_spirv_verify)")

function(rocm_spirv_verify t)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "EXPECT" "")
  if(NOT ARG_EXPECT)
    get_target_property(mode "${t}" ROCM_SPIRV_OFFLOAD)
    if(NOT mode)
      set(mode "${ROCM_SPIRV_OFFLOAD}")
    endif()
    set(ARG_EXPECT "${mode}")
  endif()
  if(ARG_EXPECT STREQUAL "spirv")
    set(ARG_EXPECT spirv-only)
  endif()
  if(NOT ARG_EXPECT MATCHES "^(spirv-only|native|hybrid)$")
    message(FATAL_ERROR "rocm_spirv_verify: EXPECT must be spirv-only, native or hybrid, not '${ARG_EXPECT}'")
  endif()
  _rocm_spirv_python(rocm_spirv_verify py pkg_parent)
  # The archs are known only once _rocm_spirv_apply ran: read the property at generate time.
  set(require_native "$<JOIN:$<FILTER:$<TARGET_PROPERTY:${t},ROCM_SPIRV_ARCHS>,EXCLUDE,^amdgcnspirv$>,$<COMMA>>")
  if(ARG_EXPECT STREQUAL "spirv-only")
    set(req spirv-only)
  else()
    set(req "${ARG_EXPECT}:${require_native}")
  endif()
  add_custom_command(TARGET "${t}" POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${pkg_parent}" "${py}" -m rocm_spirv inspect
            "$<TARGET_FILE:${t}>" --require "${req}"
    COMMENT "rocm-spirv: verifying ${t} holds ${ARG_EXPECT} GPU code"
    VERBATIM)
endfunction()
