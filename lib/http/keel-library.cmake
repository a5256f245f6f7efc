# lib/http as a Keel library: keel_service(NAME ... LIBRARIES http): the
# parser, writer, router, JSON helpers and the server on net::TcpStream.
include(${CMAKE_CURRENT_LIST_DIR}/sources.cmake)
keel_library(http SOURCES ${KEEL_HTTP_SOURCES} ${KEEL_HTTP_SERVER_SOURCES} ${KEEL_HTTP_OS_SOURCES}
             INCLUDE_DIRS ${KEEL_HTTP_INCLUDE_DIRS})
# keel_static_files(TARGET FOLDER ...): a folder compiled into the service.
if(NOT KEEL_OS_BUILD)
  include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/keel-static-files.cmake)
endif()
