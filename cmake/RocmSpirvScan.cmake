# Configure-time report of what retargeting cannot reach: patterns in the
# project's CMake code that decide per architecture by themselves (allow-lists,
# branches on the target list, per-arch loops and custom commands, kernel
# generators, FindHIP). A toolchain file or project hook never edits them, so
# they are named with file and line instead of leaving a silent per-arch build.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvOptions.cmake")

set(ROCM_SPIRV_SCAN ON CACHE BOOL "Warn at configure time about per-arch CMake code retargeting cannot reach")

function(_rocm_spirv_scan_project dir)
  if(NOT "$CACHE{ROCM_SPIRV_SCAN}")
    return()
  endif()
  # The rules (rocm-spirv migrate ids) whose findings a retargeting hook cannot fix
  # (rocm_spirv.migrate.registry.UNREACHABLE). Only their `build-file` findings are
  # reported: a toolchain-redirectable one (FindHIP's hip_add_* reading
  # HCC_AMDGPU_TARGET, which the generated toolchain file forces) is not.
  set(_ROCM_SPIRV_UNREACHABLE_RULES RSM106 RSM107 RSM108 RSM109 RSM110 RSM114 RSM115)
  _rocm_spirv_python("rocm-spirv scan" py pkg_parent)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${pkg_parent}"
            "${py}" -m rocm_spirv migrate "${dir}" --format json
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  # migrate exits 0 or 1 (findings remain); anything else is its own failure.
  if(NOT rc MATCHES "^[01]$")
    string(STRIP "${err}" err)
    message(WARNING "RocmSpirv: scanning ${dir} for per-arch CMake code failed (${err}); set ROCM_SPIRV_SCAN=OFF to skip")
    return()
  endif()
  string(JSON n ERROR_VARIABLE json_err LENGTH "${out}" findings)
  if(json_err OR n EQUAL 0)
    return()
  endif()
  math(EXPR last "${n} - 1")
  set(count 0)
  set(sources 0)
  foreach(i RANGE ${last})
    string(JSON rule GET "${out}" findings ${i} rule)
    string(JSON handled GET "${out}" findings ${i} handled)
    # A `rocm-spirv: ignore[...]` comment silences a finding here as in `migrate --check`.
    string(JSON suppressed ERROR_VARIABLE _no_field GET "${out}" findings ${i} suppressed)
    if(suppressed)
      continue()
    endif()
    string(JSON redirect GET "${out}" findings ${i} redirect)
    if(redirect STREQUAL "source" AND NOT handled)
      math(EXPR sources "${sources} + 1")
    endif()
    if(handled OR NOT rule IN_LIST _ROCM_SPIRV_UNREACHABLE_RULES OR NOT redirect STREQUAL "build-file")
      continue()
    endif()
    string(JSON path GET "${out}" findings ${i} path)
    string(JSON line GET "${out}" findings ${i} line)
    string(JSON msg GET "${out}" findings ${i} message)
    string(JSON fix GET "${out}" findings ${i} fix)
    message(WARNING "RocmSpirv: ${dir}/${path}:${line}: ${msg} [${rule}]. Retargeting cannot change this "
      "without an edit: ${fix}. Run: rocm-spirv migrate ${dir} --diff")
    math(EXPR count "${count} + 1")
  endforeach()
  if(count OR sources)
    message(STATUS "RocmSpirv: ${count} per-arch CMake construct(s) need edits, ${sources} source finding(s); "
      "details: rocm-spirv migrate ${dir}")
  endif()
endfunction()
