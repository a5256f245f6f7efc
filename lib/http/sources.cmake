# The sources of lib/http, for the OS build (keel-library.cmake) and the
# host build (CMakeLists.txt).
set(KEEL_HTTP_ROOT ${CMAKE_CURRENT_LIST_DIR})
set(KEEL_HTTP_SOURCES
  ${KEEL_HTTP_ROOT}/parser/request.cpp
  ${KEEL_HTTP_ROOT}/parser/parse_error.cpp
  ${KEEL_HTTP_ROOT}/parser/request_line.cpp
  ${KEEL_HTTP_ROOT}/parser/field_line.cpp
  ${KEEL_HTTP_ROOT}/parser/framing.cpp
  ${KEEL_HTTP_ROOT}/parser/chunk_line.cpp
  ${KEEL_HTTP_ROOT}/parser/request_parser.cpp
  ${KEEL_HTTP_ROOT}/response/status.cpp
  ${KEEL_HTTP_ROOT}/response/http_date.cpp
  ${KEEL_HTTP_ROOT}/response/output_buffer.cpp
  ${KEEL_HTTP_ROOT}/response/response_writer.cpp
  ${KEEL_HTTP_ROOT}/router/path.cpp
  ${KEEL_HTTP_ROOT}/router/router.cpp
  ${KEEL_HTTP_ROOT}/json/json.cpp
  ${KEEL_HTTP_ROOT}/static/http_date_parse.cpp
  ${KEEL_HTTP_ROOT}/static/preconditions.cpp
  ${KEEL_HTTP_ROOT}/static/ranges.cpp
  ${KEEL_HTTP_ROOT}/static/accept_encoding.cpp
  ${KEEL_HTTP_ROOT}/static/tree.cpp
  ${KEEL_HTTP_ROOT}/static/answer.cpp)
# The server on net::TcpStream (needs the network stack: keel_net on the
# host); os_time.cpp (the kernel's timers) and metrics.cpp (the image's
# metrics page) are for images and the Linux process only.
set(KEEL_HTTP_SERVER_SOURCES
  ${KEEL_HTTP_ROOT}/server/connection.cpp
  ${KEEL_HTTP_ROOT}/server/server.cpp
  ${KEEL_HTTP_ROOT}/server/plain_transport.cpp
  ${KEEL_HTTP_ROOT}/server/static_routes.cpp)
set(KEEL_HTTP_OS_SOURCES ${KEEL_HTTP_ROOT}/server/os_time.cpp ${KEEL_HTTP_ROOT}/server/metrics.cpp)
set(KEEL_HTTP_INCLUDE_DIRS ${KEEL_HTTP_ROOT}/include ${KEEL_HTTP_ROOT})
