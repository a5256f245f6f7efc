# A service as a Linux executable: the same kernel and stack on glibc, with
# the linux platform in place of arch/ and platform/kvm/.
if(NOT TARGET keel_os)
  add_library(keel_os STATIC ${KEEL_KERNEL_SOURCES} ${KEEL_LINUX_SOURCES} ${KEEL_NET_SOURCES}
              ${KEEL_NET_LINUX_SOURCES})
  target_include_directories(keel_os PUBLIC ${KEEL_INCLUDE_DIRS})
  target_compile_options(keel_os PRIVATE -Wall -Wextra -fno-omit-frame-pointer)
  target_compile_definitions(keel_os PUBLIC KEEL_PLATFORM_LINUX=1)
endif()

function(keel_service name)
  add_executable(${name} ${ARGN})
  # main() lives in the library: link it whole.
  target_link_libraries(${name} PRIVATE -Wl,--whole-archive keel_os -Wl,--no-whole-archive)
  target_include_directories(${name} PRIVATE ${KEEL_INCLUDE_DIRS})
  target_compile_definitions(${name} PRIVATE KEEL_PLATFORM_LINUX=1)
endfunction()
