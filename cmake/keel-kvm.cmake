# A service as a bootable image: one static ELF with a PVH note, linked with
# musl's libc.a and GCC's libstdc++.a (see docs/decisions/0001-toolchain.md).
set(KEEL_MUSL_DIR /usr/lib/x86_64-linux-musl)
find_program(KEEL_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(KEEL_PYTHON python3 REQUIRED)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.a
                OUTPUT_VARIABLE KEEL_LIBSTDCXX OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-libgcc-file-name
                OUTPUT_VARIABLE KEEL_LIBGCC OUTPUT_STRIP_TRAILING_WHITESPACE)
get_filename_component(KEEL_GCC_DIR ${KEEL_LIBGCC} DIRECTORY)

set(KEEL_LINKER_SCRIPT ${KEEL_ROOT}/src/arch/x86_64/linker.ld)
set(KEEL_LINK_FLAGS -nostdlib -static -no-pie -Wl,-T,${KEEL_LINKER_SCRIPT} -Wl,--eh-frame-hdr
    -Wl,--gc-sections -Wl,-z,max-page-size=4096 -Wl,--build-id=none)

# keel_service(NAME SOURCE... [LIBRARIES lib...]): builds NAME, the image, in
# two links. The first has no symbol table; keel-symbols reads it and the
# second link adds the table after .bss, where it moves no other address.
function(keel_service name)
  cmake_parse_arguments(S "" "" "LIBRARIES" ${ARGN})
  add_library(${name}_objects OBJECT ${S_UNPARSED_ARGUMENTS})
  target_include_directories(${name}_objects PRIVATE ${KEEL_INCLUDE_DIRS}
    $<TARGET_PROPERTY:${name},KEEL_LIBRARY_INCLUDE_DIRS>)
  target_compile_options(${name}_objects PRIVATE ${KEEL_COMMON_FLAGS})
  target_compile_definitions(${name}_objects PRIVATE ${KEEL_PLATFORM_DEFINITION})
  add_dependencies(${name}_objects keel_os)
  # One group: the OS, the service's libraries and the C/C++ runtime refer
  # to each other. The kernel archive is linked whole (its entry point and
  # start-up code are not referenced from the service).
  set(libraries -Wl,--start-group -Wl,--whole-archive ${KEEL_KERNEL_ARCHIVE}
      -Wl,--no-whole-archive "$<TARGET_PROPERTY:${name},KEEL_LIBRARY_ARCHIVES>"
      ${KEEL_NET_ARCHIVE} ${KEEL_DRIVERS_ARCHIVE} ${KEEL_LIBSTDCXX} ${KEEL_MUSL_DIR}/libm.a
      ${KEEL_LIBC} ${KEEL_LIBGCC} ${KEEL_GCC_DIR}/libgcc_eh.a -Wl,--end-group)
  set(link_depends "${KEEL_LINKER_SCRIPT};${KEEL_OS_ARCHIVES}")

  add_executable(${name}.stage1 $<TARGET_OBJECTS:${name}_objects>)
  target_link_options(${name}.stage1 PRIVATE ${KEEL_LINK_FLAGS})
  target_link_libraries(${name}.stage1 PRIVATE ${libraries})
  set_target_properties(${name}.stage1 PROPERTIES LINK_DEPENDS "${link_depends}")

  set(table ${CMAKE_CURRENT_BINARY_DIR}/${name}.symbols.bin)
  set(table_asm ${CMAKE_CURRENT_BINARY_DIR}/${name}.symbols.S)
  add_custom_command(OUTPUT ${table}
    COMMAND ${KEEL_PYTHON} ${KEEL_ROOT}/tools/keel-symbols $<TARGET_FILE:${name}.stage1> ${table}
    DEPENDS ${name}.stage1 ${KEEL_ROOT}/tools/keel-symbols
    COMMENT "Symbol table for ${name}")
  file(WRITE ${table_asm}
    ".section .keel_symbols, \"a\", @progbits\n.incbin \"${table}\"\n.section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${table_asm} PROPERTIES OBJECT_DEPENDS ${table})

  add_executable(${name} $<TARGET_OBJECTS:${name}_objects> ${table_asm})
  target_link_options(${name} PRIVATE ${KEEL_LINK_FLAGS})
  target_link_libraries(${name} PRIVATE ${libraries})
  set_target_properties(${name} PROPERTIES LINK_DEPENDS "${link_depends}")
  if(S_LIBRARIES)
    keel_link_libraries(${name} ${S_LIBRARIES})
  endif()
endfunction()

# keel_service_sources(NAME SOURCE...): more sources for service NAME (for
# CMake helpers such as keel_net_config).
function(keel_service_sources name)
  target_sources(${name}_objects PRIVATE ${ARGN})
endfunction()
