# keel_net_config(TARGET FILE.json): embeds FILE.json as the target's network
# configuration (read when the stack is first built; see docs/net).
function(keel_net_config target json_file)
  get_filename_component(json_file "${json_file}" ABSOLUTE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_net_config.S)
  # The reference to keel_net_json_parser links the JSON reader in.
  file(WRITE ${out}
    ".section .data.rel.ro,\"aw\"\n.global keel_net_config_json\n.p2align 3\nkeel_net_config_json:\n.quad 1f\n"
    ".quad keel_net_json_parser\n"
    "1:\n.incbin \"${json_file}\"\n.byte 0\n.section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${out} PROPERTIES OBJECT_DEPENDS ${json_file})
  keel_service_sources(${target} ${out})
endfunction()
