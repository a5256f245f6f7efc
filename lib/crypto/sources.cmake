# What lib/crypto is made of, for the host build (CMakeLists.txt) and images
# (keel-library.cmake). Its hashes and MACs are mbed TLS 3.6's, compiled by lib/mbedtls
# (docs/decisions/0105; 0052 chose mbed TLS for the rule-update channel).
set(KEEL_CRYPTO_SOURCES ${CMAKE_CURRENT_LIST_DIR}/hmac_sha256.cpp)
