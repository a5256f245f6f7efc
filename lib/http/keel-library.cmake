# lib/http as a Keel library: keel_service(NAME ... LIBRARIES http). It has no
# kernel dependency; the server on net::TcpStream will come on top of it.
include(${CMAKE_CURRENT_LIST_DIR}/sources.cmake)
keel_library(http SOURCES ${KEEL_HTTP_SOURCES} INCLUDE_DIRS ${KEEL_HTTP_INCLUDE_DIRS})
