# find_package(keel) for a service: keel_service(NAME SOURCES...) builds it
# for KEEL_PLATFORM: "kvm" (a bootable image, the default) or "linux" (a
# Linux executable). `tools/keel build DIR` sets these up.
cmake_minimum_required(VERSION 3.25)
enable_language(C CXX ASM)

get_filename_component(KEEL_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(KEEL_PLATFORM "kvm" CACHE STRING "kvm or linux")
set_property(CACHE KEEL_PLATFORM PROPERTY STRINGS kvm linux)
if(NOT KEEL_PLATFORM MATCHES "^(kvm|linux)$")
  message(FATAL_ERROR "KEEL_PLATFORM must be kvm or linux, not '${KEEL_PLATFORM}'")
endif()
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo)
endif()

include(${CMAKE_CURRENT_LIST_DIR}/keel-sources.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/keel-${KEEL_PLATFORM}.cmake)
