# A service as a bootable image: one static ELF with a PVH note, linked with
# musl's libc.a and GCC's libstdc++.a (see docs/decisions/0001-toolchain.md).
find_program(KEEL_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(KEEL_PYTHON python3 REQUIRED)
set(KEEL_MUSL_DIR /usr/lib/x86_64-linux-musl)
if(NOT EXISTS ${KEEL_MUSL_DIR}/libc.a)
  message(FATAL_ERROR "musl's libc.a is missing: apt-get install musl-dev (or run tools/keel setup)")
endif()
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.a
                OUTPUT_VARIABLE KEEL_LIBSTDCXX OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-libgcc-file-name
                OUTPUT_VARIABLE KEEL_LIBGCC OUTPUT_STRIP_TRAILING_WHITESPACE)
get_filename_component(KEEL_GCC_DIR ${KEEL_LIBGCC} DIRECTORY)

set(KEEL_LINKER_SCRIPT ${KEEL_ROOT}/src/arch/x86_64/linker.ld)
# Frame pointers everywhere: panics walk them for backtraces.
# Stack-clash protection probes every page of a big frame, so the stack
# guard catches overflows by frames larger than itself.
set(KEEL_COMMON_FLAGS -fno-pic -fno-pie -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
    -ffunction-sections -fdata-sections -U_FORTIFY_SOURCE -fstack-clash-protection)
# The kernel runs before TLS exists, so no stack-protector canary reads.
set(KEEL_OS_FLAGS ${KEEL_COMMON_FLAGS} -fno-stack-protector -Wall -Wextra)
set(KEEL_LINK_FLAGS -nostdlib -static -no-pie -Wl,-T,${KEEL_LINKER_SCRIPT} -Wl,--eh-frame-hdr
    -Wl,--gc-sections -Wl,-z,max-page-size=4096 -Wl,--build-id=none)
# musl's libc.a with its crash hlts turned into int3 traps (tools/keel-crash-traps,
# docs/decisions/0005): in ring 0 a hlt would only wait for an interrupt.
set(KEEL_LIBC ${CMAKE_BINARY_DIR}/keel-runtime/libc.a)
set(KEEL_RUNTIME_LIBS -Wl,--start-group ${KEEL_LIBSTDCXX} ${KEEL_MUSL_DIR}/libm.a
    ${KEEL_LIBC} ${KEEL_LIBGCC} ${KEEL_GCC_DIR}/libgcc_eh.a -Wl,--end-group)

if(NOT TARGET keel_os)
  add_custom_command(OUTPUT ${KEEL_LIBC}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/keel-runtime
    COMMAND ${KEEL_PYTHON} ${KEEL_ROOT}/tools/keel-crash-traps ${KEEL_MUSL_DIR}/libc.a ${KEEL_LIBC}
    DEPENDS ${KEEL_MUSL_DIR}/libc.a ${KEEL_ROOT}/tools/keel-crash-traps
    COMMENT "musl's libc.a with crash traps")
  add_custom_target(keel_libc DEPENDS ${KEEL_LIBC})
  add_library(keel_os OBJECT ${KEEL_KERNEL_SOURCES} ${KEEL_KVM_SOURCES} ${KEEL_NET_SOURCES}
              ${KEEL_NET_KVM_SOURCES})
  target_include_directories(keel_os PUBLIC ${KEEL_INCLUDE_DIRS})
  target_compile_options(keel_os PRIVATE ${KEEL_OS_FLAGS})
  target_compile_definitions(keel_os PUBLIC KEEL_PLATFORM_KVM=1)
  # See the note on set_entry() in paging.cpp.
  set_source_files_properties(${KEEL_ROOT}/src/arch/x86_64/paging.cpp
    TARGET_DIRECTORY keel_os PROPERTIES COMPILE_OPTIONS -mgeneral-regs-only)
endif()

# keel_service(NAME SOURCE...): builds NAME, the image, in two links. The
# first has no symbol table; keel-symbols reads it and the second link adds
# the table after .bss, where it moves no other address.
function(keel_service name)
  add_library(${name}_objects OBJECT ${ARGN})
  target_link_libraries(${name}_objects PUBLIC keel_os)
  target_compile_options(${name}_objects PRIVATE ${KEEL_COMMON_FLAGS})
  set(objects $<TARGET_OBJECTS:keel_os> $<TARGET_OBJECTS:${name}_objects>)

  add_executable(${name}.stage1 ${objects})
  target_link_options(${name}.stage1 PRIVATE ${KEEL_LINK_FLAGS})
  target_link_libraries(${name}.stage1 PRIVATE ${KEEL_RUNTIME_LIBS})
  set_target_properties(${name}.stage1 PROPERTIES LINK_DEPENDS "${KEEL_LINKER_SCRIPT};${KEEL_LIBC}")
  add_dependencies(${name}.stage1 keel_libc)

  set(table ${CMAKE_CURRENT_BINARY_DIR}/${name}.symbols.bin)
  set(table_asm ${CMAKE_CURRENT_BINARY_DIR}/${name}.symbols.S)
  add_custom_command(OUTPUT ${table}
    COMMAND ${KEEL_PYTHON} ${KEEL_ROOT}/tools/keel-symbols $<TARGET_FILE:${name}.stage1> ${table}
    DEPENDS ${name}.stage1 ${KEEL_ROOT}/tools/keel-symbols
    COMMENT "Symbol table for ${name}")
  file(WRITE ${table_asm}
    ".section .keel_symbols, \"a\", @progbits\n.incbin \"${table}\"\n.section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${table_asm} PROPERTIES OBJECT_DEPENDS ${table})

  add_executable(${name} ${objects} ${table_asm})
  target_link_options(${name} PRIVATE ${KEEL_LINK_FLAGS})
  target_link_libraries(${name} PRIVATE ${KEEL_RUNTIME_LIBS})
  set_target_properties(${name} PROPERTIES LINK_DEPENDS "${KEEL_LINKER_SCRIPT};${KEEL_LIBC}")
endfunction()
