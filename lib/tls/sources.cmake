# The sources of lib/tls, for the OS build (keel-library.cmake) and the host build
# (CMakeLists.txt). os_context.cpp asks the kernel whether the generator is seeded: images
# and the Linux process only.
set(KEEL_TLS_ROOT ${CMAKE_CURRENT_LIST_DIR})
set(KEEL_TLS_SOURCES ${KEEL_TLS_ROOT}/server/context.cpp ${KEEL_TLS_ROOT}/server/transport.cpp
                     ${KEEL_TLS_ROOT}/server/client_hello.cpp ${KEEL_TLS_ROOT}/server/aes_hardware.cpp
                     ${KEEL_TLS_ROOT}/server/handshake_turns.cpp)
set(KEEL_TLS_OS_SOURCES ${KEEL_TLS_ROOT}/server/os_context.cpp)
set(KEEL_TLS_INCLUDE_DIRS ${KEEL_TLS_ROOT}/include)
