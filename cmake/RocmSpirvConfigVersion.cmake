# The semantics of write_basic_package_version_file(COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT):
# a plain request is met by this version or a newer one of the same major; a range is met when
# both ends have this major and the version lies inside it (an excluded maximum may be the next
# major). One deliberate difference: EXACT compares with VERSION_EQUAL, so 0.1 EXACT is met by
# 0.1.0 (the reference compares the strings, and 0.1 would never be exact).
set(PACKAGE_VERSION "0.1.0")
string(REGEX MATCH "^[0-9]+" _rocm_spirv_major "${PACKAGE_VERSION}")
if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(PACKAGE_FIND_VERSION_RANGE)
  math(EXPR _rocm_spirv_next "${_rocm_spirv_major} + 1")
  if(NOT PACKAGE_FIND_VERSION_MIN_MAJOR STREQUAL _rocm_spirv_major
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE"
         AND NOT PACKAGE_FIND_VERSION_MAX_MAJOR STREQUAL _rocm_spirv_major)
     OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE"
         AND NOT PACKAGE_FIND_VERSION_MAX VERSION_LESS_EQUAL _rocm_spirv_next))
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  elseif((PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE" AND PACKAGE_VERSION VERSION_LESS_EQUAL PACKAGE_FIND_VERSION_MAX)
         OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE" AND PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MAX))
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  endif()
else()
  if(NOT DEFINED PACKAGE_FIND_VERSION_MAJOR OR PACKAGE_FIND_VERSION STREQUAL ""
     OR PACKAGE_FIND_VERSION_MAJOR STREQUAL _rocm_spirv_major)
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  endif()
  if(NOT PACKAGE_FIND_VERSION STREQUAL "" AND PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
unset(_rocm_spirv_major)
unset(_rocm_spirv_next)
