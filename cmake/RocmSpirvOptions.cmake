# Cache options and the checks shared by every RocmSpirv function. Functions read
# the options as $CACHE{...}: the result never depends on which directory called
# find_package() or a function, nor on a plain variable of the same name there.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvOffload.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvProbe.cmake")

_rocm_spirv_modes(_rocm_spirv_modes)
set(ROCM_SPIRV_OFFLOAD "spirv" CACHE STRING
  "GPU code to build: spirv (one universal SPIR-V target), native (per-arch), hybrid (both)")
set_property(CACHE ROCM_SPIRV_OFFLOAD PROPERTY STRINGS ${_rocm_spirv_modes})
unset(_rocm_spirv_modes)
set(ROCM_SPIRV_NATIVE_ARCHS "" CACHE STRING
  "Native targets for native/hybrid mode (gfx942;gfx1100;gfx11-generic…); empty: the project's list")
# Opt-in: device debug info in SPIR-V from the in-tree backend does not validate
# (docs/toolchain.md), so the SPIR-V device pass gets -g0 unless this is ON.
set(ROCM_SPIRV_DEVICE_DEBUG "$ENV{ROCM_SPIRV_DEVICE_DEBUG}" CACHE BOOL
  "Keep debug info in SPIR-V device code (-g) although spirv-val rejects the in-tree backend's form")
set(ROCM_SPIRV_PYTHON "" CACHE FILEPATH "Python with rocm_spirv importable (for rocm_spirv_verify)")

# The mode a call without OFFLOAD gets, and the native targets a call without
# ARCHS gets (empty: the target's own list).
function(_rocm_spirv_default_mode out)
  set(${out} "$CACHE{ROCM_SPIRV_OFFLOAD}" PARENT_SCOPE)
endfunction()

function(_rocm_spirv_default_archs out)
  _rocm_spirv_parse_archs(archs "$CACHE{ROCM_SPIRV_NATIVE_ARCHS}")
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

# A processor this compiler knows (gfx90a, gfx942, gfx1201), optionally with
# target features (gfx90a:xnack+), or a generic ISA name (gfx11-generic). The
# compiler's own list when it gives one (clang -print-supported-cpus), else the
# shape of a name.
function(_rocm_spirv_check_archs where)
  if(NOT ARGN)
    return()
  endif()
  _rocm_spirv_generic_archs(generic)
  _rocm_spirv_supported_archs(known)
  _rocm_spirv_compiler(cxx)
  foreach(arch IN LISTS ARGN)
    string(REGEX REPLACE ":.*" "" processor "${arch}")
    set(bad "")
    if(NOT arch MATCHES "^[^:]+(:(sramecc|xnack)[+-])*$")
      set(bad "target features are sramecc+/-, xnack+/- (gfx90a:xnack+)")
    elseif(known AND NOT processor IN_LIST known)
      set(bad "${cxx} does not know ${processor}")
    elseif(NOT known AND NOT processor IN_LIST generic
           AND (NOT processor MATCHES "^gfx[0-9]+[0-9a-f]*$" OR processor MATCHES "^gfx94[01]$"))
      set(bad "not a processor name")
    endif()
    if(bad)
      list(FILTER known INCLUDE REGEX "^gfx")
      if(NOT known)
        set(known "gfx90a, gfx942, gfx1100, … or generic ones (${generic})")
      endif()
      string(REPLACE ";" " " known "${known}")
      message(FATAL_ERROR
        "RocmSpirv: unknown GPU architecture '${arch}' in ${where} (${bad}). "
        "Remedy: name one the compiler accepts: ${known}; rocm-spirv doctor lists them "
        "(gfx940/gfx941 are gone in clang 22).")
    endif()
  endforeach()
endfunction()

function(_rocm_spirv_check_mode where mode)
  _rocm_spirv_modes(modes)
  if(NOT mode IN_LIST modes)
    string(REPLACE ";" ", " modes "${modes}")
    message(FATAL_ERROR
      "RocmSpirv: offload mode '${mode}' in ${where} is not one of ${modes}. "
      "Remedy: -DROCM_SPIRV_OFFLOAD=spirv (or OFFLOAD spirv|native|hybrid on the call).")
  endif()
  if(CMAKE_HIP_PLATFORM STREQUAL "spirv")
    message(FATAL_ERROR
      "RocmSpirv: CMAKE_HIP_PLATFORM=spirv selects chipStar, not AMD's SPIR-V. AMD SPIR-V is platform "
      "amd with architecture amdgcnspirv. Remedy: drop CMAKE_HIP_PLATFORM (or set it to amd).")
  endif()
endfunction()

# Arguments a public function does not know (a typo, a misplaced keyword) and
# keywords left without a value are refused, not read as target names.
function(_rocm_spirv_refuse_args caller usage missing unknown)
  if(missing)
    string(REPLACE ";" ", " missing "${missing}")
    message(FATAL_ERROR "${caller}: ${missing} given without a value. Remedy: ${usage}")
  endif()
  if(unknown)
    string(REPLACE ";" " " unknown "${unknown}")
    message(FATAL_ERROR "${caller}: unknown argument(s) '${unknown}'. Remedy: ${usage}")
  endif()
endfunction()

# value as a CMake quoted argument ("..." with \\, \", \$ and line breaks escaped): what generated
# CMake code (install(CODE), file(GENERATE)) must hold so a path is data, never code.
function(_rocm_spirv_quote out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  string(REPLACE "$" "\\$" value "${value}")
  string(REPLACE "\n" "\\n" value "${value}")
  string(REPLACE "\r" "\\r" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

# The Python that runs `python -m rocm_spirv` for build steps, and the PYTHONPATH
# that makes this copy of the package importable: in a wheel this file sits in
# rocm_spirv/cmake, in a checkout beside plugin/.
function(_rocm_spirv_python caller out_py out_path)
  set(found "")
  # FindPython3 sets Python3_EXECUTABLE as a normal variable (visible here from the scope that
  # called find_package) and caches only _Python3_EXECUTABLE: $CACHE{Python3_EXECUTABLE} alone
  # misses an interpreter the project found itself.
  # One by one, not foreach(IN ITEMS): a path holding ';' would be split into items.
  if(NOT "$CACHE{ROCM_SPIRV_PYTHON}" STREQUAL "")
    set(found "$CACHE{ROCM_SPIRV_PYTHON}")
  elseif(Python_EXECUTABLE)
    set(found "${Python_EXECUTABLE}")
  elseif(Python3_EXECUTABLE)
    set(found "${Python3_EXECUTABLE}")
  elseif(NOT "$CACHE{_Python_EXECUTABLE}" STREQUAL "")
    set(found "$CACHE{_Python_EXECUTABLE}")
  elseif(NOT "$CACHE{_Python3_EXECUTABLE}" STREQUAL "")
    set(found "$CACHE{_Python3_EXECUTABLE}")
  endif()
  if(NOT found)
    find_package(Python3 COMPONENTS Interpreter QUIET)
    set(found "${Python3_EXECUTABLE}")
  endif()
  if(NOT found)
    message(FATAL_ERROR "${caller}: no Python found. Remedy: -DROCM_SPIRV_PYTHON=/path/to/python")
  endif()
  get_filename_component(parent "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/.." ABSOLUTE)
  if(EXISTS "${parent}/__init__.py")
    get_filename_component(parent "${parent}/.." ABSOLUTE)
  else()
    set(parent "${parent}/plugin")
  endif()
  set(${out_py} "${found}" PARENT_SCOPE)
  set(${out_path} "${parent}" PARENT_SCOPE)
endfunction()
