# One cached probe per compiler: can it emit amdgcnspirv, and with which flags?
include_guard(GLOBAL)

function(_rocm_spirv_compiler out)
  # The compiler of an enabled language: a -DCMAKE_HIP_COMPILER on a CXX-only
  # project is never used to build, so it must not be probed either.
  get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("HIP" IN_LIST langs AND CMAKE_HIP_COMPILER)
    set(${out} "${CMAKE_HIP_COMPILER}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_CXX_COMPILER}" PARENT_SCOPE)
  endif()
endfunction()

# The major version of that compiler, or "" when CMake did not identify it.
function(_rocm_spirv_compiler_version out)
  get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("HIP" IN_LIST langs AND CMAKE_HIP_COMPILER)
    set(v "${CMAKE_HIP_COMPILER_VERSION}")
  else()
    set(v "${CMAKE_CXX_COMPILER_VERSION}")
  endif()
  string(REGEX MATCH "^[0-9]+" major "${v}")
  set(${out} "${major}" PARENT_SCOPE)
endfunction()

# Sets ROCM_SPIRV_SPIRV_FLAGS (cache, internal) to what the compiler needs beyond
# --offload-arch=amdgcnspirv. Reconfiguring with the same compiler costs nothing.
function(_rocm_spirv_probe)
  _rocm_spirv_compiler(cxx)
  if(DEFINED CACHE{_ROCM_SPIRV_PROBED} AND "$CACHE{_ROCM_SPIRV_PROBED}" STREQUAL "${cxx}")
    return()
  endif()
  set(dir "${CMAKE_BINARY_DIR}/CMakeFiles/RocmSpirvProbe")
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${dir}/probe.hip"
    "#define __global__ __attribute__((global))\n"
    "extern \"C\" __global__ void rocm_spirv_probe(float* x) { x[0] = 1.0f; }\n")
  # One policy with toolchain/spirv_path.py: the external llvm-spirv translator
  # (ROCm's production path) when one is found and it compiles, then clang's
  # in-tree backend; -fvisibility=default keeps calls to
  # device-library functions that the runtime JIT links later legal there.
  # clang runs llvm-spirv-<major> or llvm-spirv from its own directory or PATH;
  # when there is none the translator path cannot work, and trying it would
  # cost a failed compile on every first configure.
  _rocm_spirv_compiler_version(major)
  set(names llvm-spirv)
  if(major)
    list(PREPEND names "llvm-spirv-${major}")
  endif()
  get_filename_component(cxx_dir "${cxx}" DIRECTORY)
  get_filename_component(cxx_real "${cxx}" REALPATH)
  get_filename_component(cxx_real_dir "${cxx_real}" DIRECTORY)
  # A set variable would skip the search: the name is ours and cleared first.
  unset(_rocm_spirv_translator)
  find_program(_rocm_spirv_translator NAMES ${names} HINTS "${cxx_dir}" "${cxx_real_dir}" PATHS ENV PATH
    NO_DEFAULT_PATH NO_CACHE)
  set(translator "${_rocm_spirv_translator}")
  set(candidates "-use-spirv-backend|-fvisibility=default")
  if(translator)
    list(PREPEND candidates "none")
  endif()
  set(found "")
  set(chosen "")
  file(REMOVE "${dir}/probe.out")
  set(log "")
  set(translator_error "")
  # A foreach variable is restored after the loop, and list items cannot hold
  # lists, so candidates are spelled with | and the winner copied out.
  foreach(candidate IN LISTS candidates)
    string(REPLACE "|" ";" flags "${candidate}")
    list(REMOVE_ITEM flags none)
    # The translator is tested by name where clang has both paths (as toolchain/spirv_path.py
    # does), so a provisioned prefix's wrapper cannot answer with the path it applies by default.
    set(test_flags ${flags})
    if(candidate STREQUAL "none" AND major AND major GREATER_EQUAL 22)
      set(test_flags -no-use-spirv-backend)
    endif()
    execute_process(
      COMMAND "${cxx}" -x hip -nogpuinc -nogpulib --cuda-device-only --offload-arch=amdgcnspirv ${test_flags}
              -c probe.hip -o probe.out
      WORKING_DIRECTORY "${dir}" RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
    if(rc EQUAL 0 AND EXISTS "${dir}/probe.out")
      set(found TRUE)
      set(chosen "${flags}")
      break()
    endif()
    if(candidate STREQUAL "none")
      string(REGEX MATCH "[^\n]*error[^\n]*" translator_error "${e}")
    endif()
    string(APPEND log "${e}")
  endforeach()
  if(NOT found)
    string(REGEX MATCH "[^\n]*error[^\n]*" first_error "${log}")
    message(FATAL_ERROR
      "RocmSpirv: ${cxx} cannot emit amdgcnspirv (${first_error}). It needs clang >= 22 with the SPIR-V "
      "backend, or clang >= 19 with llvm-spirv. Remedy: run rocm-spirv doctor "
      "(rocm-spirv toolchain provision gives a clang 22).")
  endif()
  set(flags "${chosen}")
  set(ROCM_SPIRV_SPIRV_FLAGS "${flags}" CACHE INTERNAL "flags the compiler needs for amdgcnspirv")
  set(_ROCM_SPIRV_PROBED "${cxx}" CACHE INTERNAL "compiler ROCM_SPIRV_SPIRV_FLAGS was probed for")
  string(REPLACE ";" " " shown "${flags}")
  if(NOT flags)
    set(how "through the llvm-spirv translator (${translator})")
  elseif(translator)
    set(how "with the in-tree SPIR-V backend (${shown}); ${translator} failed: ${translator_error}")
  else()
    set(how "with the in-tree SPIR-V backend (${shown}); no llvm-spirv beside it or on PATH")
  endif()
  message(STATUS "RocmSpirv: ${cxx} emits amdgcnspirv ${how}")
endfunction()

# The GPU processors the compiler accepts (clang -print-supported-cpus), cached
# per compiler; empty when it gives no list (then names are checked by shape).
function(_rocm_spirv_supported_archs out)
  _rocm_spirv_compiler(cxx)
  if(NOT DEFINED CACHE{_ROCM_SPIRV_ARCHS_PROBED} OR NOT "$CACHE{_ROCM_SPIRV_ARCHS_PROBED}" STREQUAL "${cxx}")
    execute_process(COMMAND "${cxx}" --target=amdgcn-amd-amdhsa -nogpulib -print-supported-cpus
      RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e TIMEOUT 60)
    string(REGEX MATCHALL "\n[ \t]+gfx[0-9a-z-]+[ \t]*" lines "\n${o}\n${e}")
    set(known "")
    foreach(line IN LISTS lines)
      string(STRIP "${line}" line)
      list(APPEND known "${line}")
    endforeach()
    list(REMOVE_DUPLICATES known)
    list(SORT known)
    set(_ROCM_SPIRV_SUPPORTED_ARCHS "${known}" CACHE INTERNAL "GPU processors the compiler accepts")
    set(_ROCM_SPIRV_ARCHS_PROBED "${cxx}" CACHE INTERNAL "compiler _ROCM_SPIRV_SUPPORTED_ARCHS was probed for")
  endif()
  set(${out} "$CACHE{_ROCM_SPIRV_SUPPORTED_ARCHS}" PARENT_SCOPE)
endfunction()
