# find_package(keel) for a service: keel_service(NAME SOURCES... [LIBRARIES
# lib...]) builds it for KEEL_PLATFORM: "kvm" (a bootable image, the
# default) or "linux" (a Linux executable). `tools/keel build DIR` sets
# these up.
#
# The OS itself is built once per platform and build type, in
# KEEL_OS_BUILD_ROOT/PLATFORM-TYPE (KEEL_ROOT/build/os unless set; cmake/os/CMakeLists.txt): configured here
# the first time, brought up to date before every service build, and shared
# by all services of that configuration.
cmake_minimum_required(VERSION 3.25)
enable_language(C CXX ASM)

get_filename_component(KEEL_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
include(${CMAKE_CURRENT_LIST_DIR}/keel-flags.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/keel-sources.cmake)

# KEEL_OS_BUILD_ROOT moves the OS builds elsewhere (`keel build --os-dir`, KEEL_OS_DIR in the
# environment), so a read-only Keel (installed, or a shared checkout) builds services too.
set(KEEL_OS_BUILD_ROOT "${KEEL_ROOT}/build/os" CACHE PATH
    "Where the OS is built: one folder per platform and build type")
set(KEEL_OS_DIR "${KEEL_OS_BUILD_ROOT}/${KEEL_PLATFORM}-${CMAKE_BUILD_TYPE}")
if(NOT EXISTS ${KEEL_OS_DIR}/CMakeCache.txt)
  message(STATUS "Keel: configuring the OS (${KEEL_PLATFORM}, ${CMAKE_BUILD_TYPE}) in ${KEEL_OS_DIR}")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${KEEL_ROOT}/cmake/os -B ${KEEL_OS_DIR} -G Ninja
            -DKEEL_PLATFORM=${KEEL_PLATFORM} -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
            -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER} -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
            -DKEEL_WERROR=${KEEL_WERROR}
    RESULT_VARIABLE keel_os_configured)
  if(NOT keel_os_configured EQUAL 0)
    message(FATAL_ERROR "Keel: configuring the OS in ${KEEL_OS_DIR} failed (see above)")
  endif()
endif()

include(${CMAKE_CURRENT_LIST_DIR}/keel-library.cmake)
set(KEEL_KERNEL_ARCHIVE ${KEEL_OS_DIR}/libkeel_kernel.a)
set(KEEL_NET_ARCHIVE ${KEEL_OS_DIR}/libkeel_net.a)
set(KEEL_OS_ARCHIVES ${KEEL_KERNEL_ARCHIVE} ${KEEL_NET_ARCHIVE})
if(KEEL_PLATFORM STREQUAL "kvm")
  set(KEEL_DRIVERS_ARCHIVE ${KEEL_OS_DIR}/libkeel_drivers.a)
  set(KEEL_LIBC ${KEEL_OS_DIR}/libc.a)
  list(APPEND KEEL_OS_ARCHIVES ${KEEL_DRIVERS_ARCHIVE} ${KEEL_LIBC})
endif()
get_property(keel_libraries GLOBAL PROPERTY KEEL_LIBRARIES)
foreach(lib IN LISTS keel_libraries)
  get_property(archive GLOBAL PROPERTY KEEL_LIB_${lib}_ARCHIVE)
  list(APPEND KEEL_OS_ARCHIVES ${archive})
endforeach()

# Every build brings the OS up to date first (a no-op when it is).
if(NOT TARGET keel_os)
  add_custom_target(keel_os
    COMMAND ${CMAKE_COMMAND} --build ${KEEL_OS_DIR}
    BYPRODUCTS ${KEEL_OS_ARCHIVES}
    COMMENT "Keel OS (${KEEL_PLATFORM}, ${CMAKE_BUILD_TYPE})"
    USES_TERMINAL)
endif()

# keel_link_libraries(TARGET lib...): links Keel libraries (lib/NAME) and
# the ones they depend on into the service TARGET.
function(keel_link_libraries target)
  set(todo ${ARGN})
  set(done)
  while(todo)
    list(POP_FRONT todo lib)
    if(lib IN_LIST done OR lib STREQUAL "net")
      continue()
    endif()
    get_property(archive GLOBAL PROPERTY KEEL_LIB_${lib}_ARCHIVE)
    if(NOT archive)
      get_property(known GLOBAL PROPERTY KEEL_LIBRARIES)
      message(FATAL_ERROR "keel_link_libraries(${target}): no Keel library '${lib}' (have: ${known})")
    endif()
    get_property(includes GLOBAL PROPERTY KEEL_LIB_${lib}_INCLUDE_DIRS)
    get_property(depends GLOBAL PROPERTY KEEL_LIB_${lib}_DEPENDS)
    get_property(prebuilt GLOBAL PROPERTY KEEL_LIB_${lib}_PREBUILT)
    set_property(TARGET ${target} APPEND PROPERTY KEEL_LIBRARY_ARCHIVES ${archive} ${prebuilt})
    set_property(TARGET ${target} APPEND PROPERTY KEEL_LIBRARY_INCLUDE_DIRS ${includes})
    list(APPEND done ${lib})
    list(APPEND todo ${depends})
  endwhile()
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/keel-${KEEL_PLATFORM}.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/keel-net-config.cmake)
