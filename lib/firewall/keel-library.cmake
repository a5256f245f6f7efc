# The firewall's runtime (table loader and classifier) as a library for
# images: keel_service(NAME ... LIBRARIES firewall). The compiler and the
# language stay on the host (tools/keel-fw): an image loads compiled tables.
# The appliance (stateful/, appliance/) sits on the host stack's hooks.
file(GLOB keel_firewall_runtime_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/runtime/*.cpp
     ${CMAKE_CURRENT_LIST_DIR}/stateful/*.cpp ${CMAKE_CURRENT_LIST_DIR}/appliance/*.cpp)
keel_library(firewall
  SOURCES ${keel_firewall_runtime_sources}
  INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/include ${CMAKE_CURRENT_LIST_DIR}
  DEPENDS crypto  # the management port's HMAC-SHA-256 (rule_updates.hpp)
  # The lookup is the hot path (decision 0015: -O3 gave +11% over -O2).
  COMPILE_OPTIONS -O3)

# keel_firewall_rules(TARGET RULES.fw): compiles RULES.fw with the host's keel-fw when the
# service builds and embeds the tables in TARGET's image, where
# keel::firewall::embedded_rules() (keel/firewall/embedded_rules.hpp) finds them. List files the
# rules name are looked for beside RULES.fw and rebuild the image when they change. The tables
# fill whole pages of their own section (.keel_firewall_rules: linker.ld maps it read-only), in
# the layout the classifier uses in place (docs/decisions/0064).
function(keel_firewall_rules target rules_file)
  get_filename_component(rules_file "${rules_file}" ABSOLUTE)
  get_filename_component(rules_dir "${rules_file}" DIRECTORY)
  set(tool_dir ${KEEL_ROOT}/build/keel-fw-host)
  if(NOT EXISTS ${tool_dir}/CMakeCache.txt)
    execute_process(COMMAND ${CMAKE_COMMAND} -S ${KEEL_ROOT}/lib/firewall/host-tool -B ${tool_dir} -G Ninja
                            -DCMAKE_BUILD_TYPE=Release
                    RESULT_VARIABLE configured)
    if(NOT configured EQUAL 0)
      message(FATAL_ERROR "keel_firewall_rules: configuring the host keel-fw in ${tool_dir} failed")
    endif()
  endif()
  if(NOT TARGET keel_fw_host)
    add_custom_target(keel_fw_host COMMAND ${CMAKE_COMMAND} --build ${tool_dir}
                      BYPRODUCTS ${tool_dir}/keel-fw COMMENT "keel-fw (host)" USES_TERMINAL)
  endif()
  file(GLOB list_files CONFIGURE_DEPENDS ${rules_dir}/*.txt)
  set(blob ${CMAKE_CURRENT_BINARY_DIR}/${target}_rules.bin)
  add_custom_command(OUTPUT ${blob}
    COMMAND ${tool_dir}/keel-fw compile ${rules_file} -o ${blob}
    DEPENDS ${rules_file} ${list_files} keel_fw_host ${tool_dir}/keel-fw
    COMMENT "Firewall rules ${rules_file}")
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_rules.S)
  file(WRITE ${out}
    ".section .data.rel.ro,\"aw\"\n.global keel_firewall_rules_blob\n.global keel_firewall_rules_size\n"
    ".p2align 3\nkeel_firewall_rules_blob:\n.quad 1f\nkeel_firewall_rules_size:\n.quad 2f - 1f\n"
    ".section .keel_firewall_rules,\"a\"\n.p2align 12\n1:\n.incbin \"${blob}\"\n2:\n.balign 4096\n"
    ".section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${out} PROPERTIES OBJECT_DEPENDS ${blob})
  keel_service_sources(${target} ${out})
endfunction()
