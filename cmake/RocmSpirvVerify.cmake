# rocm_spirv_verify(<target> [EXPECT spirv-only|native|hybrid]): fail the build
# when the artifact's offload bundles do not hold what the mode promises.
include_guard(GLOBAL)

set(ROCM_SPIRV_PYTHON "" CACHE FILEPATH "Python with rocm_spirv importable (for rocm_spirv_verify)")

function(rocm_spirv_verify t)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "EXPECT" "")
  if(ARG_EXPECT STREQUAL "spirv")
    set(ARG_EXPECT spirv-only)
  endif()
  if(ARG_EXPECT AND NOT ARG_EXPECT MATCHES "^(spirv-only|native|hybrid)$")
    message(FATAL_ERROR "rocm_spirv_verify: EXPECT must be spirv-only, native or hybrid, not '${ARG_EXPECT}'")
  endif()
  _rocm_spirv_python(rocm_spirv_verify py pkg_parent)
  # The mode and archs are known only once the deferred rocm_spirv_target() work
  # ran: after this call, or at the end of configure for
  # rocm_spirv_retarget_directory(). So both are read at generate time.
  set(require_native "$<JOIN:$<FILTER:$<TARGET_PROPERTY:${t},ROCM_SPIRV_ARCHS>,EXCLUDE,^amdgcnspirv$>,$<COMMA>>")
  if(ARG_EXPECT STREQUAL "spirv-only")
    set(req spirv-only)
    set(what "spirv-only")
  elseif(ARG_EXPECT)
    set(req "${ARG_EXPECT}:${require_native}")
    set(what "${ARG_EXPECT}")
  else()
    # A target that was never retargeted goes by the cache value.
    set(prop "$<TARGET_PROPERTY:${t},ROCM_SPIRV_OFFLOAD>")
    set(mode "$<IF:$<BOOL:${prop}>,${prop},${ROCM_SPIRV_OFFLOAD}>")
    set(req "$<IF:$<STREQUAL:${mode},spirv>,spirv-only,${mode}:${require_native}>")
    set(what "its offload mode's")
  endif()
  add_custom_command(TARGET "${t}" POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${pkg_parent}" "${py}" -m rocm_spirv inspect
            "$<TARGET_FILE:${t}>" --require "${req}"
    COMMENT "rocm-spirv: verifying ${t} holds ${what} GPU code"
    VERBATIM)
endfunction()
