# What lib/crypto is made of, for the host build (CMakeLists.txt) and images
# (keel-library.cmake). mbed TLS's archive is Debian's (libmbedtls-dev), linked as it is into
# both: docs/decisions/0052 says why that is sound in the freestanding image.
set(KEEL_CRYPTO_SOURCES ${CMAKE_CURRENT_LIST_DIR}/hmac_sha256.cpp ${CMAKE_CURRENT_LIST_DIR}/glibc_fortify.cpp)
find_library(KEEL_MBEDCRYPTO_ARCHIVE libmbedcrypto.a PATHS /usr/lib/x86_64-linux-gnu NO_DEFAULT_PATH)
if(NOT KEEL_MBEDCRYPTO_ARCHIVE)
  message(FATAL_ERROR "mbed TLS's libmbedcrypto.a is missing: apt-get install libmbedtls-dev (or run tools/keel setup)")
endif()
set(KEEL_CRYPTO_ARCHIVES ${KEEL_MBEDCRYPTO_ARCHIVE})
