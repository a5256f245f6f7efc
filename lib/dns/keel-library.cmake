# lib/dns as a Keel library: compiled once per platform by the OS build, and
# in a service build:
#
#   keel_service(dns service.cpp ...)
#   keel_dns_zones(dns ${CMAKE_CURRENT_SOURCE_DIR}/zones)
#
# keel_dns_zones(TARGET FOLDER) links the library into TARGET and embeds the
# zones of FOLDER (every *.zone file; the file name is the zone name), checked
# and compiled at build time by keel-dns-compile (a host program built here),
# as the blob keel_dns_zones_blob .. keel_dns_zones_blob_end.
# -DKEEL_DNS_ZONES=FOLDER replaces FOLDER (tests and benchmarks).
include(${CMAKE_CURRENT_LIST_DIR}/sources.cmake)
# No exception cleanup tables, and in images no unwind tables (decision 0150):
# lib/dns catches nothing, and an exception through it (out of memory) ends
# in Keel's panic.
# TSIG's HMACs and its constant-time comparison are lib/crypto's and mbed TLS's.
# The DNSSEC code is linked only by images that may serve a signed zone
# (KEEL_DNS_DNSSEC_ON_DEMAND, answer/dnssec_support.hpp, decision 0141).
keel_library(dns SOURCES ${KEEL_DNS_RUNTIME_SOURCES} INCLUDE_DIRS ${KEEL_DNS_INCLUDE_DIRS}
             DEPENDS crypto COMPILE_OPTIONS ${KEEL_NO_UNWIND_FLAGS} -DKEEL_DNS_DNSSEC_ON_DEMAND=1)
# Code that runs once, at boot (decode the blob, check and build the catalog,
# pre-render the answers), is compiled for size: it is most of lib/dns's code
# and none of the answer path (docs/dns.md, "Size"); so are zone transfers,
# which are rare and bound by the client's reading. The host build keeps -O2.
if(KEEL_OS_BUILD)
  set_source_files_properties(${KEEL_DNS_LOAD_TIME_SOURCES} ${KEEL_DNS_COLD_SOURCES}
                              PROPERTIES COMPILE_OPTIONS -Os)
endif()

if(NOT KEEL_OS_BUILD)
  set(KEEL_DNS_ZONES "" CACHE PATH "Zone folder to compile into DNS images instead of the service's own")
endif()

function(keel_dns_zones target folder)
  if(KEEL_DNS_ZONES)
    set(folder ${KEEL_DNS_ZONES})
  endif()
  get_filename_component(folder "${folder}" ABSOLUTE)
  if(NOT TARGET keel_dns_compile)
    # A host program, whatever the service's platform: no Keel flags.
    # The server links TSIG's HMACs: lib/crypto and mbed TLS, built for the host here too.
    include(${KEEL_DNS_ROOT}/../crypto/sources.cmake)
    include(${KEEL_DNS_ROOT}/../mbedtls/sources.cmake)
    add_library(keel_dns_compile_mbedtls STATIC ${KEEL_MBEDTLS_SOURCES})
    target_include_directories(keel_dns_compile_mbedtls PUBLIC ${KEEL_MBEDTLS_INCLUDE_DIRS})
    target_compile_options(keel_dns_compile_mbedtls PRIVATE ${KEEL_MBEDTLS_COMPILE_OPTIONS})
    add_executable(keel_dns_compile ${KEEL_DNS_ROOT}/tool/compile_main.cpp ${KEEL_DNS_RUNTIME_SOURCES}
                   ${KEEL_DNS_ZONEFILE_SOURCES} ${KEEL_CRYPTO_SOURCES})
    target_include_directories(keel_dns_compile PRIVATE ${KEEL_DNS_INCLUDE_DIRS}
                               ${KEEL_DNS_ROOT}/../crypto/include)
    target_link_libraries(keel_dns_compile PRIVATE keel_dns_compile_mbedtls)
  endif()
  keel_link_libraries(${target} dns)

  file(GLOB zone_inputs CONFIGURE_DEPENDS ${folder}/*)
  set(blob ${CMAKE_CURRENT_BINARY_DIR}/${target}_zones.bin)
  # What the zones need linked (the DNSSEC code when one is signed), as
  # assembler lines naming it: decision 0141.
  set(links ${CMAKE_CURRENT_BINARY_DIR}/${target}_zones_links.s)
  add_custom_command(OUTPUT ${blob} ${links}
    COMMAND keel_dns_compile --out ${blob} --links ${links} ${folder}
    DEPENDS keel_dns_compile ${zone_inputs}
    COMMENT "Checking and compiling the zones in ${folder}")
  set(blob_asm ${CMAKE_CURRENT_BINARY_DIR}/${target}_zones.S)
  file(WRITE ${blob_asm}
    ".section .rodata.keel_dns_zones,\"a\"\n.global keel_dns_zones_blob\n.global keel_dns_zones_blob_end\n"
    ".p2align 3\nkeel_dns_zones_blob:\n.incbin \"${blob}\"\nkeel_dns_zones_blob_end:\n"
    ".include \"${links}\"\n"
    ".section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${blob_asm} PROPERTIES OBJECT_DEPENDS "${blob};${links}")
  keel_service_sources(${target} ${blob_asm})
endfunction()
