# Language, platform and compiler flags shared by the OS build
# (cmake/os/CMakeLists.txt) and service builds (keel-config.cmake).
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

if(KEEL_PLATFORM STREQUAL "kvm")
  set(KEEL_PLATFORM_DEFINITION KEEL_PLATFORM_KVM=1)
  # Frame pointers everywhere: panics walk them for backtraces.
  # Stack-clash protection probes every page of a big frame, so the stack
  # guard catches overflows by frames larger than itself.
  set(KEEL_COMMON_FLAGS -fno-pic -fno-pie -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
      -ffunction-sections -fdata-sections -U_FORTIFY_SOURCE -fstack-clash-protection)
  # The kernel runs before TLS exists, so no stack-protector canary reads.
  set(KEEL_OS_FLAGS ${KEEL_COMMON_FLAGS} -fno-stack-protector -Wall -Wextra)
else()
  set(KEEL_PLATFORM_DEFINITION KEEL_PLATFORM_LINUX=1)
  set(KEEL_COMMON_FLAGS -fno-omit-frame-pointer)
  set(KEEL_OS_FLAGS ${KEEL_COMMON_FLAGS} -Wall -Wextra)
endif()
# For code that neither throws nor catches (lib/dns and examples/dns): no
# exception tables, and in images no unwind tables either (decision 0150). An
# exception from the C++ library through such code ends in Keel's panic,
# whose backtrace goes on through it by frame pointers. The Linux process
# keeps its unwind tables for gdb and the sanitizers.
if(KEEL_PLATFORM STREQUAL "kvm")
  set(KEEL_NO_UNWIND_FLAGS -fno-exceptions -fno-asynchronous-unwind-tables -fno-unwind-tables)
else()
  set(KEEL_NO_UNWIND_FLAGS -fno-exceptions)
endif()
# CI builds with -DKEEL_WERROR=ON: a warning fails the build.
option(KEEL_WERROR "Treat warnings as errors" OFF)
if(KEEL_WERROR)
  list(APPEND KEEL_OS_FLAGS -Werror)
endif()
