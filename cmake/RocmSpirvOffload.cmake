# The offload vocabulary: modes, GPU target lists and the SPIR-V device flags.
# plugin/rocm_spirv/offload.py spells the same rules for the command line;
# tests/test_offload_vocabulary.py runs both on the same inputs. Pure functions:
# no cache, no directory state, so `cmake -P` can load this file alone.
include_guard(GLOBAL)

# The offload modes, in the order the tools list them.
function(_rocm_spirv_modes out)
  set(${out} native spirv hybrid PARENT_SCOPE)
endfunction()

# The one target that is not a processor: AMDGCN-flavoured SPIR-V.
function(_rocm_spirv_spirv_target out)
  set(${out} amdgcnspirv PARENT_SCOPE)
endfunction()

# Generic ISA names (offload.GENERIC_TARGETS, the same order): what the name check
# accepts when the compiler lists no targets of its own. Newer than some compilers.
function(_rocm_spirv_generic_archs out)
  set(${out} gfx9-generic gfx9-4-generic gfx10-1-generic gfx10-3-generic gfx11-generic gfx11-7-generic
      gfx12-generic gfx12-5-generic gfx13-generic
      PARENT_SCOPE)
endfunction()

# A flag that names GPU targets, as a regex: group 2 holds the comma list.
function(_rocm_spirv_arch_flag_re out)
  set(${out} "(--offload-arch|--amdgpu-target|-amdgpu-target|--cuda-gpu-arch)=([^;>$ ]+)" PARENT_SCOPE)
endfunction()

# "gfx942, gfx1100;gfx90a:xnack+" -> gfx942;gfx1100;gfx90a:xnack+ (commas or
# semicolons, blanks around a name dropped, empty names dropped).
function(_rocm_spirv_parse_archs out text)
  string(REPLACE "," ";" items "${text}")
  set(archs "")
  foreach(a IN LISTS items)
    string(STRIP "${a}" a)
    if(NOT a STREQUAL "")
      list(APPEND archs "${a}")
    endif()
  endforeach()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

# What --offload-arch= gets for a mode and the native targets (ARGN), each once.
# Empty when the mode needs native targets and none are known.
function(_rocm_spirv_offload_list out mode)
  _rocm_spirv_spirv_target(spirv)
  set(native ${ARGN})
  list(REMOVE_ITEM native "${spirv}")
  list(REMOVE_DUPLICATES native)
  if(mode STREQUAL "spirv")
    set(offload "${spirv}")
  elseif(NOT native)
    set(offload "")
  elseif(mode STREQUAL "hybrid")
    set(offload "${spirv}" ${native})
  else()
    set(offload ${native})
  endif()
  set(${out} "${offload}" PARENT_SCOPE)
endfunction()

# Compile flags for the SPIR-V target from what the compiler probe found (ARGN).
# Default visibility is a need of the SPIR-V device code only (calls into device
# libraries the runtime's JIT links): scoped with -Xarch_amdgcnspirv, so host and
# native code keep the project's visibility. One SHELL: item per scoped pair.
# With the in-tree backend the SPIR-V device pass gets -g0 unless device_debug is
# true: its NonSemantic.Shader.DebugInfo.100 does not validate (docs/toolchain.md);
# host and native device code keep their debug info.
function(_rocm_spirv_device_flags out device_debug)
  _rocm_spirv_spirv_target(spirv)
  set(flags "")
  foreach(f IN LISTS ARGN)
    if(f MATCHES "^-fvisibility")
      list(APPEND flags "SHELL:-Xarch_${spirv} ${f}")
    else()
      list(APPEND flags "${f}")
    endif()
  endforeach()
  # The opt-in goes on the command line too: a rocm-spirv prefix's clang++ (probed
  # with no flags) drops device debug info itself unless it sees it, and a
  # compiler cache keys on it.
  if(device_debug)
    list(APPEND flags "-DROCM_SPIRV_DEVICE_DEBUG=1")
  elseif("-use-spirv-backend" IN_LIST ARGN)
    list(APPEND flags "SHELL:-Xarch_${spirv} -g0")
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()
