# mbed TLS 3.6 as a Keel library, the one mbed TLS of an image: lib/crypto (HMAC) and lib/tls
# depend on it. docs/decisions/0105.
include(${CMAKE_CURRENT_LIST_DIR}/sources.cmake)
keel_library(mbedtls SOURCES ${KEEL_MBEDTLS_SOURCES}
             INCLUDE_DIRS ${KEEL_MBEDTLS_INCLUDE_DIRS}
             COMPILE_OPTIONS ${KEEL_MBEDTLS_COMPILE_OPTIONS})
