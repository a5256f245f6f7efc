# mbed TLS 3.6 LTS compiled from Debian 13's source package (docs/decisions/0105) with Keel's
# flags and config (config/mbedtls/mbedtls_config.h), for images (keel-library.cmake) and the
# host build (CMakeLists.txt). `tools/keel setup` unpacks the source into KEEL_MBEDTLS_DIR
# (`apt-get source mbedtls/trixie`); the build itself needs no network.
set(KEEL_MBEDTLS_DIR /usr/local/src/keel/mbedtls CACHE PATH
    "mbed TLS 3.6 source tree (Debian 13's source package, unpacked by tools/keel setup)")
set(keel_mbedtls_build_info ${KEEL_MBEDTLS_DIR}/include/mbedtls/build_info.h)
if(NOT EXISTS ${keel_mbedtls_build_info})
  message(FATAL_ERROR "mbed TLS 3.6's source is missing in ${KEEL_MBEDTLS_DIR}: run tools/keel setup")
endif()
file(STRINGS ${keel_mbedtls_build_info} keel_mbedtls_version REGEX "define MBEDTLS_VERSION_NUMBER ")
if(NOT keel_mbedtls_version MATCHES "0x0306")
  message(FATAL_ERROR "${KEEL_MBEDTLS_DIR} is not mbed TLS 3.6 (${keel_mbedtls_version}): run tools/keel setup")
endif()
# Every module: the config leaves those Keel does not use empty, and the linker takes from the
# archive only what a service calls.
file(GLOB KEEL_MBEDTLS_SOURCES ${KEEL_MBEDTLS_DIR}/library/*.c)
# X25519 from Project Everest (HACL*, verified; shipped in mbed TLS's 3rdparty/): the ECDH of
# a TLS 1.3 handshake, several times faster than the generic curve code (decision 0105).
set(keel_everest ${KEEL_MBEDTLS_DIR}/3rdparty/everest)
list(APPEND KEEL_MBEDTLS_SOURCES ${keel_everest}/library/everest.c ${keel_everest}/library/x25519.c
     ${keel_everest}/library/Hacl_Curve25519_joined.c ${CMAKE_CURRENT_LIST_DIR}/random.c
     ${CMAKE_CURRENT_LIST_DIR}/x25519_public.c)
# An X25519 key's public half also by Everest: x25519_public.c takes the name of mbed TLS's
# export function and hands every other key to it under this one (for this file only).
set_source_files_properties(${KEEL_MBEDTLS_DIR}/library/psa_crypto_ecp.c PROPERTIES COMPILE_DEFINITIONS
    mbedtls_psa_ecp_export_public_key=mbedtls_psa_ecp_export_public_key_builtin)
# Keel's config folder first: it shadows the upstream mbedtls/mbedtls_config.h.
set(KEEL_MBEDTLS_INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/config ${KEEL_MBEDTLS_DIR}/include
    ${keel_everest}/include)
# Private to the compile of mbed TLS itself (its library/*.h, Everest's own headers);
# third-party code keeps its own warnings out of Keel's -Werror.
set(KEEL_MBEDTLS_COMPILE_OPTIONS -I${KEEL_MBEDTLS_DIR}/library -I${keel_everest}/include/everest
    -I${keel_everest}/include/everest/kremlib -w)
