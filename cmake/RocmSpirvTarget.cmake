# rocm_spirv_target(<target>... [OFFLOAD spirv|native|hybrid] [ARCHS gfx…])
#
# Works however the project picks GPU targets: the HIP_ARCHITECTURES property
# (HIP language), --offload-arch=/--amdgpu-target=/--cuda-gpu-arch= in compile
# and link options (also inside generator expressions), and interface targets
# such as ROCm's hip::device that carry those flags. The work is deferred to the
# end of the calling directory, so it sees every later target_link_libraries().
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvOptions.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/RocmSpirvFlags.cmake")

function(rocm_spirv_target)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "OFFLOAD" "ARCHS")
  set(usage "rocm_spirv_target(<target>... [OFFLOAD spirv|native|hybrid] [ARCHS gfx942 …])")
  _rocm_spirv_refuse_args(rocm_spirv_target "${usage}" "${ARG_KEYWORDS_MISSING_VALUES}" "")
  if(NOT ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "rocm_spirv_target: no target named. Remedy: ${usage}")
  endif()
  _rocm_spirv_refuse_empty(rocm_spirv_target "${ARG_OFFLOAD}" "${ARG_ARCHS}")
  _rocm_spirv_check_request(rocm_spirv_target "${ARG_OFFLOAD}" "${ARG_ARCHS}" archs)
  foreach(t IN LISTS ARG_UNPARSED_ARGUMENTS)
    _rocm_spirv_check_target(rocm_spirv_target "${t}")
    # A target is retargeted once; asking again the same way changes nothing.
    _rocm_spirv_describe_request(request "${ARG_OFFLOAD}" "${archs}")
    get_target_property(before "${t}" _ROCM_SPIRV_REQUESTED)
    if(before)
      if(NOT before STREQUAL request)
        message(FATAL_ERROR
          "rocm_spirv_target: ${t} was already retargeted with (${before}), now asked for (${request}). "
          "A target has one offload mode and one list of targets. "
          "Remedy: keep one rocm_spirv_target(${t} …) call, with the options you mean.")
      endif()
      continue()
    endif()
    set_target_properties("${t}" PROPERTIES _ROCM_SPIRV_REQUESTED "${request}")
    cmake_language(EVAL CODE "
      cmake_language(DEFER CALL _rocm_spirv_apply [[${t}]] [[${ARG_OFFLOAD}]] [[${archs}]])")
  endforeach()
endfunction()

# OFFLOAD "" or ARCHS "" / ";;" in the caller's arguments: a value that names nothing must not
# fall back to a default nobody asked for (the compiler's gfx906). Reads the caller's ARGV.
macro(_rocm_spirv_refuse_empty caller mode archs)
  set(_rs_given_offload FALSE)
  set(_rs_given_archs FALSE)
  set(_rs_argc_name ARGC)  # indirect: a macro would replace ${ARGC} by its own count
  if(${_rs_argc_name} GREATER 0)
    math(EXPR _rs_last "${${_rs_argc_name}} - 1")
    foreach(_rs_i RANGE 0 ${_rs_last})
      if("${ARGV${_rs_i}}" STREQUAL "OFFLOAD")
        set(_rs_given_offload TRUE)
      elseif("${ARGV${_rs_i}}" STREQUAL "ARCHS")
        set(_rs_given_archs TRUE)
      endif()
    endforeach()
  endif()
  if(_rs_given_offload AND "${mode}" STREQUAL "")
    message(FATAL_ERROR "${caller}: OFFLOAD is empty. "
      "Remedy: OFFLOAD spirv, native or hybrid, or leave OFFLOAD out for ROCM_SPIRV_OFFLOAD.")
  endif()
  string(REGEX REPLACE "[\\;, \t]" "" _rs_archs_text "${archs}")
  if(_rs_given_archs AND _rs_archs_text STREQUAL "")
    message(FATAL_ERROR "${caller}: ARCHS names no GPU target ('${archs}'). "
      "Remedy: ARCHS gfx942 gfx90a, or leave ARCHS out for ROCM_SPIRV_NATIVE_ARCHS.")
  endif()
endmacro()

# A call's request as the user wrote it, for comparing and for messages.
function(_rocm_spirv_describe_request out mode archs)
  if(mode STREQUAL "")
    set(mode "default")
  endif()
  list(JOIN archs "," archs)
  if(archs STREQUAL "")
    set(archs "default")
  endif()
  set(${out} "OFFLOAD ${mode}, ARCHS ${archs}" PARENT_SCOPE)
endfunction()

# OFFLOAD and ARCHS of a call, checked when the call is made; archs_out gets the
# parsed ARCHS (commas or semicolons).
function(_rocm_spirv_check_request caller mode archs archs_out)
  if(NOT mode STREQUAL "")
    _rocm_spirv_check_mode("${caller}(OFFLOAD)" "${mode}")
  endif()
  list(JOIN archs "," text)
  _rocm_spirv_parse_archs(parsed "${text}")
  _rocm_spirv_check_archs("${caller}(ARCHS)" ${parsed})
  if(mode STREQUAL "spirv" AND parsed)
    message(FATAL_ERROR
      "${caller}: ARCHS names native targets, which OFFLOAD spirv does not build. "
      "Remedy: drop ARCHS, or use OFFLOAD hybrid (SPIR-V plus those) or OFFLOAD native.")
  endif()
  set(${archs_out} "${parsed}" PARENT_SCOPE)
endfunction()

# A target named to a RocmSpirv function must be one that compiles code here.
function(_rocm_spirv_check_target caller t)
  if(NOT TARGET "${t}")
    message(FATAL_ERROR "${caller}: '${t}' is not a target. Remedy: call ${caller} after add_library/"
      "add_executable(${t} …), or fix the name.")
  endif()
  get_target_property(real "${t}" ALIASED_TARGET)
  if(real)
    message(FATAL_ERROR "${caller}: '${t}' is an alias of '${real}'; properties belong to the real target. "
      "Remedy: ${caller}(${real} …).")
  endif()
  get_target_property(type "${t}" TYPE)
  get_target_property(imported "${t}" IMPORTED)
  if(imported)
    message(FATAL_ERROR "${caller}: '${t}' is an imported target: its code was built elsewhere and this "
      "build cannot change it. Remedy: name the targets of this project that link it (their own kernels "
      "are retargeted, the imported library is linked as is), or rebuild its package with rocm-spirv.")
  endif()
  if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
    if(type STREQUAL "UTILITY")
      set(what "a custom target")
    else()
      set(what "an INTERFACE library")
    endif()
    message(FATAL_ERROR "${caller}: '${t}' is ${what} and compiles nothing. Remedy: name the "
      "libraries and executables that compile its sources or link it.")
  endif()
endfunction()

function(_rocm_spirv_apply t mode archs)
  if(NOT mode)
    _rocm_spirv_default_mode(mode)
    _rocm_spirv_check_mode("ROCM_SPIRV_OFFLOAD" "${mode}")
  endif()
  _rocm_spirv_retarget("${t}" "${mode}" "${archs}" gpu)
  if(NOT gpu)
    message(WARNING "rocm_spirv_target: ${t} compiles no GPU code (no HIP sources, no --offload-arch in its "
      "options, flags or linked interfaces); nothing was done to it. Remedy: drop it from the call, or give "
      "it HIP sources or hip::device first.")
  endif()
endfunction()

# Retargets one target now; returns FALSE in out if it compiles no GPU code.
# The steps: find where the target gets its GPU targets from, choose the new
# list, then rewrite each place that named the old one.
function(_rocm_spirv_retarget t mode archs_override out)
  set(${out} FALSE PARENT_SCOPE)
  get_target_property(type "${t}" TYPE)
  get_target_property(imported "${t}" IMPORTED)
  if(imported OR type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
    return()
  endif()
  _rocm_spirv_find_hip_language("${t}" hip_lang hip_gpu hip_archs)
  _rocm_spirv_find_option_flags("${t}" flagged_props option_archs)
  _rocm_spirv_find_linked_flags("${t}" flagged_libs linked_archs)
  set(cxx_as_hip FALSE)  # arch flags in options or interfaces: CXX sources are compiled as HIP
  if(flagged_props OR flagged_libs)
    set(cxx_as_hip TRUE)
  endif()
  _rocm_spirv_find_directory_flags("${t}" "${hip_lang}" "${cxx_as_hip}" "${hip_gpu}" cxx_as_hip reset_hip dir_archs)
  if(NOT hip_gpu AND NOT cxx_as_hip)
    return()
  endif()
  _rocm_spirv_choose_offload("${t}" "${mode}" "${archs_override}" offload
    ${hip_archs} ${option_archs} ${linked_archs} ${dir_archs})
  _rocm_spirv_spirv_flags("${mode}" extra)
  _rocm_spirv_offload_flags(cxx_flags ${offload})
  if(hip_lang)
    _rocm_spirv_set_hip_language("${t}" "${reset_hip}" "${offload}" "${cxx_flags}" "${extra}")
  endif()
  # What the target hands on to its users is retargeted the same way, in place:
  # a user that inherits -x hip with the arch list (a PUBLIC option, a PUBLIC
  # hip::device) would otherwise compile for clang's default GPU.
  list(JOIN cxx_flags "|" link_repl)
  set(compile_repl ${cxx_flags} ${extra})
  list(JOIN compile_repl "|" compile_repl)
  _rocm_spirv_rewrite_options("${t}" "${flagged_props}" "${compile_repl}" "${link_repl}")
  _rocm_spirv_rewrite_links("${t}" "${flagged_libs}" "${compile_repl}" "${link_repl}")
  if(cxx_as_hip)
    _rocm_spirv_set_cxx_as_hip("${t}" "${hip_lang}" "${cxx_flags}" "${extra}")
  endif()
  set_target_properties("${t}" PROPERTIES ROCM_SPIRV_OFFLOAD "${mode}" ROCM_SPIRV_ARCHS "${offload}")
  set(${out} TRUE PARENT_SCOPE)
endfunction()

# Step: HIP language sources and the HIP_ARCHITECTURES property (FALSE or OFF
# marks host-only code). gpu: they build GPU code; archs: the list, SPIR-V aside.
function(_rocm_spirv_find_hip_language t out_hip out_gpu out_archs)
  set(hip FALSE)
  get_target_property(srcs "${t}" SOURCES)
  foreach(s IN LISTS srcs)
    get_source_file_property(lang "${s}" LANGUAGE)
    if(lang STREQUAL "HIP" OR (s MATCHES "\\.hip$" AND NOT lang))
      set(hip TRUE)
    endif()
  endforeach()
  set(gpu FALSE)
  set(archs "")
  get_target_property(hip_archs "${t}" HIP_ARCHITECTURES)
  if(hip AND NOT hip_archs STREQUAL "FALSE" AND NOT hip_archs STREQUAL "OFF")
    set(gpu TRUE)
    # The list CMake detected for the compiler (clang's default gfx906, or this
    # machine's GPU) is no list of the project's: the target names none itself.
    _rocm_spirv_detected_hip_archs(detected)
    if(hip_archs AND NOT hip_archs STREQUAL detected)
      set(archs ${hip_archs})
    endif()
  endif()
  set(${out_hip} ${hip} PARENT_SCOPE)
  set(${out_gpu} ${gpu} PARENT_SCOPE)
  set(${out_archs} "${archs}" PARENT_SCOPE)
endfunction()

# CMAKE_HIP_ARCHITECTURES as CMake's compiler detection cached it (its own help
# string; a -D, a project's set(... CACHE) or a plain variable leave another),
# else empty.
function(_rocm_spirv_detected_hip_archs out)
  set(detected "")
  get_property(help CACHE CMAKE_HIP_ARCHITECTURES PROPERTY HELPSTRING)
  if(help STREQUAL "HIP architectures" AND "${CMAKE_HIP_ARCHITECTURES}" STREQUAL "$CACHE{CMAKE_HIP_ARCHITECTURES}")
    set(detected "$CACHE{CMAKE_HIP_ARCHITECTURES}")
  endif()
  set(${out} "${detected}" PARENT_SCOPE)
endfunction()

# Step: raw arch flags in the target's own (and interface) options.
function(_rocm_spirv_find_option_flags t out_props out_archs)
  _rocm_spirv_arch_flag_re(re)
  set(props "")
  set(found "")
  foreach(p COMPILE_OPTIONS LINK_OPTIONS INTERFACE_COMPILE_OPTIONS INTERFACE_LINK_OPTIONS)
    get_target_property(v "${t}" ${p})
    if(v MATCHES "${re}")
      _rocm_spirv_strip(clean archs "" ${v})
      list(APPEND props ${p})
      list(APPEND found ${archs})
    endif()
  endforeach()
  set(${out_props} "${props}" PARENT_SCOPE)
  set(${out_archs} "${found}" PARENT_SCOPE)
endfunction()

# Step: linked targets (hip::device style interfaces, libraries with PUBLIC arch
# flags) that bring arch flags, themselves or through what they link.
function(_rocm_spirv_find_linked_flags t out_libs out_archs)
  set(flagged_libs "")
  set(found "")
  foreach(p LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(libs "${t}" ${p})
    if(NOT libs)
      continue()
    endif()
    foreach(lib IN LISTS libs)
      _rocm_spirv_link_item("${lib}" prefix name suffix link_only)
      if(link_only OR NOT TARGET "${name}" OR name IN_LIST flagged_libs)
        continue()
      endif()
      _rocm_spirv_reach("${name}" "" flagged archs visited)
      if(flagged)
        list(APPEND flagged_libs "${name}")
        list(APPEND found ${archs})
      endif()
    endforeach()
  endforeach()
  set(${out_libs} "${flagged_libs}" PARENT_SCOPE)
  set(${out_archs} "${found}" PARENT_SCOPE)
endfunction()

# Step: flags variables of the target's directory (CMAKE_CXX_FLAGS with -x hip
# and --offload-arch=, CMAKE_HIP_FLAGS). They cannot be edited per target, so
# the target's own options reset clang's list after them (--no-offload-arch=all):
# cxx_as_hip (in and out) for CXX, reset_hip for HIP.
function(_rocm_spirv_find_directory_flags t hip_lang cxx_as_hip hip_gpu out_cxx_as_hip out_reset_hip out_archs)
  _rocm_spirv_arch_flag_re(re)
  get_target_property(tdir "${t}" SOURCE_DIR)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  set(dir_cxx "")
  set(dir_hip "")
  foreach(var CMAKE_CXX_FLAGS CMAKE_CXX_FLAGS_${config})
    get_directory_property(v DIRECTORY "${tdir}" DEFINITION ${var})
    string(APPEND dir_cxx " ${v}")
  endforeach()
  foreach(var CMAKE_HIP_FLAGS CMAKE_HIP_FLAGS_${config})
    get_directory_property(v DIRECTORY "${tdir}" DEFINITION ${var})
    string(APPEND dir_hip " ${v}")
  endforeach()
  set(found "")
  set(reset_hip FALSE)
  if(dir_cxx MATCHES "${re}")
    get_target_property(opts "${t}" COMPILE_OPTIONS)
    if(cxx_as_hip OR dir_cxx MATCHES "(^| )-x *hip( |$)" OR opts MATCHES "(^|;)-x;hip(;|$)|(^|;)-xhip(;|$)")
      separate_arguments(words UNIX_COMMAND "${dir_cxx}")
      _rocm_spirv_strip(clean archs "" ${words})
      list(APPEND found ${archs})
      set(cxx_as_hip TRUE)
    endif()
  endif()
  if(hip_lang AND (hip_gpu OR cxx_as_hip) AND dir_hip MATCHES "${re}")
    separate_arguments(words UNIX_COMMAND "${dir_hip}")
    _rocm_spirv_strip(clean archs "" ${words})
    list(APPEND found ${archs})
    set(reset_hip TRUE)
  endif()
  set(${out_cxx_as_hip} ${cxx_as_hip} PARENT_SCOPE)
  set(${out_reset_hip} ${reset_hip} PARENT_SCOPE)
  set(${out_archs} "${found}" PARENT_SCOPE)
endfunction()

# Step: the new offload list from the mode and the native targets: the call's
# ARCHS, else ROCM_SPIRV_NATIVE_ARCHS, else what the target named (ARGN).
# amdgcnspirv names no native target: a dependency retargeted before this one,
# or a list a toolchain file already pointed at SPIR-V, hands it on.
function(_rocm_spirv_choose_offload t mode archs_override out)
  _rocm_spirv_spirv_target(spirv)
  _rocm_spirv_default_archs(cached)
  list(REMOVE_ITEM cached "${spirv}")
  set(found ${ARGN})
  list(REMOVE_ITEM found "${spirv}")
  list(REMOVE_DUPLICATES found)
  # spirv mode builds none of them: a name there is not worth a compiler probe.
  if(archs_override)
    set(native ${archs_override})  # checked by the call
  elseif(cached)
    set(native ${cached})
    if(NOT mode STREQUAL "spirv")
      _rocm_spirv_check_archs("ROCM_SPIRV_NATIVE_ARCHS" ${native})
    endif()
  else()
    set(native ${found})
    if(NOT mode STREQUAL "spirv")
      _rocm_spirv_check_archs("target ${t}" ${native})
    endif()
  endif()
  _rocm_spirv_offload_list(offload "${mode}" ${native})
  if(NOT offload)
    _rocm_spirv_detected_hip_archs(detected)
    set(why "")
    if(detected)
      set(why " (the ${detected} CMake detected for the compiler is no choice of the project's)")
    endif()
    message(FATAL_ERROR
      "RocmSpirv: ${mode} mode for target ${t} needs native targets and none were given or found in it${why}. "
      "Remedy: -DROCM_SPIRV_NATIVE_ARCHS=gfx942;gfx1100 (or ARCHS on rocm_spirv_target).")
  endif()
  set(${out} "${offload}" PARENT_SCOPE)
endfunction()

# Step: what the compiler needs beyond --offload-arch=amdgcnspirv (probed once
# per compiler), scoped to the SPIR-V device code where it must be.
function(_rocm_spirv_spirv_flags mode out)
  set(flags "")
  if(NOT mode STREQUAL "native")
    _rocm_spirv_probe()
    _rocm_spirv_device_flags(flags "$CACHE{ROCM_SPIRV_DEVICE_DEBUG}" $CACHE{ROCM_SPIRV_SPIRV_FLAGS})
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

function(_rocm_spirv_offload_flags out)
  set(flags "")
  foreach(a IN LISTS ARGN)
    list(APPEND flags "--offload-arch=${a}")
  endforeach()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# Step: HIP language sources get the list as HIP_ARCHITECTURES, after a reset
# when a flags variable named targets too.
function(_rocm_spirv_set_hip_language t reset_hip offload cxx_flags extra)
  set_property(TARGET "${t}" PROPERTY HIP_ARCHITECTURES "${offload}")
  if(reset_hip)
    target_compile_options("${t}" PRIVATE "$<$<COMPILE_LANGUAGE:HIP>:--no-offload-arch=all;${cxx_flags}>")
  endif()
  if(extra)
    target_compile_options("${t}" PRIVATE "$<$<COMPILE_LANGUAGE:HIP>:${extra}>")
  endif()
endfunction()

# Step: the target's own arch flags go away (it gets the new ones from
# _rocm_spirv_set_cxx_as_hip); those it hands on become the new list.
function(_rocm_spirv_rewrite_options t props compile_repl link_repl)
  foreach(p IN LISTS props)
    if(p STREQUAL "INTERFACE_COMPILE_OPTIONS")
      set(r "${compile_repl}")
    elseif(p STREQUAL "INTERFACE_LINK_OPTIONS")
      set(r "${link_repl}")
    else()
      set(r "")
    endif()
    get_target_property(v "${t}" ${p})
    _rocm_spirv_strip(clean archs "${r}" ${v})
    set_property(TARGET "${t}" PROPERTY ${p} "${clean}")
  endforeach()
endfunction()

# Step: linked targets that bring arch flags are swapped for copies without them
# (what the target links) or with the new list (what it hands on).
function(_rocm_spirv_rewrite_links t flagged_libs compile_repl link_repl)
  if(NOT flagged_libs)
    return()
  endif()
  foreach(p LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(libs "${t}" ${p})
    if(NOT libs)
      continue()
    endif()
    set(new_libs "")
    foreach(lib IN LISTS libs)
      _rocm_spirv_link_item("${lib}" prefix name suffix link_only)
      if(NOT link_only AND name IN_LIST flagged_libs)
        get_target_property(lib_type "${name}" TYPE)
        if(p STREQUAL "LINK_LIBRARIES" AND lib_type STREQUAL "OBJECT_LIBRARY")
          # Its objects come only with a direct link, which a copy cannot give;
          # retargeted too, its interface hands on the retargeted flags.
          list(APPEND new_libs "${lib}")
          continue()
        endif()
        if(p STREQUAL "LINK_LIBRARIES")
          _rocm_spirv_shadow("${name}" "" "" shadow)
        else()
          _rocm_spirv_shadow("${name}" "${compile_repl}" "${link_repl}" shadow)
        endif()
        set(lib "${prefix}${shadow}${suffix}")
      endif()
      list(APPEND new_libs "${lib}")
    endforeach()
    set_property(TARGET "${t}" PROPERTY ${p} "${new_libs}")
  endforeach()
endfunction()

# Step: CXX compiled as HIP gets the new list. Only where arch flags were found:
# a HIP-language target's plain C++ files may be built by a host compiler (g++)
# that rejects offload flags. --no-offload-arch=all first: whatever a flags
# variable or CXXFLAGS put earlier on the command line no longer counts.
function(_rocm_spirv_set_cxx_as_hip t hip_lang cxx_flags extra)
  target_compile_options("${t}" PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:--no-offload-arch=all;${cxx_flags};${extra}>")
  if(NOT hip_lang)
    target_link_options("${t}" PRIVATE "$<$<LINK_LANGUAGE:CXX>:--no-offload-arch=all;${cxx_flags}>")
  endif()
endfunction()
