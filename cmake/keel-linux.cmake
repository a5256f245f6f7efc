# A service as a Linux executable: the same kernel and stack on glibc, with
# the linux platform in place of arch/ and platform/kvm/.
function(keel_service name)
  cmake_parse_arguments(S "" "" "LIBRARIES" ${ARGN})
  add_executable(${name} ${S_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PRIVATE ${KEEL_INCLUDE_DIRS}
    $<TARGET_PROPERTY:${name},KEEL_LIBRARY_INCLUDE_DIRS>)
  target_compile_options(${name} PRIVATE ${KEEL_COMMON_FLAGS})
  target_compile_definitions(${name} PRIVATE ${KEEL_PLATFORM_DEFINITION})
  add_dependencies(${name} keel_os)
  # main() lives in the kernel archive: link it whole.
  target_link_libraries(${name} PRIVATE -Wl,--whole-archive ${KEEL_KERNEL_ARCHIVE}
    -Wl,--no-whole-archive -Wl,--start-group "$<TARGET_PROPERTY:${name},KEEL_LIBRARY_ARCHIVES>"
    ${KEEL_NET_ARCHIVE} -Wl,--end-group
    # Panics name their frames with GCC's libbacktrace (src/platform/linux/symbols.cpp).
    backtrace)
  set_target_properties(${name} PROPERTIES LINK_DEPENDS "${KEEL_OS_ARCHIVES}")
  if(S_LIBRARIES)
    keel_link_libraries(${name} ${S_LIBRARIES})
  endif()
endfunction()

function(keel_service_sources name)
  target_sources(${name} PRIVATE ${ARGN})
endfunction()
