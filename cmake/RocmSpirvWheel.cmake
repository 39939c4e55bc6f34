# rocm_spirv_wheel_metadata(<target>... [DESTINATION <dir in the wheel>])
#
# At install time writes rocm_spirv.json, a record of the GPU code each target
# carries (offload mode, device entries with target ids, kernel counts and
# sizes, compiler and version). Under scikit-build-core it goes to
# SKBUILD_METADATA_DIR, i.e. the wheel's .dist-info; elsewhere to
# <prefix>/share/rocm_spirv/<project>.json. DESTINATION is where the targets are
# installed, relative to the wheel root (default: the platlib root), so the
# record names each shared object by its path in the wheel.
#
# Several calls (also from subdirectories) add up to one file.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvOptions.cmake")

function(rocm_spirv_wheel_metadata)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "DESTINATION" "")
  if(NOT ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "rocm_spirv_wheel_metadata: name at least one target")
  endif()
  foreach(t IN LISTS ARG_UNPARSED_ARGUMENTS)
    if(NOT TARGET "${t}")
      message(FATAL_ERROR "rocm_spirv_wheel_metadata: '${t}' is not a target (define it before this call)")
    endif()
    get_target_property(type "${t}" TYPE)
    if(NOT type MATCHES "^(SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
      message(FATAL_ERROR "rocm_spirv_wheel_metadata: '${t}' is a ${type}; a wheel carries shared objects "
        "and executables only")
    endif()
    # One tab-separated line per target, completed at generate time when the
    # deferred rocm_spirv_target() work has set the mode and the archs.
    string(CONCAT line "${t}\t$<TARGET_FILE:${t}>\t${ARG_DESTINATION}\t"
      "$<TARGET_PROPERTY:${t},ROCM_SPIRV_OFFLOAD>\t$<JOIN:$<TARGET_PROPERTY:${t},ROCM_SPIRV_ARCHS>,$<COMMA>>\n")
    set_property(GLOBAL APPEND_STRING PROPERTY _ROCM_SPIRV_WHEEL_LINES "${line}")
  endforeach()
  get_property(armed GLOBAL PROPERTY _ROCM_SPIRV_WHEEL_ARMED)
  if(NOT armed)
    set_property(GLOBAL PROPERTY _ROCM_SPIRV_WHEEL_ARMED TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _rocm_spirv_wheel_emit)
  endif()
endfunction()

function(_rocm_spirv_wheel_emit)
  _rocm_spirv_python(rocm_spirv_wheel_metadata py pkg_parent)
  get_property(lines GLOBAL PROPERTY _ROCM_SPIRV_WHEEL_LINES)
  set(list_file "${CMAKE_BINARY_DIR}/CMakeFiles/RocmSpirvWheel/targets.tsv")
  file(GENERATE OUTPUT "${list_file}" CONTENT "${lines}")
  if(CMAKE_HIP_COMPILER)
    set(cc "${CMAKE_HIP_COMPILER}")
    set(cc_id "${CMAKE_HIP_COMPILER_ID}")
    set(cc_version "${CMAKE_HIP_COMPILER_VERSION}")
  else()
    set(cc "${CMAKE_CXX_COMPILER}")
    set(cc_id "${CMAKE_CXX_COMPILER_ID}")
    set(cc_version "${CMAKE_CXX_COMPILER_VERSION}")
  endif()
  # Every value below is data in the install script, never code: a path holding ", \, $, ${...},
  # ; or a line break is quoted (_rocm_spirv_quote) before it is written into install(CODE).
  foreach(v IN ITEMS pkg_parent py list_file cc cc_id cc_version PROJECT_NAME)
    _rocm_spirv_quote(q_${v} "${${v}}")
  endforeach()
  _rocm_spirv_quote(q_offload "$CACHE{ROCM_SPIRV_OFFLOAD}")
  if(SKBUILD_METADATA_DIR)
    _rocm_spirv_quote(q_out "${SKBUILD_METADATA_DIR}/rocm_spirv.json")
  else()
    _rocm_spirv_quote(q_name "/share/rocm_spirv/${PROJECT_NAME}.json")
    string(LENGTH "${q_name}" n)
    math(EXPR n "${n} - 2")
    string(SUBSTRING "${q_name}" 1 ${n} q_name)  # without its quotes: the prefix is the install's, read then
    set(q_out "\"\${CMAKE_INSTALL_PREFIX}${q_name}\"")
  endif()
  install(CODE "
    set(_rocm_spirv_out ${q_out})
    message(STATUS \"rocm-spirv: recording GPU code in \${_rocm_spirv_out}\")
    # PYTHONPATH is set here, not through `cmake -E env`, which would read a path holding '=' as a variable.
    set(_rocm_spirv_pythonpath \"\$ENV{PYTHONPATH}\")
    set(ENV{PYTHONPATH} ${q_pkg_parent})
    execute_process(
      COMMAND ${q_py} -m rocm_spirv wheel metadata
              --targets ${q_list_file} --output \"\$ENV{DESTDIR}\${_rocm_spirv_out}\"
              --compiler ${q_cc} --compiler-id ${q_cc_id} --compiler-version ${q_cc_version}
              --project ${q_PROJECT_NAME} --default-offload ${q_offload}
      RESULT_VARIABLE rc)
    set(ENV{PYTHONPATH} \"\${_rocm_spirv_pythonpath}\")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR \"rocm-spirv: writing \${_rocm_spirv_out} failed (exit \${rc})\")
    endif()
  ")
endfunction()
