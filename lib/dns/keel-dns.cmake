# The DNS library for services (included by a service's CMakeLists.txt after
# find_package(keel)):
#
#   include(${KEEL_ROOT}/lib/dns/keel-dns.cmake)
#   keel_service(dns service.cpp ...)
#   keel_dns_zones(dns ${CMAKE_CURRENT_SOURCE_DIR}/zones)
#
# keel_dns_zones(TARGET FOLDER) adds the answering library to TARGET and the
# zones of FOLDER (every *.zone file; the file name is the zone name),
# checked and compiled at build time by keel-dns-compile (a host program
# built here), as the blob keel_dns_zones_blob .. keel_dns_zones_blob_end.
# -DKEEL_DNS_ZONES=FOLDER replaces FOLDER (tests and benchmarks).
set(KEEL_DNS_ROOT ${CMAKE_CURRENT_LIST_DIR})
set(KEEL_DNS_RUNTIME_SOURCES
  ${KEEL_DNS_ROOT}/wire/name.cpp
  ${KEEL_DNS_ROOT}/wire/rdata.cpp
  ${KEEL_DNS_ROOT}/wire/message.cpp
  ${KEEL_DNS_ROOT}/wire/writer.cpp
  ${KEEL_DNS_ROOT}/zone/zone_data.cpp
  ${KEEL_DNS_ROOT}/zone/canonical.cpp
  ${KEEL_DNS_ROOT}/zone/catalog.cpp
  ${KEEL_DNS_ROOT}/zone/catalog_builder.cpp
  ${KEEL_DNS_ROOT}/zone/blob.cpp
  ${KEEL_DNS_ROOT}/answer/query.cpp
  ${KEEL_DNS_ROOT}/answer/resolver.cpp
  ${KEEL_DNS_ROOT}/answer/render.cpp
  ${KEEL_DNS_ROOT}/answer/answer_cache.cpp
  ${KEEL_DNS_ROOT}/answer/rate_limiter.cpp
  ${KEEL_DNS_ROOT}/answer/server.cpp)
# Zone files (host only: the compiler and the tests; images embed blobs).
set(KEEL_DNS_ZONEFILE_SOURCES
  ${KEEL_DNS_ROOT}/zonefile/lexer.cpp
  ${KEEL_DNS_ROOT}/zonefile/text_values.cpp
  ${KEEL_DNS_ROOT}/zonefile/rdata_text.cpp
  ${KEEL_DNS_ROOT}/zonefile/parser.cpp)
set(KEEL_DNS_INCLUDE_DIRS ${KEEL_DNS_ROOT}/include ${KEEL_DNS_ROOT})
set(KEEL_DNS_ZONES "" CACHE PATH "Zone folder to compile into DNS images instead of the service's own")

function(keel_dns_zones target folder)
  if(KEEL_DNS_ZONES)
    set(folder ${KEEL_DNS_ZONES})
  endif()
  get_filename_component(folder "${folder}" ABSOLUTE)
  if(NOT TARGET keel_dns_compile)
    add_executable(keel_dns_compile ${KEEL_DNS_ROOT}/tool/compile_main.cpp ${KEEL_DNS_RUNTIME_SOURCES}
                   ${KEEL_DNS_ZONEFILE_SOURCES})
    target_include_directories(keel_dns_compile PRIVATE ${KEEL_DNS_INCLUDE_DIRS})
    target_compile_options(keel_dns_compile PRIVATE -O2)
  endif()
  # A kvm image links its objects twice (see keel-kvm.cmake): code and data go
  # into the object library so both links see them.
  set(objects ${target})
  if(TARGET ${target}_objects)
    set(objects ${target}_objects)
  endif()
  target_sources(${objects} PRIVATE ${KEEL_DNS_RUNTIME_SOURCES})
  target_include_directories(${objects} PRIVATE ${KEEL_DNS_INCLUDE_DIRS})

  file(GLOB zone_inputs CONFIGURE_DEPENDS ${folder}/*)
  set(blob ${CMAKE_CURRENT_BINARY_DIR}/${target}_zones.bin)
  add_custom_command(OUTPUT ${blob}
    COMMAND keel_dns_compile --out ${blob} ${folder}
    DEPENDS keel_dns_compile ${zone_inputs}
    COMMENT "Checking and compiling the zones in ${folder}")
  set(blob_asm ${CMAKE_CURRENT_BINARY_DIR}/${target}_zones.S)
  file(WRITE ${blob_asm}
    ".section .rodata.keel_dns_zones,\"a\"\n.global keel_dns_zones_blob\n.global keel_dns_zones_blob_end\n"
    ".p2align 3\nkeel_dns_zones_blob:\n.incbin \"${blob}\"\nkeel_dns_zones_blob_end:\n"
    ".section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${blob_asm} PROPERTIES OBJECT_DEPENDS ${blob})
  enable_language(ASM)
  target_sources(${objects} PRIVATE ${blob_asm})
endfunction()
