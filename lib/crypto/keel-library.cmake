# lib/crypto as a Keel library: keel_service(NAME ... LIBRARIES crypto), or through a library
# that depends on it (firewall). Its code is mbed TLS's (lib/mbedtls).
include(${CMAKE_CURRENT_LIST_DIR}/sources.cmake)
keel_library(crypto SOURCES ${KEEL_CRYPTO_SOURCES}
             INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/include
             DEPENDS mbedtls)
