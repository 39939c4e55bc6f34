# Cache options and name checks shared by every RocmSpirv function.
include_guard(GLOBAL)

set(ROCM_SPIRV_OFFLOAD "spirv" CACHE STRING
  "GPU code to build: spirv (one universal SPIR-V target), native (per-arch), hybrid (both)")
set_property(CACHE ROCM_SPIRV_OFFLOAD PROPERTY STRINGS spirv native hybrid)
set(ROCM_SPIRV_NATIVE_ARCHS "" CACHE STRING
  "Native targets for native/hybrid mode (gfx942;gfx1100;gfx11-generic…); empty: the project's list")

set(_ROCM_SPIRV_GENERIC gfx9-generic gfx9-4-generic gfx10-1-generic gfx10-3-generic gfx11-generic
    gfx12-generic)

# A processor (gfx90a, gfx942, gfx1201) optionally with target features
# (gfx90a:xnack+), or a generic ISA name.
function(_rocm_spirv_check_archs where)
  foreach(arch IN LISTS ARGN)
    if(arch IN_LIST _ROCM_SPIRV_GENERIC)
      continue()
    endif()
    if(NOT arch MATCHES "^gfx[0-9]+[0-9a-f]*(:(sramecc|xnack)[+-])*$" OR arch STREQUAL "gfx940"
       OR arch STREQUAL "gfx941")
      message(FATAL_ERROR
        "RocmSpirv: unknown GPU architecture '${arch}' in ${where}. Use processor names such as "
        "gfx90a, gfx942, gfx1100, or generic ones (${_ROCM_SPIRV_GENERIC}); gfx940/gfx941 are gone "
        "in clang 22. Remedy: rocm-spirv doctor lists what the compiler accepts.")
    endif()
  endforeach()
endfunction()

function(_rocm_spirv_check_mode mode)
  if(NOT mode MATCHES "^(spirv|native|hybrid)$")
    message(FATAL_ERROR
      "RocmSpirv: offload mode '${mode}' is not spirv, native or hybrid. "
      "Remedy: -DROCM_SPIRV_OFFLOAD=spirv (or native, hybrid).")
  endif()
  if(CMAKE_HIP_PLATFORM STREQUAL "spirv")
    message(FATAL_ERROR
      "RocmSpirv: CMAKE_HIP_PLATFORM=spirv selects chipStar, not AMD's SPIR-V. AMD SPIR-V is platform "
      "amd with architecture amdgcnspirv. Remedy: drop CMAKE_HIP_PLATFORM (or set it to amd).")
  endif()
endfunction()

# The Python that runs `python -m rocm_spirv` for build steps, and the PYTHONPATH
# that makes this copy of the package importable: in a wheel this file sits in
# rocm_spirv/cmake, in a checkout beside plugin/.
function(_rocm_spirv_python caller out_py out_path)
  set(found "")
  foreach(py IN ITEMS "${ROCM_SPIRV_PYTHON}" "${Python_EXECUTABLE}" "${Python3_EXECUTABLE}")
    if(py)
      set(found "${py}")
      break()
    endif()
  endforeach()
  if(NOT found)
    find_package(Python3 COMPONENTS Interpreter QUIET)
    set(found "${Python3_EXECUTABLE}")
  endif()
  if(NOT found)
    message(FATAL_ERROR "${caller}: no Python found; set -DROCM_SPIRV_PYTHON=/path/to/python")
  endif()
  get_filename_component(parent "${RocmSpirv_CMAKE_DIR}/.." ABSOLUTE)
  if(EXISTS "${parent}/__init__.py")
    get_filename_component(parent "${parent}/.." ABSOLUTE)
  else()
    set(parent "${parent}/plugin")
  endif()
  set(${out_py} "${found}" PARENT_SCOPE)
  set(${out_path} "${parent}" PARENT_SCOPE)
endfunction()
