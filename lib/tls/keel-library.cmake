# lib/tls as a Keel library: keel_service(NAME ... LIBRARIES tls http): HTTPS for lib/http's
# server on mbed TLS 3.6 (lib/mbedtls). docs/http.md ("HTTPS"), docs/decisions/0105.
include(${CMAKE_CURRENT_LIST_DIR}/sources.cmake)
keel_library(tls SOURCES ${KEEL_TLS_SOURCES} ${KEEL_TLS_OS_SOURCES}
             INCLUDE_DIRS ${KEEL_TLS_INCLUDE_DIRS}
             DEPENDS http mbedtls)

# keel_tls_credentials(TARGET CERT KEY): the certificate chain and private key files (PEM or
# DER) embedded in TARGET's image, where keel::tls::embedded_credentials()
# (keel/tls/embedded.hpp) finds them. Each gets a NUL after it (mbed TLS parses PEM from a
# C string); the sizes do not count it.
function(keel_tls_credentials target cert key)
  get_filename_component(cert "${cert}" ABSOLUTE)
  get_filename_component(key "${key}" ABSOLUTE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_tls_credentials.S)
  file(WRITE ${out}
    ".section .data.rel.ro,\"aw\"\n.p2align 3\n"
    ".global keel_tls_certificate\nkeel_tls_certificate:\n.quad 1f\n.quad 2f - 1f\n"
    ".global keel_tls_private_key\nkeel_tls_private_key:\n.quad 3f\n.quad 4f - 3f\n"
    ".section .rodata.keel_tls_credentials,\"a\"\n"
    "1:\n.incbin \"${cert}\"\n2:\n.byte 0\n3:\n.incbin \"${key}\"\n4:\n.byte 0\n"
    ".section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${out} PROPERTIES OBJECT_DEPENDS "${cert};${key}")
  keel_service_sources(${target} ${out})
endfunction()
