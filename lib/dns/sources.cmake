# The sources of lib/dns, for the OS build (keel-library.cmake) and the
# host build (CMakeLists.txt).
set(KEEL_DNS_ROOT ${CMAKE_CURRENT_LIST_DIR})
set(KEEL_DNS_RUNTIME_SOURCES
  ${KEEL_DNS_ROOT}/wire/name.cpp
  ${KEEL_DNS_ROOT}/wire/rdata.cpp
  ${KEEL_DNS_ROOT}/wire/message.cpp
  ${KEEL_DNS_ROOT}/wire/writer.cpp
  ${KEEL_DNS_ROOT}/wire/dnssec_names.cpp
  ${KEEL_DNS_ROOT}/zone/zone_data.cpp
  ${KEEL_DNS_ROOT}/zone/canonical.cpp
  ${KEEL_DNS_ROOT}/zone/catalog.cpp
  ${KEEL_DNS_ROOT}/zone/catalog_builder.cpp
  ${KEEL_DNS_ROOT}/zone/dnssec_index.cpp
  ${KEEL_DNS_ROOT}/zone/dnssec_support.cpp
  ${KEEL_DNS_ROOT}/zone/blob.cpp
  ${KEEL_DNS_ROOT}/answer/query.cpp
  ${KEEL_DNS_ROOT}/answer/denial.cpp
  ${KEEL_DNS_ROOT}/answer/resolver.cpp
  ${KEEL_DNS_ROOT}/answer/render.cpp
  ${KEEL_DNS_ROOT}/answer/answer_cache.cpp
  ${KEEL_DNS_ROOT}/answer/answer_cache_build.cpp
  ${KEEL_DNS_ROOT}/answer/rate_limiter.cpp
  ${KEEL_DNS_ROOT}/answer/opt.cpp
  ${KEEL_DNS_ROOT}/answer/transfer.cpp
  ${KEEL_DNS_ROOT}/answer/tsig.cpp
  ${KEEL_DNS_ROOT}/answer/tsig_key.cpp
  ${KEEL_DNS_ROOT}/answer/server.cpp
  ${KEEL_DNS_ROOT}/secondary/secondary_zone.cpp
  ${KEEL_DNS_ROOT}/secondary/request.cpp
  ${KEEL_DNS_ROOT}/secondary/tsig_client.cpp
  ${KEEL_DNS_ROOT}/secondary/xfr_in.cpp
  ${KEEL_DNS_ROOT}/secondary/zone_swap.cpp
  ${KEEL_DNS_ROOT}/secondary/notify.cpp)
# Of those, the code that runs only at load time (compiled for size in images).
set(KEEL_DNS_LOAD_TIME_SOURCES
  ${KEEL_DNS_ROOT}/zone/zone_data.cpp
  ${KEEL_DNS_ROOT}/zone/canonical.cpp
  ${KEEL_DNS_ROOT}/zone/catalog_builder.cpp
  ${KEEL_DNS_ROOT}/zone/dnssec_index.cpp
  ${KEEL_DNS_ROOT}/zone/blob.cpp
  ${KEEL_DNS_ROOT}/answer/answer_cache_build.cpp)
# Of those, code off the answer path that runs rarely (zone transfers out and in, TSIG).
set(KEEL_DNS_COLD_SOURCES
  ${KEEL_DNS_ROOT}/answer/transfer.cpp
  ${KEEL_DNS_ROOT}/answer/tsig.cpp
  ${KEEL_DNS_ROOT}/answer/tsig_key.cpp
  ${KEEL_DNS_ROOT}/secondary/secondary_zone.cpp
  ${KEEL_DNS_ROOT}/secondary/request.cpp
  ${KEEL_DNS_ROOT}/secondary/tsig_client.cpp
  ${KEEL_DNS_ROOT}/secondary/xfr_in.cpp
  ${KEEL_DNS_ROOT}/secondary/zone_swap.cpp
  ${KEEL_DNS_ROOT}/secondary/notify.cpp)
# Zone files (host only: the compiler and the tests; images embed blobs).
set(KEEL_DNS_ZONEFILE_SOURCES
  ${KEEL_DNS_ROOT}/zonefile/lexer.cpp
  ${KEEL_DNS_ROOT}/zonefile/text_values.cpp
  ${KEEL_DNS_ROOT}/zonefile/rdata_text.cpp
  ${KEEL_DNS_ROOT}/zonefile/dnssec_text.cpp
  ${KEEL_DNS_ROOT}/zonefile/parser.cpp)
# src/ for util/ only (header-only helpers with no kernel dependency).
set(KEEL_DNS_INCLUDE_DIRS ${KEEL_DNS_ROOT}/include ${KEEL_DNS_ROOT} ${KEEL_DNS_ROOT}/../../src)
