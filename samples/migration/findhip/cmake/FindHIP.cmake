# In-project stand-in for ROCm's FindHIP.cmake module (HIP's cmake/FindHIP.cmake),
# keeping the interface legacy projects use:
#   find_package(HIP [MODULE] [REQUIRED])  -> HIP_FOUND, HIP_VERSION, HIP_PLATFORM,
#                                             HIP_COMPILER, HIP_RUNTIME, HIP_HIPCC_EXECUTABLE
#   HIP_HIPCC_FLAGS, HIP_CLANG_FLAGS       -> flags for every HIP source compile
#   HCC_AMDGPU_TARGET (variable, else $ENV{HCC_AMDGPU_TARGET}), ';' or ','
#                                          -> one --offload-arch=<t> per entry, the way
#                                             hipcc turns HCC_AMDGPU_TARGET into flags
#   hip_include_directories(<dir>...)
#   hip_add_library(<name> [STATIC|SHARED|MODULE] [EXCLUDE_FROM_ALL] <src>...
#                   [HIPCC_OPTIONS ...] [CLANG_OPTIONS ...] [NVCC_OPTIONS ...])
#   hip_add_executable(<name> [WIN32] [MACOSX_BUNDLE] [EXCLUDE_FROM_ALL] <src>... [same options])
# As in the real module, each .hip/.cu source is compiled by a custom command into
# CMakeFiles/<name>.dir/<name>_generated_<file>.o, and the objects plus the other
# sources form an ordinary add_library/add_executable target linked with the HIP
# runtime.
#
# Why a stand-in: the real module (Debian ships it as
# /usr/lib/x86_64-linux-gnu/cmake/hip/FindHIP.cmake) runs hipconfig at configure
# time, compiles through hipcc (a perl driver that calls the clang in
# HIP_CLANG_PATH, default /opt/rocm/llvm/bin) and links through
# hipcc_cmake_linker_helper; none of these exist next to a plain clang++, so it
# cannot drive the provisioned clang 22. This module compiles with the C++
# compiler (CMAKE_CXX_COMPILER, a clang with the AMDGPU backend) as
# `<clang++> -x hip <HIP_HIPCC_FLAGS> <HIP_CLANG_FLAGS> <HIPCC_OPTIONS>
#  <CLANG_OPTIONS> --offload-arch=<t>... -c <src>`, the command hipcc would run.

if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "FindHIP (project stand-in): CMAKE_CXX_COMPILER must be a clang with the AMDGPU backend")
endif()

set(HIP_HIPCC_FLAGS "" CACHE STRING "Semicolon delimited flags for HIPCC")
set(HIP_CLANG_FLAGS "" CACHE STRING "Semicolon delimited flags for CLANG")
set(HIP_NVCC_FLAGS "" CACHE STRING "Semicolon delimited flags for NVCC")
mark_as_advanced(HIP_HIPCC_FLAGS HIP_CLANG_FLAGS HIP_NVCC_FLAGS)

set(HIP_HIPCC_EXECUTABLE "${CMAKE_CXX_COMPILER}")
set(HIP_PLATFORM "amd")
set(HIP_COMPILER "clang")
set(HIP_RUNTIME "rocclr")
set(HIP_VERSION "")
foreach(_hip_version_file /opt/rocm/share/hip/version /usr/share/hip/version)
  if(NOT HIP_VERSION AND EXISTS "${_hip_version_file}")
    file(STRINGS "${_hip_version_file}" _hip_version_lines)
    foreach(_line IN LISTS _hip_version_lines)
      if(_line MATCHES "^HIP_VERSION_(MAJOR|MINOR|PATCH)=([0-9]+)")
        set(_hip_version_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
      endif()
    endforeach()
    if(DEFINED _hip_version_MAJOR AND DEFINED _hip_version_MINOR)
      set(HIP_VERSION "${_hip_version_MAJOR}.${_hip_version_MINOR}.${_hip_version_PATCH}")
    endif()
  endif()
endforeach()
if(NOT HIP_VERSION)
  set(HIP_VERSION "0.0.0")
endif()
find_library(HIP_AMDHIP64_LIBRARY amdhip64 PATHS /opt/rocm/lib)
mark_as_advanced(HIP_AMDHIP64_LIBRARY)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(HIP REQUIRED_VARS HIP_HIPCC_EXECUTABLE HIP_PLATFORM VERSION_VAR HIP_VERSION)

set(_HIP_INCLUDE_DIRECTORIES "")
macro(HIP_INCLUDE_DIRECTORIES)
  foreach(_dir ${ARGN})
    get_filename_component(_abs "${_dir}" ABSOLUTE)
    list(APPEND _HIP_INCLUDE_DIRECTORIES "${_abs}")
  endforeach()
endmacro()

# Split <args> into sources, keywords and per-compiler options like the real module.
macro(_HIP_PARSE_ARGUMENTS _prefix)
  set(${_prefix}_SOURCES "")
  set(${_prefix}_KEYWORDS "")
  set(${_prefix}_HIPCC "")
  set(${_prefix}_CLANG "")
  set(_hip_mode "src")
  foreach(_arg ${ARGN})
    if(_arg STREQUAL "HIPCC_OPTIONS")
      set(_hip_mode "hipcc")
    elseif(_arg STREQUAL "CLANG_OPTIONS")
      set(_hip_mode "clang")
    elseif(_arg STREQUAL "NVCC_OPTIONS")
      set(_hip_mode "nvcc")
    elseif(_hip_mode STREQUAL "hipcc")
      list(APPEND ${_prefix}_HIPCC "${_arg}")
    elseif(_hip_mode STREQUAL "clang")
      list(APPEND ${_prefix}_CLANG "${_arg}")
    elseif(_hip_mode STREQUAL "nvcc")
      # ignored on AMD, as in the real module
    elseif(_arg MATCHES "^(STATIC|SHARED|MODULE|EXCLUDE_FROM_ALL|WIN32|MACOSX_BUNDLE)$")
      list(APPEND ${_prefix}_KEYWORDS "${_arg}")
    else()
      list(APPEND ${_prefix}_SOURCES "${_arg}")
    endif()
  endforeach()
endmacro()

# One custom command per HIP source of the caller's _HIP_TARGET_SOURCES; sets
# <out_objects> (the generated objects) and <out_other> (the non-HIP sources).
function(_HIP_COMPILE _target _shared _out_objects _out_other)
  set(_flags "")
  foreach(_group ${HIP_HIPCC_FLAGS} ${HIP_CLANG_FLAGS} ${ARGN})
    separate_arguments(_words UNIX_COMMAND "${_group}")
    list(APPEND _flags ${_words})
  endforeach()
  if(DEFINED HCC_AMDGPU_TARGET)
    set(_gpus "${HCC_AMDGPU_TARGET}")
  else()
    set(_gpus "$ENV{HCC_AMDGPU_TARGET}")
  endif()
  string(REPLACE "," ";" _gpus "${_gpus}")
  foreach(_gpu ${_gpus})
    list(APPEND _flags "--offload-arch=${_gpu}")
  endforeach()
  if(_shared)
    list(APPEND _flags -fPIC)
  endif()
  foreach(_dir ${_HIP_INCLUDE_DIRECTORIES})
    list(APPEND _flags "-I${_dir}")
  endforeach()
  set(_objects "")
  set(_other "")
  set(_objdir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${_target}.dir")
  foreach(_src ${_HIP_TARGET_SOURCES})
    get_filename_component(_ext "${_src}" EXT)
    if(_ext MATCHES "\\.(hip|cu)$")
      get_filename_component(_abs "${_src}" ABSOLUTE)
      get_filename_component(_name "${_src}" NAME)
      set(_obj "${_objdir}/${_target}_generated_${_name}.o")
      add_custom_command(
        OUTPUT "${_obj}"
        COMMAND "${CMAKE_COMMAND}" -E make_directory "${_objdir}"
        COMMAND "${HIP_HIPCC_EXECUTABLE}" -x hip ${_flags} -c "${_abs}" -o "${_obj}"
        DEPENDS "${_abs}"
        COMMENT "Building HIPCC object ${_obj}"
        VERBATIM)
      list(APPEND _objects "${_obj}")
    else()
      list(APPEND _other "${_src}")
    endif()
  endforeach()
  set(${_out_objects} "${_objects}" PARENT_SCOPE)
  set(${_out_other} "${_other}" PARENT_SCOPE)
endfunction()

macro(HIP_ADD_LIBRARY _name)
  _hip_parse_arguments(_HIP_TARGET ${ARGN})
  set(_hip_shared FALSE)
  if(_HIP_TARGET_KEYWORDS MATCHES "SHARED|MODULE" OR (BUILD_SHARED_LIBS AND NOT _HIP_TARGET_KEYWORDS MATCHES "STATIC"))
    set(_hip_shared TRUE)
  endif()
  _hip_compile(${_name} ${_hip_shared} _hip_objects _hip_other ${_HIP_TARGET_HIPCC} ${_HIP_TARGET_CLANG})
  add_library(${_name} ${_HIP_TARGET_KEYWORDS} ${_hip_objects} ${_hip_other})
  set_target_properties(${_name} PROPERTIES LINKER_LANGUAGE CXX)
  if(HIP_AMDHIP64_LIBRARY)
    target_link_libraries(${_name} ${HIP_AMDHIP64_LIBRARY})
  endif()
endmacro()

macro(HIP_ADD_EXECUTABLE _name)
  _hip_parse_arguments(_HIP_TARGET ${ARGN})
  _hip_compile(${_name} FALSE _hip_objects _hip_other ${_HIP_TARGET_HIPCC} ${_HIP_TARGET_CLANG})
  add_executable(${_name} ${_HIP_TARGET_KEYWORDS} ${_hip_objects} ${_hip_other})
  set_target_properties(${_name} PROPERTIES LINKER_LANGUAGE CXX)
  if(HIP_AMDHIP64_LIBRARY)
    target_link_libraries(${_name} ${HIP_AMDHIP64_LIBRARY})
  endif()
endmacro()
