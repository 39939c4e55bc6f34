# rocm_spirv_verify(<target> [EXPECT spirv-only|native|hybrid]): fail the build
# when the artifact's offload bundles do not hold what the mode promises, or (spirv
# and hybrid) when spirv-val rejects one of its SPIR-V modules (inspect --validate,
# with the newest spirv-val found: docs/toolchain.md).
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvTarget.cmake")

function(rocm_spirv_verify)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "EXPECT" "")
  set(usage "rocm_spirv_verify(<target> [EXPECT spirv-only|native|hybrid])")
  list(POP_FRONT ARG_UNPARSED_ARGUMENTS t)
  _rocm_spirv_refuse_args(rocm_spirv_verify "${usage}" "${ARG_KEYWORDS_MISSING_VALUES}"
    "${ARG_UNPARSED_ARGUMENTS}")
  if(NOT t)
    message(FATAL_ERROR "rocm_spirv_verify: no target named. Remedy: ${usage}")
  endif()
  if(ARG_EXPECT STREQUAL "spirv")
    set(ARG_EXPECT spirv-only)
  endif()
  if(ARG_EXPECT AND NOT ARG_EXPECT MATCHES "^(spirv-only|native|hybrid)$")
    message(FATAL_ERROR "rocm_spirv_verify: EXPECT must be spirv-only, native or hybrid, not '${ARG_EXPECT}'. "
      "Remedy: ${usage}, or leave EXPECT out to check the target's own offload mode.")
  endif()
  _rocm_spirv_check_target(rocm_spirv_verify "${t}")
  get_target_property(type "${t}" TYPE)
  if(type STREQUAL "OBJECT_LIBRARY")
    message(FATAL_ERROR "rocm_spirv_verify: '${t}' is an OBJECT library: there is no one file to inspect. "
      "Remedy: verify the library or executable its objects end up in.")
  endif()
  # One check per target: a second call the same way is the same check.
  if(ARG_EXPECT)
    set(request "EXPECT ${ARG_EXPECT}")
  else()
    set(request "the target's own mode")
  endif()
  get_target_property(before "${t}" _ROCM_SPIRV_VERIFY)
  if(before)
    if(NOT before STREQUAL request)
      message(FATAL_ERROR "rocm_spirv_verify: ${t} is already verified against ${before}, now asked for "
        "${request}; both cannot hold. Remedy: keep one rocm_spirv_verify(${t} …) call.")
    endif()
    return()
  endif()
  set_target_properties("${t}" PROPERTIES _ROCM_SPIRV_VERIFY "${request}")
  _rocm_spirv_python(rocm_spirv_verify py pkg_parent)
  _rocm_spirv_verify_requirement("${t}" "${ARG_EXPECT}" req what validate)
  add_custom_command(TARGET "${t}" POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${pkg_parent}" "${py}" -m rocm_spirv inspect
            "$<TARGET_FILE:${t}>" --require "${req}" ${validate} --brief
    COMMENT "rocm-spirv: verifying ${t} holds ${what} GPU code"
    VERBATIM)
endfunction()

# The `inspect --require` value. The mode and archs are known only once the
# deferred rocm_spirv_target() work ran: after this call, or at the end of
# configure for rocm_spirv_retarget_directory(). So both are read at generate time.
# out_validate: --validate where the mode emits SPIR-V (native code needs no spirv-val),
# else a repeated --brief.
function(_rocm_spirv_verify_requirement t expect out_req out_what out_validate)
  _rocm_spirv_spirv_target(spirv)
  set(require_native "$<JOIN:$<FILTER:$<TARGET_PROPERTY:${t},ROCM_SPIRV_ARCHS>,EXCLUDE,^${spirv}$>,$<COMMA>>")
  set(validate --validate)
  if(expect STREQUAL "spirv-only")
    set(req spirv-only)
    set(what "spirv-only")
  elseif(expect)
    set(req "${expect}:${require_native}")
    set(what "${expect}")
    if(expect STREQUAL "native")
      set(validate --brief)
    endif()
  else()
    # A target that was never retargeted goes by the cache value.
    _rocm_spirv_default_mode(default)
    set(prop "$<TARGET_PROPERTY:${t},ROCM_SPIRV_OFFLOAD>")
    set(mode "$<IF:$<BOOL:${prop}>,${prop},${default}>")
    set(req "$<IF:$<STREQUAL:${mode},spirv>,spirv-only,${mode}:${require_native}>")
    set(what "its offload mode's")
    # Never an empty argument: a native target gets --brief twice, which means the same.
    set(validate "$<IF:$<STREQUAL:${mode},native>,--brief,--validate>")
  endif()
  set(${out_validate} "${validate}" PARENT_SCOPE)
  set(${out_req} "${req}" PARENT_SCOPE)
  set(${out_what} "${what}" PARENT_SCOPE)
endfunction()
